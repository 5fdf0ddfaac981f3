#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# What a hit saves on PoCL counts PoCL's work-group compiles (issue 46,
# cl_pocl.h): PoCL compiles a kernel's work-group function when the kernel
# first runs, after the build, and the entry jitcache keeps holds that code,
# so the next run's "compiling avoided" must count that compile's CPU time
# beside the build's.  That compile's CPU time is measured here without
# jitcache, by rusage: a run whose PoCL cache holds the program but not its
# work-group function, against one whose cache holds both.
. "$(dirname "$0")/../lib.sh"
export POCL_CACHE_DIR=$T/pocl-cache
unset POCL_KERNEL_CACHE POCL_DEBUG
CLB=$B/tests/cl_build

need_pocl
cp "$ROOT/tests/integration/compute.cl" k.cl
build() { "$@" "$CLB" --platform Portable --source k.cl --options "-DSCALE=2.5f" --run compute; }
# The CPU time (user + system, clock ticks) of build "$@" and its children.
ticks() {
	local a b
	read -r -a a </proc/$BASHPID/stat
	build "$@" >/dev/null 2>&1
	read -r -a b </proc/$BASHPID/stat
	echo $((b[15] + b[16] - a[15] - a[16]))
}
# The work-group function's compile, by rusage, without jitcache.
build env >/dev/null 2>&1
ticks env >/dev/null # warm, in the page cache too
warm=$(ticks env)
rm -rf "$POCL_CACHE_DIR"/*/*/compute
wg=$(ticks env)
check "without jitcache: PoCL compiled the work-group function again" \
	sh -c "ls '$POCL_CACHE_DIR'/*/*/compute/*/compute.so"
wg=$((wg - warm))
echo "   PoCL's work-group compile, by rusage: $wg ticks ($(getconf CLK_TCK)/s)"

rm -rf "$POCL_CACHE_DIR"
JITCACHE_LOG=debug build $JITCACHE run -- >cold.out 2>cold.err
check "jitcache cold: stored one entry" grep -q 'jitcache: 0 hits, 1 misses, 1 stores' cold.err
check "... then added PoCL's work-group code to it" grep -q "PoCL's work-group code added" cold.err
built=$(sed -n 's/.*OpenCL build .*: compiled in \([0-9.]*\) s,.*/\1/p' cold.err)

rm -rf "$POCL_CACHE_DIR"
JITCACHE_LOG=info build $JITCACHE run -- >warm.out 2>warm.err
check "PoCL's cache emptied, jitcache's entry alone: a hit" grep -q 'jitcache: 1 hits, 0 misses' warm.err
check "... the same results" test "$(grep '^run=0 ' warm.out)" = "$(grep '^run=0 ' cold.out)"
avoided=$(sed -n 's/.*compiling avoided: [0-9.]* s (\([0-9.]*\) s of CPU).*/\1/p' warm.err)
echo "   the build: $built s of CPU; avoided: $avoided s of CPU"
# At least half the work-group compile's CPU (the linker PoCL runs as a
# child is not counted; rusage's ticks and the log's rounding are coarse).
check "... the CPU time avoided counts the work-group compile beside the build's" \
	awk -v a="$avoided" -v b="$built" -v w="$wg" -v hz="$(getconf CLK_TCK)" \
	'BEGIN { exit !(b > 0 && w > 0 && a - b >= w / hz / 2) }'
finish
