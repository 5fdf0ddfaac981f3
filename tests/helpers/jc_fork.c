// SPDX-License-Identifier: MIT
/*
 * jc_fork — a program that compiles, then fork()s a child that compiles
 * too, as servers that daemon() after loading kernels, os.fork() children
 * and pre-fork worker pools do; every setting from the environment and ini
 * file (jc_config_load), the remote tier included.  A "compile" is the
 * shim's miss path: look up, take the compile-once lock (and remote lease),
 * look again, store, unlock.
 *
 *   jc_fork TAG PARENT CHILD exit|_exit
 *
 * The parent compiles PARENT keys and waits (5 s at most) until its writer
 * thread has written them and waits for more; then a child compiles CHILD
 * keys and ends by exit(0) or _exit(0); then the parent compiles one key
 * more.  Keys are made from TAG.  Prints "parent KEYHEX", "child KEYHEX"
 * and "after KEYHEX" for each key stored, and "child exited STATUS" or
 * "child hung" (killed after JC_FORK_WAIT seconds, default 15).
 *
 * Exit status 0 if the child ended by itself with status 0; 1 otherwise.
 */
#include "cache/cache.h"
#include "config/config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

static struct jc_cache *open_cache(void)
{
	static struct jc_config cfg;
	jc_config_load(&cfg);
	struct jc_cache_options o = {
		.dir = cfg.cache_dir, .max_size = cfg.max_size, .shared = cfg.shared,
		.lock_timeout = cfg.lock_timeout, .compress = cfg.compress, .layers = cfg.layers,
		.remote = { .url = cfg.remote_url, .password_file = cfg.remote_password_file,
			    .read_only = cfg.remote_read_only,
			    .connect_timeout = cfg.remote_connect_timeout,
			    .timeout = cfg.remote_timeout, .backoff = cfg.remote_backoff,
			    .lease = cfg.remote_lease, .lease_wait = cfg.remote_lease_wait,
			    .compress = cfg.remote_compress, .exit_wait = cfg.remote_exit_wait },
	};
	return jc_cache_open(&o);
}

/* The shim's miss path for the key made from tag, who and n. */
static void compile(struct jc_cache *c, const char *tag, const char *who, int n)
{
	char seed[256], hex[2 * JC_KEY_BYTES + 1], data[4096];
	struct jc_key k;
	struct jc_entry e;
	snprintf(seed, sizeof seed, "%s/%s/%d", tag, who, n);
	XXH128_hash_t hash = XXH3_128bits(seed, strlen(seed));
	memcpy(k.bytes, &hash.low64, 8);
	memcpy(k.bytes + 8, &hash.high64, 8);
	for (size_t i = 0; i < sizeof data; i++)
		data[i] = (char)(i * 7 + (size_t)n);
	if (jc_cache_get(c, &k, &e) == 0) {
		jc_entry_free(&e);
		return;
	}
	struct jc_cache_lock *l = jc_cache_lock_key(c, &k);
	if (jc_cache_recheck(c, &k, &e) == 0)
		jc_entry_free(&e);
	else
		jc_cache_put(c, &k, data, sizeof data, 1000000);
	jc_cache_unlock(l);
	jc_key_hex(&k, hex);
	printf("%s %s\n", who, hex);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	if (argc != 5 || (strcmp(argv[4], "exit") != 0 && strcmp(argv[4], "_exit") != 0)) {
		fprintf(stderr, "usage: jc_fork TAG PARENT CHILD exit|_exit\n");
		return 2;
	}
	const char *tag = argv[1], *wait_s = getenv("JC_FORK_WAIT");
	int parent = atoi(argv[2]), child = atoi(argv[3]), quick = strcmp(argv[4], "_exit") == 0;
	double patience = wait_s && *wait_s ? atof(wait_s) : 15;
	struct jc_cache *c = open_cache();
	if (!c)
		return 1;
	for (int i = 0; i < parent; i++)
		compile(c, tag, "parent", i);
	jc_cache_flush_remote(c, 5); /* the writer thread now waits for work */
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		for (int i = 0; i < child; i++)
			compile(c, tag, "child", i);
		if (quick)
			_exit(0);
		exit(0);
	}
	int status = 0, ended = 0;
	for (int i = 0; pid > 0 && i < patience * 100 && !ended; i++) {
		ended = waitpid(pid, &status, WNOHANG) == pid;
		if (!ended)
			nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	}
	if (pid > 0 && !ended) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		printf("child hung\n");
	} else if (pid > 0) {
		printf("child exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	}
	fflush(stdout);
	compile(c, tag, "after", 0);
	return pid > 0 && ended && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
