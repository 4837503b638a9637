#!/bin/sh
# Fetches the third-party JavaScript that hindsight's HTML report embeds and
# copies it into report/assets/, where `go build` picks it up through
# //go:embed. The version is pinned exactly in package.json and locked in
# package-lock.json; the copied file is gitignored (third-party code is never
# committed). Run it once after cloning, and again after changing the pin:
#
#	scripts/assets.sh && go build ./cmd/hindsight
#
# Needs node and npm. Idempotent. With --if-missing it does nothing when
# report/assets/echarts.min.js is already there (the benchmarks and
# scripts/pgo.sh, which run hindsight report, call it so).
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

if [ "${1:-}" = "--if-missing" ] && [ -s report/assets/echarts.min.js ]; then
	exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
	echo "assets.sh: npm not found; install Node.js (Debian: apt-get install -y npm)" >&2
	exit 1
fi

npm ci --ignore-scripts --no-audit --no-fund

src=node_modules/echarts/dist/echarts.min.js
dst=report/assets/echarts.min.js
if [ ! -s "$src" ]; then
	echo "assets.sh: $src missing after npm ci" >&2
	exit 1
fi
# Copy to a temporary name and rename, so a failed copy never leaves half a file.
cp "$src" "$dst.tmp"
mv -f "$dst.tmp" "$dst"
version=$(node -p 'require("./node_modules/echarts/package.json").version')
echo "assets.sh: report/assets/echarts.min.js is echarts $version ($(wc -c <"$dst") bytes)"
