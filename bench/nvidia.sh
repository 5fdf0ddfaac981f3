#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/nvidia.sh — jitcache on NVIDIA's OpenCL driver (the lent GPU machine).
#
# Here (Debian, where jitcache is built), make a self-contained bundle:
#   make && bench/nvidia.sh --bundle build/nvidia
# There (no Debian packages; carry the bundle), run it:
#   bench/nvidia.sh build/nvidia [KERNELS] [RUNS]
# (NVIDIA_RESULTS=FILE also writes the results table to FILE.)
#
# The bundle holds libjitcache.so, the libraries it needs beyond glibc
# (libzstd), and tests/helpers/cl_build.c compiled against libOpenCL.so.1
# alone.  On the GPU machine the script generates a program of KERNELS
# kernels (default 200) plus `affine` (out = in * 2 + 1, checked exactly)
# and builds and runs it:
#   1. NVIDIA, no cache        CUDA_CACHE_DISABLE=1
#   2. jitcache cold           CUDA_CACHE_DISABLE=1, empty jitcache
#   3. jitcache warm           CUDA_CACHE_DISABLE=1 (PTX from jitcache; PTX->SASS is still JIT)
#   4. NVIDIA's cache warm     CUDA_CACHE_PATH=private dir, no jitcache
#   5. jitcache + NVIDIA's cache, both warm
# and prints the median build seconds of RUNS runs (default 3; cold once).
# Exit status 0 only if every run built, verified its results exactly, gave
# the same bits, and jitcache's warm runs were answered from its cache.
set -u

if [ "${1:-}" = --bundle ]; then
	ROOT=$(cd "$(dirname "$0")/.." && pwd)
	out=${2:?usage: bench/nvidia.sh --bundle DIR}
	lib=${JITCACHE_LIB:-$ROOT/build/libjitcache.so}
	mkdir -p "$out/lib" || exit 1
	cp -L "$lib" "$out/libjitcache.so" || exit 1
	# every library it needs that is not part of glibc
	ldd "$lib" | awk '$3 ~ /^\// { print $3 }' |
		grep -vE '/(libc|libm|libdl|libpthread|librt|ld-linux[^/]*)\.so' |
		while read -r dep; do cp -L "$dep" "$out/lib/"; done
	cc -std=gnu11 -O2 -D_GNU_SOURCE -pthread -Wno-deprecated-declarations \
		-o "$out/cl_build" "$ROOT/tests/helpers/cl_build.c" -lOpenCL -ldl -lm || exit 1
	cp "$0" "$out/nvidia.sh"
	echo "bundle in $out: $(cd "$out" && echo *)"
	exit 0
fi

D=${1:?usage: bench/nvidia.sh BUNDLE [KERNELS] [RUNS]   (or --bundle DIR)}
D=$(cd "$D" && pwd)
KERNELS=${2:-200}
RUNS=${3:-3}
W=$(mktemp -d "${TMPDIR:-/tmp}/jitcache-nvidia.XXXXXX")
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1
export LD_LIBRARY_PATH=$D/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export JITCACHE_CONFIG=/dev/null JITCACHE_LOG=info JITCACHE_DIR=$W/jitcache
unset JITCACHE_DISABLE CUDA_CACHE_PATH
CLB=$D/cl_build
PLATFORM=${PLATFORM:-NVIDIA}   # another platform name tries the script out elsewhere
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

{
	echo 'kernel void affine(global float *out, global const float *in, uint n)'
	echo '{ size_t i = get_global_id(0); if (i < n) out[i] = in[i] * 2.0f + 1.0f; }'
	for i in $(seq 1 "$KERNELS"); do
		cat <<CL
kernel void k$i(global float *out, global const float *in, uint n)
{
	size_t i = get_global_id(0);
	float v = in[i];
	for (int j = 0; j < $((i % 7 + 3)); j++)
		v = sin(v) * 0.5f + cos(v * $i.0f) / (1.0f + fabs(v));
	if (i < n)
		out[i] = v + exp(-v * v) * $i;
}
CL
	done
} >k.cl

# one MODE: run cl_build once; its output in MODE.N.out, jitcache's lines in MODE.N.err
n=0
one() {
	local mode=$1; shift
	n=$((n + 1))
	"$@" "$CLB" --platform "$PLATFORM" --source k.cl --run affine --verify >"$mode.$n.out" 2>"$mode.$n.err"
	local rc=$?
	grep -q '^verify=ok' "$mode.$n.out" || fail "$mode: build/run/verify failed (rc $rc): $(grep -E '^(build|create|run|verify)' "$mode.$n.out" | tr '\n' ' ')"
	sed -n 's/.*seconds=\([0-9.]*\).*/\1/p' "$mode.$n.out" >>"$mode.secs"
	sed -n 's/.*result=\([0-9a-f]*\).*/\1/p' "$mode.$n.out" >>results
}
median() { sort -g "$1" | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
jc=(env LD_PRELOAD="$D/libjitcache.so")

echo "NVIDIA OpenCL: $KERNELS kernels + affine; $RUNS warm runs" >&2
one nvidia-nocache env CUDA_CACHE_DISABLE=1
one jitcache-cold "${jc[@]}" CUDA_CACHE_DISABLE=1
grep -q ' 1 stores' "jitcache-cold.$n.err" || fail "jitcache cold did not store: $(cat "jitcache-cold.$n.err")"
for _ in $(seq 1 "$RUNS"); do
	one jitcache-warm "${jc[@]}" CUDA_CACHE_DISABLE=1
	grep -q 'jitcache: 1 hits, 0 misses, 0 stores' "jitcache-warm.$n.err" ||
		fail "jitcache warm did not hit: $(cat "jitcache-warm.$n.err")"
done
export CUDA_CACHE_PATH=$W/nvcache
one nvidia-fill env
for _ in $(seq 1 "$RUNS"); do one nvidia-warm env; done
one both-fill "${jc[@]}"
for _ in $(seq 1 "$RUNS"); do one both-warm "${jc[@]}"; done

[ "$(sort -u results | wc -l)" -eq 1 ] || fail "kernel results differ between runs: $(sort | uniq -c <results | tr '\n' ' ')"

table() {
echo "| NVIDIA OpenCL, $KERNELS kernels: clBuildProgram seconds (median) | |"
echo "|---|---|"
echo "| NVIDIA, no cache (CUDA_CACHE_DISABLE=1) | $(median nvidia-nocache.secs) |"
echo "| jitcache cold (CUDA_CACHE_DISABLE=1) | $(median jitcache-cold.secs) |"
echo "| jitcache warm (CUDA_CACHE_DISABLE=1) | $(median jitcache-warm.secs) |"
echo "| NVIDIA's cache warm | $(median nvidia-warm.secs) |"
echo "| jitcache + NVIDIA's cache warm | $(median both-warm.secs) |"
echo
echo "driver: $(grep -m1 -o 'NVIDIA.*' /proc/driver/nvidia/version 2>/dev/null || echo unknown)"
}
echo
table
# NVIDIA_RESULTS=FILE also writes the table there (bench/nvidia-results.md
# is what bench/run.sh includes).
[ -n "${NVIDIA_RESULTS:-}" ] && table >"$NVIDIA_RESULTS"
if [ "$failures" -eq 0 ]; then
	echo "nvidia: all runs built, verified and agreed; jitcache warm runs hit"
else
	echo "nvidia: $failures failure(s)"
fi
[ "$failures" -eq 0 ]
