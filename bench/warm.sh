#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
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
# The same first runs for Intel's SYCL runtime (examples/sycl/workload.py:
# dpctl's program of WARM_SYCL_KERNELS kernels + dpnp; its time to the last
# result), recorded on an Arc A770 and run on an A580 (another device id, so
# other keys; SYCL does not start on the simulated A380), when
# /opt/jitcache-sycl (make testbed-sycl) is there: "warm sycl KIND SECONDS".
# And the case where the driver's own cache is silently off: NEO 26.x does
# not use its cache when any IGC_* variable is set.  A 40-kernel module
# (conv.cl + gemm_reg.cl) with IGC_EnableDPEmulation=1 (common advice for
# fp64 on Arc), two processes in a row each way: NEO's cache on (empty, then
# what the first run left), and jitcache (cold, then warm): "warm igc KIND
# SECONDS".
# Writes OUTDIR/warm.txt ("warm SIZE KIND SECONDS", "warm_tp JOBS MODULES
# SECONDS") and OUTDIR/warm.md (the table).  Exit status: 0 unless a run failed.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build-sid}
case $BUILD in /*) B=$BUILD ;; *) B=$ROOT/$BUILD ;; esac
OUT=${1:?usage: bench/warm.sh OUTDIR}
ZB=$B/bench/ze_bench
SIZES=${WARM_SIZES:-xs s m}
SYCL_VENV=${SYCL_VENV:-/opt/jitcache-sycl}
SYCL_KERNELS=${WARM_SYCL_KERNELS:-8}
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
	a580) export ProductFamilyOverride=acm-g10 ForceDeviceId=56A2 \
		OverrideDeviceName="Intel(R) Arc(TM) A580 Graphics" ;;
	esac
}
# first SIZE KIND [ENV...] -- [PREFIX...]: one fresh process; records create_s.
first() {
	local n=$1 kind=$2 log=$OUT/logs/warm-$1-$2 t; shift 2
	local envs=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	local prog=("$ZB" spirv "$OUT/spirv/$n.spv") pat='s/^ze_bench .*create_s=\([0-9.]*\).*/\1/p'
	case $n in
	sycl) prog=("${SYCL[@]}") pat='s/^time to last result: \([0-9.]*\) s$/\1/p' ;;
	igc) prog=("$ZB" spirv "$W/igc.spv") ;;
	esac
	if ! env "${envs[@]}" "$@" "${prog[@]}" >"$log" 2>&1; then
		echo "warm bench: failed: $n $kind (log: $log)" >&2; failed=1; return
	fi
	t=$(sed -n "$pat" "$log")
	echo "warm $n $kind $t" >>"$OUT/warm.txt"
}
# hit_all LOG: jitcache's summary line in LOG says it missed nothing.
hit_all() { grep -Eq '^jitcache: [1-9][0-9]* hits, 0 misses' "$1"; }
secs() { date +%s.%N; }

[ -e "$OUT/spirv/xs.spv" ] || "$ROOT/bench/make_spirv.sh" "$OUT/spirv" >"$OUT/spirv.txt" || exit 1
# first_runs NAME RECORDED-ON RUN-ON: the rows of one workload.
first_runs() {
	local n=$1 rec=$2 on=$3 s
	echo "$(date +%T)  warm bench $n" >&2
	present "$rec" # the recording
	first "$n" record JITCACHE_DIR="$W/rec-$n" -- "$JC" run --
	present "$on" # the new machine
	first "$n" cold -- 
	mkdir -p "$W/neo-$n"
	first "$n" neo_cold NEO_CACHE_PERSISTENT=1 NEO_CACHE_DIR="$W/neo-$n" --
	cp -a "$W/rec-$n" "$W/up-$n" && cp -a "$W/rec-$n" "$W/warmed-$n"
	first "$n" upgrade JITCACHE_DIR="$W/up-$n" -- "$JC" run --
	s=$(secs)
	JITCACHE_DIR="$W/warmed-$n" "$JC" warm >"$OUT/logs/warm-$n-warm" 2>&1 || failed=1
	echo "warm $n warm_s $(awk -v a="$s" -v b="$(secs)" 'BEGIN { print b - a }')" >>"$OUT/warm.txt"
	first "$n" warmed JITCACHE_DIR="$W/warmed-$n" JITCACHE_LOG=info -- "$JC" run --
	hit_all "$OUT/logs/warm-$n-warmed" ||
		{ echo "warm bench: $n: the run after jitcache warm missed" >&2; failed=1; }
	present "$rec" # elsewhere: prewarm for the GPU, export, import into a layer
	JITCACHE_DIR="$W/rec-$n" "$JC" warm --for "$on" --export "$W/$on-$n.tar.zst" \
		>"$OUT/logs/warm-$n-export" 2>&1 || failed=1
	JITCACHE_DIR="$W/layer-$n" "$JC" import "$W/$on-$n.tar.zst" >/dev/null 2>&1 || failed=1
	chmod -R go-w "$W/layer-$n"
	present "$on"
	first "$n" layer JITCACHE_DIR="$W/fresh-$n" JITCACHE_LAYERS="$W/layer-$n" JITCACHE_LOG=info \
		-- "$JC" run --
	hit_all "$OUT/logs/warm-$n-layer" ||
		{ echo "warm bench: $n: the prewarmed layer did not hit" >&2; failed=1; }
}
for n in $SIZES; do first_runs "$n" a380 a770; done
if [ -x "$SYCL_VENV/bin/python" ]; then
	"$SYCL_VENV/bin/python" - "$SYCL_KERNELS" "$W/sycl.spv" "$ROOT/examples/sycl" <<'EOF' || failed=1
import sys; sys.path.insert(0, sys.argv[3])
import workload
spv, why = workload.make_spirv(int(sys.argv[1]))
if spv is None: sys.exit(why)
open(sys.argv[2], "wb").write(spv)
EOF
	SYCL=(env ONEAPI_DEVICE_SELECTOR=level_zero:gpu SYCL_VENV="$SYCL_VENV" "$SYCL_VENV/bin/python"
		"$ROOT/examples/sycl/workload.py" --spv "$W/sycl.spv" --kernels "$SYCL_KERNELS")
	first_runs sycl a770 a580
else
	echo "warm bench: no $SYCL_VENV (make testbed-sycl): no SYCL rows" >&2
fi

# NEO's cache silently off: IGC_EnableDPEmulation=1, two processes in a row.
echo "$(date +%T)  warm bench: an IGC_* variable set" >&2
present a770
cat "$ROOT/examples/kernels/conv.cl" "$ROOT/examples/kernels/gemm_reg.cl" >"$W/igc.cl"
ocloc compile -q -spv_only -file "$W/igc.cl" -device dg2 -output "$W/igc" -output_no_suffix \
	>"$OUT/logs/warm-igc-ocloc" 2>&1 || failed=1
mkdir -p "$W/neo-igc"
for r in 1 2; do
	first igc "neo$r" IGC_EnableDPEmulation=1 NEO_CACHE_PERSISTENT=1 NEO_CACHE_DIR="$W/neo-igc" --
done
echo "warm igc neo_files $(find "$W/neo-igc" -type f | wc -l)" >>"$OUT/warm.txt"
for r in 1 2; do
	first igc "jc$r" IGC_EnableDPEmulation=1 JITCACHE_DIR="$W/jc-igc" JITCACHE_LOG=info -- "$JC" run --
done
hit_all "$OUT/logs/warm-igc-jc2" || { echo "warm bench: igc: jitcache's second run missed" >&2; failed=1; }

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
function t(x) { return x >= 1 ? sprintf("%.2f s", x) : x >= 0.01 ? sprintf("%.0f ms", x * 1000) : sprintf("%.2f ms", x * 1000) }
$1 == "warm" { v[$2, $3] = $4; if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 } }
$1 == "warm_tp" { tp[$2] = $3 / $4; tps[$2] = $4 }
END {
	print "| module | cold (no cache) | NEO cache, new machine | jitcache, prewarmed layer | after upgrade, no warm | `jitcache warm` | after upgrade, warmed |"
	print "|---|---|---|---|---|---|---|"
	for (i = 1; i <= n; i++) {
		s = order[i]
		if (s == "igc") continue
		printf "| %s | %s | %s | %s | %s | %s | %s |\n", s == "sycl" ? "SYCL workload (A770 -> A580; time to last result)" : s, t(v[s, "cold"]), t(v[s, "neo_cold"]), t(v[s, "layer"]), t(v[s, "upgrade"]), t(v[s, "warm_s"]), t(v[s, "warmed"])
	}
	printf "\n`jitcache warm --for a770`, 5 modules: -j1 %.1f s (%.2f modules/s), -j2 %.1f s (%.2f modules/s)\n", tps[1], tp[1], tps[2], tp[2]
	if (("igc", "neo1") in v) {
		print "\nWith `IGC_EnableDPEmulation=1` set (NEO 26.x leaves its cache unused when an `IGC_*` variable is set), a 40-kernel module, two processes in a row each way:\n"
		print "| cache | first run | second run | second / first |"
		print "|---|---|---|---|"
		printf "| NEO cache on (%d files in it after both runs) | %s | %s | %.2f |\n", v["igc", "neo_files"], t(v["igc", "neo1"]), t(v["igc", "neo2"]), v["igc", "neo2"] / v["igc", "neo1"]
		printf "| jitcache | %s | %s | %.4f |\n", t(v["igc", "jc1"]), t(v["igc", "jc2"]), v["igc", "jc2"] / v["igc", "jc1"]
	}
}' "$OUT/warm.txt" >"$OUT/warm.md"
cat "$OUT/warm.md"
exit $failed
