#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# The OpenCL build path's bounds (issue 44), each proved by what the kernels
# compute on PoCL, with and without jitcache:
#   - item 7: a hit's binary gets a directory name of its own (PoCL's cache
#     off) in its header only: a kernel named k_UNCACHED_abcdef builds cold
#     and is made and run on the hit.
#   - item 8: a build that failed for a reason outside the key (PoCL could not
#     write its cache directory: a file size limit, as a full file system
#     does) is not remembered: the next run builds and computes.
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

# --- item 8: a failure outside the key --------------------------------------------
# PoCL writes the program's source into its cache directory first: with
# writes limited to 1 KiB (ulimit -f, SIGXFSZ ignored: the write fails with
# EFBIG, as on a full file system) a 3 KiB source fails the build with
# CL_BUILD_PROGRAM_FAILURE and a log naming no compile error.  The output
# goes through a pipe, which the limit does not cover.
{ cat uncached.cl; for i in $(seq 40); do
	echo "/* a comment that makes the source larger than the file size limit */"; done; } >big.cl
export JITCACHE_DIR=$T/cache8
$JITCACHE stats >/dev/null 2>&1 # the cache directory and its files, made unlimited
(trap '' XFSZ; ulimit -f 1; exec $JITCACHE run -- "$CLB" --platform Portable --source big.cl \
	--run k_UNCACHED_abcdef --verify) 2>&1 | cat >u8-full.out
check "item 8: PoCL's cache not writable: CL_BUILD_PROGRAM_FAILURE (-11)" grep -q '^build=-11 ' u8-full.out
check "item 8: ... its log names no compile error" sh -c "! grep -q 'error: ' u8-full.out"
check "item 8: ... not remembered (no failure record stored)" grep -q 'jitcache: 0 hits, 1 misses, 0 stores' u8-full.out
cl --source big.cl --run k_UNCACHED_abcdef --verify >u8-next.out 2>u8-next.err
check "item 8: the next run builds and computes what the driver does" \
	sh -c "grep -q '^build=0 ' u8-next.out && grep -q '^verify=ok' u8-next.out"
finish
