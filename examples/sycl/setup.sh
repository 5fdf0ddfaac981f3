#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs Intel's SYCL runtime (intel-sycl-rt + Unified Runtime adapters),
# Intel's CPU OpenCL runtime (intel-opencl-rt) and dpctl/dpnp from PyPI, at the
# versions pinned in requirements.txt, into a project-local virtual environment
# (default .venv-sycl/ at the repository root; never system-wide).
#   examples/sycl/setup.sh            (what `make sycl-env` runs)
#   SYCL_VENV=DIR PYTHON=python3.11 examples/sycl/setup.sh
#   SYCL_REQUIREMENTS=FILE ...        (another pin set: the test bed's,
#                                      tests/testbed/sycl-env.sh)
# Quick when the environment is already there with the same pins.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/examples/venv.sh"
py=${PYTHON:-python3}
ver=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
case $ver in
3.10|3.11|3.12|3.13|3.14) ;;
*) echo "setup.sh: $py is Python $ver; dpctl/dpnp wheels need 3.10-3.14 (set PYTHON=)" >&2; exit 1 ;;
esac
# intel-opencl-rt's ICD file names a conda placeholder path
# (/opt/anaconda1anaconda2anaconda3/lib/libintelocl.so) that a conda post-link
# script would rewrite; do the same here so OCL_ICD_VENDORS=$venv/etc/OpenCL/vendors works.
icd_paths() {
	for f in "$venv"/etc/OpenCL/vendors/*.icd; do
		[ -f "$f" ] && sed -i "s|/opt/anaconda1anaconda2anaconda3|$venv|g" "$f"
	done
	true
}
STAMP=.jitcache-sycl-pins
pinned_venv SYCL "${SYCL_VENV:-$root/.venv-sycl}" "$py" \
	"${SYCL_REQUIREMENTS:-$here/requirements.txt}" "${SYCL_LOG:-$root/build/sycl-env.log}" \
	"about 0.8-1 GB download, 2.7-3 GB on disk" icd_paths
