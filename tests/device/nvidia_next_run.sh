#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/device/nvidia_next_run.sh — next_run.sh's first two cases on NVIDIA's
# OpenCL driver (the lent GPU machine; CI has no GPU): on a machine loaded
# with two spinning processes per core, a cold run and, the moment it ends,
# a warm one that hits everything the cold one compiled; then four cold
# processes at once that compile the program once.  NVIDIA's own cache off
# (CUDA_CACHE_DISABLE=1).  Uses the bundle bench/nvidia.sh makes:
#   here:  make && bench/nvidia.sh --bundle B
#   there: tests/device/nvidia_next_run.sh B
set -u
D=$(cd "${1:?usage: tests/device/nvidia_next_run.sh BUNDLE}" && pwd)
W=$(mktemp -d); cd "$W"
export LD_LIBRARY_PATH=$D/lib JITCACHE_CONFIG=/dev/null JITCACHE_LOG=info JITCACHE_DIR=$W/jc CUDA_CACHE_DISABLE=1
SPIN=""
trap '[ -n "$SPIN" ] && kill $SPIN 2>/dev/null; rm -rf "$W"' EXIT
ok=0; bad=0
chk() { if eval "$2"; then ok=$((ok+1)); echo "ok   $1"; else bad=$((bad+1)); echo "FAIL $1"; fi; }
field() { sed -n "s/^jitcache: \([0-9]*\) hits, \([0-9]*\) misses, \([0-9]*\) stores.*/\\$1/p" "$2" | tail -n 1; }

for i in $(seq 1 60); do
	echo "kernel void k$i(global float *o, global const float *in, uint n) { size_t i = get_global_id(0); float v = in[i]; for (int j = 0; j < $((i % 5 + 2)); j++) v = sin(v) * 0.5f + cos(v * $i.0f); if (i < n) o[i] = v; }"
done >k.cl
echo 'kernel void affine(global float *out, global const float *in, uint n) { size_t i = get_global_id(0); if (i < n) out[i] = in[i] * 2 + 1; }' >>k.cl

for i in $(seq 1 $((2 * $(nproc)))); do (while :; do :; done) & SPIN="$SPIN $!"; done
LD_PRELOAD=$D/libjitcache.so "$D/cl_build" --platform NVIDIA --source k.cl --run affine --verify >cold.out 2>cold.err
LD_PRELOAD=$D/libjitcache.so "$D/cl_build" --platform NVIDIA --source k.cl --run affine --verify >warm.out 2>warm.err
kill $SPIN 2>/dev/null; wait $SPIN 2>/dev/null; SPIN=""
echo "busy ($(nproc) cores, $((2 * $(nproc))) spinning): cold $(grep -h '^jitcache:' cold.err); warm $(grep -h '^jitcache:' warm.err)"
chk "busy: cold compiles and stores" "[ \"\$(field 2 cold.err)\" = 1 ] && [ \"\$(field 3 cold.err)\" = 1 ]"
chk "busy: the run right after hits" "[ \"\$(field 1 warm.err)\" = 1 ] && [ \"\$(field 2 warm.err)\" = 0 ]"
chk "busy: results right both times" "grep -q '^verify=ok' cold.out && grep -q '^verify=ok' warm.out"

rm -rf jc
pids=""
for i in 1 2 3 4; do
	LD_PRELOAD=$D/libjitcache.so "$D/cl_build" --platform NVIDIA --source k.cl --run affine --verify >"c$i.out" 2>"c$i.err" &
	pids="$pids $!"
done
wait $pids
misses=0 hits=0
for i in 1 2 3 4; do misses=$((misses + $(field 2 "c$i.err"))); hits=$((hits + $(field 1 "c$i.err"))); done
echo "4 cold processes at once: $misses compiles, $hits hits"
chk "4 at once: one compile, three hits" "[ $misses = 1 ] && [ $hits = 3 ]"
chk "4 at once: results right" "[ \$(grep -l '^verify=ok' c?.out | wc -l) = 4 ]"
echo "$ok passed, $bad failed"
[ "$bad" -eq 0 ]
