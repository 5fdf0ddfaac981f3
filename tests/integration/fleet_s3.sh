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
#   - with trusted_keys (signing_key on every node) S3 leases are signed: 8
#     nodes compile once (3fb985c: 8); a holder whose token is unsigned, or
#     signed by a key not trusted, is not waited for (said in one line);
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
# The pid in the module's lease object, if any ("jitcache-lease-v1 HOST/PID/NONCE ...").
lease_holder() {
	local lease
	lease=$(leases | head -n 1)
	[ -n "$lease" ] && [ "$(s3 GET "/jitcache/$lease")" = 200 ] &&
		cut -d' ' -f2 "$T/s3.body" | cut -d/ -f2
}

# ---- a rollout, default settings: one compile fleet-wide -------------------------
RGW_LOG=$T/ceph/client.rgw.log
from=$(($(wc -l <"$RGW_LOG") + 1))
t0=$(date +%s.%N)
rollout cold
wait "${PIDS[@]}"
took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
sleep 0.2 # the server's last log lines
check "$N nodes: all created the module" test "$(created "$T"/cold*.out)" -eq $N
c=$(compiled "$T"/cold*.out)
check "$N nodes at once, default settings: one compile fleet-wide ($c)" test "$c" -eq 1
check "... the $((N - 1)) others loaded its value" \
	test "$(cat "$T"/cold*.out | grep -c "^jitcache: 1 hits, 0 misses")" -eq $((N - 1))
check "... and no lease is left behind" test -z "$(leases)"
value=$(s3 GET /jitcache >/dev/null && grep -o '<Key>fleet/[^<]*</Key>' "$T/s3.body" |
	sed 's/<[^>]*>//g' | head -n 1)
check "the module's value is in the bucket ($value)" test -n "$value"
# Requests per node per module (radosgw's log): a waiter's lookup, its
# refused create, then a GET of the value (which brings it once stored)
# with a pause growing to 0.5 s, and a HEAD of the lease every 2 s (a fifth
# of the lease); the holder's create, its second create (the check that
# the server honours conditions, once a process), a HEAD, the store and
# the DELETE.  A polling protocol: 2 a node is out of reach for a waiter
# (the lookup, the refused create and the GET that finds the value), and
# each second of compile costs about 2.5 more (f598d80 asked for the lease
# and the value at every look, two HEADs, and its recheck's GET: 29.5 to
# 37 a node).
read -r total each < <(tail -n "+$from" "$RGW_LOG" |
	grep -aE 'beast: .*"(GET|PUT|HEAD|POST|DELETE) /jitcache/fleet/' |
	sed -E 's/.*"(GET|PUT|HEAD|POST|DELETE) .*/\1/' | sort | uniq -c |
	awk '{ n += $1; s = s sprintf("%s%s:%d", s == "" ? "" : ",", $2, $1) } END { print n + 0, s }')
rpn=$(awk -v t="$total" -v n=$N 'BEGIN { printf "%.2f", t / n }')
most=$(awk -v s="$took" 'BEGIN { printf "%.1f", 5 + 2.5 * s }')
echo "     requests per node per module, a rollout of $N nodes in $took s: $rpn ($each)"
check "... the server's log counts them (debug_rgw 1: one line a request)" test "$total" -gt 0
check "... at most 5 + 2.5 a second of the rollout per node ($rpn, at most $most)" ge "$most" "$rpn"

# ---- trusted_keys: signed leases (lease.h), one compile fleet-wide --------------------
# Every node signs with the fleet's key and trusts it: the lease object's
# token is signed, and the others wait for it (3fb985c did not sign S3
# leases and never waited with trusted_keys: 8 compiles).
"$JITCACHE" keygen "$T/node.key" >/dev/null 2>&1
"$JITCACHE" keygen "$T/other.key" >/dev/null 2>&1
export JITCACHE_REMOTE=s3://jitcache/signed
export JITCACHE_SIGNING_KEY=$T/node.key JITCACHE_TRUSTED_KEYS=$T/node.key.pub
rollout keyed
wait "${PIDS[@]}"
check "trusted_keys, $N signed nodes: all created the module" test "$(created "$T"/keyed*.out)" -eq $N
c=$(compiled "$T"/keyed*.out)
check "... one compile fleet-wide ($c)" test "$c" -eq 1
check "... and no lease is left behind" test -z "$(leases)"
# A holder whose token is not trusted (signed by another key, or not signed):
# the node with trusted_keys does not wait for it, and says why.
for who in other unsigned; do
	export JITCACHE_REMOTE=s3://jitcache/$who
	untrusted_holder $who lease_holder
done
unset JITCACHE_SIGNING_KEY JITCACHE_TRUSTED_KEYS
export JITCACHE_REMOTE=s3://jitcache/fleet

# ---- the holder killed in the middle of its compile -----------------------------------
# A lease of 3 s is renewed every second; one not seen renewed for 2 s is a
# dead holder's.  The compile outlasts lease_wait: renewals keep the others
# waiting.
export JITCACHE_REMOTE_LEASE=3 JITCACHE_REMOTE_LEASE_WAIT=2
s3 DELETE "/jitcache/$value" >/dev/null
killed_holder dead lease_holder 4.5 # a lease of 3 s
check "... and no lease is left behind" test -z "$(leases)"
unset JITCACHE_REMOTE_LEASE JITCACHE_REMOTE_LEASE_WAIT

# ---- a bucket that is not there: no lease, no wait --------------------------------------
JITCACHE_REMOTE=s3://no-such-bucket/fleet node nobucket "$CLIENT" link "$T/fleet.spv"
check "a bucket that is not there: the node compiled at once and created its module" \
	eval 'test "$(created "$T/nobucket.out")" -eq 1 && ! grep -q "waited .* for other processes" "$T/nobucket.out"'
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
# A node that waited on a lease waits out a compile or the lease's life
# (seconds); the few milliseconds a busy machine takes to be refused by the
# stopped server and lock its own directory are not that.
longest=$(cat "$T"/down*.out | sed -n 's/.*waited \([0-9.]*\) s for other processes.*/\1/p' | sort -g | tail -n 1)
check "... none waited for a lease (longest wait said: ${longest:-none})" \
	awk -v w="${longest:-0}" 'BEGIN { exit !(w < 1) }'
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
