#!/usr/bin/env bash
# scripts/pgo.sh: remake cmd/hindsight/default.pgo, the CPU profile that
# `go build` (and `go run`, `go install`) of cmd/hindsight optimises with
# (profile-guided optimisation, go.dev/doc/pgo: the go command picks up a
# main package's default.pgo by itself).
#
#   scripts/pgo.sh [--keep DIR]
#
# Builds cmd/hindsight without a profile and cmd/histgen into a temporary
# folder, generates histories of every workload in the shapes the bench
# scripts time (bench/bench.sh: a queue history with faults and a
# crash-heavy one, 20 workers, 16 keys; bench/txn-bench.sh: list-append and
# rw-register at the generator's defaults; an abort history; one
# list-append history written as JSON Lines, for the JSON reader), at the
# benches' sizes but with another seed than theirs, so that the profile
# is not made on the very files the benches time. It runs
# `hindsight check --format json` on each, `hindsight report` on the
# queue and list-append histories and `hindsight scan` over a folder of
# small histories of every workload, each with --cpuprofile, and merges
# the profiles (go tool pprof -proto) into cmd/hindsight/default.pgo.
# --keep DIR keeps the histories and profiles in DIR. About half a minute on
# this project's 2-core machine.
#
# Remake the profile when the hot code has changed much (a profile made on
# older code still helps where the functions are the same, and never
# changes what the program does, only how the compiler inlines and lays
# out code). Measure before and after with bench/ab.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"

KEEP=""
if [[ "${1:-}" == "--keep" ]]; then
  KEEP="$2"
  shift 2
fi
[[ $# -eq 0 ]] || { echo "usage: scripts/pgo.sh [--keep DIR]" >&2; exit 2; }

if [[ -n "$KEEP" ]]; then
  mkdir -p "$KEEP"
  WORK="$(cd "$KEEP" && pwd)"
else
  WORK="$(mktemp -d)"
  trap 'rm -rf "$WORK"' EXIT
fi
SEED=7

echo "building into $WORK"
# the profile includes hindsight report, which refuses to run without the
# embedded ECharts (a fresh clone has none): fetch it as the benches do
scripts/assets.sh --if-missing >/dev/null
go build -pgo=off -o "$WORK/hindsight" ./cmd/hindsight
go build -o "$WORK/histgen" ./cmd/histgen
HS="$WORK/hindsight"
GEN="$WORK/histgen"

gen() { # gen NAME ARGS...: generates WORK/NAME with histgen ARGS
  local name="$1"
  shift
  echo "generating $name"
  "$GEN" -q --seed "$SEED" "$@" -o "$WORK/$name"
}

faults=(--fault lost-write=50 --fault duplicate=50 --fault poll-skip=50 --fault g1a=50 --fault torn-txn=50 --fault g1c=50)
gen queue.edn --ops 1390000 --concurrency 20 --keys 16 --txn 0.25 --info 0.01 --fail 0.01 "${faults[@]}"
gen crash.edn --ops 1390000 --concurrency 20 --keys 16 --txn 0.25 --info 0 --crash-rate 0.0059 --poll-all-keys \
  --fail 0.01 "${faults[@]}"
gen list-append.edn --workload list-append --txns 1000000
gen rw-register.edn --workload rw-register --txns 1000000
gen abort.edn --workload abort --ops 2060000
gen list-append.jsonl --workload list-append --txns 300000 --format json

mkdir -p "$WORK/archive"
for s in 1 2 3 4; do
  "$GEN" -q --seed "$s" --ops 20000 -o "$WORK/archive/queue-$s.edn"
  "$GEN" -q --seed "$s" --workload abort --ops 20000 -o "$WORK/archive/abort-$s.edn"
  for w in list-append rw-register; do
    "$GEN" -q --seed "$s" --workload "$w" --txns 5000 -o "$WORK/archive/$w-$s.edn"
  done
done

profiles=()
run() { # run NAME ARGS...: hindsight ARGS with a CPU profile WORK/NAME.prof
  local name="$1"
  shift
  echo "profiling $name: hindsight $*"
  local rc=0
  "$HS" --cpuprofile "$WORK/$name.prof" "$@" >/dev/null || rc=$?
  # exit 1 is an invalid verdict, which most of these histories have
  ((rc <= 1)) || { echo "hindsight $* exited with $rc" >&2; exit 1; }
  profiles+=("$WORK/$name.prof")
}

for f in queue.edn crash.edn list-append.edn rw-register.edn abort.edn list-append.jsonl; do
  run "check-$f" check --format json "$WORK/$f"
done
run report-queue report "$WORK/queue.edn" -o "$WORK/queue.html"
run report-list-append report "$WORK/list-append.edn" -o "$WORK/list-append.html"
run scan scan --jobs 2 "$WORK/archive" -o "$WORK/scan-out"

go tool pprof -proto "${profiles[@]}" >"$WORK/merged.pgo" 2>/dev/null
mv "$WORK/merged.pgo" "$ROOT/cmd/hindsight/default.pgo"
echo "wrote cmd/hindsight/default.pgo ($(wc -c <"$ROOT/cmd/hindsight/default.pgo") bytes) from ${#profiles[@]} profiles"
