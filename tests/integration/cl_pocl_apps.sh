#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: full: needs Debian's python3-pyopencl (pyopencl's reductions, scans and sort: a few CPU minutes)
# bench/pyopencl_apps.py (`make bench-apps`' pyopencl row) on PoCL: the
# hash of every result is the same without jitcache and with it, cold and
# warm, PoCL's own cache off and on (an entry of PoCL's binary, then one
# of PoCL's cache directory), and on a node whose PoCL cache is empty; the
# warm runs hit every build.
. "$(dirname "$0")/../lib.sh"
export JITCACHE_LOG=info PYOPENCL_NO_CACHE=1 PYOPENCL_CTX=0 POCL_CACHE_DIR=$T/pocl-cache
if ! clinfo -l 2>/dev/null | grep -q "Portable Computing Language" ||
	! /usr/bin/python3 -c 'import pyopencl' 2>/dev/null; then
	skip "needs PoCL (pocl-opencl-icd) and Debian's python3-pyopencl"
	finish; exit
fi
app() { /usr/bin/python3 "$ROOT/bench/pyopencl_apps.py"; }
POCL_KERNEL_CACHE=0 app >none.out 2>none.err
check "without jitcache: one hash of every result" grep -qE '^[0-9a-f]{64}$' none.out

for cache in 0 1; do
	rm -rf "$JITCACHE_DIR" "$POCL_CACHE_DIR"
	export POCL_KERNEL_CACHE=$cache
	$JITCACHE run -- /usr/bin/python3 "$ROOT/bench/pyopencl_apps.py" >cold$cache.out 2>cold$cache.err
	check "PoCL's cache $cache, jitcache cold: the same results" diff none.out cold$cache.out
	$JITCACHE run -- /usr/bin/python3 "$ROOT/bench/pyopencl_apps.py" >warm$cache.out 2>warm$cache.err
	check "... warm: the same results" diff none.out warm$cache.out
	check "... warm: every build hit" grep -q 'jitcache: [0-9]* hits, 0 misses, 0 stores' warm$cache.err
done
rm -rf "$POCL_CACHE_DIR"
$JITCACHE run -- /usr/bin/python3 "$ROOT/bench/pyopencl_apps.py" >node.out 2>node.err
check "PoCL's cache emptied, jitcache's entries alone: the same results" diff none.out node.out
check "... every build hit" grep -q 'jitcache: [0-9]* hits, 0 misses, 0 stores' node.err
finish
