#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# The application's program handle behaves the same whether its build was
# compiled (without jitcache, or a cache miss) or answered from the cache:
# kernels, program and build queries, reference counts, CL_KERNEL_PROGRAM,
# pfn_notify, a refused and an accepted rebuild with other options, kernels
# outliving their program (one of them retained, a clone, one held by a
# command waiting on an event), and nothing leaked (the context is destroyed).
# tests/helpers/cl_consistency.c prints the transcript compared here.
. "$(dirname "$0")/../lib.sh"
export POCL_KERNEL_CACHE=0 JITCACHE_LOG=info
CC_BIN=$B/tests/cl_consistency

same() { # LABEL PREFIX A B: lines starting with PREFIX are identical in A and B
	check "$1" diff <(grep "^$2 " "$3") <(grep "^$2 " "$4")
}

# The binaries a hit returns are the entry's, those the miss stored; on PoCL
# with kernels run, the entry has since gained the work-group functions the
# miss compiled to run them (shim/cl/cl_pocl.h): they are then compared with
# a second hit's, and the miss's build logs still with the hit's.
consistency() { # NAME PLATFORM BUILDS [--run]
	local name=$1 platform=$2 builds=$3; shift 3
	local stored=$name.miss
	[ "$name" = pocl ] && stored=$name.hit2
	rm -rf "$JITCACHE_DIR"
	"$CC_BIN" --platform "$platform" "$@" >"$name.plain" 2>&1
	check "$name, without jitcache: all properties hold" grep -q '^consistency: ok' "$name.plain"
	$JITCACHE run -- "$CC_BIN" --platform "$platform" "$@" >"$name.miss" 2>&1
	check "$name, miss: all properties hold" grep -q '^consistency: ok' "$name.miss"
	check "$name, miss: $builds builds stored" grep -q "jitcache: 0 hits, .* $builds stores" "$name.miss"
	$JITCACHE run -- "$CC_BIN" --platform "$platform" "$@" >"$name.hit" 2>&1
	check "$name, hit: all properties hold" grep -q '^consistency: ok' "$name.hit"
	check "$name, hit: $builds builds from the cache" grep -q "jitcache: $builds hits, 0 misses, 0 stores" "$name.hit"
	same "$name, miss: the application sees what it sees without jitcache" = "$name.plain" "$name.miss"
	same "$name, hit: the application sees what it sees without jitcache" = "$name.plain" "$name.hit"
	if [ "$stored" = "$name.hit2" ]; then
		$JITCACHE run -- "$CC_BIN" --platform "$platform" "$@" >"$name.hit2" 2>&1
		check "$name, second hit: all properties hold" grep -q '^consistency: ok' "$name.hit2"
	fi
	same "$name, hit: exact build logs as built on the miss" '~ log:' "$name.miss" "$name.hit"
	same "$name, hit: binaries as stored (${stored#"$name".})" '~ .*: binary' "$stored" "$name.hit"
	grep -q '^FAIL' "$name.hit" "$name.miss" && grep '^FAIL' "$name.hit" "$name.miss" | head -n 5
}

if clinfo -l 2>/dev/null | grep -q "Portable Computing Language"; then
	consistency pocl Portable 5 --run
	# Eight threads build the same program at once, three times each: one
	# compiles (the others wait for it on the entry's lock), all get results.
	# PoCL's own cache stays on (private) here; cl_pocl.sh has threads
	# with it off (each hit then unpacks into a directory of its own).
	rm -rf "$JITCACHE_DIR"
	export POCL_KERNEL_CACHE=1 POCL_CACHE_DIR=$T/pocl-cache
	$JITCACHE run -- "$CC_BIN" --platform Portable --threads 8 >threads.cold 2>&1
	check "8 threads, cold: all results right, nothing leaked" grep -q '^consistency: ok' threads.cold
	check "8 threads, cold: compiled once, 23 from the cache" \
		grep -q 'jitcache: 23 hits, 1 misses, 1 stores' threads.cold
	$JITCACHE run -- "$CC_BIN" --platform Portable --threads 8 >threads.warm 2>&1
	check "8 threads, warm: all results right" grep -q '^consistency: ok' threads.warm
	check "8 threads, warm: all 24 from the cache" grep -q 'jitcache: 24 hits, 0 misses, 0 stores' threads.warm
	export POCL_KERNEL_CACHE=0
else
	skip "PoCL is not installed (pocl-opencl-icd)"
fi

sim_dg2
if clinfo -l 2>/dev/null | grep -q "Intel(R) OpenCL"; then
	consistency intel Intel 4
else
	skip "Intel's OpenCL driver does not show a simulated GPU"
fi
finish
