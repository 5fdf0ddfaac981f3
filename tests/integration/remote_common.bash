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
#   need_registry                skip the whole script unless Debian's docker-registry
#                                and htpasswd are there (make deps installs them)
#   start_redis NAME [ARGS...]   redis-server NAME: sets REDIS_PORT_NAME, REDIS_SOCK_NAME
#                                (ARGS go to redis-server, e.g. --requirepass X)
#   stop_redis NAME              stop it (SIGTERM, then wait)
#   rcli NAME ARGS...            redis-cli on NAME's socket
#   free_port                    a TCP port nobody listens on now
#   node NAME CMD...             CMD as node NAME: its cache $T/node-NAME, libjitcache.so
#                                preloaded; output in $T/NAME.out (stdout and stderr)
#   compiles FILE...             how many compiles the debug logs in FILEs show
#   elapsed CMD...               run CMD, print its wall time in seconds
#   cl_platform                  PLATFORM: Intel (its driver simulating an Arc GPU) or
#                                Portable (PoCL; also under AddressSanitizer, which
#                                cannot host Intel's driver: RTLD_DEEPBIND), and k.cl
#                                (compute.cl) here; else the script skips and ends
#
# The fleet scripts (fleet_*.sh: nodes that start $T/fleet.spv at once):
#   rollout NAME [COUNT]         COUNT ($N) nodes NAME1.. run "$CLIENT link $T/fleet.spv"
#                                at once, in the background; their pids in PIDS
#   created FILE...              how many nodes created the module
#   compiled FILE...             how many nodes' exit lines say they compiled and stored it
#   killed_holder NAME HOLDER BOUND
#                                a rollout NAME whose lease holder is killed (SIGKILL) 0.5 s
#                                into its compile (HOLDER: a command that prints the pid in
#                                the lease, if any): checks that another node took the lease
#                                over within BOUND seconds, that every other node created
#                                the module, compiled once more; sets victim (its index in
#                                PIDS, empty if none) and holder
#   untrusted_holder WHO HOLDER  with trusted_keys set: a node holding the lease signed by
#                                $T/other.key (WHO=other) or unsigned (WHO=unsigned) while
#                                node waiter-WHO starts; checks that the waiter created and
#                                compiled the module without waiting, and said why once
#                                (HOLDER: as killed_holder's)

declare -A REDIS_PIDS=()

need_registry() {
	if ! command -v docker-registry >/dev/null || ! command -v htpasswd >/dev/null; then
		skip "Debian's docker-registry and htpasswd (apache2-utils) are not installed (make deps)"
		finish
		exit $?
	fi
}

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

cl_platform() {
	local asan
	asan=$(ldd "$LIB" 2>/dev/null | awk '/libasan/ { print $3 }')
	[ -n "$asan" ] && rm -f "$OCL_ICD_VENDORS/intel.icd"
	sim_dg2
	if [ -z "$asan" ] && clinfo -l 2>/dev/null | grep -q "Intel(R) OpenCL"; then
		PLATFORM=Intel
	elif clinfo -l 2>/dev/null | grep -q "Portable Computing Language"; then
		PLATFORM=Portable
	else
		skip "neither Intel's OpenCL driver (simulated, not under ASan) nor PoCL is installed"
		finish
		exit $?
	fi
	cp "$ROOT/tests/integration/compute.cl" k.cl
}

elapsed() {
	local t0 t1
	t0=$(date +%s.%N)
	"$@" >/dev/null 2>&1
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'
}

rollout() {
	local i
	PIDS=()
	for i in $(seq 1 "${2:-$N}"); do
		node "$1$i" "$CLIENT" link "$T/fleet.spv" 2>/dev/null & # (bash's note of a killed node)
		PIDS+=($!)
	done
}
created() { cat "$@" | grep -c "result 0x0 kernels 44" || true; }
compiled() { cat "$@" | grep -c "^jitcache: 0 hits, 1 misses, 1 stores" || true; }

killed_holder() {
	local name=$1 holder_of=$2 bound=$3 i t0 now took="" alive=() c
	rollout "$name"
	holder=""
	for i in $(seq 1 400); do
		holder=$($holder_of)
		[ -n "$holder" ] && break
		sleep 0.025
	done
	check "a node took the lease (pid $holder)" test -n "$holder"
	victim=""
	for i in "${!PIDS[@]}"; do
		# The node's pid is the client's, or its subshell's (the client its child).
		[ -n "$holder" ] && { [ "${PIDS[$i]}" = "$holder" ] ||
			[ "$(pgrep -P "${PIDS[$i]}")" = "$holder" ]; } && victim=$i
	done
	check "... one of the nodes" test -n "$victim"
	if [ -z "$victim" ]; then
		wait "${PIDS[@]}" # no lease: nothing to kill
		return
	fi
	sleep 0.5 # into its compile
	kill -KILL "$holder"
	t0=$(date +%s.%N)
	for i in $(seq 1 "$(awk -v b="$bound" 'BEGIN { print int((b + 5) * 40) }')"); do
		now=$($holder_of)
		if [ -n "$now" ] && [ "$now" != "$holder" ]; then
			took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
			break
		fi
		sleep 0.025
	done
	check "the holder killed: another node took the lease over within about a lease time (${took:-never} s, at most $bound)" \
		ge "$bound" "${took:-99}"
	wait "${PIDS[@]}"
	for i in "${!PIDS[@]}"; do [ "$i" = "$victim" ] || alive+=("$T/$name$((i + 1)).out"); done
	check "... every other node created its module" test "$(created "${alive[@]}")" -eq $((${#PIDS[@]} - 1))
	c=$(compiled "${alive[@]}")
	check "... compiled once more, by one node ($c)" test "$c" -eq 1
}

untrusted_holder() {
	local who=$1 holder_of=$2 hpid why
	if [ "$who" = other ]; then
		JITCACHE_SIGNING_KEY=$T/other.key node "holder-$who" "$CLIENT" link "$T/fleet.spv" &
	else
		JITCACHE_SIGNING_KEY='' JITCACHE_TRUSTED_KEYS='' node "holder-$who" "$CLIENT" link "$T/fleet.spv" &
	fi
	hpid=$!
	for _ in $(seq 1 400); do [ -n "$($holder_of)" ] && break; sleep 0.025; done
	node "waiter-$who" "$CLIENT" link "$T/fleet.spv"
	wait $hpid
	why="key that is not trusted"
	[ "$who" = unsigned ] && why="not signed"
	check "a holder $([ "$who" = other ] && echo "signed by a key not trusted" || echo unsigned): the node with trusted_keys created its module" \
		test "$(created "$T/waiter-$who.out")" -eq 1
	check "... compiled it without waiting for the holder" \
		test "$(compiled "$T/waiter-$who.out")" -eq 1
	check "... and said why in one line" \
		test "$(grep -c "a compile lease is not waited for (.*$why.*; trusted_keys)" "$T/waiter-$who.out")" -eq 1
}
