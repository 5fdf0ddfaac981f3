#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# PoCL's own kernel cache beside jitcache, with entries made while PoCL's
# was off (a CI job, `jitcache warm` in a clean environment, an imported
# pack): such an entry is a pack of a _UNCACHED_XXXXXX directory, which
# PoCL's cache never reads.  Hits with PoCL's cache on must cost no more
# than PoCL's cache alone: PoCL compiles nothing, not even the work-group
# functions it compiles when a kernel is first run (the run that made the
# entry compiled them, and jitcache added them to its entry:
# shim/cl/cl_pocl.h); jitcache puts the pack in the directory PoCL's hash
# of the build names, as PoCL makes it.  They must leave POCL_CACHE_DIR as
# PoCL's own cache would (no directory more on every hit), give the same
# results, and hit with PoCL's cache off too.
. "$(dirname "$0")/../lib.sh"
export JITCACHE_LOG=info POCL_CACHE_DIR=$T/pocl-cache POCL_DEBUG=general
CLB=$B/tests/cl_build

need_pocl
cp "$ROOT/tests/integration/compute.cl" k.cl
build() { "$@" "$CLB" --platform Portable --source k.cl --options "-DSCALE=1.25f" --run compute; }
# What PoCL keeps: its directories and files, less the empty temporary file
# PoCL leaves on every run with or without jitcache.
kept() { find "$POCL_CACHE_DIR" ! -name 'tempfile_*' 2>/dev/null | sort; }
# What PoCL compiled in a run (POCL_DEBUG=general says each build of a
# work-group function: "Built a generic/specialized WG function: PATH").
compiled() { grep -c 'Built a .*WG function' "$1"; }
# A run (NAME.out, NAME.err) that ran its kernel, and had PoCL compile nothing.
ran_compiling_nothing() { grep -q '^run=0 result=' "$1.out" && test "$(compiled "$1.err")" = 0; }
# The work-group functions an entry's binary carries (KERNEL/SIZES/KERNEL.so).
carried() { grep -rhaoE 'compute/[0-9]+-[0-9]+-[0-9]+[a-z0-9-]*/compute\.so' "$JITCACHE_DIR"/[0-9a-f][0-9a-f] | sort -u | wc -l; }

POCL_KERNEL_CACHE=0 build env >plain.out 2>&1
POCL_KERNEL_CACHE=0 build $JITCACHE run -- >made.out 2>made.err
check "an entry made with PoCL's cache off" grep -q 'jitcache: 0 hits, 1 misses, 1 stores' made.err
check "... a pack of PoCL's _UNCACHED_ directory" \
	sh -c "grep -rqa jcpocld '$JITCACHE_DIR' && grep -rqa _UNCACHED_ '$JITCACHE_DIR'"
check "... by a run that compiled a work-group function to run its kernel" \
	grep -q 'Built a specialized WG function' made.err
check "... and no generic one (jitcache took no binary)" \
	test "$(grep -c 'Built a generic WG function' made.err)" = 0
check "... which jitcache added to the entry (the run's: 1)" test "$(carried)" = 1
check "... in place: still one entry" \
	test "$(find "$JITCACHE_DIR"/[0-9a-f][0-9a-f] -type f | wc -l)" = 1

unset POCL_KERNEL_CACHE # PoCL's default: its cache on
build $JITCACHE run -- >hit1.out 2>hit1.err
kept >after1
check "PoCL's cache on, first hit: PoCL compiles nothing" ran_compiling_nothing hit1
check "... it uses the entry's work-group function" grep -q 'Using a cached WG function' hit1.err
build $JITCACHE run -- >hit2.out 2>hit2.err
check "PoCL's cache on, second hit: PoCL compiles nothing" ran_compiling_nothing hit2
for i in 3 4; do build $JITCACHE run -- >"hit$i.out" 2>"hit$i.err"; done
kept >after4
check "PoCL's cache on: every run hits" grep -q 'jitcache: 1 hits, 0 misses, 0 stores' hit4.err
check "PoCL's cache on: its directory does not grow with hits" diff after1 after4
check "... and holds one directory for the entry at most" \
	test "$(grep -c '/_UNCACHED_[^/]*$' after4)" -le 1
check "results bit-identical to a run without jitcache" \
	test "$(grep '^run=0 ' hit4.out)" = "$(grep '^run=0 ' plain.out)"
check "... on every hit" test "$(cat hit[1-4].out | grep '^run=0 ' | sort -u | wc -l)" = 1
check "the entry carries what the first run left in it" test "$(carried)" = 1

# PoCL's cache off again: each hit unpacks into a directory of its own,
# which PoCL removes when the program is released, work-group code too.
export POCL_KERNEL_CACHE=0
build $JITCACHE run -- >off.out 2>off.err
check "PoCL's cache off: a hit, the same results" \
	test "$(grep '^run=0 ' off.out)" = "$(grep '^run=0 ' plain.out)"
check "... answered from the cache" grep -q 'jitcache: 1 hits, 0 misses' off.err
check "... PoCL compiles nothing" ran_compiling_nothing off
check "... and leaves no directory behind" diff after4 <(kept)

# A program never released (many end with exit()): its work-group code is
# added at exit.  And one made by clCompileProgram + clLinkProgram (hashcat).
build_kept() { "$@" "$CLB" --platform Portable --source k.cl --options "-DSCALE=2.5f" \
	--run compute --keep; }
build_kept $JITCACHE run -- >kept.out 2>kept.err
build_kept $JITCACHE run -- >kept-hit.out 2>kept-hit.err
check "a program never released: the next run hits" grep -q 'jitcache: 1 hits, 0 misses' kept-hit.err
check "... and PoCL compiles nothing" ran_compiling_nothing kept-hit
check "... the same results" test "$(grep '^run=0 ' kept-hit.out)" = "$(grep '^run=0 ' kept.out)"
link() { "$@" "$B/tests/cl_compile_link" --platform Portable --source k.cl \
	--options "-DSCALE=1.25f" --run compute; }
link $JITCACHE run -- >link.out 2>link.err
link $JITCACHE run -- >link-hit.out 2>link-hit.err
check "compiled and linked: the next run hits" grep -q 'jitcache: 2 hits, 0 misses' link-hit.err
check "... and PoCL compiles nothing" ran_compiling_nothing link-hit
check "... the same results" \
	test "$(grep '^run=0 ' link-hit.out)" = "$(grep '^run=0 ' link.out)"
finish
