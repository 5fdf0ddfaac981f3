#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# The remote tier against a Redis that others can write, or a slow link:
#   - a value larger than max_size allows is never read (its header, in
#     the first bytes read, says its size), a value whose header is bad is not read past its first bytes,
#     a sound large value is read in pieces into one buffer of its size, and
#     a small zstd value claiming a large entry is refused before it is
#     inflated, in little time and memory;
#   - the timeout bounds each answer, not each read(2): through a link that
#     trickles 512 bytes every 0.3 s a lookup gives up after one timeout;
#   - a 64 MiB element pushed to the wake list a waiter blocks on is not
#     read whole;
#   - a lease set without an expiry (a squatter's) does not make a miss
#     wait lock_timeout: a writer takes it over at once, and a read-only
#     node never waits on a lease at all;
#   - with keys (signing_key, trusted_keys) leases are signed and dated, and
#     a node with trusted keys waits only for a trusted node's compile: a
#     squatter's lease that keeps being renewed, or a trusted one copied
#     after its time, costs it no wait.
# No GPU: tests/helpers/jc_store makes entries, jc_lookup asks for keys.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/remote_common.bash"
need_redis
STORE=$B/tests/jc_store LOOKUP=$B/tests/jc_lookup
[ -x "$STORE" ] && [ -x "$LOOKUP" ] || { skip "build/tests/jc_store, jc_lookup not built (make tests)"; finish; exit; }
start_redis main || { check "redis-server started" false; finish; exit; }
URL=redis+unix://$REDIS_SOCK_main
unset JITCACHE_REMOTE_TIMEOUT JITCACHE_LOCK_TIMEOUT

# measure NAME VAR=VALUE... -- KEY...: jc_lookup (60 s at most) with the
# settings given; "SECONDS KB" in NAME.time, its output in NAME.out.
measure() {
	local name=$1; shift
	local vars=()
	while [ "$1" != -- ]; do vars+=("$1"); shift; done
	shift
	env JITCACHE_DIR="$T/node-$name" "${vars[@]}" /usr/bin/time -f "%e %M" -o "$T/$name.time" \
		timeout 60 "$LOOKUP" "$@" >"$T/$name.out" 2>&1
}
small() { read -r secs kb < <(tail -n 1 "$T/$1.time") && ge "$2" "$secs" && [ "$kb" -lt "$3" ]; }
took() { tail -n 1 "$T/$1.time" | awk '{printf "%s s, %.1f MB", $1, $2 / 1024}'; }
K1=101316191c1f2225282b2e3134373a3d   # jc_store's first key
name() { echo "jitcache:v1:$1"; }

# ---- a 300 MB value -------------------------------------------------------------------
head -c $((300 << 20)) /dev/zero | rcli main -x SET "$(name $K1)" >/dev/null
measure big JITCACHE_REMOTE="$URL" JITCACHE_MAX_SIZE=64M -- $K1
check "a 300 MB value, max_size 64M: a miss" grep -q " miss " "$T/big.out"
check "... never read ($(took big))" small big 2 65536
check "... said in one line (its first bytes are no entry's)" \
	grep -q "^jitcache: the remote's value for $K1 is not a valid entry (bad magic)" "$T/big.out"
measure big-default JITCACHE_REMOTE="$URL" -- $K1
echo "     the same value under the default max_size: $(took big-default), $(grep -c "^jitcache:" "$T/big-default.out") line: $(grep "^jitcache:" "$T/big-default.out" | head -n 1 | cut -c1-120)"
check "... under the default max_size: refused from its first bytes (bad magic), not read whole" small big-default 2 65536
rcli main DEL "$(name $K1)" >/dev/null
# A 300 MB value whose header claims its size: refused from that header.
"$STORE" "$T/v1" 1 1000 >"$T/v1.list"
python3 -c 'import struct, sys
h = bytearray(open(sys.argv[1], "rb").read()[:64]); n = (300 << 20) - 64
h[32:48] = struct.pack("<QQ", n, n); sys.stdout.buffer.write(bytes(h) + bytes(n))' "$(cat "$T/v1.list")" |
	rcli main -x SET "$(name $K1)" >/dev/null
measure big-sound JITCACHE_REMOTE="$URL" JITCACHE_MAX_SIZE=64M -- $K1
check "a 300 MB value whose header says so, max_size 64M: a miss" grep -q " miss " "$T/big-sound.out"
check "... never read ($(took big-sound))" small big-sound 2 65536
check "... said in one line" grep -q "^jitcache: remote .*: a value of 314572800 bytes or more is larger than max_size allows" "$T/big-sound.out"
rm -rf "$T/v1"
rcli main DEL "$(name $K1)" >/dev/null

# ---- a sound 64 MiB value: read into one buffer of its size ---------------------------
"$STORE" "$T/v64" 1 $((64 << 20)) >"$T/v64.list"
rcli main -x SET "$(name $K1)" <"$(cat "$T/v64.list")" >/dev/null
measure v64 JITCACHE_REMOTE="$URL" JITCACHE_REMOTE_TIMEOUT=10 -- $K1
check "a sound 64 MiB value: a hit" grep -q " hit " "$T/v64.out"
check "... in memory of about its size, not three copies ($(took v64))" small v64 10 $((96 << 10))
rcli main DEL "$(name $K1)" >/dev/null
rm -rf "$T/v64"

# ---- a small compressed value that inflates to 256 MiB ----------------------------------
"$B/tests/jc_forge" bomb "$T/bomb.entry" $K1 $((256 << 20))
rcli main -x SET "$(name $K1)" <"$T/bomb.entry" >/dev/null
measure bomb JITCACHE_REMOTE="$URL" JITCACHE_MAX_SIZE=64M -- $K1
check "a $(stat -c %s "$T/bomb.entry")-byte value inflating to 256 MiB, max_size 64M: a miss" grep -q " miss " "$T/bomb.out"
check "... refused before inflating ($(took bomb))" small bomb 2 65536
check "... nothing kept locally" test "$(entries "$T/node-bomb")" -eq 0
# The same kind of value, 32 KB inflating to 1 GiB, under the default
# max_size (4G): bounded by what was sent (JC_ENTRY_MAX_RATIO, 256 times),
# not by max_size (before: 1 GiB allocated, inflated and kept).
"$B/tests/jc_forge" bomb "$T/bomb1g.entry" $K1 $((1 << 30))
rcli main -x SET "$(name $K1)" <"$T/bomb1g.entry" >/dev/null
measure bomb1g JITCACHE_REMOTE="$URL" -- $K1
check "a $(stat -c %s "$T/bomb1g.entry")-byte value inflating to 1 GiB, default max_size: a miss" grep -q " miss " "$T/bomb1g.out"
check "... refused before inflating ($(took bomb1g))" small bomb1g 2 65536
check "... said why" grep -q "inflates more than 256 times its size" "$T/bomb1g.out"
check "... nothing kept locally" test "$(entries "$T/node-bomb1g")" -eq 0
rcli main DEL "$(name $K1)" >/dev/null

# ---- a link that trickles -----------------------------------------------------------------
"$STORE" "$T/v" 1 $((27 << 10)) >"$T/v.list"
rcli main -x SET "$(name $K1)" <"$(cat "$T/v.list")" >/dev/null
pport=$(free_port)
python3 "$ROOT/tests/helpers/trickle_proxy.py" "$pport" "$REDIS_PORT_main" "$T/proxy.ready" &
proxy=$!
for i in $(seq 1 100); do [ -e "$T/proxy.ready" ] && break; sleep 0.05; done
measure slow JITCACHE_REMOTE="redis://127.0.0.1:$pport" JITCACHE_REMOTE_TIMEOUT=0.5 JITCACHE_LOCK_TIMEOUT=5 -- $K1
kill "$proxy"; wait "$proxy" 2>/dev/null
check "27 KB value through a link of 512 B per 0.3 s, timeout 0.5 s: a miss" grep -q " miss " "$T/slow.out"
check "... after one timeout, not the whole trickle ($(took slow))" small slow 2 65536
check "... said in one line" grep -q "^jitcache: remote .*: no answer to .* within 0.5 s" "$T/slow.out"
measure fast JITCACHE_REMOTE="$URL" -- $K1
check "the same value straight from Redis: a hit" grep -q " hit " "$T/fast.out"
rcli main DEL "$(name $K1)" >/dev/null

# ---- a squatted lease ------------------------------------------------------------------------
rcli main SET "jitcache:{$(name $K1)}:lease" squatter >/dev/null
measure squat-w JITCACHE_REMOTE="$URL" JITCACHE_LOCK_TIMEOUT=20 -- $K1
check "a lease without expiry: a writer does not wait for it ($(took squat-w))" small squat-w 2 65536
check "... and no lease is left behind" test "$(rcli main EXISTS "jitcache:{$(name $K1)}:lease")" -eq 0
rcli main SET "jitcache:{$(name $K1)}:lease" squatter PX 3600000 >/dev/null
measure squat-long JITCACHE_REMOTE="$URL" JITCACHE_LOCK_TIMEOUT=20 -- $K1
check "a lease of an hour (over ten lease times): a writer does not wait for it ($(took squat-long))" \
	small squat-long 2 65536
rcli main SET "jitcache:{$(name $K1)}:lease" squatter >/dev/null
measure squat-r JITCACHE_REMOTE="$URL" JITCACHE_REMOTE_READ_ONLY=1 JITCACHE_LOCK_TIMEOUT=20 -- $K1
check "a lease without expiry: a read-only node does not wait for it ($(took squat-r))" small squat-r 2 65536
check "... and leaves it alone (it writes nothing)" test "$(rcli main GET "jitcache:{$(name $K1)}:lease")" = squatter
rcli main SET "jitcache:{$(name $K1)}:lease" writer PX 20000 >/dev/null
measure held-r JITCACHE_REMOTE="$URL" JITCACHE_REMOTE_READ_ONLY=1 JITCACHE_LOCK_TIMEOUT=20 -- $K1
check "a live lease of a writer: a read-only node does not wait either ($(took held-r))" small held-r 2 65536
# ---- a wake-up list others can write ---------------------------------------------------------
# A waiter blocks on the key's wake list (BRPOPLPUSH), whose element whoever
# can write Redis could make as large as Redis allows: a 64 MiB one pushed
# while it waits is not read whole.
rcli main SET "jitcache:{$(name $K1)}:lease" writer PX 20000 >/dev/null
(sleep 1; head -c $((64 << 20)) /dev/zero | rcli main -x RPUSH "jitcache:{$(name $K1)}:wake" >/dev/null) &
pusher=$!
measure wake JITCACHE_REMOTE="$URL" JITCACHE_LOCK_TIMEOUT=15 -- $K1
wait "$pusher"
check "a 64 MiB element pushed to the wake list a node waits on: not read ($(took wake))" small wake 10 32768
check "... said in one line" grep -q "^jitcache: remote .*: the answer to a lease wait is an answer larger than" "$T/wake.out"
check "... and the node went on (a miss)" grep -q " miss " "$T/wake.out"
rcli main DEL "jitcache:{$(name $K1)}:lease" "jitcache:{$(name $K1)}:wake" >/dev/null

# ---- leases with keys ---------------------------------------------------------------------
waited() { read -r secs kb < <(tail -n 1 "$T/$1.time") && ge "$secs" "$2"; }
between() { waited "$1" "$2" && small "$1" "$3" 65536; }
"$JITCACHE" keygen "$T/node.key" >/dev/null 2>&1
KEYS=(JITCACHE_SIGNING_KEY="$T/node.key" JITCACHE_TRUSTED_KEYS="$T/node.key.pub")
lease=jitcache:{$(name $K1)}:lease
rcli main SET "$lease" squatter PX 30000 >/dev/null
measure renewed JITCACHE_REMOTE="$URL" JITCACHE_LOCK_TIMEOUT=20 JITCACHE_REMOTE_LEASE_WAIT=2 JITCACHE_LOG=info -- $K1
check "a squatter's lease with an expiry: without keys a writer waits lease_wait (2 s) for it, not lock_timeout (20 s) ($(took renewed))" \
	between renewed 1.5 4
check "... and says so (log level info)" grep -q "^jitcache: remote .*: another machine's compile lease was waited for 2 s (lease_wait" "$T/renewed.out"
check "... then took it over (its lease released, the squatter's gone)" test "$(rcli main EXISTS "$lease")" -eq 0
rcli main SET "$lease" squatter PX 30000 >/dev/null
measure renewed-keys JITCACHE_REMOTE="$URL" JITCACHE_LOCK_TIMEOUT=20 "${KEYS[@]}" -- $K1
check "... with trusted keys it does not wait ($(took renewed-keys))" small renewed-keys 2 65536
check "... and says why in one line" \
	grep -q "^jitcache: remote .*: a compile lease is not waited for (not signed; trusted_keys)" "$T/renewed-keys.out"
rcli main DEL "$lease" >/dev/null
head -c $((64 << 20)) /dev/zero | rcli main -x SET "$lease" >/dev/null
rcli main PEXPIRE "$lease" 30000 >/dev/null
measure huge-lease JITCACHE_REMOTE="$URL" JITCACHE_LOCK_TIMEOUT=20 "${KEYS[@]}" -- $K1
check "a 64 MiB lease value: not waited for, and not read ($(took huge-lease))" small huge-lease 2 32768
rcli main DEL "$lease" >/dev/null
measure holder JC_LOOKUP_HOLD=4 JITCACHE_REMOTE="$URL" JITCACHE_REMOTE_LEASE=1 "${KEYS[@]}" -- $K1 &
holder=$!
for i in $(seq 1 100); do [ "$(rcli main EXISTS "$lease")" = 1 ] && break; sleep 0.05; done
first=$(rcli main GET "$lease")
measure waiter JITCACHE_REMOTE="$URL" JITCACHE_LOCK_TIMEOUT=20 JITCACHE_REMOTE_LEASE_WAIT=1 "${KEYS[@]}" -- $K1
second=$(rcli main GET "$lease")
wait "$holder"
check "a trusted node compiling (4 s): a node with trusted keys waits for it, beyond lease_wait (1 s) ($(took waiter))" waited waiter 2.5
check "... its lease is signed" sh -c "echo '$first' | grep -Eq '/[0-9]+/[0-9a-f]{144}\$'"
check "... and renewed with a new date" test "$first" != "$second"
sleep 3 # the copied lease is then over a lease time (1 s) and 5 s of skew old
rcli main SET "$lease" "$first" PX 8000 >/dev/null # under ten lease times
measure replay JITCACHE_REMOTE="$URL" JITCACHE_REMOTE_LEASE=1 JITCACHE_LOCK_TIMEOUT=20 "${KEYS[@]}" -- $K1
check "a trusted node's lease copied after its time: not waited for ($(took replay))" small replay 2 65536
check "... said why" grep -q "not renewed within a lease time" "$T/replay.out"
rcli main DEL "$lease" >/dev/null
finish
