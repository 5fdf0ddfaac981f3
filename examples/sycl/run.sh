#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs a command with the SYCL environment (.venv-sycl, see setup.sh) set up
# for one backend.  The command is the SYCL workload when none is given.
#
#   examples/sycl/run.sh BACKEND [-- COMMAND ARGS...]
#   examples/sycl/run.sh BACKEND [WORKLOAD ARGS...]
#
#   BACKEND  opencl:cpu   Intel's CPU OpenCL runtime from intel-opencl-rt
#                         (kernels really execute)
#            opencl:gpu   Intel's GPU driver (Debian NEO 22.43) simulating an
#                         Arc (DG2) GPU: real JIT, kernels do not execute
#            level_zero:gpu  the same driver through Level Zero (needs a Level
#                         Zero loader that SYCL accepts: see NOTES.md)
#
# Under jitcache:  bin/jitcache run -- examples/sycl/run.sh opencl:cpu
# (LD_PRELOAD is inherited by the Python process).  The simulated GPU writes
# .aub files into the current directory: run it from a temporary directory.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
venv=${SYCL_VENV:-$root/.venv-sycl}
if [ ! -x "$venv/bin/python" ]; then
	echo "run.sh: no SYCL environment in $venv (run 'make sycl-env')" >&2
	exit 3
fi
backend=${1:-}
[ $# -gt 0 ] && shift
case $backend in
opencl:cpu)
	# The wheel's own Khronos ICD loader (lib/libOpenCL.so.1, found through
	# the UR OpenCL adapter's RUNPATH) adds this ICD to /etc/OpenCL/vendors'.
	OCL_ICD_FILENAMES=$venv/lib/libintelocl.so
	export OCL_ICD_FILENAMES
	;;
opencl:gpu|level_zero:gpu)
	NEOReadDebugKeys=1 SetCommandStreamReceiver=1 ProductFamilyOverride=dg2
	OverrideMaxWorkgroupSize=256
	export NEOReadDebugKeys SetCommandStreamReceiver ProductFamilyOverride OverrideMaxWorkgroupSize
	;;
*)
	echo "usage: run.sh opencl:cpu|opencl:gpu|level_zero:gpu [-- COMMAND...|WORKLOAD ARGS...]" >&2
	exit 2
	;;
esac
ONEAPI_DEVICE_SELECTOR=$backend
export ONEAPI_DEVICE_SELECTOR
# jitcache's build tree (build/lib, on LD_LIBRARY_PATH in the tests) has a
# libze_loader.so.1 that is really Intel's driver; SYCL's Level Zero adapter
# crashes on it (NOTES.md), so such directories are dropped from the path.
llp=
old_ifs=$IFS; IFS=:
for d in ${LD_LIBRARY_PATH:-}; do
	case $(readlink -f "$d/libze_loader.so.1" 2>/dev/null) in
	*libze_intel_gpu*) continue ;;
	esac
	llp=${llp:+$llp:}$d
done
IFS=$old_ifs
if [ -n "$llp" ]; then LD_LIBRARY_PATH=$llp; export LD_LIBRARY_PATH; else unset LD_LIBRARY_PATH; fi
if [ "${1:-}" = "--" ]; then
	shift
	PATH=$venv/bin:$PATH exec "$@"
fi
exec "$venv/bin/python" "$here/workload.py" "$@"
