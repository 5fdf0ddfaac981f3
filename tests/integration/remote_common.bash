# SPDX-License-Identifier: MIT
# remote_common.bash — sourced by the tests/integration/remote_*.sh scripts,
# after ../lib.sh.  (Not a test itself: tests/run.sh runs only *.sh.)
#
# Every Redis here is started by the test, on 127.0.0.1 and a random free
# port or on a unix socket in $T, and stopped when the script exits: never
# a system or shared instance.  A "node" (a machine of a fleet) is a process
# with its own local cache directory, sharing only the Redis.
#
#   need_redis                   fail the whole script unless redis-server is there
#   start_redis NAME [ARGS...]   redis-server NAME: sets REDIS_PORT_NAME, REDIS_SOCK_NAME
#                                (ARGS go to redis-server, e.g. --requirepass X)
#   stop_redis NAME              stop it (SIGTERM, then wait)
#   rcli NAME ARGS...            redis-cli on NAME's socket
#   free_port                    a TCP port nobody listens on now
#   node NAME CMD...             CMD as node NAME: its cache $T/node-NAME, libjitcache.so
#                                preloaded; output in $T/NAME.out (stdout and stderr)
#   compiles FILE...             how many compiles the debug logs in FILEs show
#   elapsed CMD...               run CMD, print its wall time in seconds

declare -A REDIS_PIDS=()

need_redis() {
	if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
		# make check installs it (tests/install-deps.sh): not a reason to skip.
		check "redis-server and redis-cli installed (make deps)" false
		finish
		exit $?
	fi
}

stop_all_redis() {
	local n
	for n in "${!REDIS_PIDS[@]}"; do
		kill "${REDIS_PIDS[$n]}" 2>/dev/null
		wait "${REDIS_PIDS[$n]}" 2>/dev/null
	done
}
trap 'stop_all_redis; [ "${KEEP:-0}" = 1 ] || rm -rf "$T"' EXIT

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start_redis() {
	local name=$1 port i
	shift
	port=$(free_port)
	mkdir -p "$T/redis-$name"
	redis-server --bind 127.0.0.1 --port "$port" --unixsocket "$T/redis-$name/sock" \
		--unixsocketperm 700 --save '' --appendonly no --dir "$T/redis-$name" \
		--logfile "$T/redis-$name/log" "$@" &
	REDIS_PIDS[$name]=$!
	printf -v "REDIS_PORT_$name" '%s' "$port"
	printf -v "REDIS_SOCK_$name" '%s' "$T/redis-$name/sock"
	for i in $(seq 1 200); do
		[ -S "$T/redis-$name/sock" ] && redis-cli -s "$T/redis-$name/sock" ping 2>/dev/null |
			grep -qE 'PONG|NOAUTH' && return 0
		sleep 0.025
	done
	return 1
}

stop_redis() {
	kill "${REDIS_PIDS[$1]}" 2>/dev/null
	wait "${REDIS_PIDS[$1]}" 2>/dev/null
	unset "REDIS_PIDS[$1]"
}

rcli() {
	local name=$1 sock
	shift
	sock=REDIS_SOCK_$name
	redis-cli -s "${!sock}" "$@"
}

node() {
	local name=$1
	shift
	JITCACHE_DIR=$T/node-$name LD_PRELOAD="$LIB" "$@" >"$T/$name.out" 2>&1
}

compiles() {
	cat "$@" | grep -c -- 'miss, compiled\|: compiled in' || true
}

elapsed() {
	local t0 t1
	t0=$(date +%s.%N)
	"$@" >/dev/null 2>&1
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'
}
