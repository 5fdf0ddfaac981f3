#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# No user info of a remote's URL is ever printed (issue 35, item 6): a
# token or password written in a URL, with or without ':' (https://TOKEN@host/,
# redis://PASSWORD@host, s3://X@bucket, GitHub's TOKEN:x-oauth-basic@), is
# shown as *** in the refusal line of every process that opens the remote,
# in `jitcache config`, and in the lines of a remote that is used (a Redis
# that cannot be reached); from the environment and from an ini file alike.
# `jitcache set` (issue 44, item 18) echoes the value it wrote, and a value it
# refuses, the same way, and keeps the ini file it writes a password into
# readable by its owner alone.
. "$(dirname "$0")/../lib.sh"
LOOKUP=$B/tests/jc_lookup
if [ ! -x "$LOOKUP" ]; then
	check "jc_lookup built (make tests)" false
	finish; exit $?
fi
K=0123456789abcdef0123456789abcdef
port=$(free_port) # nobody listens there
n=0
for url in "https://SECRET1@127.0.0.1:$port/c" "redis://SECRET2@127.0.0.1:$port" \
	"s3://SECRET3@bucket" "https://SECRET4:x-oauth-basic@127.0.0.1:$port/c" \
	"redis://user:SECRET5@127.0.0.1:$port" "redis+unix://:SECRET6@/nowhere/sock" \
	"redis://127.0.0.1:$port  http://SECRET7@127.0.0.1:$port/c|read-only"; do
	n=$((n + 1))
	secret=SECRET$n
	printf '[remote]\nurl = %s\n' "$url" >"$T/$n.ini"
	JITCACHE_REMOTE=$url JITCACHE_REMOTE_TIMEOUT=0.2 timeout 30 "$LOOKUP" $K >"$T/env-$n.out" 2>&1
	JITCACHE_CONFIG=$T/$n.ini JITCACHE_REMOTE_TIMEOUT=0.2 timeout 30 "$LOOKUP" $K >"$T/ini-$n.out" 2>&1
	JITCACHE_REMOTE=$url timeout 30 "$JITCACHE" config >"$T/config-env-$n.out" 2>&1
	JITCACHE_CONFIG=$T/$n.ini timeout 30 "$JITCACHE" config >"$T/config-ini-$n.out" 2>&1
	check "remote URL $n (${url%%$secret*}...): refused or used, its user info said as ***" \
		grep -q '://\*\*\*@' "$T/env-$n.out" "$T/ini-$n.out" "$T/config-env-$n.out"
	check "... its secret in no line of a program nor of jitcache config (env, ini)" \
		eval "! grep -l $secret '$T/env-$n.out' '$T/ini-$n.out' '$T/config-env-$n.out' '$T/config-ini-$n.out'"
done
check "a valid Redis URL with a password, server down: the program's line shows ***" \
	grep -q "remote redis://\*\*\*@127.0.0.1:$port: cannot connect" "$T/env-5.out"

# jitcache set, then jitcache config on what it wrote.
ini=$XDG_CONFIG_HOME/jitcache/jitcache.ini
"$JITCACHE" set max_size 1G >"$T/set-0.out" 2>&1
"$JITCACHE" set remote.url "redis://:SECRET8@127.0.0.1:$port" >"$T/set-8.out" 2>&1
check "set remote.url with a password: written, echoed as redis://***@" \
	sh -c "grep -q '^\[remote\] url = redis://\*\*\*@127.0.0.1:$port written to ' '$T/set-8.out' &&
	       grep -q '^url = redis://:SECRET8@127.0.0.1:$port\$' '$ini'"
check "... the password in no line of set" eval "! grep -q SECRET8 '$T/set-8.out'"
check "... the ini file it is in made readable by its owner alone (was 0644)" \
	test "$(stat -c %a "$ini")" = 600
"$JITCACHE" set remote.url "https://SECRET9:x@127.0.0.1:$port/c http://SECRET10@h:99999/c" \
	>"$T/set-9.out" 2>&1
check "a refused URL list with passwords: said, its user info as ***" \
	sh -c "grep -q \"bad value 'https://\*\*\*@127.0.0.1:$port/c http://\*\*\*@h:99999/c'\" '$T/set-9.out'"
check "... neither password in any line of set" eval "! grep -q 'SECRET9\|SECRET10' '$T/set-9.out'"
"$JITCACHE" config >"$T/config-set.out" 2>&1
check "jitcache config on the file set wrote: redis://***@, no password" \
	sh -c "grep -q '^remote.url *= redis://\*\*\*@127.0.0.1:$port ' '$T/config-set.out' &&
	       ! grep -q SECRET8 '$T/config-set.out'"
finish
