#!/bin/sh
# Installs the Debian 12 packages jitcache needs to build, test and demo
# (`make deps`, and so `make check` and `make demo`).  Silent when everything
# is already there; otherwise one line per step, with apt's output kept in a
# log file (DEPS_LOG, default build/deps.log) that is shown when a step fails.
set -eu
# The library and admin tool (`make`) need only the first line; the rest are
# the drivers, clients and tools of the tests, examples and benchmarks.
PKGS="build-essential pkg-config libxxhash-dev libzstd-dev libinih-dev libhiredis-dev libsodium-dev
      clang ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-c-headers clinfo
      intel-opencl-icd libze1 pocl-opencl-icd libdnnl-dev clpeak python3-pyopencl
      python3-venv clblast-utils clfft-client gnuplot-nox debootstrap zstd patchelf
      redis-server man-db debhelper lintian fakeroot libcurl4 curl nginx-light openssl systemd strace"
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
