#!/bin/sh
# Installs Debian's headless-capable chromium, which the report's browser test
# (report/browser_test.go) drives through chromedp. Idempotent: does nothing
# when /usr/bin/chromium is already there. Needs root (or sudo) and apt.
set -eu

if [ -x /usr/bin/chromium ]; then
	echo "chromium already installed: $(/usr/bin/chromium --version 2>/dev/null || echo /usr/bin/chromium)"
	exit 0
fi

# shellcheck source=scripts/apt-install.sh
. "$(dirname "$0")/apt-install.sh"
apt_install install-chromium.sh chromium fonts-dejavu-core fonts-noto-color-emoji
/usr/bin/chromium --version
