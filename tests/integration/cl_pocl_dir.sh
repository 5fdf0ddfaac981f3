#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# PoCL with its own kernel cache on (its default), jitcache beside it
# (shim/cl/cl_pocl.h): a miss stores PoCL's cache directory of the build,
# so PoCL compiles no generic work-group function for jitcache (taking the
# program's binary made it compile one per kernel, which the program never
# runs); the next run hits; a node whose PoCL cache is empty and whose
# only cache is jitcache's entry has PoCL compile nothing; adding jitcache
# to a warm PoCL cache has PoCL compile nothing either; and an entry of
# PoCL's directory serves a process with PoCL's cache off too.  Results
# are bit-identical throughout.
. "$(dirname "$0")/../lib.sh"
export JITCACHE_LOG=info POCL_CACHE_DIR=$T/pocl-cache POCL_DEBUG=general
unset POCL_KERNEL_CACHE
CLB=$B/tests/cl_build

need_pocl
cp "$ROOT/tests/integration/compute.cl" k.cl
build() { "$@" "$CLB" --platform Portable --source k.cl --options "-DSCALE=1.5f" --run compute; }
# Work-group functions PoCL compiled in a run (POCL_DEBUG=general).
generic() { grep -c 'Built a generic WG function' "$1"; }
compiled() { grep -c 'Built a .*WG function' "$1"; }
result() { grep '^run=0 ' "$1"; }

POCL_KERNEL_CACHE=0 build env >plain.out 2>plain.err
check "without jitcache: the kernel runs" grep -q '^run=0 result=' plain.out

build $JITCACHE run -- >cold.out 2>cold.err
check "PoCL's cache on, cold: stored one entry" grep -q 'jitcache: 0 hits, 1 misses, 1 stores' cold.err
check "... PoCL compiled no generic work-group function for jitcache" test "$(generic cold.err)" = 0
check "... the same results" test "$(result cold.out)" = "$(result plain.out)"
entry() { for f in "$JITCACHE_DIR"/[0-9a-f][0-9a-f]/*; do zstdcat -q "$f" 2>/dev/null || cat "$f"; done; }
check "... the entry is PoCL's directory (a pack), with the work-group code the run compiled" \
	sh -c "$(declare -f entry); entry | grep -qa jcpocld && entry | grep -qa 'compute/[0-9-]*[a-z0-9-]*/compute.so'"

# PoCL's own access() of the directory's program.bc (the hooks of
# shim/cl/cl_pocl.c) says which directory the build was, and that PoCL
# loaded it: no wait for the clock's next tick before a build, in 0.5 ms
# sleeps, to tell by file times (most of the wall time jitcache added to
# a warm PoCL cache: 0.28 s in pyopencl's run).
ticks() { grep -c 'tv_nsec=500000}' "$1"; }
build strace -f -qq -o next.st -e trace=nanosleep,clock_nanosleep $JITCACHE run -- \
	>next.out 2>next.err
check "the next run hits" grep -q 'jitcache: 1 hits, 0 misses, 0 stores' next.err
check "... without waiting for the clock's tick" test "$(ticks next.st)" = 0
check "... PoCL compiles nothing" test "$(compiled next.err)" = 0
check "... the same results" test "$(result next.out)" = "$(result plain.out)"

rm -rf "$POCL_CACHE_DIR"
build $JITCACHE run -- >node.out 2>node.err
check "PoCL's cache empty, jitcache's entry alone: a hit" grep -q 'jitcache: 1 hits, 0 misses' node.err
check "... PoCL compiles nothing" test "$(compiled node.err)" = 0
check "... the same results" test "$(result node.out)" = "$(result plain.out)"

# Adding jitcache to a warm PoCL cache.
rm -rf "$POCL_CACHE_DIR" "$JITCACHE_DIR"
build env >pocl.out 2>pocl.err
build strace -f -qq -o added.st -e trace=nanosleep,clock_nanosleep $JITCACHE run -- \
	>added.out 2>added.err
check "PoCL's cache warm, jitcache added: stored" grep -q 'jitcache: 0 hits, 1 misses, 1 stores' added.err
check "... without waiting for the clock's tick" test "$(ticks added.st)" = 0
check "... PoCL compiles nothing, not even for jitcache" test "$(compiled added.err)" = 0
check "... the same results" test "$(result added.out)" = "$(result plain.out)"
rm -rf "$POCL_CACHE_DIR"
build $JITCACHE run -- >added-node.out 2>added-node.err
check "... and that entry alone serves a node with PoCL's cache empty" \
	sh -c "grep -q 'jitcache: 1 hits, 0 misses' added-node.err && test \"\$(grep -c 'Built a .*WG function' added-node.err)\" = 0"

# An entry of PoCL's directory where PoCL's cache is off: PoCL reads no
# directory of its cache then, but looks for program.bc in the temporary
# one it makes for the build, where jitcache puts the pack: a hit.
POCL_KERNEL_CACHE=0 build $JITCACHE run -- >off.out 2>off.err
check "PoCL's cache off, an entry of PoCL's directory: a hit" \
	grep -q 'jitcache: 1 hits, 0 misses, 0 stores' off.err
check "... PoCL compiles nothing" test "$(compiled off.err)" = 0
check "... the same results" test "$(result off.out)" = "$(result plain.out)"
check "... and PoCL removed its temporary directory" \
	test "$(find "$POCL_CACHE_DIR" -maxdepth 1 -name '_UNCACHED_*' | wc -l)" = 0

# A program released before its kernel, as pyopencl's are when Python
# ends: with PoCL's cache off its directory goes with the kernel, and the
# work-group code PoCL compiled to run it was never added (every hit
# compiled it again).  It is added when the kernel is released now.
export POCL_KERNEL_CACHE=0
first() { "$@" "$CLB" --platform Portable --source k.cl --options "-DSCALE=0.5f" --run compute \
	--program-first; }
first env >first-plain.out 2>first-plain.err
first $JITCACHE run -- >first.out 2>first.err
check "program released before its kernel, PoCL's cache off: stored" \
	grep -q 'jitcache: 0 hits, 1 misses, 1 stores' first.err
first $JITCACHE run -- >first-hit.out 2>first-hit.err
check "... the next run hits" grep -q 'jitcache: 1 hits, 0 misses' first-hit.err
check "... PoCL compiles nothing: the work-group code was added" test "$(compiled first-hit.err)" = 0
check "... the same results" test "$(result first-hit.out)" = "$(result first-plain.out)"
finish
