#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# A program that compiles and then fork()s a child that compiles too (a
# server that daemon()s after loading its kernels, os.fork() children, a
# pre-fork worker pool), with each remote kind: Redis, nginx (WebDAV) and
# Ceph's radosgw (S3), all started here on 127.0.0.1.  The child compiles
# 0, 1 or 2 times and ends by exit() or _exit(); before issue 35 it hung for
# ever (the queue's condition variables, copied from the parent, counted the
# parent's writer thread as a waiter).  Each run:
#   - the child ends by itself within JC_FORK_WAIT (tests/helpers/jc_fork
#     kills it otherwise and says "child hung"), and so does the parent;
#   - a child that ends by exit() has its writes on the remote by then (a
#     fresh node finds them there), and the parent's writer still works
#     after the fork (its next store reaches the remote too).
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/remote_common.bash"
need_redis
trap 'stop_all_redis; cleanup_dirs' EXIT # the web servers too (remote_common's trap: Redis only)
FORK=$B/tests/jc_fork LOOKUP=$B/tests/jc_lookup
if [ ! -x "$FORK" ] || [ ! -x "$LOOKUP" ]; then # make check builds them
	check "test prerequisites jc_fork and jc_lookup built (make tests)" false
	finish; exit $?
fi
unset JITCACHE_LOCK_TIMEOUT JITCACHE_COMPRESS JITCACHE_REMOTE_READ_ONLY
export JC_FORK_WAIT=10

# forks KIND URL: every case against the remote at URL
forks() {
	local kind=$1 url=$2 n how name keys want
	for how in exit _exit; do
		for n in 0 1 2; do
			name=$kind-$n-$how
			JITCACHE_DIR=$T/node-$name JITCACHE_REMOTE=$url \
				timeout 60 "$FORK" "$name" 1 "$n" "$how" >"$T/$name.out" 2>&1
			echo $? >"$T/$name.rc"
			check "$kind: a child that compiles $n times and ends by $how() ends by itself" \
				grep -qx "child exited 0" "$T/$name.out"
			check "... and so does the parent" test "$(cat "$T/$name.rc")" = 0
			# what should be on the remote: the parent's and, after exit(),
			# the child's writes
			want=$((2 + (${#how} == 4 ? n : 0))) # 4: "exit"
			keys=$(awk -v how="$how" '$1 == "parent" || $1 == "after" ||
				($1 == "child" && length($2) == 32 && how == "exit") { print $2 }' "$T/$name.out")
			JITCACHE_DIR=$T/fresh-$name JITCACHE_REMOTE=$url \
				timeout 60 "$LOOKUP" $keys >"$T/$name.look" 2>&1
			check "... a fresh node finds the parent's writes, from before and after the fork$([ "$how" = exit ] && echo ", and the child's")" \
				test "$(grep -c ' hit ' "$T/$name.look")" = "$want" -a "$(echo $keys | wc -w)" = "$want"
		done
	done
}

check "redis-server started" start_redis main
forks redis "redis+unix://$REDIS_SOCK_main"

if start_nginx_dav "$T/ng" 2>"$T/ng.err"; then
	forks nginx "$NGINX_URL/c"
else
	cat "$T/ng.err"
	check "nginx started (nginx-light)" false
fi

if [ ! -x "${JITCACHE_TESTBED:-/var/tmp/jitcache-testbed}/usr/bin/radosgw" ]; then
	skip "the S3 part: no radosgw in the test bed (make testbed-s3; make check-all sets it up)"
elif start_radosgw "$T/rgw" 2>"$T/rgw.err" && s3_make_bucket jitcache; then
	forks radosgw "s3://jitcache/fork"
else
	cat "$T/rgw.err"
	check "radosgw started from the test bed (make testbed-s3)" false
fi
check "nothing left running: no child of the test's programs" \
	test -z "$(pgrep -f "$FORK" || true)"
finish
