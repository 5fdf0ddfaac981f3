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
kill "$child" 2>/dev/null
child=""

# ---- the same with a real OpenCL program on PoCL ---------------------------------
# A library preloaded after jitcache stands in for the driver's build: called
# by jitcache's wrapper with the key's lock held, it has another thread of
# the program fork() a child that stays, then kills the program.
CLB=$B/tests/cl_build
if [ ! -x "$CLB" ] || ! clinfo -l 2>/dev/null | grep -q "Portable Computing Language"; then
	skip "the OpenCL part: no PoCL or no $CLB"
	finish; exit $?
fi
cat >"$T/dies.c" <<'C'
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int asked, forked;
static void *forker(void *arg) /* another thread of the program: a pool's */
{
	(void)arg;
	pthread_mutex_lock(&mu);
	while (!asked)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	pid_t pid = fork();
	if (pid == 0) {
		sleep(120);
		_exit(0);
	}
	FILE *f = fopen(getenv("DIES_CHILD"), "w");
	fprintf(f, "%d\n", (int)pid);
	fclose(f);
	pthread_mutex_lock(&mu);
	forked = 1;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&mu);
	return NULL;
}
__attribute__((visibility("default"))) int clBuildProgram(void *p, unsigned n, const void *d,
							 const char *o, void *f, void *u)
{
	pthread_t t;
	pthread_create(&t, NULL, forker, NULL);
	pthread_mutex_lock(&mu);
	asked = 1;
	pthread_cond_broadcast(&cv);
	while (!forked)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	raise(SIGKILL); /* the compile dies */
	(void)p, (void)n, (void)d, (void)o, (void)f, (void)u;
	return -11;
}
C
if ! cc -shared -fPIC -O1 -o "$T/libdies.so" "$T/dies.c" -pthread 2>"$T/dies.err"; then
	cat "$T/dies.err"
	check "the test library builds (cc)" false
	finish; exit $?
fi
export POCL_KERNEL_CACHE=0
printf 'kernel void k(global float *o) { o[0] = 5.0f; }\n' >"$T/k.cl"
DIES_CHILD=$T/dies.child LD_PRELOAD="$LIB:$T/libdies.so" \
	"$CLB" --platform Portable --source "$T/k.cl" >"$T/dies.out" 2>&1
rc=$?
child=$(cat "$T/dies.child" 2>/dev/null)
check "PoCL: a program forked a child from another thread while jitcache held the key's lock, then died (rc $rc)" \
	test "$rc" = 137 -a -n "$child"
check "... its child lives on" kill -0 "${child:-0}"
check_not "... and holds no compile-once lock" key_lock_held "$JITCACHE_DIR"
JITCACHE_LOG=info JITCACHE_LOCK_TIMEOUT=600 LD_PRELOAD=$LIB timeout 60 \
	"$CLB" --platform Portable --source "$T/k.cl" >"$T/next.out" 2>&1
check "the next program missing that key builds, lock_timeout 600 s" grep -q '^build=0 ' "$T/next.out"
check_not "... without waiting for the lock" grep -q 'gave up waiting' "$T/next.out"
check "... and stores it" test "$(entries)" = 1
finish
