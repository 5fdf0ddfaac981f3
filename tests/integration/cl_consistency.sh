#!/usr/bin/env bash
# The application's program handle behaves the same whether its build was
# compiled (without jitcache, or a cache miss) or answered from the cache:
# kernels, program and build queries, reference counts, CL_KERNEL_PROGRAM,
# pfn_notify, a refused and an accepted rebuild with other options, a kernel
# outliving its program, and nothing leaked (the context is destroyed).
# tests/helpers/cl_consistency.c prints the transcript compared here.
. "$(dirname "$0")/../lib.sh"
export POCL_KERNEL_CACHE=0 JITCACHE_LOG=info
CC_BIN=$B/tests/cl_consistency

same() { # LABEL PREFIX A B: lines starting with PREFIX are identical in A and B
	check "$1" diff <(grep "^$2 " "$3") <(grep "^$2 " "$4")
}

consistency() { # NAME PLATFORM [--run]
	local name=$1 platform=$2; shift 2
	rm -rf "$JITCACHE_DIR"
	"$CC_BIN" --platform "$platform" "$@" >"$name.plain" 2>&1
	check "$name, without jitcache: all properties hold" grep -q '^consistency: ok' "$name.plain"
	$JITCACHE run -- "$CC_BIN" --platform "$platform" "$@" >"$name.miss" 2>&1
	check "$name, miss: all properties hold" grep -q '^consistency: ok' "$name.miss"
	check "$name, miss: three builds stored" grep -q 'jitcache: 0 hits, .* 3 stores' "$name.miss"
	$JITCACHE run -- "$CC_BIN" --platform "$platform" "$@" >"$name.hit" 2>&1
	check "$name, hit: all properties hold" grep -q '^consistency: ok' "$name.hit"
	check "$name, hit: three builds from the cache" grep -q 'jitcache: 3 hits, 0 misses, 0 stores' "$name.hit"
	same "$name, miss: the application sees what it sees without jitcache" = "$name.plain" "$name.miss"
	same "$name, hit: the application sees what it sees without jitcache" = "$name.plain" "$name.hit"
	same "$name, hit: binaries and exact build logs as built on the miss" '~' "$name.miss" "$name.hit"
	grep -q '^FAIL' "$name.hit" "$name.miss" && grep '^FAIL' "$name.hit" "$name.miss" | head -n 5
}

if clinfo -l 2>/dev/null | grep -q "Portable Computing Language"; then
	consistency pocl Portable --run
else
	skip "PoCL is not installed (pocl-opencl-icd)"
fi

sim_dg2
if clinfo -l 2>/dev/null | grep -q "Intel(R) OpenCL"; then
	consistency intel Intel
else
	skip "Intel's OpenCL driver does not show a simulated GPU"
fi
finish
