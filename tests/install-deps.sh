#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs the Debian 12 packages jitcache needs, by what they are for
# (`make deps`, and so `make check`; `make deps-all`, and so `make check-all`;
# `make demo` asks for the demo's alone).
#   tests/install-deps.sh [--list] [GROUP...]   (default: check)
#     build  the library and the admin tool (`make`)
#     deb    `make deb`: Debian's packaging tools (dpkg-dev, fakeroot) and
#            the Build-Depends of packaging/debian/control (debhelper-compat
#            is debhelper's), read from there
#     demo   build, plus what `make demo` needs: Intel's driver (with ocloc),
#            the Level Zero and OpenCL loaders
#     check  demo, plus the drivers, clients, servers and tools of the test
#            programs, the examples and the quick tier of tests (`make check`)
#     all    check, plus the full tier's and the benchmarks': the chroots
#            (debootstrap), the Python venvs, the Debian package, the plots
#   --list   print the packages, one a line, instead of installing them
# Silent when everything is already there; otherwise one line per step, with
# apt's output kept in a log file (DEPS_LOG, default build/deps.log) that is
# shown when a step fails, followed by the one apt line that installs what
# is missing (also the only line said when not root and sudo is missing).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
BUILD_PKGS="build-essential pkg-config libxxhash-dev libzstd-dev libinih-dev libhiredis-dev libsodium-dev
      opencl-c-headers"
DEMO_PKGS="$BUILD_PKGS intel-opencl-icd libze1 ocl-icd-libopencl1 ocl-icd-opencl-dev man-db"
CHECK_PKGS="$DEMO_PKGS clang clinfo pocl-opencl-icd libdnnl-dev clpeak python3-pyopencl zstd patchelf
      redis-server libcurl4 libcurl4-openssl-dev curl nginx-light libnginx-mod-http-dav-ext openssl git systemd strace
      docker-registry apache2-utils"
ALL_PKGS="$CHECK_PKGS python3-venv python3-opencv unzip clblast-utils clfft-client gnuplot-nox debootstrap
      debhelper lintian fakeroot"
# The package's Build-Depends, one name a line, versions dropped.
build_depends() {
	awk '/^Build-Depends:/ { on = 1; sub(/^Build-Depends:/, ""); print; next }
	     on && /^[ \t]/ { print; next } { on = 0 }' "$root/packaging/debian/control" |
		tr ',' '\n' | sed 's/([^)]*)//; s/^[[:space:]]*//; s/[[:space:]]*$//' | grep . |
		sed 's/^debhelper-compat$/debhelper/'
}
list=0
[ "${1:-}" = --list ] && { list=1; shift; }
PKGS=""
for g in ${*:-check}; do
	case $g in
	build) PKGS="$PKGS $BUILD_PKGS" ;;
	deb) PKGS="$PKGS build-essential dpkg-dev fakeroot $(build_depends | tr '\n' ' ')" ;;
	demo) PKGS="$PKGS $DEMO_PKGS" ;;
	check) PKGS="$PKGS $CHECK_PKGS" ;;
	all) PKGS="$PKGS $ALL_PKGS" ;;
	*) echo "install-deps.sh: no group '$g' (build, deb, demo, check, all)" >&2; exit 2 ;;
	esac
done
[ $list = 1 ] && { echo $PKGS | tr ' ' '\n' | sort -u; exit 0; }
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

log=${DEPS_LOG:-$root/build/deps.log}
mkdir -p "$(dirname "$log")"
: >"$log"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
n=$(echo $missing | wc -w)
# The one line that installs them, said when they cannot be installed here.
apt_line() {
	echo "deps: install them with: ${SUDO:+sudo }apt-get install --no-install-recommends$missing" >&2
}
if [ -n "$SUDO" ] && ! command -v sudo >/dev/null; then
	echo "deps: $n Debian packages are missing and sudo is not installed; as root:" \
	     "apt-get install --no-install-recommends$missing" >&2
	exit 1
fi

# step WHAT CMD...: one line; CMD's output goes to the log, shown on failure.
step() {
	what=$1; shift
	printf 'deps: %s ... ' "$what"
	start=$(date +%s)
	if "$@" >>"$log" 2>&1; then
		echo "done ($(( $(date +%s) - start )) s)"
	else
		echo "FAILED"
		echo "deps: the last 30 lines of $log:" >&2
		tail -n 30 "$log" >&2
		apt_line
		exit 1
	fi
}

echo "deps: installing $n Debian packages:$missing (log: $log)"
step "apt-get update" $SUDO apt-get update
step "apt-get install" $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y \
	--no-install-recommends $missing
