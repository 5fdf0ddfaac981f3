#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: full: needs the test bed's Ceph (radosgw, ceph-mon, ceph-osd: make testbed-s3)
# A driver rollout across a fleet sharing only an S3 bucket: compile once
# through S3 leases (tiers/s3_lease.h) on radosgw backed by a one-node Ceph
# cluster (tests/servers.bash start_radosgw_cluster), the nodes each a
# process with its own empty cache directory, on Intel's real driver
# (simulated Arc):
#   - the server honours conditional writes (a second create-only PUT: 412);
#   - 8 takers of one lease (jc_http_tool) hold it in turn, never two at once;
#   - 8 nodes start the same module at once, default settings: one compile
#     fleet-wide, the 7 others load its value (ceb2f08: 8 compiles), and no
#     lease object is left behind;
#   - the holder killed (SIGKILL) in the middle of its compile: another node
#     takes the lease over within about one lease time (3 s here), and every
#     other node still creates its module, compiled once more by one node;
#   - a bucket that is not there, or radosgw stopped: every node compiles
#     at once and creates its module;
#   - radosgw on its SQLite backend, which ignores conditions: said, and
#     every node compiles (no false compile-once).
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/ze_common.bash"
. "$ROOT/tests/integration/remote_common.bash"
trap 'stop_servers; [ "${KEEP:-0}" = 1 ] || rm -rf "$T"' EXIT # (remote_common's, and ours)
need_ze
TOOL=$B/tests/jc_http_tool
if [ ! -x "$TOOL" ]; then
	check "jc_http_tool built (make tests)" false
	finish; exit $?
fi
unset JITCACHE_LOCK_TIMEOUT JITCACHE_REMOTE_LEASE JITCACHE_REMOTE_LEASE_WAIT
N=8
export JITCACHE_LOG=info # the exit line tells who compiled

# conv.cl's 22 kernels twice over: a few seconds of JIT (~2 s on an idle core).
{
	grep -v '^[A-Z0-9_]*([a-z0-9_]*,' "$KERNELS/conv.cl"
	for i in 1 2; do
		sed -n "s/^\([A-Z0-9_]*\)(\([a-z0-9_]*\),/\1(\2_$i,/p" "$KERNELS/conv.cl"
	done
} >"$T/fleet.cl"
check "SPIR-V of 44 kernels built with ocloc" spirv fleet "$T/fleet.cl"
if ! start_radosgw_cluster "$T/ceph" 2>"$T/ceph.err"; then
	cat "$T/ceph.err"
	check "a one-node Ceph cluster and radosgw started from the test bed (make testbed-s3)" false
	finish; exit $?
fi
check "radosgw on a one-node Ceph cluster started" test -n "$AWS_ENDPOINT_URL"
check "a bucket made" s3_make_bucket jitcache
cd "$T" || exit 1

# s3 METHOD PATH [CURL ARGS...]: a signed request; its status on stdout, the
# body in $T/s3.body.
s3() {
	local m=$1 p=$2
	shift 2
	"$TOOL" "$AWS_ENDPOINT_URL" sign "$m" "$p" >"$T/s3.sign" &&
		curl -s -o "$T/s3.body" -w '%{http_code}' -X "$m" -H @"$T/s3.sign" "$@" \
			"$AWS_ENDPOINT_URL$p"
}
leases() { s3 GET /jitcache >/dev/null && grep -o '<Key>[^<]*\.lease</Key>' "$T/s3.body" |
	sed 's/<[^>]*>//g'; }

first=$(s3 PUT /jitcache/probe -H 'If-None-Match: *' -H 'Content-Length: 0')
second=$(s3 PUT /jitcache/probe -H 'If-None-Match: *' -H 'Content-Length: 0')
check "radosgw on RADOS honours If-None-Match: * on PUT ($first, then $second)" \
	test "$first.$second" = 200.412
check "... and If-Match on PUT ($(s3 PUT /jitcache/probe -H 'If-Match: "bogus"' \
	-H 'Content-Length: 0'))" test "$(s3 PUT /jitcache/probe -H 'If-Match: "bogus"' \
	-H 'Content-Length: 0')" = 412

# ---- the lease alone (jc_http_tool lease): one holder at a time -------------------------
# 8 takers of one key's lease, each holding it 1 s and letting go without a
# value: each gets it in turn, never two at once.
PIDS=()
for i in $(seq 1 8); do
	timeout 90 "$TOOL" s3://jitcache/alone lease one 1 3 >"$T/alone$i.out" 2>&1 &
	PIDS+=($!)
done
wait "${PIDS[@]}"
check "8 takers of one S3 lease at once: each held it in turn" \
	test "$(cat "$T"/alone*.out | grep -c '^lease LEASED')" -eq 8
check "... never two at once" sh -c "awk '/^held/ { print \$2, \$3 }' '$T'/alone*.out | sort -n |
	awk 'NR > 1 && \$1 < to { exit 1 } { to = \$2 } END { exit NR != 8 }'"

export JITCACHE_REMOTE=s3://jitcache/fleet
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
compiled() { cat "$@" | grep -c "^jitcache: 0 hits, 1 misses, 1 stores" || true; }

# ---- a rollout, default settings: one compile fleet-wide -------------------------
rollout cold
wait "${PIDS[@]}"
check "$N nodes: all created the module" test "$(created "$T"/cold*.out)" -eq $N
c=$(compiled "$T"/cold*.out)
check "$N nodes at once, default settings: one compile fleet-wide ($c)" test "$c" -eq 1
check "... the $((N - 1)) others loaded its value" \
	test "$(cat "$T"/cold*.out | grep -c "^jitcache: 1 hits, 0 misses")" -eq $((N - 1))
check "... and no lease is left behind" test -z "$(leases)"
value=$(s3 GET /jitcache >/dev/null && grep -o '<Key>fleet/[^<]*</Key>' "$T/s3.body" |
	sed 's/<[^>]*>//g' | head -n 1)
check "the module's value is in the bucket ($value)" test -n "$value"

# ---- the holder killed in the middle of its compile -----------------------------------
# A lease of 3 s is renewed every second; one not seen renewed for 2 s is a
# dead holder's.  The compile outlasts lease_wait: renewals keep the others
# waiting.
export JITCACHE_REMOTE_LEASE=3 JITCACHE_REMOTE_LEASE_WAIT=2
s3 DELETE "/jitcache/$value" >/dev/null
rollout dead
lease="" holder=""
for i in $(seq 1 400); do
	lease=$(leases | head -n 1)
	[ -n "$lease" ] && s3 GET "/jitcache/$lease" >/dev/null &&
		holder=$(cut -d' ' -f2 "$T/s3.body" | cut -d/ -f2) && [ -n "$holder" ] && break
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
sleep 0.5 # into its compile
[ -n "$victim" ] && kill -KILL "$holder"
t0=$(date +%s.%N)
took=""
for i in $(seq 1 $([ -n "$victim" ] && echo 400 || echo 0)); do
	now=""
	[ "$(s3 GET "/jitcache/$lease")" = 200 ] && now=$(cut -d' ' -f2 "$T/s3.body" | cut -d/ -f2)
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
check "... and no lease is left behind" test -z "$(leases)"
unset JITCACHE_REMOTE_LEASE JITCACHE_REMOTE_LEASE_WAIT

# ---- a bucket that is not there: no lease, no wait --------------------------------------
JITCACHE_REMOTE=s3://no-such-bucket/fleet node nobucket "$CLIENT" link "$T/fleet.spv"
check "a bucket that is not there: the node compiled at once and created its module" \
	eval 'test "$(created "$T/nobucket.out")" -eq 1 && grep -q "(0.00 s waited" "$T/nobucket.out"'
check "... said once" test "$(grep -c "compile lease cannot be written" "$T/nobucket.out")" -eq 1

# ---- radosgw stopped: every node compiles at once ------------------------------------------
stop_server radosgw
t0=$(date +%s.%N)
rollout down
wait "${PIDS[@]}"
took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
check "radosgw stopped: all $N nodes created the module" test "$(created "$T"/down*.out)" -eq $N
check "... each compiled it, waiting for no lease (${took} s for the rollout)" \
	test "$(compiled "$T"/down*.out)" -eq $N
check "... none waited for a lease" test "$(cat "$T"/down*.out | grep -c "(0.00 s waited")" -eq $N
stop_servers

# ---- radosgw on its SQLite backend, which ignores conditions -----------------------------
check "radosgw started on its SQLite backend" start_radosgw "$T/dbstore"
check "a bucket made there" s3_make_bucket jitcache
N=4
rollout db
wait "${PIDS[@]}"
check "$N nodes: all created the module" test "$(created "$T"/db*.out)" -eq $N
check "... each compiled it: no lease is claimed where conditions are ignored" \
	test "$(compiled "$T"/db*.out)" -eq $N
check "... which is said" grep -q "ignores conditional writes" "$T"/db1.out
finish
