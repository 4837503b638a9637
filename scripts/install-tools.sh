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

# shellcheck source=scripts/apt-install.sh
. "$(dirname "$0")/apt-install.sh"
apt_install install-tools.sh libxml2-utils
xmllint --version 2>&1 | head -1
