#!/bin/sh
# Installs the Debian 12 packages jitcache needs to build, test and demo.
# Quiet and quick when everything is already there.
set -e
PKGS="build-essential clang pkg-config libxxhash-dev libinih-dev libzstd-dev
      ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-c-headers clinfo
      intel-opencl-icd libze1 pocl-opencl-icd libdnnl-dev clpeak python3-pyopencl
      clblast-utils gnuplot-nox debootstrap zstd
      redis-server libhiredis-dev"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
