#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# OpenCL programs through the remote tier: on PoCL (kernels really run, so
# results are compared with a run without jitcache) and on Intel's driver
# simulating an Arc GPU.  Node A builds from source and stores locally and
# in Redis; node B (its own empty cache directory) gets the binaries from
# Redis without compiling, replays the build log, and computes the same.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/remote_common.bash"
need_redis
unset JITCACHE_LOCK_TIMEOUT JITCACHE_COMPRESS
export JITCACHE_LOG=debug POCL_KERNEL_CACHE=0
CLB=$B/tests/cl_build
if [ ! -x "$CLB" ]; then # make check builds it: its absence is a broken build
	check "test prerequisite $CLB present" false
	finish
	exit $?
fi
check "redis-server started on a unix socket" start_redis main
export JITCACHE_REMOTE=redis+unix://$REDIS_SOCK_main
stat_of() { stats_in "$T/node-$1" "$2"; } # NODE FIELD
result() { sed -n 's/.*result=\([0-9a-f]*\).*/\1/p' "$T/$1.out"; }
seconds() { sed -n 's/.*seconds=\([0-9.]*\).*/\1/p' "$T/$1.out"; }

{ cat "$ROOT/tests/integration/compute.cl"; echo "#warning jitcache-remote-test"; } >k.cl

# ---- PoCL ---------------------------------------------------------------------------
if clinfo -l 2>/dev/null | grep -q "Portable Computing Language"; then
	OPTS="-DSCALE=1.25f"
	"$CLB" --platform Portable --source k.cl --options "$OPTS" --run compute >"$T/plain.out" 2>&1
	check "PoCL, no jitcache: the kernel runs" grep -q '^run=0 ' "$T/plain.out"
	node pA "$CLB" --platform Portable --source k.cl --options "$OPTS" --run compute
	check "PoCL, node A: compiled and stored remotely" \
		test "$(compiles "$T/pA.out")" -eq 1 -a "$(stat_of pA remote_stores)" -eq 1
	check "PoCL, node A: results bit-identical" test "$(result pA)" = "$(result plain)"
	node pB "$CLB" --platform Portable --source k.cl --options "$OPTS" --run compute
	check "PoCL, node B: no compile, a remote hit" \
		test "$(compiles "$T/pB.out")" -eq 0 -a "$(stat_of pB remote_hits)" -eq 1
	check "PoCL, node B: the build log replayed" grep -q jitcache-remote-test "$T/pB.out"
	check "PoCL, node B: results bit-identical" test "$(result pB)" = "$(result plain)"
	echo "     PoCL clBuildProgram: node A $(seconds pA) s (compiled), node B $(seconds pB) s (remote hit)"
else
	skip "PoCL is not installed (pocl-opencl-icd)"
fi

# ---- Intel's driver, simulated Arc -------------------------------------------------------
sim_dg2
if clinfo -l 2>/dev/null | grep -q "Intel(R) OpenCL"; then
	OPTS="-DSCALE=0.5f"
	node iA "$CLB" --platform Intel --source k.cl --options "$OPTS"
	check "Intel, node A: builds, compiled and stored remotely" \
		test "$(compiles "$T/iA.out")" -eq 1 -a "$(stat_of iA remote_stores)" -eq 1
	node iB "$CLB" --platform Intel --source k.cl --options "$OPTS"
	check "Intel, node B: builds" grep -q '^build=0 ' "$T/iB.out"
	check "Intel, node B: no compile, a remote hit" \
		test "$(compiles "$T/iB.out")" -eq 0 -a "$(stat_of iB remote_hits)" -eq 1
	check "Intel, node B: the build log replayed" grep -q jitcache-remote-test "$T/iB.out"
	a=$(seconds iA) b=$(seconds iB)
	echo "     Intel (simulated Arc) clBuildProgram: node A $a s (compiled), node B $b s (remote hit)"
	check "Intel, node B: much faster than node A ($a s -> $b s)" ge "$a" "$(awk -v b="$b" 'BEGIN { print b * 5 }')"
	node iRO env JITCACHE_REMOTE_READ_ONLY=1 "$CLB" --platform Intel --source k.cl --options "-DSCALE=0.25f"
	check "Intel, read-only node: builds and stores nothing remotely" \
		test "$(stat_of iRO remote_stores)" -eq 0 -a "$(compiles "$T/iRO.out")" -eq 1
else
	skip "Intel's OpenCL driver does not show a simulated GPU (intel-opencl-icd)"
fi
check "Redis holds the two programs' values (PoCL, Intel), no lease" \
	test "$(rcli main DBSIZE)" -eq 2
finish
