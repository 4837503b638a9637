#!/usr/bin/env bash
# The project's whole test run, as CI runs it (.ci/run calls this script).
# It installs what the tests need (Debian's chromium for the browser test,
# xmllint for the JUnit XML test,
# the npm packages: ECharts for the report, DuckDB for reading Parquet back),
# then runs formatting and vet checks, every Go test, and short fuzz runs.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }

step "dependencies"
if [ -x scripts/install-chromium.sh ]; then scripts/install-chromium.sh; fi
if [ -x scripts/install-tools.sh ]; then scripts/install-tools.sh; fi
if [ -f package-lock.json ]; then
  if [ -x scripts/assets.sh ]; then scripts/assets.sh; else npm ci --no-audit --no-fund; fi
fi

step "gofmt and go vet"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './node_modules/*'))
if [ -n "$unformatted" ]; then
  echo "gofmt needed on: $unformatted"
  exit 1
fi
go vet ./...
if command -v staticcheck >/dev/null 2>&1; then
  staticcheck ./...
else
  go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./... || {
    echo "staticcheck could not run or failed"; exit 1; }
fi

step "go test"
# The browser test saves its screenshots here; the path is printed at the end.
export HINDSIGHT_ARTIFACTS=${HINDSIGHT_ARTIFACTS:-${TMPDIR:-/tmp}/hindsight-artifacts}
mkdir -p "$HINDSIGHT_ARTIFACTS"
go test -count=1 -timeout 20m ./...

step "fuzz (short)"
# A count, not a duration: with a duration, Go 1.26's fuzzing coordinator
# can report "context deadline exceeded" as a failure when the time runs
# out while a worker is mid-input (go.dev/issue/75804, fixed in Go 1.27),
# which failed a fresh clone's run here with no failing input written.
# 10,000 inputs take 2 to 16 s a target on this project's 2-core machine.
FUZZTIME=${FUZZTIME:-10000x}
for target in ingest:FuzzEDN ingest:FuzzJSON ingest:FuzzParserMemory analysis/queue:FuzzCheck analysis/txn:FuzzListAppend analysis/txn:FuzzRWRegister scan:FuzzNotHistory; do
  pkg=${target%%:*} name=${target#*:}
  go test "./$pkg" -run='^$' -fuzz="^$name\$" -fuzztime="$FUZZTIME" -fuzzminimizetime=5s
done

step "browser screenshots in $HINDSIGHT_ARTIFACTS"
ls -1 "$HINDSIGHT_ARTIFACTS" 2>/dev/null || true

step "done"
