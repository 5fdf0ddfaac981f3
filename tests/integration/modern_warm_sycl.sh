#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: full: needs SYCL in the test bed (make testbed-sycl)
# `jitcache warm --for` with real runtimes on Intel's 2026 driver (the test
# bed, with the wheels of `make testbed-sycl`): Intel's SYCL runtime (dpctl +
# dpnp, examples/sycl/workload.py, its modules through zeModuleCreate) and
# oneDNN's SYCL build (build/examples/onednn_sycl, its OpenCL C through
# clBuildProgram) run once on a simulated Arc A770, which records their
# recipes; `jitcache warm --for a380 --export` then compiles them for an
# Arc A380 (another IP version, 12.56.5, so other keys; an A580 shares
# the A770's 12.55.8, and so its entries), and each program's first run
# on a process that presents an A380's real identity, with a fresh cache and
# the export as a read-only layer, misses nothing.  (SYCL's runtime and
# oneDNN's engine do not start on the simulated B580: modern_warm.sh covers
# it with plain Level Zero and OpenCL programs.)  Skipped elsewhere.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/ze_common.bash" # present

VENV=${SYCL_VENV:-/opt/jitcache-sycl}
ONEDNN=$B/examples/onednn_sycl
need_modern_driver
if [ ! -x "$VENV/bin/python" ] || [ ! -x "$ONEDNN" ] || [ ! -x "$B/jitcache-replay" ]; then
	skip "no SYCL environment in $VENV or programs not built in $B ('make testbed-sycl', then tests/testbed/run make BUILD=$BUILD modern-build)"
	finish; exit $?
fi
unset JITCACHE_RECIPES # the default: on
# The real loader must answer (the build's lib/ holds the driver under its name).
unset LD_LIBRARY_PATH
export SYCL_VENV=$VENV ONEAPI_DEVICE_SELECTOR=level_zero:gpu

KERNELS=4
"$VENV/bin/python" - "$KERNELS" "$T/program.spv" <<EOF
import sys; sys.path.insert(0, "$ROOT/examples/sycl")
import workload
spv, why = workload.make_spirv(int(sys.argv[1]))
if spv is None: sys.exit(why)
open(sys.argv[2], "wb").write(spv)
EOF
check "SPIR-V for the dpctl program (ocloc)" test -s "$T/program.spv"
# The workload itself, not examples/sycl/run.sh, which simulates a DG2 of its own.
SYCL=("$VENV/bin/python" "$ROOT/examples/sycl/workload.py" --spv "$T/program.spv" --kernels "$KERNELS")
cached() { JITCACHE_LOG=info "$JITCACHE" run -- "$@"; }

present a770
cached "${SYCL[@]}" >"$T/sycl-record.out" 2>&1
cached "$ONEDNN" >"$T/dnnl-record.out" 2>&1
sycl_n=$(summary misses "$T/sycl-record.out")
dnnl_n=$(summary misses "$T/dnnl-record.out")
check "recording: SYCL compiled $sycl_n modules, oneDNN $dnnl_n programs" \
	test "${sycl_n:-0}" -gt 0 -a "${dnnl_n:-0}" -gt 0
check "recording: one recipe per compile" test "$(recipes)" -eq $((sycl_n + dnnl_n))

"$JITCACHE" warm --for a380 --export "$T/a380.tar.zst" >"$T/warm.out" 2>&1
check "warm --for a380: succeeds" test $? -eq 0
check "warm --for a380: every recipe compiled, none failed" \
	grep -q "$((sycl_n + dnnl_n)) compiled, 0 already cached, 0 failed" "$T/warm.out"
JITCACHE_DIR=$T/layer "$JITCACHE" import "$T/a380.tar.zst" >/dev/null 2>&1 && chmod -R go-w "$T/layer"

export JITCACHE_LAYERS=$T/layer
(present a380; JITCACHE_DIR=$T/cache-a380s cached "${SYCL[@]}" >"$T/sycl-a380.out" 2>&1)
(present a380; JITCACHE_DIR=$T/cache-a380 cached "$ONEDNN" >"$T/dnnl-a380.out" 2>&1)
check "A380 identity: SYCL's first run ran" grep -q '^device: level_zero:gpu' "$T/sycl-a380.out"
check "A380 identity: SYCL's first run misses nothing ($(summary hits "$T/sycl-a380.out") hits)" \
	sh -c "test $(summary misses "$T/sycl-a380.out") -eq 0 && test $(summary hits "$T/sycl-a380.out") -eq $sycl_n"
check "A380 identity: oneDNN's first run misses nothing ($(summary hits "$T/dnnl-a380.out") hits)" \
	sh -c "test $(summary misses "$T/dnnl-a380.out") -eq 0 && test $(summary hits "$T/dnnl-a380.out") -eq $dnnl_n"
finish
