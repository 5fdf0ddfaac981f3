#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/device/nvidia_consistency.sh — the OpenCL handle-consistency test
# (tests/helpers/cl_consistency.c, as in tests/integration/cl_consistency.sh)
# on NVIDIA's OpenCL driver, where kernels execute on the GPU.  CI has no GPU:
# run it on the lent GPU machine with the bundle bench/nvidia.sh makes.
#   here:  bench/nvidia.sh --bundle B && tests/device/nvidia_consistency.sh --bundle B
#   there: tests/device/nvidia_consistency.sh B
# Compares what the application sees without jitcache, on a miss and on a
# hit, and 8 threads building one program at once (compiled once).
set -u
if [ "${1:-}" = --bundle ]; then
	ROOT=$(cd "$(dirname "$0")/../.." && pwd)
	cc -std=gnu11 -O2 -D_GNU_SOURCE -pthread -Wno-deprecated-declarations -I"$ROOT" \
		-o "${2:?usage: --bundle DIR}/cl_consistency" "$ROOT/tests/helpers/cl_consistency.c" \
		-lOpenCL -ldl -lm
	exit
fi
D=$(cd "${1:?usage: tests/device/nvidia_consistency.sh BUNDLE}" && pwd)
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT; cd "$W"
export LD_LIBRARY_PATH=$D/lib JITCACHE_CONFIG=/dev/null JITCACHE_LOG=info JITCACHE_DIR=$W/jc CUDA_CACHE_DISABLE=1
ok=0; bad=0
chk() { if eval "$2"; then ok=$((ok+1)); echo "ok   $1"; else bad=$((bad+1)); echo "FAIL $1"; fi; }
"$D/cl_consistency" --platform NVIDIA --run > plain 2>&1
LD_PRELOAD=$D/libjitcache.so "$D/cl_consistency" --platform NVIDIA --run > miss 2>&1
LD_PRELOAD=$D/libjitcache.so "$D/cl_consistency" --platform NVIDIA --run > hit 2>&1
chk "plain: all properties hold" "grep -q '^consistency: ok' plain"
chk "miss: all properties hold" "grep -q '^consistency: ok' miss"
chk "miss: five builds stored" "grep -q 'jitcache: 0 hits, .* 5 stores' miss"
chk "hit: all properties hold" "grep -q '^consistency: ok' hit"
chk "hit: five builds from the cache" "grep -q 'jitcache: 5 hits, 0 misses, 0 stores' hit"
chk "miss: the app sees what it sees without jitcache" "diff <(grep '^= ' plain) <(grep '^= ' miss)"
chk "hit: the app sees what it sees without jitcache" "diff <(grep '^= ' plain) <(grep '^= ' hit)"
chk "hit: binaries and build logs as on the miss" "diff <(grep '^~ ' miss) <(grep '^~ ' hit)"
rm -rf jc
LD_PRELOAD=$D/libjitcache.so "$D/cl_consistency" --platform NVIDIA --threads 8 > t.cold 2>&1
LD_PRELOAD=$D/libjitcache.so "$D/cl_consistency" --platform NVIDIA --threads 8 > t.warm 2>&1
chk "8 threads cold: results right, compiled once" "grep -q '^consistency: ok' t.cold && grep -q 'jitcache: 23 hits, 1 misses, 1 stores' t.cold"
chk "8 threads warm: all from the cache" "grep -q '^consistency: ok' t.warm && grep -q 'jitcache: 24 hits, 0 misses, 0 stores' t.warm"
grep -h '^FAIL\|jitcache:' plain miss hit t.cold t.warm | head -20
grep -c '^= ' plain
echo "$ok passed, $bad failed"
[ "$bad" -eq 0 ]
