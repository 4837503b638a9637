#!/bin/sh
# Installs Debian's headless-capable chromium, which the report's browser test
# (report/browser_test.go) drives through chromedp. Idempotent: does nothing
# when /usr/bin/chromium is already there. Needs root (or sudo) and apt.
set -eu

if [ -x /usr/bin/chromium ]; then
	echo "chromium already installed: $(/usr/bin/chromium --version 2>/dev/null || echo /usr/bin/chromium)"
	exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		SUDO="sudo"
	else
		echo "install-chromium.sh: must run as root (or with sudo available)" >&2
		exit 1
	fi
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends chromium fonts-dejavu-core fonts-noto-color-emoji
/usr/bin/chromium --version
