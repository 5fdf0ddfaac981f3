#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# PoCL's own kernel cache beside jitcache, with entries made while PoCL's
# was off (a CI job, `jitcache warm` in a clean environment, an imported
# pack): such an entry's binary names a _UNCACHED_XXXXXX directory.  Hits
# with PoCL's cache on must leave POCL_CACHE_DIR as they found it (PoCL
# keeps what it unpacks there: a new name on every hit grew it for ever and
# compiled the work-group functions again each time), give the same
# results, and still get a directory of their own with PoCL's cache off.
. "$(dirname "$0")/../lib.sh"
export JITCACHE_LOG=info POCL_CACHE_DIR=$T/pocl-cache
CLB=$B/tests/cl_build

if ! clinfo -l 2>/dev/null | grep -q "Portable Computing Language"; then
	skip "PoCL is not installed (pocl-opencl-icd)"
	finish; exit
fi
cp "$ROOT/tests/integration/compute.cl" k.cl
build() { "$@" "$CLB" --platform Portable --source k.cl --options "-DSCALE=1.25f" --run compute; }
# What PoCL keeps: its directories and files, less the empty temporary file
# PoCL leaves on every run with or without jitcache.
kept() { find "$POCL_CACHE_DIR" ! -name 'tempfile_*' 2>/dev/null | sort; }

POCL_KERNEL_CACHE=0 build env >plain.out 2>&1
POCL_KERNEL_CACHE=0 build "$JITCACHE" run -- >made.out 2>made.err
check "an entry made with PoCL's cache off" grep -q 'jitcache: 0 hits, 1 misses, 1 stores' made.err
check "... whose binary names a _UNCACHED_ directory" grep -rqa _UNCACHED_ "$JITCACHE_DIR"

unset POCL_KERNEL_CACHE # PoCL's default: its cache on
build "$JITCACHE" run -- >hit1.out 2>hit1.err
kept >after1
for i in 2 3 4; do build "$JITCACHE" run -- >"hit$i.out" 2>"hit$i.err"; done
kept >after4
check "PoCL's cache on: every run hits" grep -q 'jitcache: 1 hits, 0 misses' hit4.err
check "PoCL's cache on: its directory does not grow with hits" diff after1 after4
check "... and holds one directory for the entry at most" \
	test "$(grep -c '/_UNCACHED_[^/]*$' after4)" -le 1
check "results bit-identical to a run without jitcache" \
	test "$(grep '^run=' hit4.out)" = "$(grep '^run=' plain.out)"

# PoCL's cache off again: each hit unpacks into a directory of its own,
# which PoCL removes when the program is released.
export POCL_KERNEL_CACHE=0
build "$JITCACHE" run -- >off.out 2>off.err
check "PoCL's cache off: a hit, the same results" \
	test "$(grep '^run=' off.out)" = "$(grep '^run=' plain.out)"
check "... answered from the cache" grep -q 'jitcache: 1 hits, 0 misses' off.err
finish
