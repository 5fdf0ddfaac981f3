#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# OpenCL on Intel's driver (NEO + IGC) simulating an Arc GPU: a program built
# from source and one from SPIR-V (clCreateProgramWithIL, and the KHR
# extension function through dlopen/dlsym), each cold then warm.  The warm
# build must come from the cache, be much faster and replay the build log.
. "$(dirname "$0")/../lib.sh"
sim_dg2
export JITCACHE_LOG=info
CLB=$B/tests/cl_build

if ! clinfo -l 2>/dev/null | grep -q "Intel(R) OpenCL"; then
	skip "Intel's OpenCL driver does not show a simulated GPU (intel-opencl-icd)"
	finish; exit
fi

# 12 kernels of real work for IGC: about a second to compile.
for i in $(seq 1 12); do cat <<CL
kernel void k$i(global float *out, global const float *in, uint n)
{
	size_t i = get_global_id(0);
	float v = in[i];
	for (int j = 0; j < $((i % 7 + 3)); j++)
		v = sin(v) * SCALE + cos(v * $i.0f) / (1.0f + fabs(v));
	if (i < n)
		out[i] = v + exp(-v * v) * $i;
}
CL
done > body.cl
{ echo '#warning jitcache-intel-test'; cat body.cl; } > k.cl
sed 's/SCALE/0.5f/' body.cl > il.cl

val() { sed -n "s/.*$1=\([^ ]*\).*/\1/p" "$2" | head -n 1; }
log_of() { sed -n '/^log<</,/^>>log/p' "$1"; }

# --- from source -----------------------------------------------------------
$JITCACHE run -- "$CLB" --platform Intel --source k.cl --options "-DSCALE=0.5f" >cold.out 2>cold.err
check "source, cold: builds" grep -q '^build=0 ' cold.out
check "source, cold: the driver's log (a #warning) is shown" grep -q jitcache-intel-test cold.out
check "source, cold: one entry stored" test "$(entries)" -eq 1
check "source, cold: no hit" grep -q 'jitcache: 0 hits' cold.err
$JITCACHE run -- "$CLB" --platform Intel --source k.cl --options "-DSCALE=0.5f" >warm.out 2>warm.err
check "source, warm: builds" grep -q '^build=0 ' warm.out
check "source, warm: answered from the cache" grep -q 'jitcache: 1 hits, 0 misses, 0 stores' warm.err
check "source, warm: build log replayed" cmp <(log_of cold.out) <(log_of warm.out)
check "source, warm: nothing new stored" test "$(entries)" -eq 1
cold=$(val seconds cold.out) warm=$(val seconds warm.out)
ratio=$(awk -v c="$cold" -v w="$warm" 'BEGIN { printf "%.1f", c / (w > 0 ? w : 1e-6) }')
echo "     Intel sim, from source: cold ${cold} s, warm ${warm} s (${ratio}x)"
check "source, warm: at least 10x faster than cold (${ratio}x)" ge "$ratio" 10

$JITCACHE run -- "$CLB" --platform Intel --source k.cl --options "-DSCALE=0.25f" >other.out 2>other.err
check "other options: a miss and a new entry" test "$(entries)" -eq 2
check "other options: no hit" grep -q 'jitcache: 0 hits' other.err

# --- from SPIR-V --------------------------------------------------------------
if ! ocloc compile -file il.cl -device dg2 -output k -output_no_suffix >ocloc.log 2>&1 || [ ! -s k.spv ]; then
	skip "ocloc could not make SPIR-V (see ocloc.log)"
	finish; exit
fi
$JITCACHE run -- "$CLB" --platform Intel --il k.spv >ilcold.out 2>ilcold.err
check "IL, cold: builds" grep -q '^build=0 ' ilcold.out
check "IL, cold: stored" test "$(entries)" -eq 3
$JITCACHE run -- "$CLB" --platform Intel --il k.spv >ilwarm.out 2>ilwarm.err
check "IL, warm: answered from the cache" grep -q 'jitcache: 1 hits, 0 misses, 0 stores' ilwarm.err
cold=$(val seconds ilcold.out) warm=$(val seconds ilwarm.out)
ratio=$(awk -v c="$cold" -v w="$warm" 'BEGIN { printf "%.1f", c / (w > 0 ? w : 1e-6) }')
echo "     Intel sim, from SPIR-V: cold ${cold} s, warm ${warm} s (${ratio}x)"
check "IL, warm: at least 10x faster than cold (${ratio}x)" ge "$ratio" 10

# clCreateProgramWithILKHR from clGetExtensionFunctionAddressForPlatform, all
# through dlopen("libOpenCL.so.1") + dlsym, built with a pfn_notify callback.
$JITCACHE run -- "$CLB" --platform Intel --il-khr k.spv --dlopen --async >khr.out 2>khr.err
check "ILKHR via dlsym, async: builds" grep -q '^build=0 ' khr.out
check_not "ILKHR via dlsym, async: notified with the application's program" \
	grep -q notify_program=wrong khr.out
check "ILKHR via dlsym, async: the same entry answers" grep -q 'jitcache: 1 hits, 0 misses, 0 stores' khr.err
check "ILKHR via dlsym, async: nothing new stored" test "$(entries)" -eq 3

# A build with pfn_notify keeps its recipe too (encoded when the build began,
# stored from the callback): `jitcache warm` rebuilds the entry from it alone.
saved_dir=$JITCACHE_DIR
export JITCACHE_DIR=$T/cache-async-recipe JITCACHE_RECIPES=1
$JITCACHE run -- "$CLB" --platform Intel --source il.cl --async >arec.out 2>arec.err
check "async, recipes on: stored an entry and its recipe" \
	test "$(recipes)" -eq 1 -a "$(entries)" -eq 2
for f in $(find "$JITCACHE_DIR" -mindepth 2 -maxdepth 2 -type f -regex '.*/[0-9a-f][0-9a-f]/[0-9a-f]*'); do
	[ $(( $(od -An -tu1 -j12 -N1 "$f") & 2 )) -eq 0 ] && rm -f "$f"
done
$JITCACHE warm -j 1 >arec-warm.out 2>&1
check "async, recipes on: jitcache warm compiles the recipe" \
	grep -q '1 compiled, 0 already cached, 0 failed' arec-warm.out
$JITCACHE run -- "$CLB" --platform Intel --source il.cl --async >arec2.out 2>arec2.err
check "async, recipes on: after jitcache warm, the build hits" \
	grep -q 'jitcache: 1 hits, 0 misses, 0 stores' arec2.err
check_not "async, recipes on: notified with the application's program" \
	grep -q notify_program=wrong arec2.out
export JITCACHE_DIR=$saved_dir JITCACHE_RECIPES=0

# Entry sizes against the driver's own cache for the same build (Debian 12's
# driver caches into ./cl_cache, the 2026 driver into NEO_CACHE_DIR).  The
# 2026 driver's cache keeps the zebin whole, SPIR-V included, as jitcache
# does: the entry is the same size, but for jitcache's header and the log.
# Debian 12's keeps only the native section of its ELF; jitcache keeps the
# SPIR-V too, which that driver needs to answer as a compiled program does
# (a program made from the native section alone forgets its build options,
# and oneDNN's primitives fail on it): there the sizes are only reported.
rm -rf "$JITCACHE_DIR" neo-size cl_cache
mkdir -p neo-size cl_cache
NEO_CACHE_PERSISTENT=1 NEO_CACHE_DIR=$T/neo-size \
	"$JITCACHE" run -- "$CLB" --platform Intel --source il.cl >size.out 2>&1
driver=$(find neo-size cl_cache -name '*.cl_cache' -printf '%s\n' | sort -n | tail -n 1)
ours=$(find "$JITCACHE_DIR" -mindepth 2 -type f -regex '.*/[0-9a-f]*' -printf '%s\n' | sort -n | tail -n 1)
check "entry size: the driver's cache kept the build (${driver:-none} bytes)" test -n "$driver"
if modern_driver; then
	check "entry size: jitcache's entry ($ours bytes) is at most the driver's + 4 KiB" \
		test -n "$ours" -a "${ours:-0}" -le $(( ${driver:-0} + 4096 ))
fi
rm -rf cl_cache neo-size
echo "     entry size: jitcache $ours bytes, the driver's cache $driver bytes"

# A build that fails is remembered: the next process gets IGC's error, log,
# build status and options without compiling.
printf 'kernel void compute(global float *out)\n{ out[0] = undefined_name; }\n' >bad.cl
"$CLB" --platform Intel --source bad.cl --options "-DF=1" >bad.plain 2>&1
for run in cold warm; do
	"$JITCACHE" run -- "$CLB" --platform Intel --source bad.cl --options "-DF=1" >bad.$run 2>&1
done
as_driver() { grep -v '^jitcache:' "$1" | sed 's/seconds=[0-9.]*//'; }
check "failed build, cold: as without jitcache" cmp <(as_driver bad.plain) <(as_driver bad.cold)
check "failed build, warm: replayed (a hit)" grep -q 'jitcache: 1 hits, 0 misses, 0 stores' bad.warm
check "failed build, warm: error, log, status, options as without jitcache" \
	cmp <(as_driver bad.plain) <(as_driver bad.warm)
finish
