#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# Once jitcache has decided it cannot use its cache directory, it does not
# use the remotes either (issue 35, item 8): no lookup, no store, no lease,
# and no back-off file anywhere.  A program opens its cache with a Redis
# remote and a web remote that is down, then (JC_LOOKUP_AFTER) its cache
# directory is replaced by a file, as by a cleanup that ran meanwhile: its
# lookups are misses, its stores stay away from the servers (Redis counts
# no command but ours), and no back-off file appears.  The same program with
# its directory left alone does use the remote (the test can fail).
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/remote_common.bash"
need_redis
STORE=$B/tests/jc_store LOOKUP=$B/tests/jc_lookup
if [ ! -x "$STORE" ] || [ ! -x "$LOOKUP" ]; then # make check builds them
	check "test prerequisites jc_store and jc_lookup built (make tests)" false
	finish; exit $?
fi
unset JITCACHE_LOCK_TIMEOUT JITCACHE_COMPRESS JITCACHE_REMOTE_READ_ONLY
check "redis-server started" start_redis main
K1=101316191c1f2225282b2e3134373a3d # jc_store's first key: its value is in Redis
K2=0123456789abcdef0123456789abcdef # nowhere
"$STORE" "$T/v" 1 1000 >"$T/v.list"
rcli main -x SET "jitcache:v1:$K1" <"$(cat "$T/v.list")" >/dev/null
down=http://127.0.0.1:$(free_port)/c
export JITCACHE_REMOTE="redis+unix://$REDIS_SOCK_main $down" JC_LOOKUP_STORE=1000
# commands: how many commands Redis ran, but for INFO itself
commands() {
	rcli main INFO commandstats | tr -d '\r' |
		awk -F'[:=,]' '/^cmdstat_/ && $1 != "cmdstat_info" { n += $3 } END { print n + 0 }'
}

# ---- the directory left alone: the remote is used --------------------------------
before=$(commands)
JITCACHE_DIR=$T/node-fine timeout 60 "$LOOKUP" $K1 $K2 >"$T/fine.out" 2>&1
check "directory usable: the value in Redis is a hit" grep -q "^$K1 hit" "$T/fine.out"
check "... the miss is stored in Redis" test "$(rcli main EXISTS "jitcache:v1:$K2")" = 1
check "... Redis was asked" test "$(commands)" -gt "$before"
check "... and the web remote that is down left a back-off file in the cache directory" \
	test "$(find "$T/node-fine" -name 'remote-*.down' | wc -l)" = 1
rcli main DEL "jitcache:v1:$K2" >/dev/null

# ---- the directory replaced by a file while the program runs ---------------------
before=$(commands)
JC_LOOKUP_AFTER=$T/go JITCACHE_DIR=$T/node-gone timeout 60 "$LOOKUP" $K1 $K2 >"$T/gone.out" 2>&1 &
pid=$!
for i in $(seq 1 100); do [ -d "$T/node-gone" ] && break; sleep 0.05; done
sleep 0.2
rm -rf "$T/node-gone"
echo "not a directory" >"$T/node-gone"
touch "$T/go"
wait "$pid"
check "directory replaced by a file: both lookups are misses" \
	test "$(grep -c " miss " "$T/gone.out")" = 2
check "... said in one line" grep -q "^jitcache: .*node-gone" "$T/gone.out"
check "... Redis was neither asked nor written (no command, no value stored, no lease)" \
	eval 'test "$(commands)" = "$before" && test "$(rcli main DBSIZE)" = 1'
check "... and no back-off file anywhere" \
	test "$(find "$T" -name 'remote-*.down' -newer "$T/go" | wc -l)" = 0
finish
