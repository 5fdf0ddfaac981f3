#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/concurrency.sh MODULE.spv — N processes (default 4) starting cold at
# once on the same Level Zero module under jitcache, against one process
# alone.  jitcache takes a per-key lock on a miss, so one process compiles
# and the others wait for it and load its result: the N processes should
# cost about one compilation of wall time and make ONE compilation.  For
# contrast, N processes without jitcache (each compiles; on 2 cores they
# share the CPU).  Run by bench/run.sh; runnable alone after `make bench`.
#
# Each repetition runs, in alternating order, with a fresh empty cache
# (nocache in the first CONC_NOCACHE_REPS repetitions only):
#   single  1 process under jitcache
#   many    N processes under jitcache, started together
#   nocache N processes without jitcache, started together
# and prints, per mode and repetition:
#   conc MODE REP WALL_S COMPILATIONS HITS MAX_CREATE_S
# WALL_S runs from the start of the first to the end of the last process;
# COMPILATIONS is the sum of the processes' stores, from the summary line each
# prints at exit with JITCACHE_LOG=info (nocache: N by construction), checked
# against `jitcache stats --json` of the cache.  Then one line:
#   conc_summary procs=N reps=R
# Knobs: CONC_PROCS (4), CONC_REPS (3; 1 with BENCH_QUICK=1),
# CONC_NOCACHE_REPS (1: how many repetitions include nocache), BUILD, WORK.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) B=$BUILD ;; *) B=$ROOT/$BUILD ;; esac
ZB=$B/bench/ze_bench
MODULE=${1:?usage: concurrency.sh MODULE.spv}
case $MODULE in /*) ;; *) MODULE=$PWD/$MODULE ;; esac
PROCS=${CONC_PROCS:-4}
REPS=${CONC_REPS:-3}
[ "${BENCH_QUICK:-0}" = 1 ] && REPS=${CONC_REPS:-1}
NOCACHE_REPS=${CONC_NOCACHE_REPS:-1}

[ -x "$ZB" ] || { echo "concurrency: $ZB missing (run 'make bench')" >&2; exit 1; }
[ -r "$MODULE" ] || { echo "concurrency: $MODULE not found" >&2; exit 1; }
own_work=0
if [ -z "${WORK:-}" ]; then
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/jitcache-conc.XXXXXX")
	own_work=1
fi
D=$WORK/conc
mkdir -p "$D"
[ "$own_work" = 1 ] && trap 'rm -rf "$WORK"' EXIT
cd "$D" || exit 1 # .aub files land here

export NEOReadDebugKeys=1 SetCommandStreamReceiver=1 ProductFamilyOverride=dg2
export OverrideMaxWorkgroupSize=256
# Through the Level Zero loader if there is one, as bench/run.sh does.
ldd "$ZB" 2>/dev/null | grep -q 'libze_loader.so.1 => /' ||
	export LD_LIBRARY_PATH=$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export JITCACHE_LIB=$B/libjitcache.so JITCACHE_ADMIN=$B/jitcache-admin JITCACHE_CONFIG=/dev/null
unset JITCACHE_MAX_SIZE JITCACHE_DISABLE JITCACHE_SHARED JITCACHE_COMPRESS LD_PRELOAD

now() { date +%s.%N; }

# run_mode MODE REP: prints the "conc ..." line; non-zero on failure.
run_mode() {
	local mode=$1 rep=$2 n=$PROCS cache=$D/cache-$1-$2 i t0 t1 pids=() bad=0
	rm -rf "$cache"
	[ "$mode" = single ] && n=1
	t0=$(now)
	for i in $(seq 1 "$n"); do
		if [ "$mode" = nocache ]; then
			"$ZB" spirv "$MODULE" >"$D/$mode-$rep-$i.log" 2>&1 &
		else
			JITCACHE_DIR=$cache JITCACHE_LOG=info \
				"$ROOT/bin/jitcache" run -- "$ZB" spirv "$MODULE" >"$D/$mode-$rep-$i.log" 2>&1 &
		fi
		pids+=($!)
	done
	for i in "${pids[@]}"; do
		wait "$i" || bad=1
	done
	t1=$(now)
	if [ "$bad" = 1 ]; then
		echo "concurrency: a $mode process failed:" >&2
		tail -n 3 "$D/$mode-$rep"-*.log >&2
		return 1
	fi
	local stores=0 hits=0 maxc=0 s h c
	for i in $(seq 1 "$n"); do
		c=$(sed -n 's/^ze_bench .*create_s=\([0-9.]*\).*/\1/p' "$D/$mode-$rep-$i.log")
		maxc=$(awk -v a="$maxc" -v b="$c" 'BEGIN { print (b > a ? b : a) }')
		if [ "$mode" != nocache ]; then
			s=$(sed -n 's/^jitcache: [0-9]* hits, [0-9]* misses, \([0-9]*\) stores.*/\1/p' "$D/$mode-$rep-$i.log")
			h=$(sed -n 's/^jitcache: \([0-9]*\) hits, .*/\1/p' "$D/$mode-$rep-$i.log")
			stores=$((stores + ${s:-0}))
			hits=$((hits + ${h:-0}))
		fi
	done
	if [ "$mode" = nocache ]; then
		stores=$n
	else
		local total
		total=$(JITCACHE_DIR=$cache "$ROOT/bin/jitcache" stats --json |
			sed -n 's/.*"stores": \([0-9]*\).*/\1/p')
		if [ "$total" != "$stores" ]; then
			echo "concurrency: $mode rep $rep: summary lines say $stores stores, the cache's stats $total" >&2
			return 1
		fi
	fi
	awk -v m="$mode" -v r="$rep" -v a="$t0" -v b="$t1" -v s="$stores" -v h="$hits" -v c="$maxc" \
		'BEGIN { printf "conc %s %d %.3f %d %d %s\n", m, r, b - a, s, h, c }'
	rm -rf "$cache"
}

status=0
for rep in $(seq 1 "$REPS"); do
	if [ $((rep % 2)) = 1 ]; then order="single many nocache"; else order="nocache many single"; fi
	for mode in $order; do
		# The contrast without jitcache costs N compilations: run it less.
		[ "$mode" = nocache ] && [ "$rep" -gt "$NOCACHE_REPS" ] && continue
		run_mode "$mode" "$rep" || status=1
	done
done
echo "conc_summary procs=$PROCS reps=$REPS module=$(basename "$MODULE" .spv) module_bytes=$(stat -c %s "$MODULE")"
exit $status
