#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/remote_requests.sh OLD/libjitcache.so NEW/libjitcache.so — what two
# builds ask the remote tiers, side by side, on a miss (compile, store,
# compile lease) and on a hit (an empty cache directory), for a change
# meant to move code and not to change requests (docs/design.md, "Changing
# the rooms without changing behaviour"): Redis's commands (MONITOR) and a
# WebDAV server's requests (nginx's access log, with LOCK), each server
# started here on the loopback or a socket and stopped after.  The program
# is tests/helpers/cl_build on Intel's driver simulating an Arc GPU (PoCL
# if not).  Prints each tier's requests for NEW, then "same TIER" or the
# difference; exits 1 on any difference.  Values (a store script's too:
# an entry's header holds its compile time), lease tokens and timestamps
# differ run to run and are left out.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OLD=${1:?usage: bench/remote_requests.sh OLD/libjitcache.so NEW/libjitcache.so}
NEW=${2:?usage: bench/remote_requests.sh OLD/libjitcache.so NEW/libjitcache.so}
B=${BUILD:-$ROOT/build}
CLB=$B/tests/cl_build
[ -x "$CLB" ] || { echo "no $CLB (make tests)" >&2; exit 2; }
T=$(mktemp -d /tmp/jitcache-requests.XXXXXX)
. "$ROOT/tests/servers.bash"
REDIS_PID=""
cleanup() {
	[ -n "$REDIS_PID" ] && kill "$REDIS_PID" 2>/dev/null && wait "$REDIS_PID" 2>/dev/null
	stop_servers
	rm -rf "$T"
}
trap cleanup EXIT
export NEOReadDebugKeys=1 SetCommandStreamReceiver=1 ProductFamilyOverride=dg2
export OverrideMaxWorkgroupSize=256 POCL_KERNEL_CACHE=0 JITCACHE_LOG=info
unset JITCACHE_LOCK_TIMEOUT JITCACHE_COMPRESS JITCACHE_REMOTE_READ_ONLY
PLATFORM=Intel
clinfo -l 2>/dev/null | grep -q "Intel(R) OpenCL" || PLATFORM=Portable
cp "$ROOT/tests/integration/compute.cl" "$T/k.cl"

# run LIB NAME: one build of the kernel from the empty cache directory NAME.
run() {
	(cd "$T" && JITCACHE_DIR=$T/$2 LD_PRELOAD=$1 "$CLB" --platform $PLATFORM --source k.cl \
		--options -DSCALE=0.5f >"$T/$2.out" 2>&1)
	sleep 0.3 # the server's log written
}

status=0
# compare TIER: $T/TIER-old.txt against $T/TIER-new.txt
compare() {
	echo "== $1 (NEW): a miss, then a hit"
	cat "$T/$1-new.txt"
	if diff "$T/$1-old.txt" "$T/$1-new.txt" >"$T/$1.diff"; then
		echo "same $1"
	else
		echo "DIFFERENT $1:"
		cat "$T/$1.diff"
		status=1
	fi
}

# ---- Redis: its commands, as MONITOR shows them -------------------------------------
if command -v redis-server >/dev/null; then
	mkdir "$T/redis"
	redis-server --port 0 --unixsocket "$T/redis/sock" --unixsocketperm 700 --save '' \
		--appendonly no --dir "$T/redis" --logfile "$T/redis/log" &
	REDIS_PID=$!
	for _ in $(seq 1 100); do
		redis-cli -s "$T/redis/sock" ping >/dev/null 2>&1 && break
		sleep 0.05
	done
	export JITCACHE_REMOTE=redis+unix://$T/redis/sock
	for v in old new; do
		lib=$OLD
		[ $v = new ] && lib=$NEW
		redis-cli -s "$T/redis/sock" flushall >/dev/null
		redis-cli -s "$T/redis/sock" script flush >/dev/null # each starts without its scripts
		redis-cli -s "$T/redis/sock" monitor >"$T/redis-$v.mon" &
		mon=$!
		sleep 0.3
		run "$lib" redis-$v-miss
		run "$lib" redis-$v-hit
		kill $mon
		wait $mon 2>/dev/null
		sed -E 's/^[0-9.]+ \[[^]]*\] //; s/^("SET" "[^"]*") .*/\1 VALUE/;
			s/"jitcache\\x01([^"\\]|\\.)*"/VALUE/g;
			s/"[^"]*\/[0-9]+\/[0-9a-f]+\/[0-9]+"/"TOKEN"/g' "$T/redis-$v.mon" |
			grep -v '^"flushall"\|^"script"\|^"monitor"\|^OK' >"$T/redis-$v.txt"
	done
	compare redis
else
	echo "no redis-server: Redis not compared"
fi

# ---- a WebDAV server with locks: nginx's access log ----------------------------------
if NGINX_LOCKS=30 start_nginx_dav "$T/nginx" 2>"$T/nginx.err"; then
	for v in old new; do
		lib=$OLD
		[ $v = new ] && lib=$NEW
		: >"$T/nginx/access.log"
		export JITCACHE_REMOTE=$NGINX_URL/c-$v
		run "$lib" web-$v-miss
		run "$lib" web-$v-hit
		# "METHOD /c-old/... HTTP/1.1" STATUS
		sed -E 's/^[^"]*"([A-Z]+ [^ ]*)[^"]*" ([0-9]+).*/\1 \2/; s/\/c-(old|new)\//\/c\//' \
			"$T/nginx/access.log" >"$T/web-$v.txt"
	done
	compare web
else
	echo "nginx with WebDAV locks not started ($(head -1 "$T/nginx.err")): the web tier not compared"
fi
exit $status
