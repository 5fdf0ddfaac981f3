#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/modern.sh OUTDIR — Level Zero on Intel's 2026 driver (NEO 26.x, IGC
# 2.x, loader 1.32), side by side with the driver's own persistent cache.
# Runs INSIDE the test bed (tests/testbed/run; bench/run.sh does that), on
# the build made there (BUILD, e.g. build-sid), simulating an Arc (DG2).
#
# For each module of bench/make_spirv.sh (xs s m l), the FIRST zeModuleCreate
# of a fresh process (bench/ze_bench.c), five ways, interleaved run by run:
#   cold   no jitcache, NEO's cache off (NEO_CACHE_PERSISTENT=0): the JIT;
#   neo    no jitcache, NEO's cache on and warm (its own directory);
#   jc     jitcache warm, NEO's cache off;
#   both   jitcache warm and NEO's cache on and warm (as a user who keeps the
#          driver's default gets);
#   floor  ZE_MODULE_FORMAT_NATIVE from the native binary in memory, NEO's
#          cache off: what no cache can beat.
# One cold run with both caches on fills them (recorded as both_fill); NEO's
# and jitcache's directories are then copied for the runs with one cache
# alone (each a full compile saved: the 2026 driver's JIT of the l module
# takes 45-100 s here).  Each cache's size on disk is recorded.
# Writes OUTDIR/modern.txt: "modern SIZE KIND REP SECONDS",
# "modern SIZE disk_neo|disk_jc BYTES", "modern_pkg NAME VERSION".
# Knobs: MODERN_REPS (warm repetitions, 11), MODERN_SIZES ("xs s m l").
# Exit status: 0 unless a run failed.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build-sid}
case $BUILD in /*) B=$BUILD ;; *) B=$ROOT/$BUILD ;; esac
OUT=${1:?usage: bench/modern.sh OUTDIR}
ZB=$B/bench/ze_bench
REPS=${MODERN_REPS:-11}
SIZES=${MODERN_SIZES:-xs s m l}
declare -A REPS_COLD=([xs]=5 [s]=3 [m]=2 [l]=1)
[ "$REPS" -lt 5 ] && REPS_COLD=([xs]=1 [s]=1 [m]=1 [l]=1)
for need in "$ZB" "$B/libjitcache.so"; do
	[ -e "$need" ] || { echo "modern: $need missing (build it in the test bed)" >&2; exit 1; }
done
mkdir -p "$OUT/logs" && OUT=$(cd "$OUT" && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/jitcache-modern.XXXXXX")
trap 'rm -rf "$W"' EXIT
# NEO uses NEO_CACHE_DIR only if it exists (it creates only its default,
# ~/.cache/neo_compiler_cache).
for n in $SIZES; do mkdir -p "$W/neo-$n" "$W/both-neo-$n"; done
cd "$W" || exit 1 # the simulated GPU may write files to the current directory

export NEOReadDebugKeys=1 SetCommandStreamReceiver=1 ProductFamilyOverride=dg2
export UseAubStream=0 HardwareInfoOverride=1x4x16 UseExternalAllocatorForSshAndDsh=0 OverrideMaxWorkgroupSize=1024
export HOME=$W/home JITCACHE_CONFIG=/dev/null XDG_CONFIG_HOME=$W/xdg-config
export JITCACHE_LIB=$B/libjitcache.so JITCACHE_ADMIN=$B/jitcache-admin
unset XDG_CACHE_HOME JITCACHE_DIR JITCACHE_LOG JITCACHE_DISABLE JITCACHE_COMPRESS LD_PRELOAD
for p in intel-opencl-icd libze-intel-gpu1 libigc2 libze1; do
	echo "modern_pkg $p $(dpkg-query -W -f='${Version}' "$p" 2>/dev/null || echo absent)"
done >"$OUT/modern.txt"

# one SIZE KIND REP: one ze_bench process in mode KIND; appends its time.
one() {
	local n=$1 kind=$2 r=$3 spv=$OUT/spirv/$1.spv log=$OUT/logs/modern-$1-$2-$3 t
	local neo=(NEO_CACHE_PERSISTENT=0) jc=() mode=(spirv "$spv")
	case $kind in
	neo) neo=(NEO_CACHE_PERSISTENT=1 NEO_CACHE_DIR=$W/neo-$n) ;;
	jc) jc=("$ROOT/bin/jitcache" run --) ;;
	both | both_fill)
		neo=(NEO_CACHE_PERSISTENT=1 NEO_CACHE_DIR=$W/both-neo-$n)
		jc=("$ROOT/bin/jitcache" run --) ;;
	floor) mode=(native "$OUT/spirv/$n.modern.bin") ;;
	cold) [ -e "$OUT/spirv/$n.modern.bin" ] || mode+=(--save-native "$OUT/spirv/$n.modern.bin") ;;
	esac
	local dir=$W/jc-$n
	[ "${kind#both}" != "$kind" ] && dir=$W/both-jc-$n
	if ! env "${neo[@]}" JITCACHE_DIR="$dir" JITCACHE_LOG=info "${jc[@]}" "$ZB" "${mode[@]}" \
		>"$log" 2>&1; then
		echo "modern: failed: $n $kind (log: $log)" >&2; tail -n 5 "$log" >&2; return 1
	fi
	case $kind in jc | both)
		grep -q '^jitcache: 1 hits, 0 misses' "$log" ||
			{ echo "modern: $n $kind did not hit (log: $log)" >&2; return 1; } ;;
	esac
	t=$(sed -n 's/^ze_bench .*create_s=\([0-9.]*\).*/\1/p' "$log")
	echo "modern $n $kind $r $t" >>"$OUT/modern.txt"
}

[ -e "$OUT/spirv/xs.spv" ] || "$ROOT/bench/make_spirv.sh" "$OUT/spirv" >"$OUT/spirv.txt" || exit 1
failed=0
for n in $SIZES; do
	printf '%s  modern %s: cold x%s, one fill, then neo jc both floor x%s\n' "$(date +%T)" "$n" \
		"${REPS_COLD[$n]}" "$REPS" >&2
	for r in $(seq 1 "${REPS_COLD[$n]}"); do one "$n" cold "$r" || failed=1; done
	one "$n" both_fill 1 || failed=1
	rm -rf "$W/neo-$n" "$W/jc-$n"
	cp -a "$W/both-neo-$n" "$W/neo-$n" && cp -a "$W/both-jc-$n" "$W/jc-$n" || failed=1
	kinds=(neo jc both floor)
	for r in $(seq 1 "$REPS"); do
		for i in "${!kinds[@]}"; do # a different one goes first each time
			one "$n" "${kinds[$(((r + i) % 4))]}" "$r" || failed=1
		done
	done
	echo "modern $n disk_neo $(du -sb "$W/neo-$n" | cut -f1)" >>"$OUT/modern.txt"
	echo "modern $n disk_jc $(du -sb "$W/jc-$n" | cut -f1)" >>"$OUT/modern.txt"
done
exit $failed
