#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/remote.sh SPIRV_DIR — the remote tier's figures, side by side in one
# run, against a redis-server this script starts on a random port of
# 127.0.0.1 (loopback: the network costs next to nothing, so these are the
# remote tier's own costs).  Run by bench/run.sh; runnable alone after
# `make bench` (SPIRV_DIR: the modules of bench/make_spirv.sh, made if
# missing).
#
# 1. For each Level Zero module (xs s m l), the first zeModuleCreate of a
#    fresh process (bench/ze_bench) on the simulated Arc:
#      cold      no jitcache (REMOTE_COLD_REPS runs: 3 for xs and s, 1 for m, l)
#      local     jitcache hit from the local cache directory (a remote is
#                configured, and not asked)
#      remote    jitcache hit from Redis, values sent as the entry files
#                (JITCACHE_REMOTE_COMPRESS=0, in Redis database 0): the
#                process starts with an empty local cache directory (made
#                beforehand, as a node's would be), gets the value,
#                verifies it and keeps it
#      remote_z  the same with values zstd-compressed on the wire (the
#                default: JITCACHE_REMOTE_COMPRESS=1, in Redis database 1)
#    local, remote and remote_z interleaved, REMOTE_REPS (9) times, the
#    first rotating.  Prints "remote SIZE KIND REP SECONDS" and
#    "remote_bytes SIZE PLAIN ZSTD" (the value's size each way).
# 2. REMOTE_NODES (4) nodes (processes with their own cache directories)
#    start cold at once on module m: with the remote (one compiles, the
#    others wait for its value) and without it (each compiles).  Prints
#    "remote_conc MODE REP WALL_S COMPILES" (compiles: the nodes' debug logs).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) B=$BUILD ;; *) B=$ROOT/$BUILD ;; esac
ZB=$B/bench/ze_bench
SPV=${1:?usage: remote.sh SPIRV_DIR}
REPS=${REMOTE_REPS:-9}
NODES=${REMOTE_NODES:-4}
CONC_REPS=${REMOTE_CONC_REPS:-1}
SIZES=${REMOTE_SIZES:-xs s m l}
declare -A COLD=([xs]=3 [s]=3 [m]=1 [l]=1)

[ -x "$ZB" ] || { echo "remote: $ZB missing (run 'make bench')" >&2; exit 1; }
command -v redis-server >/dev/null || { echo "remote: redis-server missing (make deps)" >&2; exit 1; }
[ -r "$SPV/m.spv" ] || "$ROOT/bench/make_spirv.sh" "$SPV" >/dev/null || exit 1
W=$(mktemp -d "${TMPDIR:-/tmp}/jitcache-remote.XXXXXX")
cd "$W" || exit 1 # .aub files land here
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
redis-server --bind 127.0.0.1 --port "$PORT" --save '' --appendonly no --dir "$W" \
	--logfile "$W/redis.log" &
RPID=$!
trap 'kill $RPID 2>/dev/null; wait $RPID 2>/dev/null; rm -rf "$W"' EXIT
for _ in $(seq 1 200); do
	redis-cli -p "$PORT" ping 2>/dev/null | grep -q PONG && break
	sleep 0.025
done
rcli() { redis-cli -p "$PORT" "$@"; }

export NEOReadDebugKeys=1 SetCommandStreamReceiver=1 ProductFamilyOverride=dg2
export OverrideMaxWorkgroupSize=256
ldd "$ZB" 2>/dev/null | grep -q 'libze_loader.so.1 => /' ||
	export LD_LIBRARY_PATH=$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export JITCACHE_LIB=$B/libjitcache.so JITCACHE_ADMIN=$B/jitcache-admin JITCACHE_CONFIG=/dev/null
unset JITCACHE_MAX_SIZE JITCACHE_DISABLE JITCACHE_SHARED JITCACHE_COMPRESS LD_PRELOAD \
	JITCACHE_REMOTE_COMPRESS JITCACHE_REMOTE_READ_ONLY
URL=redis://127.0.0.1:$PORT
status=0

# zb LOG [env ...] : one ze_bench process; prints its create_s
zb() {
	local log=$1
	shift
	if ! env "$@" "$ZB" spirv "$MOD" >"$log" 2>&1; then
		echo "remote: ze_bench failed ($*), log:" >&2
		tail -n 5 "$log" >&2
		return 1
	fi
	sed -n 's/^ze_bench .*create_s=\([0-9.]*\).*/\1/p' "$log"
}

# A fresh, empty local cache directory with its statistics file, as a
# node's is after its first run: what is measured is the remote hit itself.
empty() {
	rm -rf "$W/empty"
	JITCACHE_DIR=$W/empty "$ROOT/bin/jitcache" stats >/dev/null
}

size() {
	local n=$1 r i kind t order=(local remote remote_z)
	MOD=$SPV/$n.spv
	for r in $(seq 1 "${COLD[$n]}"); do
		t=$(zb "$W/cold.log") || return 1
		echo "remote $n cold $r $t"
	done
	# Fill: the local cache and Redis (db 0, plain values; db 1, zstd).
	rm -rf "$W/local-$n"
	zb "$W/fill.log" JITCACHE_DIR="$W/local-$n" JITCACHE_REMOTE="$URL" JITCACHE_REMOTE_COMPRESS=0 LD_PRELOAD="$JITCACHE_LIB" >/dev/null || return 1
	zb "$W/fillz.log" JITCACHE_DIR="$W/fillz-$n" JITCACHE_REMOTE="$URL/1" \
		JITCACHE_REMOTE_COMPRESS=1 LD_PRELOAD="$JITCACHE_LIB" >/dev/null || return 1
	# The module's entry (its recipe, beside it, stays local).
	local key plain=0
	for key in $(find "$W/local-$n" -mindepth 2 -type f -regex '.*/[0-9a-f]*' -printf '%f\n'); do
		plain=$(rcli -n 0 STRLEN "jitcache:v1:$key")
		[ "${plain:-0}" -gt 0 ] && break
	done
	echo "remote_bytes $n $plain $(rcli -n 1 STRLEN "jitcache:v1:$key")"
	for r in $(seq 1 "$REPS"); do
		for i in 0 1 2; do
			kind=${order[$(((r + i) % 3))]}
			case $kind in
			local) t=$(zb "$W/$kind.log" JITCACHE_DIR="$W/local-$n" JITCACHE_REMOTE="$URL" \
				JITCACHE_LOG=info LD_PRELOAD="$JITCACHE_LIB") ;;
			remote) empty
				t=$(zb "$W/$kind.log" JITCACHE_DIR="$W/empty" JITCACHE_REMOTE="$URL" \
					JITCACHE_REMOTE_COMPRESS=0 JITCACHE_LOG=info LD_PRELOAD="$JITCACHE_LIB") ;;
			remote_z) empty
				t=$(zb "$W/$kind.log" JITCACHE_DIR="$W/empty" JITCACHE_REMOTE="$URL/1" \
					JITCACHE_REMOTE_COMPRESS=1 JITCACHE_LOG=info LD_PRELOAD="$JITCACHE_LIB") ;;
			esac || return 1
			if ! grep -q '^jitcache: 1 hits, 0 misses, 0 stores' "$W/$kind.log"; then
				echo "remote: the $kind run of $n did not hit" >&2
				return 1
			fi
			echo "remote $n $kind $r $t"
		done
	done
}

for n in $SIZES; do
	size "$n" || status=1
done

# ---- N nodes cold at once --------------------------------------------------------
conc() { # MODE REP
	local mode=$1 rep=$2 i t0 t1 pids=() env=()
	rcli FLUSHALL >/dev/null
	[ "$mode" = remote ] && env=(JITCACHE_REMOTE="$URL")
	t0=$(date +%s.%N)
	for i in $(seq 1 "$NODES"); do
		rm -rf "$W/node$i"
		env "${env[@]}" JITCACHE_DIR="$W/node$i" JITCACHE_LOG=debug LD_PRELOAD="$JITCACHE_LIB" \
			"$ZB" spirv "$SPV/m.spv" >"$W/node$i.log" 2>&1 &
		pids+=($!)
	done
	for i in "${pids[@]}"; do
		wait "$i" || { echo "remote: a $mode node failed" >&2; return 1; }
	done
	t1=$(date +%s.%N)
	awk -v m="$mode" -v r="$rep" -v a="$t0" -v b="$t1" \
		-v c="$(cat "$W"/node*.log | grep -c 'miss, compiled')" \
		'BEGIN { printf "remote_conc %s %d %.3f %d\n", m, r, b - a, c }'
}
for rep in $(seq 1 "$CONC_REPS"); do
	if [ $((rep % 2)) = 1 ]; then order="remote local"; else order="local remote"; fi
	for mode in $order; do
		conc "$mode" "$rep" || status=1
	done
done
echo "remote_summary nodes=$NODES reps=$REPS redis=$(redis-server --version | sed -n 's/.*v=\([^ ]*\).*/\1/p')"
exit $status
