#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# A fleet sharing a Redis Cluster (3 primaries with a replica each, Debian's
# redis-server, started here on the loopback and stopped after), the URL
# naming one node: OpenCL programs on PoCL (kernels run, results compared
# with a run without jitcache).
#   - rollouts: 6 nodes (processes with their own cache directories) start
#     the same program at once, 3 programs: one compile each, every node
#     computes the same, the values spread over the primaries (54cc737 did
#     not follow MOVED: every node compiled a program of another node);
#   - a primary killed (SIGKILL): a node still computes with the driver's
#     result, says why in one line; once its replica took over, a node
#     reads the value again.
# Skipped where redis-server or PoCL is missing.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/remote_common.bash"
if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
	skip "redis-server or redis-cli not installed"
	finish
	exit $?
fi
if ! clinfo -l 2>/dev/null | grep -q "Portable Computing Language"; then
	skip "PoCL is not installed (pocl-opencl-icd)"
	finish
	exit $?
fi
unset JITCACHE_LOCK_TIMEOUT JITCACHE_COMPRESS
export JITCACHE_LOG=debug POCL_KERNEL_CACHE=0 JITCACHE_REMOTE_BACKOFF=1
CLB=$B/tests/cl_build
N=6

# A port free with its cluster bus port (10000 higher), both below the
# ephemeral ports (32768 and up) that connections take.
free_port() {
	python3 -c '
import random, socket
def free(p):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p)); return True
    except OSError:
        return False
    finally:
        s.close()
while True:
    p = random.randrange(12000, 22000)
    if free(p) and free(p + 10000):
        print(p); break'
}
port_of() { local v=REDIS_PORT_$1; echo "${!v}"; }
cluster_ok() { [ "$(rcli "$1" CLUSTER INFO | head -n 1 | tr -d '\r')" = cluster_state:ok ]; }
replicas_up() { for i in 1 2 3 4 5 6; do rcli "c$i" INFO replication; done | grep -c '^master_link_status:up'; }
# The primary (c1..c6, alive) that serves a name's slot: it answers EXISTS.
owner() {
	local i
	for i in 1 2 3 4 5 6; do
		[ -n "${REDIS_PIDS[c$i]:-}" ] || continue
		[ "$(rcli "c$i" ROLE | head -n 1)" = master ] || continue
		rcli "c$i" EXISTS "$1" | grep -qx '[01]' && { echo "c$i"; return; }
	done
}

started=0
for i in 1 2 3 4 5 6; do
	start_redis "c$i" --cluster-enabled yes --cluster-node-timeout 1000 \
		--cluster-replica-validity-factor 0 && started=$((started + 1))
done
check "6 redis-servers in cluster mode started" test $started -eq 6
nodes=$(for i in 1 2 3 4 5 6; do echo "127.0.0.1:$(port_of "c$i")"; done)
# shellcheck disable=SC2086 # one address a word
redis-cli --cluster create $nodes --cluster-replicas 1 --cluster-yes >"$T/create.out" 2>&1
for _ in $(seq 1 600); do
	ok=1
	for i in 1 2 3 4 5 6; do cluster_ok "c$i" || ok=0; done
	[ $ok = 1 ] && [ "$(replicas_up)" -eq 3 ] && break
	sleep 0.05
done
check "a cluster of 3 primaries, a replica each, synced" test "$ok" = 1 -a "$(replicas_up)" -eq 3
JITCACHE_REMOTE=redis://127.0.0.1:$(port_of c1)
export JITCACHE_REMOTE

result() { sed -n 's/.*result=\([0-9a-f]*\).*/\1/p' "$T/$1.out"; }
cp "$ROOT/tests/integration/compute.cl" k.cl

# ---- rollouts: one compile each ----------------------------------------------------------
all_values() { for i in 1 2 3 4 5 6; do rcli "c$i" --scan --pattern 'jitcache:v1:*'; done | sort -u; }
declare -A VALUE=()
for p in 1 2 3; do
	before=$(all_values)
	OPTS="-DSCALE=$p.25f"
	"$CLB" --platform Portable --source k.cl --options "$OPTS" --run compute >"$T/plain$p.out" 2>&1
	PIDS=()
	for i in $(seq 1 $N); do
		node "r$p-$i" "$CLB" --platform Portable --source k.cl --options "$OPTS" --run compute &
		PIDS+=($!)
	done
	wait "${PIDS[@]}"
	same_results=0
	for i in $(seq 1 $N); do
		[ -n "$(result "r$p-$i")" ] && [ "$(result "r$p-$i")" = "$(result "plain$p")" ] &&
			same_results=$((same_results + 1))
	done
	check "program $p: $N nodes at once all compute what the driver alone does" test $same_results -eq $N
	check "... compiled once in all ($(compiles "$T"/r$p-*.out))" test "$(compiles "$T"/r$p-*.out)" -eq 1
	VALUE[$p]=$(comm -13 <(echo "$before") <(all_values) | head -n 1)
done
values=$(all_values)
seed=$(rcli c1 --scan --pattern 'jitcache:v1:*' | wc -l)
check "the 3 values stored, $seed on the URL's node, $((3 - seed)) on others (redirected)" \
	test "$(echo "$values" | grep -c .)" -eq 3 -a "$seed" -lt 3
check "... no lease left behind" test "$(for i in 1 2 3 4 5 6; do rcli "c$i" --scan --pattern '*:lease'; done | grep -c .)" -eq 0

# ---- a primary killed -----------------------------------------------------------------------
# A program whose value is not on the URL's node: its primary killed.
victim="" p=""
for q in 1 2 3; do
	o=$(owner "${VALUE[$q]}")
	[ -n "${VALUE[$q]}" ] && [ -n "$o" ] && [ "$o" != c1 ] && victim=$o p=$q && break
done
check "program $p's value on another primary ($victim)" test -n "$victim"
if [ -z "$victim" ]; then
	finish
	exit $?
fi
# Replication is asynchronous: the value on the replica before the kill.
on_replica() {
	local i
	for i in 1 2 3 4 5 6; do
		[ -n "${REDIS_PIDS[c$i]:-}" ] && [ "$(rcli "c$i" ROLE | head -n 1)" = slave ] &&
			printf 'READONLY\nEXISTS %s\n' "$1" | rcli "c$i" | grep -qx 1 && return 0
	done
	return 1
}
for _ in $(seq 1 200); do on_replica "${VALUE[$p]}" && break; sleep 0.05; done
check "... and on its replica" on_replica "${VALUE[$p]}"
{
	kill -KILL "${REDIS_PIDS[$victim]}"
	wait "${REDIS_PIDS[$victim]}"
} 2>/dev/null # (bash's note of the killed server)
unset "REDIS_PIDS[$victim]"
OPTS="-DSCALE=$p.25f"
node down "$CLB" --platform Portable --source k.cl --options "$OPTS" --run compute
check "its primary killed: a node still computes what the driver does" \
	test -n "$(result down)" -a "$(result down)" = "$(result "plain$p")"
check "... having compiled" test "$(compiles "$T/down.out")" -eq 1
check "... said why in one line" test "$(grep -c "^jitcache: remote redis://.*\(cannot connect\|refused by the cluster\)" "$T/down.out")" -eq 1
for _ in $(seq 1 300); do
	[ -n "$(owner "${VALUE[$p]}")" ] && cluster_ok c1 && break
	sleep 0.1
done
check "a replica took over" cluster_ok c1
sleep 1.2 # the down node's back-off (1 s) is its own directory's; a fresh node:
node after "$CLB" --platform Portable --source k.cl --options "$OPTS" --run compute
check "... then a node reads the value again (no compile, a remote hit)" \
	test "$(compiles "$T/after.out")" -eq 0 -a "$(stats_in "$T/node-after" remote_hits)" = 1
check "... and computes the same" test "$(result after)" = "$(result "plain$p")"
finish
