# Sourced by the install-*.sh scripts (not run on its own): apt_install
# installs Debian packages with apt, through sudo when not root.
# Usage: apt_install SCRIPT-NAME PACKAGE...; SCRIPT-NAME is what the error
# names when neither root nor sudo is there.

apt_install() {
	apt_name=$1
	shift
	SUDO=""
	if [ "$(id -u)" -ne 0 ]; then
		if command -v sudo >/dev/null 2>&1; then
			SUDO="sudo"
		else
			echo "$apt_name: must run as root (or with sudo available)" >&2
			exit 1
		fi
	fi
	export DEBIAN_FRONTEND=noninteractive
	$SUDO apt-get update
	$SUDO apt-get install -y --no-install-recommends "$@"
}
