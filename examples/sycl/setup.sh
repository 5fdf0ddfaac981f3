#!/bin/sh
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
venv=${SYCL_VENV:-$root/.venv-sycl}
py=${PYTHON:-python3}
req=${SYCL_REQUIREMENTS:-$here/requirements.txt}
stamp=$venv/.jitcache-sycl-pins

want=$(grep -v '^#' "$req" | sort | tr '\n' ' ')
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$venv/bin/python" ]; then
	exit 0
fi

ver=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
case $ver in
3.10|3.11|3.12|3.13|3.14) ;;
*) echo "setup.sh: $py is Python $ver; dpctl/dpnp wheels need 3.10-3.14 (set PYTHON=)" >&2; exit 1 ;;
esac

start=$(date +%s)
# pip's output goes to a log, shown if it fails.
log=${SYCL_LOG:-$root/build/sycl-env.log}
mkdir -p "$(dirname "$log")"
echo "installing the SYCL environment into $venv ($(basename "$req"); about 0.8-1 GB download, 2.7-3 GB on disk; log: $log)"
if ! { "$py" -m venv "$venv" &&
	"$venv/bin/python" -m pip install --no-cache-dir --disable-pip-version-check -r "$req"; } \
	>"$log" 2>&1; then
	echo "setup.sh: installing the SYCL environment failed; the last 30 lines of $log:" >&2
	tail -n 30 "$log" >&2
	exit 1
fi
# Keep git away from it even before .gitignore names it (as Python 3.13's venv does).
echo '*' > "$venv/.gitignore"

# intel-opencl-rt's ICD file names a conda placeholder path
# (/opt/anaconda1anaconda2anaconda3/lib/libintelocl.so) that a conda post-link
# script would rewrite; do the same here so OCL_ICD_VENDORS=$venv/etc/OpenCL/vendors works.
vendors=$venv/etc/OpenCL/vendors
if [ -d "$vendors" ]; then
	for f in "$vendors"/*.icd; do
		sed -i "s|/opt/anaconda1anaconda2anaconda3|$venv|g" "$f"
	done
fi

echo "$want" > "$stamp"
echo "SYCL environment ready in $(( $(date +%s) - start )) s: $(du -sh "$venv" | cut -f1) in $venv"
