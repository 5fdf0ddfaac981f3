#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/cl_driver_caches.sh — jitcache against the OpenCL drivers' own caches.
#
#   BUILD=build bench/cl_driver_caches.sh [RUNS]      (RUNS warm runs each, default 3)
#
# For each workload: the driver with no cache at all (cold), jitcache cold
# and warm (driver cache off), the driver's own cache warm (jitcache off),
# and both warm together.  Prints one markdown table of medians (wall
# seconds of the whole process; for oneDNN also the seconds it reports for
# creating its primitives).  Workloads:
#   - examples/onednn_conv (20 ResNet-50 convolutions) on Intel's NEO 22.43
#     simulating an Arc GPU; NEO's cache is on when ./cl_cache exists;
#   - clblast_tuner_xaxpy on PoCL; PoCL's cache is POCL_KERNEL_CACHE=1 with
#     POCL_CACHE_DIR.  Debian's CLBlast 1.5.3 with PoCL 3.1 aborts after 76
#     of its 96 variants in every mode, with or without any cache (an
#     assertion in PoCL's kernel handle cache): the same work each time;
#   - clpeak --kernel-latency on PoCL.
# Cold runs are fewer (COLD_RUNS, default 1): they take long and only set
# the scale.  BENCH_QUICK=1 (a smoke test): one warm run, no CLBlast tuner.
# Everything runs in a scratch directory that is removed after.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) B=$BUILD ;; *) B=$ROOT/$BUILD ;; esac
RUNS=${1:-3}
COLD_RUNS=${COLD_RUNS:-1}
LIMIT=${BENCH_TIMEOUT:-300}   # seconds per run: clblast_tuner_xaxpy with PoCL 3.1 can hang
POCL_WORKLOADS=${POCL_WORKLOADS:-tuner clpeak}
if [ "${BENCH_QUICK:-0}" = 1 ]; then
	RUNS=1 POCL_WORKLOADS=clpeak
fi
LIB=$B/libjitcache.so
[ -r "$LIB" ] || { echo "cl_driver_caches: $LIB not found (make all)" >&2; exit 2; }
export JITCACHE_CONFIG=/dev/null
unset JITCACHE_DISABLE JITCACHE_LOG JITCACHE_MAX_SIZE
W=$(mktemp -d "${TMPDIR:-/tmp}/jitcache-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

# timed OUT CMD...: wall and CPU (user + system) seconds of CMD appended to
# OUT.wall and OUT.cpu, its output to OUT.log.  The machines are shared:
# CPU time is the steadier figure when others load them.
timed() {
	local out=$1; shift
	local start end
	start=$(date +%s.%N)
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%U %S' -o "$out.time" timeout "$LIMIT" "$@" >"$out.log" 2>&1
		tail -n 1 "$out.time" | awk '{ printf "%.2f\n", $1 + $2 }' >>"$out.cpu"
	else
		timeout "$LIMIT" "$@" >"$out.log" 2>&1
	fi
	end=$(date +%s.%N)
	awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f\n", e - s }' >>"$out.wall"
	sed -n 's/^created .* in \([0-9.]*\) s$/\1/p' "$out.log" >>"$out.inner"
}

# measure NAME MODE N CMD...: N runs in MODE
#   plain        no cache at all (each run in a fresh state)
#   jc-cold      jitcache, emptied before each run
#   jc-warm      jitcache, filled by one unmeasured run first
#   driver-warm  the driver's own cache, filled by one unmeasured run first
#   both-warm    jitcache and the driver's cache, filled likewise
measure() {
	local name=$1 mode=$2 n=$3; shift 3
	local pre=() i
	case $mode in
	jc-* | both-*) pre=(env LD_PRELOAD="$LIB" JITCACHE_DIR="$W/jc-$name") ;;
	esac
	rm -rf "$W/jc-$name" "$W/pocl-$name" cl_cache
	case $mode in driver-warm | both-warm) mkdir -p cl_cache ;; esac
	if [ "$mode" != plain ] && [ "$mode" != jc-cold ]; then
		timeout "$LIMIT" "${pre[@]}" "$@" >/dev/null 2>&1
	fi
	for i in $(seq 1 "$n"); do
		[ "$mode" = jc-cold ] && rm -rf "$W/jc-$name"
		timed "$name.$mode" "${pre[@]}" "$@"
	done
	rm -rf cl_cache
}

cell() { # NAME MODE: "wall s" (and "(inner s)" when the program reports one)
	local wall inner
	wall=$(median <"$1.$2.wall" 2>/dev/null)
	inner=$(median <"$1.$2.inner" 2>/dev/null)
	printf '%s%s' "${wall:--}" "${inner:+ ($inner)}"
}

cpu_cell() { median <"$1.$2.cpu" 2>/dev/null || echo -; }

# Table 1 (wall seconds) keeps the four columns bench/report.py reads;
# table 2 adds CPU seconds and both caches warm together.
wall_row() { # NAME LABEL
	printf '| %s | %s | %s | %s | %s |\n' "$2" "$(cell "$1" plain)" "$(cell "$1" jc-cold)" \
		"$(cell "$1" jc-warm)" "$(cell "$1" driver-warm)"
}

more_row() { # NAME LABEL
	printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$2" "$(cpu_cell "$1" plain)" \
		"$(cpu_cell "$1" jc-cold)" "$(cpu_cell "$1" jc-warm)" "$(cpu_cell "$1" driver-warm)" \
		"$(cell "$1" both-warm)" "$(cpu_cell "$1" both-warm)"
}

table() { # ROW-FUNCTION
	[ -s onednn.plain.wall ] && $1 onednn "oneDNN, 20 convolutions, NEO 22.43 simulated Arc"
	[ -s tuner.plain.wall ] && $1 tuner "clblast_tuner_xaxpy, PoCL 3.1 (77 builds, see above)"
	[ -s clpeak.plain.wall ] && $1 clpeak "clpeak --kernel-latency, PoCL 3.1"
	return 0
}

# --- oneDNN on NEO (simulated Arc) -------------------------------------------
ONEDNN=$B/examples/onednn_conv
if [ -x "$ONEDNN" ]; then
	(
		export NEOReadDebugKeys=1 SetCommandStreamReceiver=1 ProductFamilyOverride=dg2
		export OverrideMaxWorkgroupSize=256
		echo "oneDNN on NEO: cold..." >&2
		measure onednn plain "$COLD_RUNS" "$ONEDNN"
		measure onednn jc-cold "$COLD_RUNS" "$ONEDNN"
		echo "oneDNN on NEO: warm..." >&2
		measure onednn jc-warm "$RUNS" "$ONEDNN"
		measure onednn driver-warm "$RUNS" "$ONEDNN"
		measure onednn both-warm "$RUNS" "$ONEDNN"
		rm -f ./*.aub
	)
fi

# --- PoCL ------------------------------------------------------------------------
pocl_cache() { # NAME: the environment for PoCL's own cache
	echo "POCL_KERNEL_CACHE=1 POCL_CACHE_DIR=$W/pocl-$1"
}
if clinfo -l 2>/dev/null | grep -q "Portable Computing Language"; then
	for w in $POCL_WORKLOADS; do
		case $w in
		tuner) cmd=(clblast_tuner_xaxpy -n 65536 -runs 1) ;;
		clpeak) cmd=(clpeak --kernel-latency) ;;
		esac
		command -v "${cmd[0]}" >/dev/null || continue
		echo "PoCL, $w: cold..." >&2
		POCL_KERNEL_CACHE=0 measure "$w" plain "$COLD_RUNS" "${cmd[@]}"
		POCL_KERNEL_CACHE=0 measure "$w" jc-cold "$COLD_RUNS" "${cmd[@]}"
		echo "PoCL, $w: warm..." >&2
		POCL_KERNEL_CACHE=0 measure "$w" jc-warm "$RUNS" "${cmd[@]}"
		# shellcheck disable=SC2046
		measure "$w" driver-warm "$RUNS" env $(pocl_cache "$w") "${cmd[@]}"
		# shellcheck disable=SC2046
		measure "$w" both-warm "$RUNS" env $(pocl_cache "$w") "${cmd[@]}"
	done
fi

echo
echo "OpenCL: jitcache against the drivers' own caches: median wall seconds of the"
echo "process (oneDNN: and of its primitive creation); $RUNS warm runs, $COLD_RUNS cold."
echo
echo "| workload | driver, no cache | jitcache cold | jitcache warm | driver's cache warm |"
echo "|---|---|---|---|---|"
table wall_row
echo
echo "CPU seconds (user + system; steadier than wall time on a shared machine), and"
echo "jitcache with the driver's cache, both warm:"
echo
echo "| workload | CPU: driver, no cache | CPU: jitcache cold | CPU: jitcache warm | CPU: driver's cache warm | both warm | CPU: both warm |"
echo "|---|---|---|---|---|---|---|"
table more_row
echo
echo "($(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end)"
