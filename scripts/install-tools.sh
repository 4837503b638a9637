#!/bin/sh
# Installs the command-line tools the tests call besides chromium:
# xmllint (Debian's libxml2-utils), which checks that hindsight's JUnit XML
# is well-formed (cmd/hindsight/junit_test.go). Idempotent: does nothing
# when xmllint is already there. Needs root (or sudo) and apt.
set -eu

if command -v xmllint >/dev/null 2>&1; then
	echo "xmllint already installed: $(command -v xmllint)"
	exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		SUDO="sudo"
	else
		echo "install-tools.sh: must run as root (or with sudo available)" >&2
		exit 1
	fi
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends libxml2-utils
xmllint --version 2>&1 | head -1
