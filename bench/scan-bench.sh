#!/usr/bin/env bash
# bench/scan-bench.sh: time `hindsight scan` over a generated archive.
#
#   bench/scan-bench.sh [--histories N] [--max-ops N] [--seed S] [-j N]
#                       [--rounds R] [--archive-only]
#
# Generates N histories (default 1000) with cmd/histgen into
# bench/out/scan-archive: sizes log-uniform from 200 to --max-ops op lines
# (default 100,000), about 70% in Jepsen store folders (store/TEST/TIME/
# history.edn) and 30% loose (.edn, .json, .jsonl); 30% gzipped, 10% zstd;
# a quarter with injected faults (invalid); and 2% corrupted after the fact,
# half truncated at 60% of their bytes, half with 256 bytes garbled at 40%.
# The archive is cached by its parameters and the generator's source. Then
# builds hindsight into bench/out/scan/ and times, with GNU time,
#   hindsight scan --rescan -o bench/out/scan/results bench/out/scan-archive
# (--rescan: every history is checked, none taken from the cache), then the
# same scan again without --rescan (all from the cache). Prints histories/s,
# MB/s (on disk, and uncompressed) and the peak RSS of each run.
#
# Then the archive comparison: the same folder packed with tar and gzip into
# bench/out/scan-archive.tar.gz (cached like the folder), and R rounds
# (--rounds, default 3) that each time `hindsight scan --rescan` of the
# loose folder and of the .tar.gz back to back, alternating which goes
# first; prints every run, the median of each, their ratio (the archive
# must stay within 1.3x the loose time) and the load average before and
# after. --archive-only skips the two single runs above.
# HINDSIGHT=/path/to/binary skips building cmd/hindsight.
#
# --large-member TXNS does only this instead: one list-append history of TXNS
# transactions (histgen --workload list-append --txns TXNS, cached like the
# archive; 1,000,000 make 284 MB), packed alone in a .tar and a .tar.gz, and R
# rounds that each time `hindsight scan --rescan` of the loose file, the tar
# and the tarball, printing wall time, peak RSS and RSS / the history's size:
# an archive member of 64 MiB or more stored without compression is read
# twice and checked from the stream, never copied, so the three should take
# about the same memory.
set -euo pipefail

N=1000
MAX_OPS=100000
SEED=1
JOBS=""
ROUNDS=3
ARCHIVE_ONLY=""
LARGE=""

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --histories) N="$2"; shift 2 ;;
    --histories=*) N="${1#*=}"; shift ;;
    --max-ops) MAX_OPS="$2"; shift 2 ;;
    --max-ops=*) MAX_OPS="${1#*=}"; shift ;;
    --seed) SEED="$2"; shift 2 ;;
    --seed=*) SEED="${1#*=}"; shift ;;
    -j) JOBS="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --rounds=*) ROUNDS="${1#*=}"; shift ;;
    --archive-only) ARCHIVE_ONLY=1; shift ;;
    --large-member) LARGE="$2"; shift 2 ;;
    --large-member=*) LARGE="${1#*=}"; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "scan-bench.sh: unknown argument: $1" >&2; usage >&2; exit 2 ;;
  esac
done
for v in "$N" "$MAX_OPS" "$SEED" "$ROUNDS" ${JOBS:+"$JOBS"} ${LARGE:+"$LARGE"}; do
  [[ "$v" =~ ^[0-9]+$ ]] || { echo "scan-bench.sh: not a number: $v" >&2; exit 2; }
done
(( MAX_OPS >= 200 )) || { echo "scan-bench.sh: --max-ops must be at least 200" >&2; exit 2; }

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$ROOT/bench/out/scan"
ARCHIVE="$ROOT/bench/out/scan-archive"
mkdir -p "$OUT"
cd "$ROOT"

# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"

# ---------------------------------------------------------------- build

section "build"
go build -o "$OUT/histgen" ./cmd/histgen
echo "built $OUT/histgen"
if [[ -n "${HINDSIGHT:-}" ]]; then
  HS="$HINDSIGHT"
  echo "using HINDSIGHT=$HS"
else
  go build -o "$OUT/hindsight" ./cmd/hindsight
  HS="$OUT/hindsight"
  echo "built $HS"
fi

# ---------------------------------------------------------------- large member

# large_member TXNS: the loose history, its .tar and its .tar.gz, side by side.
large_member() {
  local txns="$1" src dir hist
  src="$(find gen cmd/histgen -name '*.go' ! -name '*_test.go' | sort | xargs cat | sha256sum | cut -c1-10)"
  dir="$ROOT/bench/out/scan-large-$txns-s$SEED-$src"
  hist="$dir/history.edn"
  section "one list-append history of $(printf "%'d" "$txns") txns, loose and packed"
  if [[ ! -f "$dir/history.tar.gz" ]]; then
    rm -rf "$ROOT/bench/out/scan-large-$txns-s$SEED-"*
    mkdir -p "$dir"
    "$OUT/histgen" -q --workload list-append --seed "$SEED" --txns "$txns" -o "$hist.tmp"
    mv "$hist.tmp" "$hist"
    tar -C "$dir" -cf "$dir/history.tar.tmp" history.edn
    mv "$dir/history.tar.tmp" "$dir/history.tar"
    gzip -1 -c "$dir/history.tar" >"$dir/history.tar.gz.tmp"
    mv "$dir/history.tar.gz.tmp" "$dir/history.tar.gz"
  fi
  local size
  size=$(stat -c %s "$hist")
  awk -v s="$size" -v g="$(stat -c %s "$dir/history.tar.gz")" 'BEGIN { printf "  history.edn %.1f MB; history.tar.gz %.1f MB\n", s / 1e6, g / 1e6 }'
  echo "  load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  local r kind
  for ((r = 1; r <= ROUNDS; r++)); do
    for kind in history.edn history.tar history.tar.gz; do
      timed "large-$r-$kind" "$OUT/large-$r-$kind.out" "$HS" scan -o "$OUT/results-large-$kind" ${JOBS:+-j "$JOBS"} --rescan "$dir/$kind"
      printf '  round %d %-15s %7.3f s wall  peak RSS %s MB (%s x the history)  exit %s\n' "$r" "$kind" "$WALL" \
        "$([[ -n "$RSS_KB" ]] && echo $((RSS_KB / 1024)) || echo '?')" \
        "$([[ -n "$RSS_KB" ]] && awk -v r="$RSS_KB" -v s="$size" 'BEGIN { printf "%.2f", r * 1024 / s }' || echo '?')" "$STATUS"
    done
  done
  echo "  load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
  for kind in history.edn history.tar history.tar.gz; do
    printf '  %-15s | %s\n' "$kind" "$(grep -m1 '^scanned' "$OUT/large-1-$kind.out")"
  done
}

if [[ -n "$LARGE" ]]; then
  large_member "$LARGE"
  exit 0
fi

# ---------------------------------------------------------------- archive

# The plan: one line per history, deterministic for the seed:
# index ops seed path compression fault corruption
awk -v n="$N" -v max="$MAX_OPS" -v seed="$SEED" 'BEGIN {
  srand(seed)
  split("lost-write duplicate inconsistent-offset g1a poll-skip garbage torn-txn", faults, " ")
  for (i = 0; i < n; i++) {
    ops = int(exp(log(200) + rand() * (log(max) - log(200))))
    r = rand(); comp = (r < 0.3) ? ".gz" : (r < 0.4) ? ".zst" : ""
    fault = (rand() < 0.25) ? faults[1 + int(rand() * 7)] "=" (1 + int(rand() * 3)) : "-"
    t = sprintf("%02d", int(rand() * 12))
    if (rand() < 0.7) {
      name = (rand() < 0.85) ? "history.edn" : "history.json"
      path = sprintf("store/queue-%s/2024%02d%02dT%02d%02d00.000Z-%04d/%s", t, 1 + i % 12, 1 + i % 28, i % 24, i % 60, i, name)
    } else {
      r = rand(); ext = (r < 0.7) ? ".edn" : (r < 0.85) ? ".json" : ".jsonl"
      path = sprintf("loose/batch-%s/run-%04d%s", t, i, ext)
    }
    corrupt = (i % 100 == 7) ? "truncate" : (i % 100 == 57) ? "garble" : "-"
    printf "%d %d %d %s %s %s %s\n", i, ops, seed * 100000 + i, path, (comp == "" ? "-" : comp), fault, corrupt
  }
}' >"$OUT/plan.txt"

# gen_one LINE: writes one history of the plan, prints its uncompressed size.
gen_one() {
  read -r i ops seed path comp fault corrupt <<<"$1"
  local dst="$ARCHIVE/$path" args=(--seed "$seed" --ops "$ops" --txn 0.1 -q)
  [[ "$fault" != "-" ]] && args+=(--fault "$fault")
  [[ "$comp" == "-" ]] && comp=""
  mkdir -p "$(dirname "$dst")"
  "$OUT/histgen" "${args[@]}" -o "$dst.plain"
  local plain
  plain=$(stat -c %s "$dst.plain")
  case "$comp" in
    .gz) gzip -1 -c "$dst.plain" >"$dst.gz"; rm "$dst.plain"; dst="$dst.gz" ;;
    .zst) zstd -q -c "$dst.plain" >"$dst.zst"; rm "$dst.plain"; dst="$dst.zst" ;;
    *) mv "$dst.plain" "$dst" ;;
  esac
  local size
  size=$(stat -c %s "$dst")
  case "$corrupt" in
    truncate) truncate -s $((size * 6 / 10)) "$dst" ;;
    garble) printf '%*s' 256 '' | tr ' ' '\377' | dd of="$dst" bs=1 seek=$((size * 4 / 10)) conv=notrunc status=none ;;
  esac
  echo "$plain"
}

# The archive is cached by the plan, the generator's source and gen_one.
GEN_SRC="$(find gen cmd/histgen -name '*.go' ! -name '*_test.go' | sort | xargs cat | sha256sum | cut -c1-10)"
PLAN_SRC="$({ cat "$OUT/plan.txt"; declare -f gen_one; } | sha256sum | cut -c1-10)"
STAMP="n=$N max-ops=$MAX_OPS seed=$SEED gen=$GEN_SRC plan=$PLAN_SRC"

section "archive"
if [[ -f "$ARCHIVE/.stamp" && "$(cat "$ARCHIVE/.stamp")" == "$STAMP" ]]; then
  echo "cached: $ARCHIVE ($STAMP)"
else
  rm -rf "$ARCHIVE"
  mkdir -p "$ARCHIVE"
  export -f gen_one
  export OUT ARCHIVE
  start=$(date +%s.%N)
  xargs -P "$(nproc)" -d '\n' -I{} bash -c 'gen_one "$@"' _ {} <"$OUT/plan.txt" >"$OUT/plain-sizes.txt"
  end=$(date +%s.%N)
  awk '{ s += $1 } END { print s }' "$OUT/plain-sizes.txt" >"$ARCHIVE/.plain-bytes"
  echo "$STAMP" >"$ARCHIVE/.stamp"
  awk -v s="$start" -v e="$end" 'BEGIN { printf "generated in %.1f s\n", e - s }'
fi
HISTORIES=$(find "$ARCHIVE" -type f ! -name '.*' | wc -l)
DISK=$(find "$ARCHIVE" -type f ! -name '.*' -printf '%s\n' | awk '{ s += $1 } END { print s }')
PLAIN=$(cat "$ARCHIVE/.plain-bytes")
awk -v n="$HISTORIES" '{ gz += ($5 == ".gz"); zst += ($5 == ".zst"); f += ($6 != "-"); c += ($7 != "-") }
  END { printf "histories: %d (%d gzip, %d zstd, %d with faults, %d corrupted)\n", n, gz, zst, f, c }' "$OUT/plan.txt"
awk -v d="$DISK" -v p="$PLAIN" 'BEGIN { printf "size: %.1f MB on disk, %.1f MB uncompressed\n", d / 1e6, p / 1e6 }'

# ---------------------------------------------------------------- scan

# report LABEL CMD...: prints the numbers of the last timed run.
report() {
  local label="$1"; shift
  printf '  %-22s %s (exit %s: 3 = some histories unreadable, as expected)\n' "command" "$*" "$STATUS"
  printf '  %-22s %s s\n' "wall" "$WALL"
  if [[ -n "$TIME_BIN" ]]; then
    awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } /Percent of CPU/ { p = $2 }
      END { printf "  %-22s %.1f s user + %.1f s system, %s of a core (others share the machine)\n", "CPU", u, s, p }' "$OUT/$label.time"
  fi
  awk -v n="$HISTORIES" -v d="$DISK" -v p="$PLAIN" -v w="$WALL" 'BEGIN {
    printf "  %-22s %.1f\n", "histories/s", n / w
    printf "  %-22s %.1f MB/s on disk, %.1f MB/s uncompressed\n", "throughput", d / 1e6 / w, p / 1e6 / w }'
  if [[ -n "$RSS_KB" ]]; then
    awk -v r="$RSS_KB" 'BEGIN { printf "  %-22s %.0f MB\n", "peak RSS", r * 1024 / 1e6 }'
  fi
}

RESULTS="$OUT/results"
SCAN=("$HS" scan -o "$RESULTS" ${JOBS:+-j "$JOBS"})

if [[ -z "$ARCHIVE_ONLY" ]]; then
  section "hindsight scan --rescan (every history checked)"
  timed scan-full "$OUT/scan-full.out" "${SCAN[@]}" --rescan "$ARCHIVE"
  report scan-full "${SCAN[@]}" --rescan "$ARCHIVE"
  sed 's/^/  | /' "$OUT/scan-full.out"

  section "hindsight scan (again: every history from the cache)"
  timed scan-cached "$OUT/scan-cached.out" "${SCAN[@]}" "$ARCHIVE"
  report scan-cached "${SCAN[@]}" "$ARCHIVE"
  grep '^scanned' "$OUT/scan-cached.out" | sed 's/^/  | /'
fi

# ---------------------------------------------------------------- packed

PACKED="$ROOT/bench/out/scan-archive.tar.gz"
section "the same histories packed as .tar.gz"
if [[ -f "$PACKED.stamp" && "$(cat "$PACKED.stamp")" == "$STAMP" ]]; then
  echo "cached: $PACKED"
else
  rm -f "$PACKED" "$PACKED.stamp"
  start=$(date +%s.%N)
  tar -C "$(dirname "$ARCHIVE")" -czf "$PACKED.tmp" "$(basename "$ARCHIVE")"
  mv "$PACKED.tmp" "$PACKED"
  echo "$STAMP" >"$PACKED.stamp"
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" 'BEGIN { printf "packed in %.1f s (tar -czf, gzip level 6)\n", e - s }'
fi
awk -v s="$(stat -c %s "$PACKED")" 'BEGIN { printf "%s: %.1f MB\n", "'"$(basename "$PACKED")"'", s / 1e6 }'

section "loose folder vs .tar.gz, $ROUNDS rounds side by side (hindsight scan --rescan)"
LOOSE_CMD=("$HS" scan -o "$OUT/results-loose" ${JOBS:+-j "$JOBS"} --rescan "$ARCHIVE")
PACKED_CMD=("$HS" scan -o "$OUT/results-packed" ${JOBS:+-j "$JOBS"} --rescan "$PACKED")
echo "  loose:  ${LOOSE_CMD[*]}"
echo "  packed: ${PACKED_CMD[*]}"
echo "  load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
: >"$OUT/rounds.txt"
: >"$OUT/rounds-cpu.txt"
for ((r = 1; r <= ROUNDS; r++)); do
  if ((r % 2)); then order=(loose packed); else order=(packed loose); fi
  for kind in "${order[@]}"; do
    if [[ "$kind" == loose ]]; then cmd=("${LOOSE_CMD[@]}"); else cmd=("${PACKED_CMD[@]}"); fi
    timed "round-$r-$kind" "$OUT/round-$r-$kind.out" "${cmd[@]}"
    CPU="?"
    if [[ -n "$TIME_BIN" ]]; then
      CPU=$(awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { printf "%.1f", u + s }' "$OUT/round-$r-$kind.time")
    fi
    printf '  round %d %-6s %8.3f s wall  %6s s CPU  peak RSS %s MB  exit %s  load %s\n' "$r" "$kind" "$WALL" "$CPU" \
      "$([[ -n "$RSS_KB" ]] && echo $((RSS_KB / 1024)) || echo '?')" "$STATUS" "$(cut -d' ' -f1 /proc/loadavg)"
    echo "$kind $WALL" >>"$OUT/rounds.txt"
    echo "$kind $CPU" >>"$OUT/rounds-cpu.txt"
  done
done
echo "  load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
median() { grep "^$1 " "$2" | cut -d' ' -f2 | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ML=$(median loose "$OUT/rounds.txt")
MP=$(median packed "$OUT/rounds.txt")
awk -v l="$ML" -v p="$MP" 'BEGIN {
  printf "  median wall: loose %.3f s, .tar.gz %.3f s: the archive takes %.2fx the loose time (target: at most 1.3x)\n", l, p, p / l }'
if [[ -n "$TIME_BIN" ]]; then
  CL=$(median loose "$OUT/rounds-cpu.txt")
  CP=$(median packed "$OUT/rounds-cpu.txt")
  awk -v l="$CL" -v p="$CP" 'BEGIN {
    printf "  median CPU:  loose %.1f s, .tar.gz %.1f s: %.2fx (less sensitive than wall time to other work on the machine)\n", l, p, p / l }'
fi
for kind in loose packed; do
  printf '  %-6s | %s\n' "$kind" "$(grep -m1 '^scanned' "$OUT/round-1-$kind.out")"
done
