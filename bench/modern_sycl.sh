#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/modern_sycl.sh OUTDIR — Intel's SYCL runtime and oneDNN's SYCL build
# on Level Zero, on Intel's 2026 driver (NEO 26.x, IGC 2.x, loader 1.32,
# simulating an Arc DG2), side by side with the driver's own persistent
# cache and SYCL's.  Runs INSIDE the test bed (tests/testbed/run; bench/run.sh
# does that) on the build made there (BUILD, default build-sid), with the
# wheels of tests/testbed/sycl-env.sh (/opt/jitcache-sycl).
#
# Workloads, each a fresh process:
#   sycl    examples/sycl/workload.py on level_zero:gpu (dpctl program of
#           SYCL_KERNELS kernels + 13 dpnp operations): time to last result;
#   onednn  build/examples/onednn_sycl: creating 12 primitives (matmul,
#           softmax, layer norm, SDPA, convolutions): their creation time,
#           and that of the primitives oneDNN compiles from OpenCL C (ocl:*).
# Ways, warm ones interleaved run by run (a different one first each time):
#   cold     no cache at all (NEO_CACHE_PERSISTENT=0);
#   neo      NEO's cache on and warm, alone (the 2026 driver's default);
#   jc       jitcache warm, NEO's cache off;
#   both     jitcache and NEO's cache, both warm;
#   sycl     SYCL_CACHE_PERSISTENT=1 warm, alone         (sycl workload only);
#   sycl_jc  SYCL's cache and jitcache, both warm        (sycl workload only).
# Each cache is filled first by one run (KIND_fill: a cold start with that
# cache storing; jc_fill is "jitcache cold").
# Writes OUTDIR/modern_sycl.txt (raw: "msycl WL KIND REP SECONDS SECONDS CPU_SECONDS",
# "msycl_disk WL KIND BYTES", "msycl_count WL KIND HITS MISSES STORES"), then
# bench/modern_sycl_report.py turns it into OUTDIR/modern_sycl_table.md (the
# summary table's rows), modern_sycl_goals.txt and modern_sycl.md (details),
# which bench/report.py puts into bench/results.md.  Alone: make bench-sycl.
# Knobs: MSYCL_REPS (warm repetitions, 7), MSYCL_REPS_COLD (3),
#        SYCL_KERNELS (8), MSYCL_WORKLOADS ("sycl onednn").
# Exit status: 0 unless a run failed.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build-sid}
case $BUILD in /*) B=$BUILD ;; *) B=$ROOT/$BUILD ;; esac
OUT=${1:?usage: bench/modern_sycl.sh OUTDIR}
VENV=${SYCL_VENV:-/opt/jitcache-sycl}
REPS=${MSYCL_REPS:-7}
REPS_COLD=${MSYCL_REPS_COLD:-3}
KERNELS=${SYCL_KERNELS:-8}
WORKLOADS=${MSYCL_WORKLOADS:-sycl onednn}
for need in "$B/libjitcache.so" "$B/examples/onednn_sycl" "$VENV/bin/python"; do
	[ -e "$need" ] || { echo "modern_sycl: $need missing (make testbed-sycl; build in the test bed)" >&2; exit 1; }
done
mkdir -p "$OUT/logs"
OUT=$(cd "$OUT" && pwd) # the runs happen in a temporary directory
W=$(mktemp -d "${TMPDIR:-/tmp}/jitcache-msycl.XXXXXX")
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1 # the simulated GPU may write files to the current directory

export NEOReadDebugKeys=1 SetCommandStreamReceiver=1 ProductFamilyOverride=dg2
export UseAubStream=0 HardwareInfoOverride=1x4x16 UseExternalAllocatorForSshAndDsh=0 OverrideMaxWorkgroupSize=1024
export HOME=$W/home JITCACHE_CONFIG=/dev/null XDG_CONFIG_HOME=$W/xdg-config
export JITCACHE_LIB=$B/libjitcache.so JITCACHE_ADMIN=$B/jitcache-admin SYCL_VENV=$VENV
unset XDG_CACHE_HOME JITCACHE_DIR JITCACHE_LOG JITCACHE_DISABLE JITCACHE_COMPRESS LD_PRELOAD \
	SYCL_CACHE_PERSISTENT SYCL_CACHE_DIR NEO_CACHE_DIR
{
	for p in intel-opencl-icd libze-intel-gpu1 libigc2 libze1; do
		echo "msycl_pkg $p $(dpkg-query -W -f='${Version}' "$p" 2>/dev/null || echo absent)"
	done
	for p in intel-sycl-rt intel-cmplr-lib-ur dpctl dpnp onednn; do
		echo "msycl_pkg $p $("$VENV/bin/python" -c "import importlib.metadata as m; print(m.version('$p'))" 2>/dev/null || echo absent)"
	done
	echo "msycl_kernels $KERNELS"
} >"$OUT/modern_sycl.txt"

# The SPIR-V of the dpctl program, made once (not timed).
SPV=$W/program.spv
"$VENV/bin/python" - "$KERNELS" "$SPV" <<EOF || { echo "modern_sycl: no SPIR-V (ocloc?)" >&2; exit 1; }
import sys; sys.path.insert(0, "$ROOT/examples/sycl")
import workload
spv, why = workload.make_spirv(int(sys.argv[1]))
if spv is None: sys.exit(why)
open(sys.argv[2], "wb").write(spv)
EOF

# one WL KIND REP: one process; appends its figures to modern_sycl.txt.
one() {
	local wl=$1 kind=$2 r=$3 log=$OUT/logs/msycl-$1-$2-$3 base=${2%_fill}
	local env=(NEO_CACHE_PERSISTENT=0) jc=() cmd
	case $base in
	neo | both) env=(NEO_CACHE_PERSISTENT=1 NEO_CACHE_DIR=$W/neo-$wl-$base)
		mkdir -p "$W/neo-$wl-$base" ;; # NEO uses NEO_CACHE_DIR only if it exists
	esac
	case $base in jc | both | sycl_jc) jc=("$ROOT/bin/jitcache" run --) ;; esac
	case $base in sycl | sycl_jc) env+=(SYCL_CACHE_PERSISTENT=1 SYCL_CACHE_DIR=$W/syclc-$base) ;; esac
	if [ "$wl" = sycl ]; then
		cmd=("$ROOT/examples/sycl/run.sh" level_zero:gpu --spv "$SPV" --kernels "$KERNELS")
	else
		cmd=(env ONEAPI_DEVICE_SELECTOR=level_zero:gpu "$B/examples/onednn_sycl")
	fi
	# The process's CPU time (user + sys) too: less disturbed than wall time
	# by other work on a shared machine.
	local rc cpu TIMEFORMAT='%3U %3S'
	{ time env "${env[@]}" JITCACHE_DIR="$W/jc-$wl-$base" JITCACHE_LOG=info "${jc[@]}" "${cmd[@]}" \
		>"$log" 2>&1; } 2>"$log.cpu"
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "modern_sycl: failed: $wl $kind (log: $log)" >&2; tail -n 5 "$log" >&2; return 1
	fi
	cpu=$(awk '{ printf "%.3f", $1 + $2 }' "$log.cpu")
	if [ ${#jc[@]} -gt 0 ]; then
		local c
		c=$(sed -n 's/^jitcache: \([0-9]*\) hits, \([0-9]*\) misses, \([0-9]*\) stores.*/\1 \2 \3/p' "$log" | tail -n 1)
		echo "msycl_count $wl $kind ${c:-? ? ?}" >>"$OUT/modern_sycl.txt"
		case $kind in *_fill) ;; *)
			case $c in *" 0 0") ;; *) echo "modern_sycl: $wl $kind missed (log: $log)" >&2; return 1 ;; esac ;;
		esac
	fi
	if [ "$wl" = sycl ]; then
		echo "msycl sycl $kind $r $(sed -n 's/^time to last result: \([0-9.]*\) s/\1/p' "$log")" \
			"$(sed -n 's/.*create_program_from_spirv \([0-9.]*\) s/\1/p' "$log")" "$cpu" >>"$OUT/modern_sycl.txt"
	else
		echo "msycl onednn $kind $r $(sed -n 's/^primitives: [0-9]* created in \([0-9.]*\) s/\1/p' "$log")" \
			"$(awk '/^primitive / && $3 ~ /^impl=ocl:/ { s += $(NF - 1) } END { printf "%.4f", s }' "$log")" \
			"$cpu" >>"$OUT/modern_sycl.txt"
	fi
}

failed=0
for wl in $WORKLOADS; do
	kinds=(neo jc both)
	[ "$wl" = sycl ] && kinds+=(sycl sycl_jc)
	printf '%s  modern_sycl %s: cold x%s, fills, then %s x%s\n' "$(date +%T)" "$wl" "$REPS_COLD" \
		"${kinds[*]}" "$REPS" >&2
	for r in $(seq 1 "$REPS_COLD"); do one "$wl" cold "$r" || failed=1; done
	for k in "${kinds[@]}"; do one "$wl" "${k}_fill" 1 || failed=1; done
	n=${#kinds[@]}
	for r in $(seq 1 "$REPS"); do
		for i in $(seq 0 $((n - 1))); do one "$wl" "${kinds[$(((r + i) % n))]}" "$r" || failed=1; done
	done
	for k in "${kinds[@]}"; do
		echo "msycl_disk $wl $k $(du -sb "$W/neo-$wl-$k" "$W/jc-$wl-$k" "$W/syclc-$k" 2>/dev/null |
			awk '{ s += $1 } END { print s + 0 }')" >>"$OUT/modern_sycl.txt"
	done
done
python3 "$ROOT/bench/modern_sycl_report.py" "$OUT" || failed=1
exit $failed
