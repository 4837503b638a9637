#!/usr/bin/env bash
# bench/bench.sh: time whole runs of hindsight against a bare tokenizer pass
# over the same file, on generated queue histories with faults.
#
#   bench/bench.sh [--rounds N] [--small OPS] [--large OPS] [--abort POLLS]
#                  [--seed S] [--only small|large|crash|abort]
#
# Builds cmd/hindsight, cmd/histgen and bench/tokenpass into bench/out/ and
# generates (cached by parameters and by the generator's source) two queue
# histories of the make-up of issue 10: 280,000 and 1,390,000 op lines
# (--small, --large), 20 client workers, 16 keys, a quarter of the ops
# transactions, 1% info and 1% fail completions, and per 14,000 ops one
# fault of each of six kinds: truncated acknowledged writes (lost-write),
# duplicates, poll skips, aborted reads visible (g1a), torn transactions and
# G1c cycles; and a third, crash-heavy history of --large op lines in the
# shape of issue 21 (item 7): the same, but instead of the 1% info
# completions clients crash (--crash-rate 0.0059: :info, then a new
# process id; about 4,800 process ids) and every poll lists all sixteen
# keys (--poll-all-keys), many lists empty. (BenchmarkCheckVsTokenizer in
# cmd/hindsight generates the same histories.) Then, for N rounds (default
# 5), it runs one after the other on the same file:
#
#   tokenpass FILE                        the bare pass: every delimiter,
#                                         keyword, string and integer scanned,
#                                         integers parsed, on one core
#   hindsight check FILE --format json
#   hindsight report FILE -o report.html  (the two large histories only)
#
# and prints, per history, the minimum and median wall time of each, the
# median over the rounds of check/bare (each round's two runs side by side),
# CPU time and peak RSS (GNU time), against the targets: check within 3x of
# the bare pass on two cores, peak RSS at most 1.5x the file (the large
# history: check's memory budget is for files of 64 MB or more); the small
# history at least 100x faster than Jepsen's checker (72.5 s, issue 10);
# the report within 2x of the check and at most 2x the file (the
# crash-heavy history has the large one's targets). The load
# average is printed before and after: on a shared machine, compare rounds,
# not runs. Last, an abort history of --abort polls (default 1,000,000;
# histgen --workload abort, every other flag at its default, cached like
# the others) gets the same rounds, tokenizer pass and check side by side
# (issue 20, item 7: the check within 3x the bare pass; memory
# proportional to the polls, printed as peak RSS per poll and per byte of
# the file). --only runs one of the four. HINDSIGHT=/path/to/binary uses
# that binary. A miss never fails the script; a failed build or
# generation does.
set -euo pipefail

ROUNDS=5
SMALL=280000
LARGE=1390000
SEED=1
ABORT=1000000
ONLY=""
JEPSEN_S=72.5 # Jepsen's queue checker on the 280k-op history of issue 10

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) ROUNDS="$2"; shift 2 ;;
    --small) SMALL="$2"; shift 2 ;;
    --large) LARGE="$2"; shift 2 ;;
    --seed) SEED="$2"; shift 2 ;;
    --abort) ABORT="$2"; shift 2 ;;
    --only) ONLY="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "bench.sh: unknown argument: $1" >&2; usage >&2; exit 2 ;;
  esac
done
case "$ONLY" in
  "" | small | large | crash | abort) ;;
  *) echo "bench.sh: --only wants small, large, crash or abort, got $ONLY" >&2; exit 2 ;;
esac
for v in "$ROUNDS" "$SMALL" "$LARGE" "$SEED" "$ABORT"; do
  [[ "$v" =~ ^[0-9]+$ ]] || { echo "bench.sh: want a number, got $v" >&2; exit 2; }
done

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$ROOT/bench/out"
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"

# ---------------------------------------------------------------- build

build_for_timing

# ---------------------------------------------------------------- histories

# history OPS [crash]: generates $OUT/speed-sSEED-nOPS-GENSRC.edn (with
# crash: $OUT/crash-sSEED-nOPS-GENSRC.edn, the crash-heavy shape) once;
# sets HIST.
history() {
  local ops="$1" shape="${2:-speed}" n
  local -a info=(--info 0.01)
  [[ "$shape" == crash ]] && info=(--info 0 --crash-rate 0.0059 --poll-all-keys)
  n=$((ops / 14000))
  ((n > 0)) || n=1
  HIST="$OUT/$shape-s$SEED-n$ops-$GEN_SRC.edn"
  if [[ ! -s "$HIST" ]]; then
    rm -f "$OUT/$shape-s$SEED-n$ops"-*.edn # older generator versions
    "$OUT/histgen" -q --seed "$SEED" --ops "$ops" --concurrency 20 --keys 16 --txn 0.25 \
      "${info[@]}" --fail 0.01 --fault "lost-write=$n" --fault "duplicate=$n" --fault "poll-skip=$n" \
      --fault "g1a=$n" --fault "torn-txn=$n" --fault "g1c=$n" -o "$HIST"
  fi
}

# ---------------------------------------------------------------- timing

pick() { # pick min|median VALUES...: of the values
  local what="$1"; shift
  printf '%s\n' "$@" | sort -g | awk -v w="$what" '{ a[NR] = $1 } END { print (w == "min") ? a[1] : a[int((NR + 1) / 2)] }'
}
mb() { awk -v k="$1" 'BEGIN { printf "%.0f MB", k * 1024 / 1e6 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }'; }
verdict() { awk -v v="$1" -v l="$2" 'BEGIN { print (v <= l) ? "PASS" : "MISS" }'; }

# check_round STATUS...: one round on $HIST, the bare pass and then the
# check, appended to the caller's arrays tok, chk, ratios, cpu, rss,
# faults and sys (bash's dynamic scope); a note when the check exits with
# none of the given statuses.
check_round() {
  local want="$*"
  timed tokenpass /dev/null "$OUT/tokenpass" "$HIST"
  tok+=("$WALL")
  timed check "$OUT/check.json" env HINDSIGHT_PHASES=time "$HS" check "$HIST" --format json
  [[ " $want " == *" $STATUS "* ]] || echo "  note: check exited $STATUS, not ${want// / or } (stderr: $OUT/check.stderr)"
  chk+=("$WALL")
  ratios+=("$(ratio "$WALL" "${tok[-1]}")")
  cpu+=("$(awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { printf "%.2f", u + s }' "$OUT/check.time" 2>/dev/null || echo 0)")
  rss+=("${RSS_KB:-0}")
  faults+=("${FAULTS:-0}")
  sys+=("${SYS:-0}")
}

# faults_line "FAULTS..." "SYS...": the check's page faults and system time,
# medians. Each first write to a page of fresh memory faults once, and on
# a virtual machine whose host backs the guest's memory lazily a fault
# costs microseconds (bench/README.md, "Measuring on the project's
# machine"): this line shows how much of a ratio above that is.
faults_line() {
  local -a f s
  read -ra f <<<"$1"
  read -ra s <<<"$2"
  printf '  %-22s median %s, system time median %s s\n' "check page faults" "$(pick median "${f[@]}")" "$(pick median "${s[@]}")"
}

# warm FILE: reads FILE once, unmeasured, so that every round finds it in
# the page cache. A cached history that other work pushed out of the cache
# made the first round's bare pass a read from disk (3.6 s instead of 0.4 on
# the 1.39M-op history, on 2026-12-06), and "best round" a ratio of 0.42.
warm() { cat "$1" >/dev/null; }

# bench OPS WITH_REPORT [crash]: the rounds on one history, and the summary.
bench() {
  local ops="$1" with_report="$2" shape="${3:-speed}" size r label=""
  history "$ops" "$shape"
  warm "$HIST"
  [[ "$shape" == crash ]] && label=", crash-heavy"
  size=$(stat -c %s "$HIST")
  section "$(printf "%'d" "$ops") op lines$label: $(awk -v b="$size" 'BEGIN { printf "%.1f MB", b / 1e6 }') ($HIST)"
  local -a tok chk rep ratios rratios cpu rss rep_rss faults sys
  local rep_failed=""
  for r in $(seq "$ROUNDS"); do
    check_round 1
    if [[ "$with_report" == 1 ]]; then
      rm -f "$OUT/report.html"
      timed report /dev/null "$HS" report "$HIST" -o "$OUT/report.html"
      # 0, 1 and 2 are verdicts (valid, invalid, unknown) with a page written
      ((STATUS <= 2)) && [[ -s "$OUT/report.html" ]] || rep_failed="exit status $STATUS ($(head -c 200 "$OUT/report.stderr"))"
      rep+=("$WALL")
      rratios+=("$(ratio "$WALL" "${chk[-1]}")")
      rep_rss+=("${RSS_KB:-0}")
    fi
    printf '  round %d: bare %s s, check %s s (%sx), load %s\n' "$r" "${tok[-1]}" "${chk[-1]}" "${ratios[-1]}" "$(cut -d' ' -f1 /proc/loadavg)"
  done
  local cmed rmax
  cmed=$(pick median "${chk[@]}")
  printf '  %-22s min %s s, median %s s\n' "bare tokenizer pass" "$(pick min "${tok[@]}")" "$(pick median "${tok[@]}")"
  printf '  %-22s min %s s, median %s s; CPU (user+sys) median %s s\n' "hindsight check" "$(pick min "${chk[@]}")" "$cmed" "$(pick median "${cpu[@]}")"
  printf '  %-22s median %sx, best round %sx   (target <= 3: %s)\n' "check / bare" "$(pick median "${ratios[@]}")" "$(pick min "${ratios[@]}")" "$(verdict "$(pick median "${ratios[@]}")" 3)"
  if [[ -n "$TIME_BIN" ]]; then
    rmax=$(pick median "${rss[@]}")
    if ((ops == LARGE)); then
      printf '  %-22s %s = %sx the file   (target <= 1.5: %s)\n' "check peak RSS" "$(mb "$rmax")" "$(ratio "$((rmax * 1024))" "$size")" "$(verdict "$(ratio "$((rmax * 1024))" "$size")" 1.5)"
    else # the memory budget is for large files: a small one is mostly the runtime
      printf '  %-22s %s = %sx the file\n' "check peak RSS" "$(mb "$rmax")" "$(ratio "$((rmax * 1024))" "$size")"
    fi
    faults_line "${faults[*]}" "${sys[*]}"
  fi
  pages_line "$OUT/check.stderr"
  if ((ops == SMALL)); then
    printf '  %-22s %sx faster (target >= 100x, i.e. <= %s s: %s)\n' "vs Jepsen's $JEPSEN_S s" "$(ratio "$JEPSEN_S" "$cmed")" \
      "$(awk -v j="$JEPSEN_S" 'BEGIN { printf "%.3f", j / 100 }')" "$(verdict "$cmed" "$(awk -v j="$JEPSEN_S" 'BEGIN { print j / 100 }')")"
  fi
  if [[ "$with_report" == 1 && -n "$rep_failed" ]]; then
    # a report that failed is not a fast one: no figures, no verdicts
    printf '  %-22s FAILED, not measured: %s\n' "hindsight report" "$rep_failed"
  elif [[ "$with_report" == 1 ]]; then
    printf '  %-22s min %s s, median %s s; page %s\n' "hindsight report" "$(pick min "${rep[@]}")" "$(pick median "${rep[@]}")" \
      "$(awk -v b="$(stat -c %s "$OUT/report.html" 2>/dev/null || echo 0)" 'BEGIN { printf "%.1f MB", b / 1e6 }')"
    printf '  %-22s median %sx   (target <= 2: %s)\n' "report / check" "$(pick median "${rratios[@]}")" "$(verdict "$(pick median "${rratios[@]}")" 2)"
    if [[ -n "$TIME_BIN" ]]; then
      rmax=$(pick median "${rep_rss[@]}")
      printf '  %-22s %s = %sx the file   (target <= 2: %s)\n' "report peak RSS" "$(mb "$rmax")" "$(ratio "$((rmax * 1024))" "$size")" "$(verdict "$(ratio "$((rmax * 1024))" "$size")" 2)"
    fi
  fi
}

# abort_history POLLS: generates $OUT/abort-sSEED-pPOLLS-GENSRC.edn once
# (two op lines a poll, and a few for the assigns and crashes); sets HIST.
abort_history() {
  local polls="$1"
  HIST="$OUT/abort-s$SEED-p$polls-$GEN_SRC.edn"
  if [[ ! -s "$HIST" ]]; then
    rm -f "$OUT/abort-s$SEED-p$polls"-*.edn # older generator versions
    "$OUT/histgen" -q --workload abort --seed "$SEED" --ops "$((polls * 206 / 100))" -o "$HIST"
  fi
}

# abort_bench POLLS: the rounds on the abort history, and the summary.
abort_bench() {
  local polls="$1" size n r
  abort_history "$polls"
  warm "$HIST"
  size=$(stat -c %s "$HIST")
  n=$(($(grep -c ':f :poll' "$HIST") / 2))
  section "abort, $(printf "%'d" "$n") polls: $(awk -v b="$size" 'BEGIN { printf "%.1f MB", b / 1e6 }') ($HIST)"
  local -a tok chk ratios cpu rss faults sys
  for r in $(seq "$ROUNDS"); do
    check_round 0 1
    printf '  round %d: bare %s s, check %s s (%sx), load %s\n' "$r" "${tok[-1]}" "${chk[-1]}" "${ratios[-1]}" "$(cut -d' ' -f1 /proc/loadavg)"
  done
  printf '  %-22s min %s s, median %s s\n' "bare tokenizer pass" "$(pick min "${tok[@]}")" "$(pick median "${tok[@]}")"
  printf '  %-22s min %s s, median %s s; CPU (user+sys) median %s s\n' "hindsight check" "$(pick min "${chk[@]}")" "$(pick median "${chk[@]}")" "$(pick median "${cpu[@]}")"
  printf '  %-22s median %sx, best round %sx   (target <= 3: %s)\n' "check / bare" "$(pick median "${ratios[@]}")" "$(pick min "${ratios[@]}")" "$(verdict "$(pick median "${ratios[@]}")" 3)"
  if [[ -n "$TIME_BIN" ]]; then
    local rmed
    rmed=$(pick median "${rss[@]}")
    printf '  %-22s %s = %sx the file, %s bytes a poll\n' "check peak RSS" "$(mb "$rmed")" "$(ratio "$((rmed * 1024))" "$size")" \
      "$(awk -v k="$rmed" -v n="$n" 'BEGIN { printf "%.0f", (n > 0) ? k * 1024 / n : 0 }')"
    faults_line "${faults[*]}" "${sys[*]}"
  fi
  pages_line "$OUT/check.stderr"
}

[[ -z "$ONLY" || "$ONLY" == small ]] && bench "$SMALL" 0
[[ -z "$ONLY" || "$ONLY" == large ]] && bench "$LARGE" 1
[[ -z "$ONLY" || "$ONLY" == crash ]] && bench "$LARGE" 1 crash
[[ -z "$ONLY" || "$ONLY" == abort ]] && abort_bench "$ABORT"
echo
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
