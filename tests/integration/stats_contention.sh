#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# Every count reaches `jitcache stats` (issue 44, item 20), however many
# processes count at once: 64 processes that each hit the same entry 20
# times, started together, are 1280 hits, exactly; and with the counters'
# lock held all along by another process (as one the scheduler stops inside
# it holds it, or a program stopped with Ctrl-Z), 64 processes' 320 hits
# are set aside beside the statistics file (one file per process), counted
# by `jitcache stats` once it can read, and folded in by the next count.
# Before, a count that met a busy lock waited in the process for the next
# one, and at exit 50 ms at most: a third of the hits of 64 processes on a
# loaded machine, and all of them with the lock held, never reached the file
# and no line said so.  The cache's own lookups (jc_lookup: the count path
# of every hit and miss), no GPU needed.
. "$(dirname "$0")/../lib.sh"
LOOKUP=$B/tests/jc_lookup
if [ ! -x "$LOOKUP" ]; then
	check "jc_lookup built (make tests)" false
	finish; exit $?
fi
K=00112233445566778899aabbccddeeff
JC_LOOKUP_STORE=1000 "$LOOKUP" $K >"$T/store.out" 2>&1
check "an entry stored" grep -q "^$K miss " "$T/store.out"
field() { "$JITCACHE" stats --json | tr ',{' '\n\n' | sed -n "s/^ *\"$1\": \([0-9]*\).*/\1/p" | head -n 1; }
# many N HITS: N processes that open the cache, wait for $T/go, then look K
# up HITS times each; their output in $T/many.out
many() {
	local n=$1 hits=$2 keys="" i pids=""
	for i in $(seq "$hits"); do keys="$keys $K"; done
	rm -f "$T/go"
	for i in $(seq "$n"); do
		# shellcheck disable=SC2086
		JC_LOOKUP_AFTER=$T/go timeout 120 "$LOOKUP" $keys >"$T/one-of-many.$i" 2>&1 &
		pids="$pids $!"
	done
	sleep 1
	touch "$T/go"
	# shellcheck disable=SC2086
	wait $pids
	cat "$T"/one-of-many.* >"$T/many.out"
	rm -f "$T"/one-of-many.*
}

"$JITCACHE" stats --zero >/dev/null
many 64 20
check "64 processes, 20 hits each, at once: each process hit 20 times" \
	test "$(grep -c "^$K hit " "$T/many.out")" -eq 1280
check "... jitcache stats: 1280 hits, exactly" test "$(field hits)" = 1280
check "... and 0 misses" test "$(field misses)" = 0

# The counters' lock (page 0 of DIR/stats) held by another process all along:
# a POSIX record lock conflicts with jitcache's open-file-description locks.
"$JITCACHE" stats --zero >/dev/null
mkfifo "$T/hold.in"
python3 -c '
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
fcntl.lockf(fd, fcntl.LOCK_EX, 4096, 0)
print("held", flush=True)
sys.stdin.read()
' "$JITCACHE_DIR/stats" <"$T/hold.in" >"$T/hold.out" 2>&1 &
holder=$!
exec 7>"$T/hold.in"
for _ in $(seq 100); do grep -q held "$T/hold.out" && break; sleep 0.1; done
check "the counters' lock held by another process" grep -q held "$T/hold.out"
many 64 5
check "64 processes, 5 hits each, the counters' lock held: each process hit 5 times" \
	test "$(grep -c "^$K hit " "$T/many.out")" -eq 320
check "... none said it lost counts" sh -c "! grep -q 'could not be updated' '$T/many.out'"
asides=$(find "$JITCACHE_DIR" -maxdepth 1 -name 'stats-aside-*' | wc -l)
check "... their counts set aside, beside the statistics file ($asides files)" test "$asides" -ge 1
exec 7>&-
wait "$holder"
check "the lock released: jitcache stats counts the 320 hits set aside" test "$(field hits)" = 320
"$LOOKUP" $K >"$T/one.out" 2>&1
check "the next hit folds them in: 321 hits" test "$(field hits)" = 321
check "... and no file set aside is left" \
	test -z "$(find "$JITCACHE_DIR" -maxdepth 1 -name 'stats-aside-*')"
"$JITCACHE" stats --zero >/dev/null
check "stats --zero: 0 hits" test "$(field hits)" = 0
finish
