#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# A driver rollout across a fleet sharing one Redis: 8 nodes (each a process
# with its own empty cache directory) start the same module at the same
# moment on Intel's real driver (simulated Arc), the compile taking longer
# than lease_wait (2 s here; the default is 10 s against minutes of real
# compiles):
#   - exactly one node compiles; the 7 others wait while its lease is
#     renewed, then load its value (50835c6 waited lease_wait and compiled
#     on every node);
#   - the holder killed (SIGKILL) in the middle of its compile: another node
#     takes the lease over within about one lease time (3 s here), and every
#     node still creates its module, the killed one's work done once more;
#   - a lease a squatter keeps renewing (and never stores behind) costs a
#     node lock_timeout, no more.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/ze_common.bash"
. "$ROOT/tests/integration/remote_common.bash"
need_ze
need_redis
unset JITCACHE_LOCK_TIMEOUT
N=8
# A lease of 3 s is renewed every second; a lease not seen renewed for 2 s is
# a dead holder's.  The exit line (log level info) tells who compiled.
export JITCACHE_REMOTE_LEASE=3 JITCACHE_REMOTE_LEASE_WAIT=2 JITCACHE_LOG=info

# conv.cl's 22 kernels twice over: a few seconds of JIT (~2 s on an idle
# core), more than lease_wait.
{
	grep -v '^[A-Z0-9_]*([a-z0-9_]*,' "$KERNELS/conv.cl"
	for i in 1 2; do
		sed -n "s/^\([A-Z0-9_]*\)(\([a-z0-9_]*\),/\1(\2_$i,/p" "$KERNELS/conv.cl"
	done
} >"$T/fleet.cl"
check "SPIR-V of 44 kernels built with ocloc" spirv fleet "$T/fleet.cl"
check "redis-server started on 127.0.0.1" start_redis main
export JITCACHE_REMOTE=redis://127.0.0.1:$REDIS_PORT_main
cd "$T" || exit 1

# rollout NAME: N nodes NAME1..NAMEN start the module at once; their pids in PIDS.
rollout() {
	local i
	PIDS=()
	for i in $(seq 1 $N); do
		node "$1$i" "$CLIENT" link "$T/fleet.spv" 2>/dev/null & # (bash's note of a killed node)
		PIDS+=($!)
	done
}
created() { cat "$@" | grep -c "result 0x0 kernels 44" || true; }
# Nodes whose exit line says they compiled (and stored) the module.
compiled() { cat "$@" | grep -c "^jitcache: 0 hits, 1 misses, 1 stores" || true; }

# ---- a rollout: one compile fleet-wide --------------------------------------------------
rollout cold
wait "${PIDS[@]}"
check "$N nodes: all created the module" test "$(created "$T"/cold*.out)" -eq $N
c=$(compiled "$T"/cold*.out)
check "$N nodes, a compile longer than lease_wait: one compile fleet-wide ($c)" test "$c" -eq 1
check "... the $((N - 1)) others loaded its value" \
	test "$(cat "$T"/cold*.out | grep -c "^jitcache: 1 hits, 0 misses")" -eq $((N - 1))
check "... and no lease is left behind" test "$(rcli main KEYS '*:lease' | grep -c lease)" -eq 0

# ---- the holder killed in the middle of its compile ----------------------------------------
rcli main FLUSHALL >/dev/null
rollout dead
lease="" holder=""
for i in $(seq 1 400); do
	lease=$(rcli main KEYS '*:lease' | head -n 1)
	[ -n "$lease" ] && holder=$(rcli main GET "$lease" | cut -d/ -f2) && [ -n "$holder" ] && break
	sleep 0.025
done
check "a node took the lease (pid $holder)" test -n "$holder"
victim=""
for i in "${!PIDS[@]}"; do
	# The node's pid is the client's, or its subshell's (the client its child).
	[ "${PIDS[$i]}" = "$holder" ] || [ "$(pgrep -P "${PIDS[$i]}")" = "$holder" ] && victim=$i
done
check "... one of the nodes" test -n "$victim"
sleep 0.5 # into its compile
kill -KILL "$holder"
t0=$(date +%s.%N)
took=""
for i in $(seq 1 400); do
	now=$(rcli main GET "$lease" | cut -d/ -f2)
	if [ -n "$now" ] && [ "$now" != "$holder" ]; then
		took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
		break
	fi
	sleep 0.025
done
check "the holder killed: another node took the lease over within about a lease time (${took:-never} s of 3)" \
	ge 4.5 "${took:-99}"
wait "${PIDS[@]}"
alive=()
for i in "${!PIDS[@]}"; do [ "$i" = "$victim" ] || alive+=("$T/dead$((i + 1)).out"); done
check "... every other node created its module" test "$(created "${alive[@]}")" -eq $((N - 1))
c=$(compiled "${alive[@]}")
check "... compiled once more, by one node ($c)" test "$c" -eq 1

# ---- a squatter who keeps renewing a lease and never stores ----------------------------------
rcli main FLUSHALL >/dev/null
# $lease: the module's, from the rollout above
rcli main SET "$lease" squatter PX 3000 >/dev/null
(for i in $(seq 1 40); do rcli main PEXPIRE "$lease" 3000 >/dev/null; sleep 0.5; done) &
squatter=$!
t0=$(date +%s.%N)
JITCACHE_LOCK_TIMEOUT=4 node squat "$CLIENT" link "$T/fleet.spv" &
node=$!
took=""
for i in $(seq 1 800); do
	grep -q "gave up waiting for another machine" "$T/squat.out" 2>/dev/null &&
		took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }') && break
	sleep 0.025
done
wait "$node"
kill "$squatter" 2>/dev/null
wait "$squatter" 2>/dev/null
check "a lease renewed by a squatter: waited for lock_timeout (4 s), no longer (${took:-never} s)" \
	sh -c "awk -v t=${took:-99} 'BEGIN { exit !(t >= 3.9 && t < 6) }'"
check "... then the node compiled and created its module" test "$(created "$T/squat.out")" -eq 1
finish
