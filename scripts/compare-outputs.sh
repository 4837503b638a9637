#!/usr/bin/env bash
# scripts/compare-outputs.sh: check that two builds of hindsight print the
# same thing on every history we have, byte for byte.
#
#   scripts/compare-outputs.sh OLD_HINDSIGHT NEW_HINDSIGHT [--quick]
#
# Runs both binaries on every fixture and history under testdata/ (the
# repository's), every file of ../shared/corpus, and a set of histories
# generated with cmd/histgen (built from this tree: queue histories with
# each fault and all of them, transactions, subscribe, JSON lines, 1.39M
# ops, copies cut off mid-op and with a syntax error in the middle, and
# list-append, rw-register and abort ones), the histories of
# ../shared/reference/txn, and compares for each:
#
#   check FILE                        (text; stdout, stderr, exit status)
#   check FILE --format json          (the check's time masked in all four)
#   check FILE --format json --ww-deps
#   report FILE -o OUT.html           (the page)
#
# Build both with -buildvcs=false, or the pages differ by the revision they
# name. With OLD_HISTGEN=/path/to/old/histgen it also checks that the old
# and new generators write the same bytes for every generated history that
# the old one can make. --quick leaves out the histories of a million ops
# or more. Prints one line per difference and a summary; exits 1 if any.
set -euo pipefail

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
[[ $# -ge 2 ]] || { usage >&2; exit 2; }
OLD="$(realpath "$1")" NEW="$(realpath "$2")"
QUICK=""
[[ "${3:-}" == "--quick" ]] && QUICK=1

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="${COMPARE_DIR:-$ROOT/bench/out/compare}"
GEN="$WORK/gen"
mkdir -p "$WORK" "$GEN"
cd "$ROOT"
go build -o "$WORK/histgen" ./cmd/histgen

# ------------------------------------------------------------ generated

# gen NAME ARGS...: writes $GEN/NAME with histgen ARGS (once).
gen() {
  local name="$1"; shift
  local out="$GEN/$name"
  if [[ ! -s "$out" ]]; then
    "$WORK/histgen" -q "$@" -o "$out"
  fi
  if [[ -n "${OLD_HISTGEN:-}" ]] && "$OLD_HISTGEN" -q "$@" -o "$WORK/old-gen.tmp" 2>/dev/null; then
    if ! cmp -s "$out" "$WORK/old-gen.tmp"; then
      echo "DIFF generator: $name (histgen $*)"
      GENDIFF=$((GENDIFF + 1))
    fi
    rm -f "$WORK/old-gen.tmp"
  fi
}
GENDIFF=0
q=(--concurrency 20 --keys 16 --info 0.01 --fail 0.01)
mix=(--fault lost-write=20 --fault duplicate=20 --fault poll-skip=20 --fault g1a=20 --fault torn-txn=20)
gen q-clean.edn --seed 3 --ops 20000
for f in lost-write duplicate inconsistent-offset g1a poll-skip stall garbage torn-txn; do
  gen "q-$f.edn" --seed 5 --ops 30000 --txn 0.2 --fault "$f=4"
done
gen q-mix.edn --seed 1 --ops 280000 "${q[@]}" --txn 0.25 "${mix[@]}"
gen q-mix-g1c.edn --seed 1 --ops 280000 "${q[@]}" --txn 0.25 "${mix[@]}" --fault g1c=20
gen q-mix.jsonl --seed 2 --ops 200000 "${q[@]}" --txn 0.25 "${mix[@]}" --format json
gen q-subscribe.edn --seed 4 --ops 100000 --subscribe --txn 0.1 --fault poll-skip=5 --fault stall=2
gen q-onekey.edn --seed 6 --ops 100000 --keys 1 --concurrency 4
gen la-100k.edn --workload list-append --seed 1 --txns 100000
gen la-faults.edn --workload list-append --seed 2 --txns 50000 --fault write-cycle=3 --fault stale-read=3 --fault aborted-read=3 --fault lost-update=2
gen la-nof.edn --workload list-append --seed 3 --txns 50000 --no-f --nemesis
gen la.jsonl --workload list-append --seed 4 --txns 50000 --format json
gen rw-100k.edn --workload rw-register --seed 1 --txns 100000
gen la-huge-scc.edn --huge-scc --seed 1
gen abort-clean.edn --workload abort --seed 1 --ops 40000
gen abort-faults.edn --workload abort --seed 2 --ops 40000 --after-abort rewind \
  --fault committed-redelivery=3 --fault abort-other=3 --fault int-nonmonotonic-poll=3
if [[ -z "$QUICK" ]]; then
  gen q-1m.edn --seed 1 --ops 1390000 "${q[@]}" --txn 0.25 "${mix[@]}" --fault g1c=20
  gen la-1m.edn --workload list-append --seed 1 --txns 1000000
fi
# damaged copies: cut mid-op, and a syntax error near the end
src="$GEN/q-mix.edn"
size=$(stat -c %s "$src")
head -c $((size * 7 / 10)) "$src" >"$GEN/q-cut.edn"
head -c $((size / 3 + 17)) "$src" >"$GEN/q-cut2.edn"
awk -v n=250000 'NR == n { sub(/:value \[/, ":value [}") } { print }' "$src" >"$GEN/q-syntax.edn"
awk -v n=120000 'NR == n { sub(/}$/, "") } { print }' "$src" >"$GEN/q-unclosed.edn"
awk -v n=150000 'NR == n { sub(/:type :ok/, ":type :bogus") } { print }' "$src" >"$GEN/q-badtype.edn"
awk 'NR % 2 == 0 { sub(/:index [0-9]+, /, "") } { print }' "$src" >"$GEN/q-noindex.edn"

# ------------------------------------------------------------ inputs

inputs=()
while IFS= read -r f; do inputs+=("$f"); done < <(
  find "$ROOT" -path "$ROOT/node_modules" -prune -o -path "$ROOT/bench/out" -prune -o \
    -path '*/testdata/*' -type f \( -name '*.edn' -o -name '*.jsonl' -o -name '*.json' -o -name '*.gz' -o -name '*.zst' \) \
    ! -name '*.expected.json' -print | sort)
if [[ -d "$ROOT/../shared/corpus" ]]; then
  while IFS= read -r f; do inputs+=("$f"); done < <(find "$ROOT/../shared/corpus" -type f ! -name '*.md' | sort)
fi
if [[ -d "$ROOT/../shared/reference/txn" ]]; then
  while IFS= read -r f; do inputs+=("$f"); done < <(
    find "$ROOT/../shared/reference/txn" -type f \( -name '*.edn' -o -name '*.edn.gz' \) | sort)
fi
while IFS= read -r f; do inputs+=("$f"); done < <(find "$GEN" -type f | sort)

# ------------------------------------------------------------ compare

# the time a check took differs from run to run, and a page's header names
# the moment it was made and its own file (old.html or new.html)
mask() {
  sed -E -e 's/"elapsed_ms": ?[0-9]+/"elapsed_ms":0/g' -e 's/; [0-9]+ ms$/; N ms/' \
    -e 's#check time</th><td>[0-9]+ ms#check time</th><td>N ms#g' \
    -e 's#<th>made</th><td>[^<]*#<th>made</th><td>T#g' -e "s#$WORK/(old|new)\.html#OUT.html#g" "$1"
}

# run BIN TAG FILE ARGS...: output files $WORK/TAG.{out,err,code}
run() {
  local bin="$1" tag="$2" file="$3"; shift 3
  set +e
  "$bin" "$@" >"$WORK/$tag.out" 2>"$WORK/$tag.err"
  echo $? >"$WORK/$tag.code"
  set -e
  sed -i "s#$WORK/[a-z]*\.html#OUT.html#g" "$WORK/$tag.err"
}

diffs=0 runs=0
for f in "${inputs[@]}"; do
  for variant in text json ww html; do
    case $variant in
      text) args=(check "$f") ;;
      json) args=(check "$f" --format json) ;;
      ww)   args=(check "$f" --format json --ww-deps) ;;
      html) args=(report "$f") ;;
    esac
    if [[ $variant == html ]]; then
      rm -f "$WORK/old.html" "$WORK/new.html"
      run "$OLD" old "$f" "${args[@]}" -o "$WORK/old.html"
      run "$NEW" new "$f" "${args[@]}" -o "$WORK/new.html"
    else
      run "$OLD" old "$f" "${args[@]}"
      run "$NEW" new "$f" "${args[@]}"
    fi
    runs=$((runs + 1))
    same=1
    cmp -s <(mask "$WORK/old.out") <(mask "$WORK/new.out") || same=0
    cmp -s "$WORK/old.err" "$WORK/new.err" || same=0
    cmp -s "$WORK/old.code" "$WORK/new.code" || same=0
    if [[ $variant == html ]]; then
      if [[ -f "$WORK/old.html" || -f "$WORK/new.html" ]]; then
        cmp -s <(mask "$WORK/old.html") <(mask "$WORK/new.html") || same=0
      fi
    fi
    if [[ $same == 0 ]]; then
      diffs=$((diffs + 1))
      echo "DIFF $variant: ${f#"$ROOT/"}"
    fi
  done
done
echo "compared $runs runs on ${#inputs[@]} histories: $diffs differ; generator: $GENDIFF differ"
[[ $diffs == 0 && $GENDIFF == 0 ]]
