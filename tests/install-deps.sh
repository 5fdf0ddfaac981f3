#!/bin/sh
# Installs the Debian 12 packages jitcache needs (`make deps`, and so `make
# check`; `make demo` asks for the demo's alone).  Silent when everything
# is already there; otherwise one line per step, with apt's output kept in a
# log file (DEPS_LOG, default build/deps.log) that is shown when a step fails.
#   tests/install-deps.sh          everything: the tests, examples, benchmarks
#   tests/install-deps.sh demo     what `make demo` needs: the library's own
#                                  build dependencies, Intel's driver (with
#                                  ocloc), the Level Zero and OpenCL loaders
#   tests/install-deps.sh --list [demo]   print the packages, one a line
set -eu
# The library and admin tool (`make`) need only these.
BUILD_PKGS="build-essential pkg-config libxxhash-dev libzstd-dev libinih-dev libhiredis-dev libsodium-dev
      opencl-c-headers"
# `make demo`: a Level Zero program on Intel's driver, simulating an Arc GPU.
DEMO_PKGS="$BUILD_PKGS intel-opencl-icd libze1 ocl-icd-libopencl1 ocl-icd-opencl-dev man-db"
# The drivers, clients and tools of the tests, examples and benchmarks.
ALL_PKGS="$DEMO_PKGS clang clinfo pocl-opencl-icd libdnnl-dev clpeak python3-pyopencl
      python3-venv clblast-utils clfft-client gnuplot-nox debootstrap zstd patchelf
      redis-server debhelper lintian fakeroot libcurl4 curl nginx-light openssl git systemd strace"
list=0
[ "${1:-}" = --list ] && { list=1; shift; }
case ${1:-all} in
demo) PKGS=$DEMO_PKGS ;;
all) PKGS=$ALL_PKGS ;;
*) echo "usage: tests/install-deps.sh [--list] [demo]" >&2; exit 2 ;;
esac
[ $list = 1 ] && { echo $PKGS | tr ' ' '\n'; exit 0; }
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

root=$(cd "$(dirname "$0")/.." && pwd)
log=${DEPS_LOG:-$root/build/deps.log}
mkdir -p "$(dirname "$log")"
: >"$log"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo

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
		exit 1
	fi
}

n=$(echo $missing | wc -w)
echo "deps: installing $n Debian packages:$missing (log: $log)"
step "apt-get update" $SUDO apt-get update
step "apt-get install" $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y \
	--no-install-recommends $missing
