#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: full: needs .venv-jupyter (make jupyter-env: ipykernel and jupyter_client from PyPI)
# `jitcache enable jupyter` (issue 37 item 4) with a real kernel: the kernel
# spec it writes where Jupyter looks ($JUPYTER_DATA_DIR/kernels/NAME, else
# $XDG_DATA_HOME/jupyter/..., or --prefix DIR/share/jupyter/...),
# found by jupyter_client and started by it (ipykernel, from PyPI in
# .venv-jupyter: `make jupyter-env`).  A cell builds an OpenCL program with
# pyopencl on PoCL; two kernel processes in turn: the first compiles and
# stores, the second hits.  The kernel runs with the library mapped; disable
# removes the spec and jupyter_client no longer finds it.
. "$(dirname "$0")/../lib.sh"
VENV=${JUPYTER_VENV:-$ROOT/.venv-jupyter}
if [ ! -x "$VENV/bin/python" ]; then
	skip "no Jupyter environment in $VENV: 'make jupyter-env' installs it"
	finish; exit $?
fi
if ! clinfo -l 2>/dev/null | grep -q "Portable Computing Language"; then
	skip "PoCL is not installed (pocl-opencl-icd)"
	finish; exit $?
fi
export PYOPENCL_NO_CACHE=1 POCL_KERNEL_CACHE=0
unset LD_PRELOAD
PY=$VENV/bin/python
cd "$T" || exit 1

# Jupyter's paths: JUPYTER_DATA_DIR first, else XDG_DATA_HOME/jupyter.
XDG_DATA_HOME=$T/xdg "$JITCACHE" enable jupyter --python "$PY" >xdg.out 2>&1
check "enable jupyter, no JUPYTER_DATA_DIR: \$XDG_DATA_HOME/jupyter/kernels/python3-jitcache" \
	test -f "$T/xdg/jupyter/kernels/python3-jitcache/kernel.json"
"$JITCACHE" enable jupyter --python "$PY" --prefix "$T/prefix" >prefix.out 2>&1
check "--prefix DIR: DIR/share/jupyter/kernels/python3-jitcache" \
	test -f "$T/prefix/share/jupyter/kernels/python3-jitcache/kernel.json"
export JUPYTER_DATA_DIR=$T/jupyter
"$JITCACHE" enable jupyter --python "$PY" >enable.out 2>&1
SPEC=$JUPYTER_DATA_DIR/kernels/python3-jitcache/kernel.json
check "enable jupyter: \$JUPYTER_DATA_DIR/kernels/python3-jitcache/kernel.json" test -f "$SPEC"
"$PY" - "$SPEC" "$(realpath "$(dirname "$LIB")")/$(basename "$LIB")" >spec.out 2>&1 <<'PY'
import json, sys
spec = json.load(open(sys.argv[1]))
assert spec["env"]["LD_PRELOAD"] == sys.argv[2], spec["env"]
assert "{connection_file}" in spec["argv"], spec["argv"]
print("ok")
PY
check "... valid JSON: LD_PRELOAD is the library, argv takes the connection file" grep -qx ok spec.out
"$PY" -c 'from jupyter_client.kernelspec import KernelSpecManager as M; print(M().find_kernel_specs())' >found.out 2>&1
check "jupyter_client finds the kernel" grep -q "'python3-jitcache'" found.out

cat >cell.py <<'PY'
import os, pyopencl as cl
print("mapped", sum("libjitcache.so" in l for l in open("/proc/self/maps")))
print("pid", os.getpid())
platform = [p for p in cl.get_platforms() if "Portable" in p.name][0]
ctx = cl.Context(platform.get_devices())
prg = cl.Program(ctx, "__kernel void twice(__global float *a) { a[get_global_id(0)] *= 2.0f; }").build()
print("built", prg.kernel_names)
PY
cat >drive.py <<'PY'
# Start the kernel by name as Jupyter does, run the cell, shut it down.
import sys
from jupyter_client.manager import start_new_kernel
km, kc = start_new_kernel(kernel_name="python3-jitcache", startup_timeout=180)
out = []
def hook(msg):
    c = msg["content"]
    if msg["msg_type"] == "stream":
        out.append(c["text"])
    elif msg["msg_type"] == "error":
        out.append("error %s %s\n" % (c["ename"], c["evalue"]))
try:
    reply = kc.execute_interactive(open(sys.argv[1]).read(), timeout=300, output_hook=hook)
    out.append("status %s\n" % reply["content"]["status"])
finally:
    kc.stop_channels()
    km.shutdown_kernel(now=False)
sys.stdout.write("".join(out))
PY
stat() { "$JITCACHE" stats --json | "$PY" -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }
timeout 300 "$PY" drive.py cell.py >first.out 2>first.err
check "first kernel: the cell ran" grep -qx "status ok" first.out
check "... built its OpenCL program" grep -q "^built twice" first.out
check "... with libjitcache mapped in the kernel process" grep -q "^mapped [1-9]" first.out
check "... a miss, stored" test "$(stat misses)/$(stat stores)/$(stat hits)" = 1/1/0
timeout 300 "$PY" drive.py cell.py >second.out 2>second.err
check "second kernel: the cell ran" grep -qx "status ok" second.out
check "... in another kernel process" \
	test "$(grep '^pid' first.out)" != "$(grep '^pid' second.out)" -a -n "$(grep '^pid' second.out)"
check "... and it hit" test "$(stat hits)/$(stat misses)" = 1/1

"$JITCACHE" disable jupyter >disable.out 2>&1
check "disable jupyter: the kernel spec is gone" test ! -e "$(dirname "$SPEC")"
"$PY" -c 'from jupyter_client.kernelspec import KernelSpecManager as M; print(M().find_kernel_specs())' >found2.out 2>&1
check "... jupyter_client no longer finds it" sh -c "! grep -q python3-jitcache found2.out && grep -q '{' found2.out"
finish
