#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# A fork() without exec while a thread compiles (issue 44, item 9): the
# child got a copy of the compile-once lock's descriptor (cache/lock.c: an
# OFD lock belongs to the open file description, and the descriptor is
# only close-on-exec), so once the compile died the child kept the lock
# and every process missing that key waited lock_timeout.  A fork()ed child
# now closes its copies at once.  tests/helpers/jc_fork_lock: a thread
# holds a key's lock, another forks a child that stays, then the program
# is killed; a third process misses the same key.
. "$(dirname "$0")/../lib.sh"
H=$B/tests/jc_fork_lock
if [ ! -x "$H" ]; then # make check builds it
	check "test prerequisite $H built (make tests)" false
	finish; exit $?
fi
child=""
trap '[ -n "$child" ] && kill "$child" 2>/dev/null; cleanup_dirs' EXIT

"$H" hold k1 >"$T/hold.out" 2>&1
rc=$?
for i in $(seq 1 400); do grep -q '^child ' "$T/hold.out" && break; sleep 0.05; done
cat "$T/hold.out"
child=$(awk '/^child / { print $2 }' "$T/hold.out")
check "the program holding the lock was killed in its compile (rc $rc)" test "$rc" = 137
check "its child, forked meanwhile, lives on" kill -0 "${child:-0}"
check_not "no compile-once lock is held in the cache any more" key_lock_held "$JITCACHE_DIR"
JITCACHE_LOCK_TIMEOUT=0 "$H" miss k1 >"$T/miss0.out" 2>&1
check "another process missing the key gets its lock at once (lock_timeout 0: $(cat "$T/miss0.out"))" \
	grep -qx locked "$T/miss0.out"
JITCACHE_LOCK_TIMEOUT=600 JITCACHE_LOG=info timeout 60 "$H" miss k1 >"$T/miss.out" 2>&1
cat "$T/miss.out"
check "... and with lock_timeout 600 s, without waiting it out" grep -qx locked "$T/miss.out"
check_not "... no line of having given up waiting" grep -q 'gave up waiting' "$T/miss.out"
finish
