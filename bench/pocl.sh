#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2030,SC2031 # each run exports its settings in a subshell
# bench/pocl.sh OUTDIR — programs that compile many OpenCL kernels on PoCL
# (the CPU), jitcache against no cache and against PoCL's own kernel cache,
# on an idle machine and on a busy one, side by side in one run.  Workloads
# (POCL_BENCH_WORKLOADS, default "pyopencl clfft"):
#   pyopencl  pyopencl's own test files (its PyPI wheel, .venv-pyopencl,
#             make pyopencl-env), one pytest process; pyopencl's cache off;
#   clfft     clFFT-client (Debian's clfft-client), one process per
#             transform of CLFFT_BENCH_SETS, run one after the other; clFFT's
#             binary cache off (CLFFT_CACHE_PATH unset).
# Ways, each one run of the workload, in this order:
#   none       no jitcache, PoCL's cache off (POCL_KERNEL_CACHE=0);
#   pocl_cold  PoCL's cache alone (POCL_KERNEL_CACHE=1, its default), an
#              empty POCL_CACHE_DIR;
#   pocl_warm  the same directory, the run started the moment the cold one
#              ended;
#   jc_cold    jitcache alone (PoCL's cache off), an empty cache;
#   jc_warm    the same cache, started the moment the cold one ended;
#   both_cold  jitcache and PoCL's cache, both empty;
#   both_warm  both again, back to back;
#   conc4      four processes of the workload started at once under
#              jitcache on an empty cache (PoCL's cache off), idle only:
#              the wall time of the slowest, the sum of their misses (the
#              compiles) and of their stores.
# Loads (POCL_BENCH_LOADS, default "idle busy"): idle runs on the machine as
# it is; busy starts 2 x nproc spinning shell loops first (killed when the
# busy rows end, and at exit whatever happens).  The 1-minute load average
# at each run's start is recorded: on a shared machine "idle" is only as
# idle as that figure says.
# Figures: wall seconds of the whole workload, the ratio to "none" under the
# same load, the outcome (pytest's line; clFFT-client's passes), and the sums
# of jitcache's exit lines (JITCACHE_LOG=info: hits, misses, stores).
# Writes OUTDIR/pocl.md (a table per workload) and the raw OUTDIR/pocl.txt
# ("pocl WORKLOAD LOAD WAY SECONDS LOADAVG HITS MISSES STORES OUTCOME").
# Knobs: PYOPENCL_BENCH_FILES (default test_clmath.py; issue 26's six:
# "test_algorithm.py test_arrays_in_structs.py test_clmath.py
# test_clrandom.py test_enqueue_copy.py test_wrapper.py"), CLFFT_BENCH_SETS
# (transforms separated by ";", clFFT-client's options), POCL_BENCH_WAYS
# (default all the ways above), POCL_BENCH_CONC (1: the conc4 row).
# `bench/pocl.sh --table OUTDIR` writes OUTDIR/pocl.md from OUTDIR/pocl.txt
# again, running nothing (the rows of runs cut short, or of several runs).
set -u
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
TABLE_ONLY=0
[ "${1:-}" = --table ] && TABLE_ONLY=1 && shift
bench_init pocl build "${1:-}"
WORKLOADS=${POCL_BENCH_WORKLOADS:-pyopencl clfft}
LOADS=${POCL_BENCH_LOADS:-idle busy}
WAYS=${POCL_BENCH_WAYS:-none pocl_cold pocl_warm jc_cold jc_warm both_cold both_warm}
CONC=${POCL_BENCH_CONC:-1}
VENV=${PYOPENCL_VENV:-$ROOT/.venv-pyopencl}
FILES=${PYOPENCL_BENCH_FILES:-test_clmath.py}
CLFFT=${CLFFT_CLIENT:-$(command -v clFFT-client || echo /usr/bin/clFFT-client)}
# Several kernels each: radix 2, mixed radices 2/3/5/7 in 2-D and 3-D, double
# precision, real-to-complex out of place, backward.
SETS=${CLFFT_BENCH_SETS:--x 1024;-x 1000 -y 64;-x 4096 --double;-x 120 -y 96 -z 14;-x 2048 -o --inLayout 5 --outLayout 3;-x 2187 --inv}
bench_need "make" "$B/libjitcache.so" "$ROOT/bin/jitcache"
case " $WORKLOADS " in *" pyopencl "*)
	bench_need "make pyopencl-env" "$VENV/bin/python" "$VENV/pyopencl-tests" ;;
esac
case " $WORKLOADS " in *" clfft "*) bench_need "make deps-all: clfft-client" "$CLFFT" ;; esac
bench_isolate
export PYOPENCL_TEST=portable PYOPENCL_CTX=portable PYOPENCL_NO_CACHE=1 TMPDIR=$W/tmp
unset POCL_KERNEL_CACHE POCL_CACHE_DIR CLFFT_CACHE_PATH
mkdir -p "$TMPDIR"
raw=$OUT/pocl.txt
[ $TABLE_ONLY = 1 ] || : >"$raw"

# The busy machine: 2 x nproc spinning loops, each killed by its own id.
SPIN=()
spin_start() {
	local i
	for ((i = 0; i < 2 * $(nproc); i++)); do
		bash -c 'while :; do :; done' &
		SPIN+=($!)
	done
}
spin_stop() {
	local p
	for p in "${SPIN[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${SPIN[@]}"; do wait "$p" 2>/dev/null; done
	SPIN=()
}
bench_at_exit spin_stop

now() { date +%s.%N; }
loadavg() { cut -d' ' -f1 /proc/loadavg; }

# workload WL LOG: one run of the workload, its output in LOG, in the
# environment the caller set (the jitcache launcher in JC).
workload() {
	local wl=$1 log=$2 set
	case $wl in
	pyopencl)
		# shellcheck disable=SC2086 # the files are words
		env -C "$VENV/pyopencl-tests" "${JC[@]}" "$VENV/bin/python" -m pytest -q \
			-p no:cacheprovider $FILES >"$log" 2>&1 ;;
	clfft)
		: >"$log"
		while IFS= read -r -d ';' set; do
			echo "== clFFT-client -c $set" >>"$log"
			# shellcheck disable=SC2086 # the options of one transform
			env -C "$W/tmp" "${JC[@]}" "$CLFFT" -c $set >>"$log" 2>&1 || echo "== failed: $?" >>"$log"
		done <<<"$SETS;" ;;
	esac
}

# outcome WL LOG...: pytest's outcome line, or clFFT-client's passes.
outcome() {
	local wl=$1
	shift
	case $wl in
	pyopencl)
		for f in "$@"; do
			grep -E '[0-9]+ (passed|failed)' "$f" | tail -n 1 | sed 's/, [0-9]* warnings\{0,1\}//; s/ in [0-9.]*s.*//; s/=//g; s/^ *//; s/ *$//'
		done | sort | uniq -c | awk '{ n = $1; $1 = ""; sub(/^ /, ""); printf "%s%s%s", (NR > 1 ? "; " : ""), (n > 1 ? n " x " : ""), $0 }' ;;
	clfft)
		local pass runs
		pass=$(cat "$@" | grep -c 'Client Test \*\*\*\*\*PASS')
		runs=$(cat "$@" | grep -c '^== clFFT-client')
		echo "$pass of $runs passed" ;;
	esac
}
# exits LOG...: the sums of jitcache's exit lines: "HITS MISSES STORES".
exits() {
	cat "$@" | sed -n 's/^jitcache: \([0-9]*\) hits, \([0-9]*\) misses, \([0-9]*\) stores.*/\1 \2 \3/p' |
		awk '{ h += $1; m += $2; s += $3; n++ } END { if (n) print h, m, s; else print "- - -" }'
}

# one WL LOAD WAY: one way, recorded in the raw file.
one() {
	local wl=$1 load=$2 way=$3 la t0 t1 log=$OUT/logs/$1-$2-$3.out
	local pocl=(POCL_KERNEL_CACHE=0) jcdir=$W/jc-$wl-$load-${way%_*}
	JC=()
	case $way in
	pocl_* | both_*) pocl=(POCL_KERNEL_CACHE=1 POCL_CACHE_DIR="$W/pocl-$wl-$load-${way%_*}") ;;
	esac
	case $way in jc_* | both_*) JC=("$ROOT/bin/jitcache" run --) ;; esac
	la=$(loadavg)
	t0=$(now)
	(export "${pocl[@]}" JITCACHE_DIR="$jcdir" JITCACHE_LOG=info; workload "$wl" "$log")
	t1=$(now)
	echo "pocl $wl $load $way $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') $la $(exits "$log") $(outcome "$wl" "$log")" >>"$raw"
}
# conc WL LOAD: four processes at once on an empty jitcache cache.
conc() {
	local wl=$1 load=$2 la t0 t1 i pids=() logs=()
	JC=("$ROOT/bin/jitcache" run --)
	la=$(loadavg)
	t0=$(now)
	for i in 1 2 3 4; do
		logs+=("$OUT/logs/$wl-$load-conc4-$i.out")
		(export POCL_KERNEL_CACHE=0 JITCACHE_DIR="$W/jc-$wl-$load-conc4" JITCACHE_LOG=info
			workload "$wl" "${logs[-1]}") &
		pids+=($!)
	done
	wait "${pids[@]}"
	t1=$(now)
	echo "pocl $wl $load conc4 $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') $la $(exits "${logs[@]}") $(outcome "$wl" "${logs[@]}")" >>"$raw"
}

for load in $LOADS; do
	[ $TABLE_ONLY = 1 ] && break
	[ "$load" = busy ] && spin_start
	for wl in $WORKLOADS; do
		for way in $WAYS; do
			echo "pocl bench: $wl $load $way (load $(loadavg))" >&2
			one "$wl" "$load" "$way"
		done
		if [ "$CONC" = 1 ] && [ "$load" = idle ]; then
			echo "pocl bench: $wl $load conc4 (load $(loadavg))" >&2
			conc "$wl" "$load"
		fi
	done
	[ "$load" = busy ] && spin_stop
done

# The tables: one per workload, the rows in the order they ran.
pocl_version=$(dpkg-query -W -f '${Version}' pocl-opencl-icd 2>/dev/null || echo '?')
label() {
	case $1 in
	none) echo "no cache (POCL_KERNEL_CACHE=0)" ;;
	pocl_cold) echo "PoCL's cache, cold" ;;
	pocl_warm) echo "PoCL's cache, warm" ;;
	jc_cold) echo "jitcache, cold" ;;
	jc_warm) echo "jitcache, warm (back to back)" ;;
	both_cold) echo "jitcache + PoCL's cache, cold" ;;
	both_warm) echo "jitcache + PoCL's cache, warm" ;;
	conc4) echo "4 concurrent cold processes, jitcache" ;;
	esac
}
# machine LOAD LOADAVG: "idle" only where the load average was below the cores.
machine() {
	case $1 in
	busy) echo "busy: $((2 * $(nproc))) spinning loops" ;;
	*) awk -v l="$2" -v n="$(nproc)" 'BEGIN { print (l < n ? "idle" : "no spinners; others'"'"' load") }' ;;
	esac
}
{
	for wl in $WORKLOADS; do
		case $wl in
		pyopencl) what="pyopencl's tests: $FILES" ;;
		clfft) what="clFFT-client $(dpkg-query -W -f '${Version}' clfft-client 2>/dev/null), $(grep -o ';' <<<"$SETS;" | wc -l) transforms" ;;
		esac
		echo "| $what (PoCL $pocl_version) | machine | load avg at start | wall, s | against no cache | outcome | hits | misses | stores |"
		echo "|---|---|---|---|---|---|---|---|---|"
		awk -v wl="$wl" '$1 == "pocl" && $2 == wl {
			if ($4 == "none") base[$3] = $5
			r = ($4 == "none" || $4 == "conc4" || !base[$3]) ? "" : sprintf("%.2fx", $5 / base[$3])
			if ($4 == "conc4") r = "slowest of 4"
			out = ""; for (i = 10; i <= NF; i++) out = out (i > 10 ? " " : "") $i
			printf "%s\037%s\037%s\037%s\037%s\037%s\037%s\037%s\037%s\n", $4, $3, $6, $5, r, out, $7, $8, $9
		}' "$raw" | while IFS=$'\037' read -r way load la wall r out h m s; do
			echo "| $(label "$way") | $(machine "$load" "$la") | $la | $wall | $r | $out | $h | $m | $s |"
		done
		echo
	done
} >"$OUT/pocl.md"
cat "$OUT/pocl.md"
