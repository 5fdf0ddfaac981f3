#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# A driver rollout across a fleet sharing one web server, nginx with WebDAV
# locks (Debian's libnginx-mod-http-dav-ext, its lock zone's timeout the
# default lease, 10 s): 12 nodes (each a process with its own empty cache
# directory) start the same module at the same moment on Intel's real
# driver (simulated Arc), with jitcache's default settings:
#   - exactly one node compiles; the others wait on its WebDAV lock (LOCK,
#     renewed while it compiles), then load its value (ceb2f08 held no lease
#     on a web server: every node compiled);
#   - the holder killed (SIGKILL) in the middle of its compile: another node
#     takes the lease over within about one lease time, and every node still
#     creates its module, the killed one's work done once more;
#   - nginx without dav-ext (LOCK: 405), or one that does not allow LOCK
#     (403): every node compiles at once, no wait, one line that says so,
#     and stores; a server nobody listens on: compiles at once;
#   - a compile longer than the server's lock timeout (jc_http_tool holding
#     a lease 7 s, locks of 2 s): its lock renewed, the other waits it out;
#   - with trusted_keys (signing_key on every node) WebDAV leases are signed:
#     8 nodes compile once; a holder whose token is unsigned, or signed by
#     a key not trusted, is not waited for (said in one line).
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/ze_common.bash"
. "$ROOT/tests/integration/remote_common.bash"
need_ze
command -v nginx >/dev/null || skip "nginx is not installed (make deps)"
[ -f /usr/lib/nginx/modules/ngx_http_dav_ext_module.so ] ||
	skip "no nginx dav-ext module (apt-get install libnginx-mod-http-dav-ext)"
unset JITCACHE_LOCK_TIMEOUT JITCACHE_REMOTE_LEASE JITCACHE_REMOTE_LEASE_WAIT
N=12
LEASE=10 # [remote] lease's default, and the lock zone's timeout
# The exit line (log level info) tells who compiled.
export JITCACHE_LOG=info

# conv.cl's 22 kernels twice over: a few seconds of JIT (~2 s on an idle
# core), so that the nodes' misses meet.
{
	grep -v '^[A-Z0-9_]*([a-z0-9_]*,' "$KERNELS/conv.cl"
	for i in 1 2; do
		sed -n "s/^\([A-Z0-9_]*\)(\([a-z0-9_]*\),/\1(\2_$i,/p" "$KERNELS/conv.cl"
	done
} >"$T/fleet.cl"
check "SPIR-V of 44 kernels built with ocloc" spirv fleet "$T/fleet.cl"
NGINX_LOCKS=$LEASE start_nginx_dav "$T/dav"
check "nginx with dav-ext's LOCK started on 127.0.0.1" test -n "${SERVER_PIDS[nginx]:-}"
export JITCACHE_REMOTE=$NGINX_URL/cache
ROOTDIR=$T/dav/root/cache
cd "$T" || exit 1

# The pid in the lease file, if any ("jitcache compile lease: HOST pid PID").
lease_holder() { cat "$ROOTDIR"/leases/* 2>/dev/null | sed -n 's/.* pid \([0-9]*\)$/\1/p' | head -n 1; }
# lease files (a README beside them says what they are)
leases_left() { find "$1" -path '*/leases/*' -type f -name '????????????????????????????????' | wc -l; }

# ---- a rollout: one compile fleet-wide --------------------------------------------------
from=$(($(wc -l <"$T/dav/access.log") + 1))
t0=$(date +%s.%N)
rollout cold
wait "${PIDS[@]}"
took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
sleep 0.2 # the server's last log lines
check "$N nodes: all created the module" test "$(created "$T"/cold*.out)" -eq $N
c=$(compiled "$T"/cold*.out)
check "$N nodes at once, default settings, nginx with dav-ext: one compile fleet-wide ($c)" \
	test "$c" -eq 1
check "... the $((N - 1)) others loaded its value" \
	test "$(cat "$T"/cold*.out | grep -c "^jitcache: 1 hits, 0 misses")" -eq $((N - 1))
check "... and no lease file is left behind ($(leases_left "$ROOTDIR"))" test "$(leases_left "$ROOTDIR")" -eq 0
check "... nor any line about leases" sh -c "! grep -h 'lease' $T/cold*.out"
# Requests per node per module (nginx's access log): a waiter's lookup, its
# refused LOCK, then a GET of the value (which brings it once stored) with a
# pause growing to 0.5 s, and a LOCK every 2 s (a fifth of the lease); the
# holder's README, LOCK, note, store and DELETE.  A polling protocol: 2 a
# node is out of reach for a waiter (the lookup, the refused LOCK and the
# GET that finds the value), and each second of compile costs about 2.5
# more (f598d80 asked for the value and the lock at every look, HEAD and
# LOCK, and its recheck's GET: 31.5 to 38 a node for this rollout).
read -r total each < <(tail -n "+$from" "$T/dav/access.log" | awk '{ n++; m[substr($6, 2)]++ } END {
	for (k in m) s = s sprintf("%s%s:%d", s == "" ? "" : ",", k, m[k]); print n + 0, s }')
rpn=$(awk -v t="$total" -v n=$N 'BEGIN { printf "%.2f", t / n }')
most=$(awk -v s="$took" 'BEGIN { printf "%.1f", 5 + 2.5 * s }')
echo "     requests per node per module, a rollout of $N nodes in $took s: $rpn ($each)"
check "... at most 5 + 2.5 a second of the rollout per node ($rpn, at most $most)" ge "$most" "$rpn"

# ---- the holder killed in the middle of its compile ----------------------------------------
rm -rf "$ROOTDIR"
# The server drops the lock a lease time after its last renewal, at most;
# the waiters look every 0.5 s.
killed_holder dead lease_holder $((LEASE + 2))

# ---- trusted_keys: signed leases (lease.h), one compile fleet-wide ------------------------
# Every node signs with the fleet's key and trusts it: a WebDAV lease's file
# holds the holder's signed token, and the others wait for it (3fb985c did
# not sign WebDAV leases and never waited with trusted_keys: 8 compiles).
"$JITCACHE" keygen "$T/node.key" >/dev/null 2>&1
"$JITCACHE" keygen "$T/other.key" >/dev/null 2>&1
rm -rf "$ROOTDIR"
export JITCACHE_SIGNING_KEY=$T/node.key JITCACHE_TRUSTED_KEYS=$T/node.key.pub
rollout keyed 8
wait "${PIDS[@]}"
check "trusted_keys, 8 signed nodes: all created the module" test "$(created "$T"/keyed*.out)" -eq 8
c=$(compiled "$T"/keyed*.out)
check "... one compile fleet-wide ($c)" test "$c" -eq 1
check "... and no lease file is left behind ($(leases_left "$ROOTDIR"))" test "$(leases_left "$ROOTDIR")" -eq 0
# A holder whose token is not trusted (signed by another key, or not signed):
# the node with trusted_keys does not wait for it, and says why.
for who in other unsigned; do
	rm -rf "$ROOTDIR"
	untrusted_holder $who lease_holder
done
unset JITCACHE_SIGNING_KEY JITCACHE_TRUSTED_KEYS

stop_server nginx

# ---- nginx without dav-ext: no leases, every node compiles at once ----------------------
check "nginx without dav-ext started" start_nginx_dav "$T/plain"
export JITCACHE_REMOTE=$NGINX_URL/cache
N=4
rollout plain
wait "${PIDS[@]}"
check "without LOCK: all $N nodes created the module" test "$(created "$T"/plain*.out)" -eq $N
c=$(compiled "$T"/plain*.out)
check "... each compiled it ($c of $N)" test "$c" -eq $N
check "... each said in one line that the server holds no leases" \
	test "$(cat "$T"/plain*.out | grep -c 'holds no compile leases (LOCK: HTTP 405')" -eq $N
check "... and left no lease file" test "$(leases_left "$T/plain/root")" -eq 0
stop_server nginx

# ---- dav-ext loaded, but LOCK not allowed (limit_except: 403) -----------------------------
NGINX_LOCKS=$LEASE NGINX_EXTRA='limit_except GET HEAD PUT { deny all; }' start_nginx_dav "$T/denied"
check "nginx allowing GET, HEAD and PUT only started" test -n "${SERVER_PIDS[nginx]:-}"
export JITCACHE_REMOTE=$NGINX_URL/cache
node denied "$CLIENT" link "$T/fleet.spv"
check "LOCK refused (403): the node created its module" test "$(created "$T/denied.out")" -eq 1
check "... said in one line that the server holds no leases" \
	test "$(grep -c 'holds no compile leases (LOCK: HTTP 403' "$T/denied.out")" -eq 1
check "... and stored its value all the same (the remote not skipped as refusing credentials)" \
	test "$(find "$T/denied/root/cache" -type f -name '????????????????????????????????' | wc -l)" -eq 1
stop_server nginx

# ---- a compile longer than the server's lock timeout ------------------------------------
# (jc_http_tool's lease: the client alone, a hold standing for the compile)
NGINX_LOCKS=2 start_nginx_dav "$T/short"
check "nginx with locks of 2 s started" test -n "${SERVER_PIDS[nginx]:-}"
TOOL=$B/tests/jc_http_tool
"$TOOL" "$NGINX_URL/cache" lease long 7 2 >"$T/hold.out" 2>&1 &
hold=$!
sleep 0.5
"$TOOL" "$NGINX_URL/cache" lease long 0 2 >"$T/wait.out" 2>&1
wait $hold
check "a holder holding 7 s, locks of 2 s: it took the lease" grep -q '^lease leased' "$T/hold.out"
w=$(sed -n 's/^lease \([a-z]*\) \([0-9.]*\)$/\1 \2/p' "$T/wait.out")
check "... the other waited while it renewed, then found the value ($w s)" \
	sh -c "echo '$w' | awk '\$1 == \"ready\" && \$2 > 5 { ok = 1 } END { exit !ok }'"
check "... renewed every third of 2 s (LOCK with its token: $(grep -c '"LOCK .* 200 ' "$T/short/access.log"))" \
	test "$(grep -c '"LOCK .* 200 ' "$T/short/access.log")" -ge 6
stop_server nginx

# ---- a server nobody listens on: compile at once, as without a remote --------------------
t0=$(JITCACHE_REMOTE= elapsed node alone "$CLIENT" link "$T/fleet.spv")
export JITCACHE_REMOTE=http://127.0.0.1:$(free_port)/cache
t=$(elapsed node down "$CLIENT" link "$T/fleet.spv")
check "a web server down: the node created its module" test "$(created "$T/down.out")" -eq 1
# What the lease itself costs, by the client's own clock (a whole node's wall
# time, beside another test's rollout on a 2-core machine, varies by more
# than a lease); the node's, against a lease wait, loosely.
"$TOOL" "$JITCACHE_REMOTE" lease down 0 "$LEASE" >"$T/down-lease.out" 2>&1
w=$(sed -n 's/^lease \([a-z]*\) \([0-9.]*\)$/\1 \2/p' "$T/down-lease.out")
check "... the lease fails at once, no wait ($w s)" \
	sh -c "echo '$w' | awk '\$1 == \"failed\" && \$2 < 1 { ok = 1 } END { exit !ok }'"
check "... compiling at once: ${t} s, against ${t0} s without a remote (a lease wait: $LEASE s more)" \
	sh -c "awk -v t=$t -v t0=$t0 'BEGIN { exit !(t < t0 + $LEASE) }'"
finish
