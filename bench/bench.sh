#!/usr/bin/env bash
# bench/bench.sh: time whole runs of hindsight on a generated history.
#
#   bench/bench.sh [--ops N] [--seed S] [--rw-txns N] [--rw-mem-txns N]
#
# Builds cmd/hindsight and cmd/histgen into bench/out/, generates a history
# of N op lines (default 1,000,000, seed 1; cached by parameters and by the
# generator's source), then times `hindsight check FILE --format json` and,
# when that command exists, `hindsight report FILE -o bench/out/report.html`.
# HINDSIGHT=/path/to/binary skips building cmd/hindsight and uses that one.
# Prints ops, wall seconds, ops/s, peak RSS and RSS/file-size, with PASS/MISS
# against the targets (<= 5 s, <= 1.5x the file size). A miss never fails
# the script; a failed build or generation does.
#
# Then the rw-register target (issue 9): a history of --rw-txns (default
# 100,000) txns of Elle's reference kind (10 workers, up to 4 micro-ops a
# txn, 10 keys in use, 1% info, 1% fail, stale reads by --read-lag 1, 45
# lost updates per 100k txns), checked with the defaults, against 10 times
# faster than Elle (7.8 s check + 4.9 s read for 100k such txns: <= 1.27 s
# wall); and, for the memory target (<= 2x the file), one of --rw-mem-txns
# (default 1,000,000) txns, where the bare process (about 30 MB) no longer
# dominates. --rw-txns 0 skips both.
set -euo pipefail

OPS=1000000
SEED=1
RW_TXNS=100000
RW_MEM_TXNS=1000000
TARGET_RW_WALL_S=1.27     # Elle's 12.7 s (check + read) / 10, per 100k txns
TARGET_RW_RSS_RATIO=2.0
TARGET_WALL_S=5          # hindsight check (issue 2)
TARGET_REPORT_WALL_S=10  # hindsight report (issue 3)
TARGET_REPORT_MB=5       # report size
TARGET_RSS_RATIO=1.5

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --ops) OPS="$2"; shift 2 ;;
    --ops=*) OPS="${1#*=}"; shift ;;
    --seed) SEED="$2"; shift 2 ;;
    --seed=*) SEED="${1#*=}"; shift ;;
    --rw-txns) RW_TXNS="$2"; shift 2 ;;
    --rw-txns=*) RW_TXNS="${1#*=}"; shift ;;
    --rw-mem-txns) RW_MEM_TXNS="$2"; shift 2 ;;
    --rw-mem-txns=*) RW_MEM_TXNS="${1#*=}"; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "bench.sh: unknown argument: $1" >&2; usage >&2; exit 2 ;;
  esac
done
[[ "$OPS" =~ ^[0-9]+$ ]] || { echo "bench.sh: --ops wants a number, got $OPS" >&2; exit 2; }

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$ROOT/bench/out"
mkdir -p "$OUT"
cd "$ROOT"

# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1e6 }'; }
filesize() { stat -c %s "$1"; }

# ---------------------------------------------------------------- build

section "build"
go build -o "$OUT/histgen" ./cmd/histgen
echo "built $OUT/histgen"
HS=""
HS_MISSING="cmd/hindsight has no Go files yet"
if [[ -n "${HINDSIGHT:-}" ]]; then
  HS="$HINDSIGHT"
  echo "using HINDSIGHT=$HS"
elif compgen -G "cmd/hindsight/*.go" >/dev/null && go build -o "$OUT/hindsight" ./cmd/hindsight; then
  HS="$OUT/hindsight"
  echo "built $HS"
else
  compgen -G "cmd/hindsight/*.go" >/dev/null && HS_MISSING="cmd/hindsight does not build"
  echo "$HS_MISSING: only the generator runs"
fi

# has_cmd NAME: does hindsight list subcommand NAME? Else says why not.
has_cmd() {
  if [[ -z "$HS" ]]; then
    echo "skipped: $HS_MISSING"
    return 1
  fi
  "$HS" --help 2>/dev/null | grep -qE "^[[:space:]]+$1([[:space:]]|\$)" && return 0
  echo "skipped: hindsight has no '$1' command yet"
  return 1
}

# ---------------------------------------------------------------- history

GEN_ARGS=(--seed "$SEED" --ops "$OPS" --concurrency 10 --keys 8 --txn 0.2 --info 0.01 --fail 0.01)
GEN_SRC="$(find gen cmd/histgen -name '*.go' ! -name '*_test.go' | sort | xargs cat | sha256sum | cut -c1-10)"
HIST="$OUT/history-s${SEED}-n${OPS}-c10-k8-t0.2-${GEN_SRC}.edn"

section "history"
if [[ -s "$HIST" ]]; then
  echo "cached: $HIST"
else
  rm -f "$OUT"/history-s"${SEED}"-n"${OPS}"-*.edn # older generator versions
  echo "generating: histgen ${GEN_ARGS[*]}"
  start=$(date +%s.%N)
  "$OUT/histgen" "${GEN_ARGS[@]}" -o "$HIST"
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" 'BEGIN { printf "generated in %.2f s\n", e - s }'
fi
SIZE=$(filesize "$HIST")
LINES=$(wc -l <"$HIST")
echo "size: $(mb "$SIZE") ($SIZE bytes), $LINES op lines"

# ---------------------------------------------------------------- timing

# verdict VALUE OP LIMIT: PASS or MISS
verdict() { awk -v v="$1" -v l="$3" -v op="$2" 'BEGIN { ok = (op == "<=") ? (v <= l) : (v >= l); print ok ? "PASS" : "MISS" }'; }

# summarise WALL_TARGET RSS_TARGET: prints the numbers of the last timed run
# against the targets (an empty RSS target: none)
summarise() {
  local wall_target="$1" rss_target="$2"
  printf '  %-16s %s\n' "ops" "$LINES"
  printf '  %-16s %s s   (target <= %s s: %s)\n' "wall" "$WALL" "$wall_target" "$(verdict "$WALL" '<=' "$wall_target")"
  printf '  %-16s %s\n' "ops/s" "$(awk -v n="$LINES" -v w="$WALL" 'BEGIN { printf "%.0f", (w > 0) ? n / w : 0 }')"
  if [[ -n "$RSS_KB" ]]; then
    local ratio
    ratio=$(awk -v r="$RSS_KB" -v s="$SIZE" 'BEGIN { printf "%.2f", r * 1024 / s }')
    printf '  %-16s %s\n' "peak RSS" "$(awk -v r="$RSS_KB" 'BEGIN { printf "%.1f MB", r * 1024 / 1e6 }')"
    if [[ -n "$rss_target" ]]; then
      printf '  %-16s %s   (target <= %s: %s)\n' "RSS/file size" "$ratio" "$rss_target" "$(verdict "$ratio" '<=' "$rss_target")"
    else
      printf '  %-16s %s\n' "RSS/file size" "$ratio"
    fi
  else
    printf '  %-16s %s\n' "peak RSS" "n/a (no GNU time)"
  fi
}

section "hindsight check"
if has_cmd check; then
  timed check "$OUT/check.json" "$HS" check "$HIST" --format json
  # check exits non-zero for an invalid history; the numbers still count.
  [[ $STATUS == 0 ]] || echo "  note: hindsight check exited $STATUS (stderr: $OUT/check.stderr)"
  valid=$(grep -oE '"valid"[[:space:]]*:[[:space:]]*("[a-z]+"|true|false)' "$OUT/check.json" | head -1 || true)
  echo "  result: ${valid:-no \"valid\" field} ($OUT/check.json)"
  summarise "$TARGET_WALL_S" "$TARGET_RSS_RATIO"
fi

section "hindsight report"
if has_cmd report; then
  rm -f "$OUT/report.html"
  timed report /dev/null "$HS" report "$HIST" -o "$OUT/report.html"
  [[ $STATUS == 0 ]] || echo "  note: hindsight report exited $STATUS (stderr: $OUT/report.stderr)"
  if [[ -f "$OUT/report.html" ]]; then
    rsize=$(filesize "$OUT/report.html")
    echo "  report: $OUT/report.html, $(mb "$rsize") (target <= $TARGET_REPORT_MB MB: $(verdict "$(awk -v b="$rsize" 'BEGIN { print b / 1e6 }')" '<=' "$TARGET_REPORT_MB"))"
  else
    echo "  report: not written"
  fi
  summarise "$TARGET_REPORT_WALL_S" ""
fi

# ---------------------------------------------------------------- rw-register

# rw_history N: generates (or reuses) the rw-register history of N txns,
# sets HIST, SIZE and LINES.
rw_history() {
  local n="$1"
  local args=(--workload rw-register --seed "$SEED" --txns "$n" --concurrency 10 --keys 10
    --info 0.01 --fail 0.01 --read-lag 1 --fault "lost-update=$((n * 45 / 100000))" -q)
  HIST="$OUT/rw-s${SEED}-n${n}-${GEN_SRC}.edn"
  if [[ -s "$HIST" ]]; then
    echo "cached: $HIST"
  else
    rm -f "$OUT"/rw-s"${SEED}"-n"${n}"-*.edn
    echo "generating: histgen ${args[*]}"
    "$OUT/histgen" "${args[@]}" -o "$HIST"
  fi
  SIZE=$(filesize "$HIST")
  LINES=$(wc -l <"$HIST")
  echo "size: $(mb "$SIZE") ($SIZE bytes), $LINES op lines, $n txns"
}

if [[ "$RW_TXNS" != 0 ]] && has_cmd check; then
  section "rw-register check ($RW_TXNS txns: speed against Elle)"
  rw_history "$RW_TXNS"
  timed rw-check "$OUT/rw-check.json" "$HS" check "$HIST" --format json
  [[ $STATUS == 1 ]] || echo "  note: hindsight check exited $STATUS, want 1 (stderr: $OUT/rw-check.stderr)"
  target=$(awk -v t="$TARGET_RW_WALL_S" -v n="$RW_TXNS" 'BEGIN { printf "%.2f", t * n / 100000 }')
  summarise "$target" ""
  section "rw-register check ($RW_MEM_TXNS txns: memory)"
  rw_history "$RW_MEM_TXNS"
  timed rw-mem-check "$OUT/rw-mem-check.json" "$HS" check "$HIST" --format json
  [[ $STATUS == 1 ]] || echo "  note: hindsight check exited $STATUS, want 1 (stderr: $OUT/rw-mem-check.stderr)"
  target=$(awk -v t="$TARGET_RW_WALL_S" -v n="$RW_MEM_TXNS" 'BEGIN { printf "%.2f", t * n / 100000 }')
  summarise "$target" "$TARGET_RW_RSS_RATIO"
fi
