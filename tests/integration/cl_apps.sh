#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# Unmodified OpenCL programs under `jitcache run`, cold then warm:
#   - examples/onednn_conv: oneDNN (Debian's libdnnl) creating ResNet-50's
#     convolution primitives on the simulated Arc GPU: warm >= 20x faster;
#   - clpeak (Debian) on PoCL;
#   - examples/pyopencl_demo.py with Debian's python3-pyopencl on PoCL, with
#     pyopencl's own cache off (PYOPENCL_NO_CACHE=1).
. "$(dirname "$0")/../lib.sh"
export JITCACHE_LOG=info POCL_KERNEL_CACHE=0 PYOPENCL_NO_CACHE=1
have_pocl() { clinfo -l 2>/dev/null | grep -q "Portable Computing Language"; }
hits() { sed -n 's/^jitcache: \([0-9]*\) hits.*/\1/p' "$1" | tail -n 1; }
stores() { sed -n 's/^jitcache: .* \([0-9]*\) stores.*/\1/p' "$1" | tail -n 1; }

# --- oneDNN on the simulated Arc GPU ------------------------------------------
ONEDNN=$B/examples/onednn_conv
if [ ! -x "$ONEDNN" ]; then
	skip "oneDNN example not built ($ONEDNN; needs libdnnl-dev)"
elif ! (sim_dg2; clinfo -l 2>/dev/null | grep -q "Intel(R) OpenCL"); then
	skip "Intel's OpenCL driver does not show a simulated GPU (intel-opencl-icd)"
else
	(
		sim_dg2
		$JITCACHE run -- "$ONEDNN" >dnn.cold 2>&1
		$JITCACHE run -- "$ONEDNN" >dnn.warm 2>&1
	)
	secs() { sed -n 's/^created .* in \([0-9.]*\) s$/\1/p' "$1"; }
	cold=$(secs dnn.cold) warm=$(secs dnn.warm)
	check "oneDNN, cold: primitives created" test -n "$cold"
	check "oneDNN, warm: primitives created" test -n "$warm"
	check "oneDNN, cold: programs stored" test "${cold:+$(stores dnn.cold)}" -gt 0
	check "oneDNN, warm: every build from the cache" \
		test "$(hits dnn.warm)" = "$(stores dnn.cold)" -a "$(stores dnn.warm)" = 0
	ratio=$(awk -v c="${cold:-0}" -v w="${warm:-1}" 'BEGIN { printf "%.1f", c / (w > 0 ? w : 1e-6) }')
	echo "     oneDNN, 20 convolutions on the simulated Arc: cold ${cold} s, warm ${warm} s (${ratio}x)"
	check "oneDNN, warm: at least 20x faster than cold (${ratio}x)" ge "$ratio" 20
fi

# --- clpeak on PoCL --------------------------------------------------------------
if ! have_pocl || ! command -v clpeak >/dev/null; then
	skip "clpeak or PoCL not installed"
else
	rm -rf "$JITCACHE_DIR"
	$JITCACHE run -- clpeak --kernel-latency >peak.cold 2>&1; rc_cold=$?
	$JITCACHE run -- clpeak --kernel-latency >peak.warm 2>&1; rc_warm=$?
	check "clpeak, cold: runs" test "$rc_cold" = 0
	check "clpeak, cold: measures" grep -q 'Kernel launch latency' peak.cold
	check "clpeak, cold: its program stored" test "$(stores peak.cold)" -ge 1
	check "clpeak, warm: runs and measures" grep -q 'Kernel launch latency' peak.warm
	check "clpeak, warm: its build from the cache" \
		test "$rc_warm" = 0 -a "$(hits peak.warm)" -ge 1 -a "$(stores peak.warm)" = 0
fi

# --- pyopencl on PoCL ---------------------------------------------------------
PY=/usr/bin/python3
if ! have_pocl || ! "$PY" -c 'import pyopencl, numpy' 2>/dev/null; then
	skip "python3-pyopencl or PoCL not installed"
else
	rm -rf "$JITCACHE_DIR"
	$JITCACHE run -- "$PY" "$ROOT/examples/pyopencl_demo.py" >py.cold 2>&1
	$JITCACHE run -- "$PY" "$ROOT/examples/pyopencl_demo.py" >py.warm 2>&1
	check "pyopencl, cold: result checked" grep -q '^result ok' py.cold
	check "pyopencl, cold: stored" test "$(stores py.cold)" = 1
	check "pyopencl, warm: result checked" grep -q '^result ok' py.warm
	check "pyopencl, warm: from the cache" test "$(hits py.warm)" = 1 -a "$(stores py.warm)" = 0
	check "pyopencl: same result cold and warm" \
		test "$(grep '^result' py.cold)" = "$(grep '^result' py.warm)"
fi
finish
