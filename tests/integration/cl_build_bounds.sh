#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# The OpenCL build path's bounds (issue 44), each proved by what the kernels
# compute on PoCL, with and without jitcache:
#   - item 7: a hit's binary gets a directory name of its own (PoCL's cache
#     off) in its header only: a kernel named k_UNCACHED_abcdef builds cold
#     and is made and run on the hit.
. "$(dirname "$0")/../lib.sh"
export POCL_KERNEL_CACHE=0 JITCACHE_LOG=info
CLB=$B/tests/cl_build CCL=$B/tests/cl_compile_link

if ! clinfo -l 2>/dev/null | grep -q "Portable Computing Language"; then
	skip "PoCL is not installed (pocl-opencl-icd)"
	finish; exit
fi
result() { sed -n 's/.*result=\([0-9a-f]*\).*/\1/p' "$1"; }
counts() { grep -q "jitcache: $2 hits, $3 misses, $4 stores" "$1"; }
cl() { $JITCACHE run -- "$CLB" --platform Portable "$@"; }

# --- item 7: _UNCACHED_ in a kernel's name ----------------------------------------
cat >uncached.cl <<'CL'
kernel void k_UNCACHED_abcdef(global float *out, global const float *in, uint n)
{
	size_t i = get_global_id(0);
	if (i < n)
		out[i] = in[i] * 2.0f + 1.0f;
}
CL
u7() { cl --source uncached.cl --run k_UNCACHED_abcdef --verify >"$1.out" 2>"$1.err"; }
export JITCACHE_DIR=$T/cache7
u7 u7-cold
check "item 7: kernel k_UNCACHED_abcdef: cold, built, stored and right" \
	sh -c "grep -q '^verify=ok' u7-cold.out && grep -q 'jitcache: 0 hits, 1 misses, 1 stores' u7-cold.err"
u7 u7-warm
check "item 7: ... on the hit its kernel is made and computes the same" \
	sh -c "grep -q '^verify=ok' u7-warm.out && grep -q 'jitcache: 1 hits, 0 misses' u7-warm.err"
u7 u7-warm2
check "item 7: ... and on the next hit too" grep -q '^verify=ok' u7-warm2.out
finish
