# bench/lib.sh: shared by bench/bench.sh, bench/txn-bench.sh and
# bench/scan-bench.sh (sourced, after ROOT and OUT are set).

section() { printf '\n== %s\n' "$*"; }

# machine_line: cores, memory, load, and the transparent huge page mode,
# which moves these figures a lot: hindsight's heap gets 4 KiB pages
# unless the mode is "always" (the Go runtime does not ask for huge
# pages), and on this project's virtual machine a page fault costs about
# 10 microseconds, a quarter of a check's CPU; under "always" the abort
# check of bench.sh took 1.0 s instead of 1.6 s, and 1M list-append txns
# 2.05 s instead of 2.35 s (2026-12-03, two alternating runs of each mode).
machine_line() {
  local thp=unknown
  [[ -r /sys/kernel/mm/transparent_hugepage/enabled ]] &&
    thp="$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/enabled)"
  echo "machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GB", $2 / 1e6 }' /proc/meminfo), transparent huge pages: $thp; load: $(cut -d' ' -f1-3 /proc/loadavg)"
}

# pages_line STDERR: what the check whose standard error is in STDERR
# found about huge pages (HINDSIGHT_PHASES prints it as a "note:" line,
# whatever the answer, for every file of 8 MB or more, as the benches'
# are; internal/hugepage probes, on some machines, which page size is
# cheaper, and the answer moves a check's time by a third on this
# project's).
pages_line() {
  local note
  note=$(sed -n 's/^note: huge pages: //p' "$1" 2>/dev/null | head -1)
  printf '  %-22s %s\n' "huge pages" "${note:-unknown (no note in $1: a hindsight older than the probe?)}"
}

# build_binaries: makes OUT, goes to ROOT, and builds
# cmd/histgen into OUT, and cmd/hindsight too unless HINDSIGHT names the
# binary to measure; sets HS to the hindsight measured.
build_binaries() {
  mkdir -p "$OUT"
  cd "$ROOT"
  section "build"
  go build -o "$OUT/histgen" ./cmd/histgen
  HS="${HINDSIGHT:-}"
  if [[ -z "$HS" ]]; then
    # the HTML report refuses to run without the embedded ECharts, and a
    # fresh clone has none: fetch it first, so the report rounds measure a
    # report, not an exit status 3
    scripts/assets.sh --if-missing >/dev/null || echo "note: scripts/assets.sh failed; hindsight report will refuse to run"
    go build -o "$OUT/hindsight" ./cmd/hindsight
    HS="$OUT/hindsight"
  fi
  echo "hindsight: $HS ($("$HS" --version))"
}

# build_for_timing: build_binaries, then the bare tokenizer pass that
# checks are timed against, the machine line, and GEN_SRC, a digest of the
# generator's source that names the cached histories (a changed generator
# makes them afresh).
build_for_timing() {
  build_binaries
  go build -o "$OUT/tokenpass" ./bench/tokenpass
  machine_line
  GEN_SRC="$(find gen cmd/histgen -name '*.go' ! -name '*_test.go' | sort | xargs cat | sha256sum | cut -c1-10)"
}

# GNU time gives the peak RSS; install it when we can, else fall back to
# wall time only.
TIME_BIN=""
if [[ -x /usr/bin/time ]] && /usr/bin/time -v true >/dev/null 2>&1; then
  TIME_BIN=/usr/bin/time
elif [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null; then
  echo "installing GNU time (Debian package 'time')..."
  if { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time; } >/dev/null 2>&1; then
    TIME_BIN=/usr/bin/time
  fi
fi
[[ -n "$TIME_BIN" ]] || echo "note: GNU time unavailable; wall time only, no RSS"

# timed LABEL OUTFILE CMD...: runs CMD with stdout to OUTFILE and stderr to
# OUT/LABEL.stderr, sets WALL (s), RSS_KB, FAULTS (minor page faults) and
# SYS (system CPU, s) (these three empty without GNU time) and STATUS.
timed() {
  local label="$1" outfile="$2"; shift 2
  local tfile="$OUT/$label.time"
  local start end
  start=$(date +%s.%N)
  set +e
  if [[ -n "$TIME_BIN" ]]; then
    "$TIME_BIN" -v -o "$tfile" "$@" >"$outfile" 2>"$OUT/$label.stderr"
  else
    "$@" >"$outfile" 2>"$OUT/$label.stderr"
  fi
  STATUS=$?
  set -e
  end=$(date +%s.%N)
  WALL=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", e - s }')
  RSS_KB="" FAULTS="" SYS=""
  if [[ -n "$TIME_BIN" && -s "$tfile" ]]; then
    RSS_KB=$(awk -F: '/Maximum resident set size/ { gsub(/ /, "", $2); print $2 }' "$tfile")
    FAULTS=$(awk -F: '/Minor \(reclaiming a frame\) page faults/ { gsub(/ /, "", $2); print $2 }' "$tfile")
    SYS=$(awk -F': ' '/System time/ { print $2 }' "$tfile")
  fi
}
