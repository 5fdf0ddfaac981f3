#!/usr/bin/env bash
# bench/warm.sh OUTDIR — first runs, and `jitcache warm`, on Intel's 2026
# driver.  Runs INSIDE the test bed (tests/testbed/run; bench/run.sh does
# that) on the build made there (BUILD, e.g. build-sid).
#
# The requests are recorded on one simulated GPU (an Arc A380: IP 12.56.5),
# and the runs measured on another (an Arc A770: IP 12.55.8), so that no
# entry of the recording fits: what a new machine, or the first run after a
# driver upgrade (every key changes then too), meets.  For each module of
# bench/make_spirv.sh (WARM_SIZES, default "xs s m"), the first
# zeModuleCreate of a fresh process (bench/ze_bench.c):
#   cold       no jitcache, NEO's cache off: the JIT;
#   neo_cold   NEO's cache on, empty (a new machine's);
#   upgrade    jitcache with the recipes but no entry for this GPU/driver
#              (compiles, and stores);
#   warmed     the same after `jitcache warm` (its time: warm_s);
#   layer      a fresh cache with a read-only layer made by
#              `jitcache warm --for a770 --export` elsewhere.
# Then `jitcache warm --for a770` throughput on the five modules of
# examples/kernels (attention.cl left out, as make_spirv.sh does) at -j1
# and -j2 from a cache of their recipes alone.
# Writes OUTDIR/warm.txt ("warm SIZE KIND SECONDS", "warm_tp JOBS MODULES
# SECONDS") and OUTDIR/warm.md (the table).  Exit status: 0 unless a run failed.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build-sid}
case $BUILD in /*) B=$BUILD ;; *) B=$ROOT/$BUILD ;; esac
OUT=${1:?usage: bench/warm.sh OUTDIR}
ZB=$B/bench/ze_bench
SIZES=${WARM_SIZES:-xs s m}
mkdir -p "$OUT/logs" && OUT=$(cd "$OUT" && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/jitcache-warmbench.XXXXXX")
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1
export HOME=$W/home JITCACHE_CONFIG=/dev/null XDG_CONFIG_HOME=$W/xdg-config
export JITCACHE_LIB=$B/libjitcache.so JITCACHE_ADMIN=$B/jitcache-admin
export NEO_CACHE_PERSISTENT=0
unset XDG_CACHE_HOME JITCACHE_DIR JITCACHE_LOG JITCACHE_DISABLE JITCACHE_RECIPES LD_PRELOAD
JC=$ROOT/bin/jitcache
: >"$OUT/warm.txt"
failed=0

present() { # GPU: its real identity, simulated
	export NEOReadDebugKeys=1 SetCommandStreamReceiver=1 UseAubStream=0
	export HardwareInfoOverride=1x4x16 UseExternalAllocatorForSshAndDsh=0 OverrideMaxWorkgroupSize=1024
	unset UseBindlessMode OverrideDeviceName
	case $1 in
	a380) export ProductFamilyOverride=dg2-g11-b1 ForceDeviceId=56A5 \
		OverrideDeviceName="Intel(R) Arc(TM) A380 Graphics" ;;
	a770) export ProductFamilyOverride=acm-g10 ForceDeviceId=56A0 \
		OverrideDeviceName="Intel(R) Arc(TM) A770 Graphics" ;;
	esac
}
# first SIZE KIND [ENV...] -- [PREFIX...]: one fresh process; records create_s.
first() {
	local n=$1 kind=$2 log=$OUT/logs/warm-$1-$2 t; shift 2
	local envs=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	if ! env "${envs[@]}" "$@" "$ZB" spirv "$OUT/spirv/$n.spv" >"$log" 2>&1; then
		echo "warm bench: failed: $n $kind (log: $log)" >&2; failed=1; return
	fi
	t=$(sed -n 's/^ze_bench .*create_s=\([0-9.]*\).*/\1/p' "$log")
	echo "warm $n $kind $t" >>"$OUT/warm.txt"
}
secs() { date +%s.%N; }

[ -e "$OUT/spirv/xs.spv" ] || "$ROOT/bench/make_spirv.sh" "$OUT/spirv" >"$OUT/spirv.txt" || exit 1
for n in $SIZES; do
	echo "$(date +%T)  warm bench $n" >&2
	present a380 # the recording
	first "$n" record JITCACHE_DIR="$W/rec-$n" -- "$JC" run --
	present a770 # the new machine
	first "$n" cold -- 
	mkdir -p "$W/neo-$n"
	first "$n" neo_cold NEO_CACHE_PERSISTENT=1 NEO_CACHE_DIR="$W/neo-$n" --
	cp -a "$W/rec-$n" "$W/up-$n" && cp -a "$W/rec-$n" "$W/warmed-$n"
	first "$n" upgrade JITCACHE_DIR="$W/up-$n" -- "$JC" run --
	s=$(secs)
	JITCACHE_DIR="$W/warmed-$n" "$JC" warm >"$OUT/logs/warm-$n-warm" 2>&1 || failed=1
	echo "warm $n warm_s $(awk -v a="$s" -v b="$(secs)" 'BEGIN { print b - a }')" >>"$OUT/warm.txt"
	first "$n" warmed JITCACHE_DIR="$W/warmed-$n" -- "$JC" run --
	present a380 # elsewhere: prewarm for the A770, export, import into a layer
	JITCACHE_DIR="$W/rec-$n" "$JC" warm --for a770 --export "$W/a770-$n.tar.zst" \
		>"$OUT/logs/warm-$n-export" 2>&1 || failed=1
	JITCACHE_DIR="$W/layer-$n" "$JC" import "$W/a770-$n.tar.zst" >/dev/null 2>&1 || failed=1
	chmod -R go-w "$W/layer-$n"
	present a770
	first "$n" layer JITCACHE_DIR="$W/fresh-$n" JITCACHE_LAYERS="$W/layer-$n" JITCACHE_LOG=info \
		-- "$JC" run --
	grep -q '^jitcache: 1 hits, 0 misses' "$OUT/logs/warm-$n-layer" ||
		{ echo "warm bench: $n: the prewarmed layer did not hit" >&2; failed=1; }
done

# Throughput: the recipes of five modules, warmed at -j1 and -j2.
present a380
for m in reduce gemm norm conv gemm_reg; do
	[ -e "$W/$m.spv" ] || ocloc compile -q -spv_only -file "$ROOT/examples/kernels/$m.cl" -device dg2 \
		-output "$W/$m" -output_no_suffix >/dev/null 2>&1
	JITCACHE_DIR="$W/tp" "$JC" run -- "$ZB" spirv "$W/$m.spv" >/dev/null 2>&1 || failed=1
done
for j in 1 2; do
	rm -rf "$W/tp-$j" && cp -a "$W/tp" "$W/tp-$j"
	s=$(secs)
	JITCACHE_DIR="$W/tp-$j" "$JC" warm --for a770 -j "$j" >"$OUT/logs/warm-tp-$j" 2>&1 || failed=1
	echo "warm_tp $j 5 $(awk -v a="$s" -v b="$(secs)" 'BEGIN { print b - a }')" >>"$OUT/warm.txt"
done

# The table.
awk '
$1 == "warm" { v[$2, $3] = $4; if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 } }
$1 == "warm_tp" { tp[$2] = $3 / $4; tps[$2] = $4 }
END {
	print "| module | cold (no cache) | NEO cache, new machine | jitcache, prewarmed layer | after upgrade, no warm | `jitcache warm` | after upgrade, warmed |"
	print "|---|---|---|---|---|---|---|"
	for (i = 1; i <= n; i++) {
		s = order[i]
		printf "| %s | %.3f s | %.3f s | %.3f s | %.3f s | %.2f s | %.3f s |\n", s, v[s, "cold"], v[s, "neo_cold"], v[s, "layer"], v[s, "upgrade"], v[s, "warm_s"], v[s, "warmed"]
	}
	printf "\n`jitcache warm --for a770`, 5 modules: -j1 %.1f s (%.2f modules/s), -j2 %.1f s (%.2f modules/s)\n", tps[1], tp[1], tps[2], tp[2]
}' "$OUT/warm.txt" >"$OUT/warm.md"
cat "$OUT/warm.md"
exit $failed
