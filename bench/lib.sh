# bench/lib.sh: shared by bench/bench.sh, bench/txn-bench.sh and
# bench/scan-bench.sh (sourced, after ROOT and OUT are set).

section() { printf '\n== %s\n' "$*"; }

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
    go build -o "$OUT/hindsight" ./cmd/hindsight
    HS="$OUT/hindsight"
  fi
  echo "hindsight: $HS ($("$HS" --version))"
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
# OUT/LABEL.stderr, sets WALL (s), RSS_KB (empty without GNU time) and
# STATUS.
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
  RSS_KB=""
  if [[ -n "$TIME_BIN" && -s "$tfile" ]]; then
    RSS_KB=$(awk -F: '/Maximum resident set size/ { gsub(/ /, "", $2); print $2 }' "$tfile")
  fi
}
