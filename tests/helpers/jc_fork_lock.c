// SPDX-License-Identifier: MIT
/*
 * jc_fork_lock — a program whose thread holds a key's compile-once lock
 * (cache/lock.c), as a thread in the middle of a compile does, while
 * another thread fork()s a child that stays (a server's worker, a pool);
 * then the program dies in the middle of its compile.  For
 * tests/integration/fork_lock.sh.  Settings from the environment
 * (JITCACHE_DIR, JITCACHE_LOCK_TIMEOUT), as the shim reads them.
 *
 *   jc_fork_lock hold TAG    a thread locks TAG's key; then fork(): the child
 *                            prints "child PID" and sleeps 120 s (it never
 *                            compiles); the parent prints "holding PID" and
 *                            kills itself (SIGKILL) with the lock held
 *   jc_fork_lock miss TAG    TAG's key missed: the lock taken as a miss takes
 *                            it (lock_timeout at most): "locked", or
 *                            "not locked ERRNO-NAME"
 */
#include "cache/cache.h"
#include "config/config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct jc_cache *cache;
static struct jc_key key;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int locked;

static void open_cache(const char *tag)
{
	static struct jc_config cfg;
	jc_config_load(&cfg);
	struct jc_cache_options o = { .dir = cfg.cache_dir, .max_size = cfg.max_size,
				      .lock_timeout = cfg.lock_timeout };
	cache = jc_cache_open(&o);
	memset(&key, 0, sizeof key);
	memcpy(key.bytes, tag, strnlen(tag, sizeof key.bytes));
}

/* The compiling thread: the lock taken, then "compiling" for ever. */
static void *compile(void *arg)
{
	(void)arg;
	struct jc_cache_lock *l = jc_cache_lock_key(cache, &key);
	pthread_mutex_lock(&mu);
	locked = l ? 1 : -1;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&mu);
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: jc_fork_lock hold|miss TAG\n");
		return 2;
	}
	open_cache(argv[2]);
	if (!cache) {
		fprintf(stderr, "jc_fork_lock: no cache\n");
		return 1;
	}
	if (strcmp(argv[1], "miss") == 0) {
		struct jc_cache_lock *l = jc_cache_lock_key(cache, &key);
		if (l)
			printf("locked\n");
		else
			printf("not locked %s\n", strerrorname_np(errno));
		jc_cache_unlock(l);
		return 0;
	}
	pthread_t t;
	pthread_create(&t, NULL, compile, NULL);
	pthread_mutex_lock(&mu);
	while (!locked)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	if (locked < 0) {
		fprintf(stderr, "jc_fork_lock: the lock was not taken\n");
		return 1;
	}
	fflush(stdout);
	pid_t child = fork();
	if (child == 0) {
		printf("child %d\n", (int)getpid());
		fflush(stdout);
		sleep(120);
		_exit(0);
	}
	printf("holding %d\n", (int)getpid());
	fflush(stdout);
	raise(SIGKILL); /* the compile dies */
	return 1;
}
