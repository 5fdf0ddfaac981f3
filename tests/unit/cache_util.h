// SPDX-License-Identifier: MIT
/*
 * cache_util.h — helpers shared by the unit tests of cache/: scratch
 * directories, keys and payloads, a walk that measures a cache directory
 * the slow honest way, and running a test body in a forked child whose
 * CHECKs still count in the parent.
 */
#ifndef JITCACHE_TEST_CACHE_UTIL_H
#define JITCACHE_TEST_CACHE_UTIL_H

#include "cache/cache.h"
#include "tests/unit/check.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Sanitizers make fork and I/O several times slower: do fewer rounds. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

/* A scratch directory of this run's: in $TMPDIR when set (and short enough
 * for the 256-byte paths below), else /tmp. */
static char test_root[160];

static inline void test_path(char out[256], const char *name)
{
	snprintf(out, 256, "%s/%s", test_root, name);
}

static inline int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	remove(path);
	return 0;
}

static inline void rm_rf(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static inline void util_init(void)
{
	const char *tmp = getenv("TMPDIR");
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!tmp || !*tmp || strlen(tmp) > 100)
		tmp = "/tmp";
	snprintf(test_root, sizeof test_root, "%s/jc-unit.XXXXXX", tmp);
	if (!mkdtemp(test_root)) {
		perror("mkdtemp");
		exit(2);
	}
	chmod(test_root, 0711); /* tests that drop to "nobody" may pass through it */
}

static inline void util_cleanup(void)
{
	rm_rf(test_root);
}

static inline double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline struct jc_cache *open_cache(const char *dir, uint64_t max_size, int shared)
{
	struct jc_cache_options o = { .dir = dir, .max_size = max_size, .shared = shared,
				      .lock_timeout = 1 };
	return jc_cache_open(&o);
}

/* A key in subdirectory first, distinct for each n. */
static inline struct jc_key make_key(int first, unsigned n)
{
	struct jc_key k;
	k.bytes[0] = (uint8_t)first;
	for (int i = 1; i < JC_KEY_BYTES; i++)
		k.bytes[i] = i <= 4 ? (uint8_t)(n >> (8 * (i - 1))) : (uint8_t)(0x5a ^ i);
	return k;
}

/* Deterministic bytes that differ with seed. */
static inline void fill(void *buf, size_t size, unsigned seed)
{
	uint32_t x = seed * 2654435761u + 1;
	uint8_t *p = buf;
	for (size_t i = 0; i < size; i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		p[i] = (uint8_t)x;
	}
}

/* Store size bytes of fill(seed) under k, with compile time 1000 + seed. */
static inline int put_bytes(struct jc_cache *c, struct jc_key k, size_t size, unsigned seed)
{
	void *buf = malloc(size ? size : 1);
	fill(buf, size, seed);
	int rc = jc_cache_put(c, &k, buf, size, 1000 + seed);
	free(buf);
	return rc;
}

/* 1 if e holds exactly what put_bytes(.., size, seed) stored. */
static inline int entry_is(const struct jc_entry *e, size_t size, unsigned seed)
{
	void *want = malloc(size ? size : 1);
	fill(want, size, seed);
	int ok = e->data && e->size == size && memcmp(e->data, want, size) == 0 &&
		 e->compile_ns == 1000 + seed;
	free(want);
	return ok;
}

/* 1 if k is a hit holding exactly what put_bytes(.., size, seed) stored. */
static inline int holds(struct jc_cache *c, struct jc_key k, size_t size, unsigned seed)
{
	struct jc_entry e;
	if (jc_cache_get(c, &k, &e) != 0)
		return 0;
	int ok = entry_is(&e, size, seed);
	jc_entry_free(&e);
	return ok;
}

static inline void entry_file(const char *dir, const struct jc_key *k, char out[PATH_MAX])
{
	char hex[2 * JC_KEY_BYTES + 1];
	jc_key_hex(k, hex);
	snprintf(out, PATH_MAX, "%s/%02x/%s", dir, k->bytes[0], hex);
}

static inline int file_exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

/* Bytes and number of entry files under dir, found by walking it; *temps
 * (if not NULL) gets the number of temporary files. */
static inline uint64_t dir_total(const char *dir, uint64_t *count, int *temps)
{
	uint64_t total = 0, n = 0;
	int t = 0;
	for (int sub = 0; sub < 256; sub++) {
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s/%02x", dir, sub);
		DIR *d = opendir(path);
		struct dirent *de;
		while (d && (de = readdir(d))) {
			struct stat st;
			if (strncmp(de->d_name, ".tmp.", 5) == 0)
				t++;
			if (strlen(de->d_name) != 2 * JC_KEY_BYTES ||
			    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
				continue;
			total += (uint64_t)st.st_size;
			n++;
		}
		if (d)
			closedir(d);
	}
	if (count)
		*count = n;
	if (temps)
		*temps = t;
	return total;
}

/* Run fn(arg) in a forked child; its CHECK lines print as usual and its
 * pass/fail counts are added here.  A child that dies counts as a failure. */
static inline void in_child(const char *what, void (*fn)(void *), void *arg)
{
	int p[2];
	int status = 0;
	if (pipe(p) != 0)
		return;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		check_passed = check_failed = 0;
		fn(arg);
		int r[2] = { check_passed, check_failed };
		ssize_t w = write(p[1], r, sizeof r);
		(void)w;
		fflush(stdout);
		_exit(0);
	}
	close(p[1]);
	int r[2];
	ssize_t n = read(p[0], r, sizeof r);
	close(p[0]);
	waitpid(pid, &status, 0);
	if (n == (ssize_t)sizeof r) {
		check_passed += r[0];
		check_failed += r[1];
	} else {
		CHECK(0, "%s: child test died (status 0x%x)", what, status);
	}
}

#endif
