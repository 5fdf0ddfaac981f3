#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: full: needs Intel's SYCL wheels in .venv-sycl (make sycl-env)
# Intel's real SYCL runtime, unmodified, under jitcache: dpctl + dpnp from
# PyPI (.venv-sycl, `make sycl-env`) run examples/sycl/workload.py cold, then
# warm, on
#   opencl:cpu  Intel's CPU OpenCL runtime: kernels execute, so the results
#               must be identical with and without jitcache, cold and warm
#               (also together with SYCL's own persistent cache);
#   opencl:gpu  Intel's GPU driver simulating an Arc GPU: real JIT, results
#               meaningless, so only the cache behaviour and timing count;
#   level_zero:gpu  only where SYCL finds a Level Zero loader it accepts
#               (not on Debian 12: see examples/sycl/NOTES.md).
# Skips with a message when the SYCL environment is not installed.
. "$(dirname "$0")/../lib.sh"

VENV=${SYCL_VENV:-$ROOT/.venv-sycl}
RUN=$ROOT/examples/sycl/run.sh
if [ ! -x "$VENV/bin/python" ]; then
	skip "no SYCL environment in $VENV: 'make sycl-env' installs it (pip, ~0.8 GB)"
	finish
	exit $?
fi
if ! command -v ocloc >/dev/null 2>&1; then
	skip "ocloc not found (Debian intel-opencl-icd; 'make deps')"
	finish
	exit $?
fi
if [ ! -r "$LIB" ]; then
	skip "$LIB not built"
	finish
	exit $?
fi

# Value of "NAME: value" in an output file (first word only).
field() { sed -n "s/^$1: //p" "$2" | head -n 1 | awk '{print $1}'; }
# From jitcache's exit line "jitcache: H hits, M misses, S stores; ...":
# the Python process is the only one that builds programs.
count() { # count hits|misses|stores FILE
	grep -E '^jitcache: [0-9]+ hits' "$2" | tail -n 1 |
		sed -E "s/.* ([0-9]+) $1[,;].*/\\1/;t;s/.*/0/"
}
build_time() { sed -n 's/.*create_program_from_spirv \([0-9.]*\) s.*/\1/p' "$1"; }
zero() { [ "${1:-1}" -eq 0 ]; }
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

plain() { "$RUN" "$@"; }
cached() { JITCACHE_LOG=info "$JITCACHE" run -- "$RUN" "$@"; }

# ---- opencl:cpu: kernels execute, results must match -------------------------
export JITCACHE_DIR=$T/cache-cpu
plain opencl:cpu >"$T/cpu-plain.out" 2>&1
check "opencl:cpu runs without jitcache" grep -q '^checksum: ' "$T/cpu-plain.out"
ref=$(field checksum "$T/cpu-plain.out")
# The device is named after the host's CPU (Intel or AMD): the platform and
# vendor name the runtime.
check "opencl:cpu is Intel's CPU runtime" \
	grep -q '^platform: Intel(R) OpenCL (vendor Intel(R) Corporation)' "$T/cpu-plain.out"
check "opencl:cpu is a CPU device" grep -q '^device: opencl:cpu ' "$T/cpu-plain.out"

cached opencl:cpu >"$T/cpu-cold.out" 2>&1
check "opencl:cpu cold under jitcache: same results" same "$(field checksum "$T/cpu-cold.out")" "$ref"
check "opencl:cpu cold stores programs" positive "$(count stores "$T/cpu-cold.out")"
n_cold=$(entries)
check "opencl:cpu cold leaves entries in the cache" positive "$n_cold"

cached opencl:cpu >"$T/cpu-warm.out" 2>&1
check "opencl:cpu warm under jitcache: same results" same "$(field checksum "$T/cpu-warm.out")" "$ref"
check "opencl:cpu warm hits the cache" positive "$(count hits "$T/cpu-warm.out")"
check "opencl:cpu warm misses nothing" zero "$(count misses "$T/cpu-warm.out")"
check "opencl:cpu warm hits every program the cold run stored" \
	same "$(count hits "$T/cpu-warm.out")" "$(count stores "$T/cpu-cold.out")"
check "opencl:cpu warm adds no entries" same "$(entries)" "$n_cold"

# Together with SYCL's own persistent cache (its warm path builds from binaries).
export SYCL_CACHE_PERSISTENT=1 SYCL_CACHE_DIR=$T/sycl-cache
cached opencl:cpu >"$T/cpu-sycl1.out" 2>&1
cached opencl:cpu >"$T/cpu-sycl2.out" 2>&1
unset SYCL_CACHE_PERSISTENT SYCL_CACHE_DIR
check "opencl:cpu with SYCL's cache (cold) under jitcache: same results" \
	same "$(field checksum "$T/cpu-sycl1.out")" "$ref"
check "opencl:cpu with SYCL's cache (warm) under jitcache: same results" \
	same "$(field checksum "$T/cpu-sycl2.out")" "$ref"

# ---- opencl:gpu: the simulated Arc; real JIT, meaningless results -------------
export JITCACHE_DIR=$T/cache-gpu
cached opencl:gpu >"$T/gpu-cold.out" 2>&1
if grep -q '^checksum: ' "$T/gpu-cold.out"; then
	check "opencl:gpu cold under jitcache completes" true
	check "opencl:gpu is Intel's driver" grep -q '^device: opencl:gpu Intel(R) Graphics' "$T/gpu-cold.out"
	check "opencl:gpu cold stores programs" positive "$(count stores "$T/gpu-cold.out")"
	cached opencl:gpu >"$T/gpu-warm.out" 2>&1
	check "opencl:gpu warm under jitcache completes" grep -q '^checksum: ' "$T/gpu-warm.out"
	check "opencl:gpu warm hits every program the cold run stored" \
		same "$(count hits "$T/gpu-warm.out")" "$(count stores "$T/gpu-cold.out")"
	check "opencl:gpu warm misses nothing" zero "$(count misses "$T/gpu-warm.out")"
	check "opencl:gpu warm builds the SPIR-V program at least twice as fast" \
		lt "$(awk -v w="$(build_time "$T/gpu-warm.out")" 'BEGIN { print 2 * w }')" \
		"$(build_time "$T/gpu-cold.out")"
else
	check "opencl:gpu cold under jitcache completes" false
	sed 's/^/    /' "$T/gpu-cold.out" | tail -n 5
fi

# ---- level_zero:gpu: only with a Level Zero loader SYCL accepts ---------------
if "$RUN" level_zero:gpu -- python -c \
	'import dpctl; dpctl.SyclDevice("level_zero:gpu")' >"$T/ze-probe.out" 2>&1; then
	export JITCACHE_DIR=$T/cache-ze
	cached level_zero:gpu >"$T/ze-cold.out" 2>&1
	cached level_zero:gpu >"$T/ze-warm.out" 2>&1
	check "level_zero:gpu cold stores modules" positive "$(count stores "$T/ze-cold.out")"
	check "level_zero:gpu warm hits every module the cold run stored" \
		same "$(count hits "$T/ze-warm.out")" "$(count stores "$T/ze-cold.out")"
	check "level_zero:gpu warm misses nothing" zero "$(count misses "$T/ze-warm.out")"
else
	skip "level_zero:gpu: SYCL's Level Zero adapter finds no loader it can use" \
		"(examples/sycl/NOTES.md, section 3)"
fi

# ---- timings, for the record ----------------------------------------------------
t() { field "time to last result" "$1" 2>/dev/null; }
echo "   opencl:cpu last result: plain $(t "$T/cpu-plain.out") s," \
	"jitcache cold $(t "$T/cpu-cold.out") s, warm $(t "$T/cpu-warm.out") s;" \
	"SYCL cache + jitcache warm $(t "$T/cpu-sycl2.out") s"
[ -f "$T/gpu-warm.out" ] &&
	echo "   opencl:gpu last result: jitcache cold $(t "$T/gpu-cold.out") s, warm $(t "$T/gpu-warm.out") s"
finish
