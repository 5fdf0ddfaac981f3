// SPDX-License-Identifier: MIT
/* stats.c — this process's counts, and the statistics and management calls
 * of cache.h, which the local store answers (store/store.h). */
#include "cache/internal.h"

#include "config/escape.h"
#include "config/log.h"
#include "store/fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- this process's counts ---------------------------------------------- */

/* 1 if c->counts are this process's: a child of fork() inherits its
 * parent's, which are not its own (its exit line and stats_log line say
 * what it did). */
static int counts_are_mine(const struct jc_cache *c)
{
	return __atomic_load_n(&c->counts_pid, __ATOMIC_ACQUIRE) == getpid();
}

void jc_cache_counted(void *ctx, const uint64_t *delta)
{
	struct jc_cache *c = ctx;
	if (!counts_are_mine(c)) {
		for (int i = 0; i < JC_NCOUNTERS; i++)
			__atomic_store_n(&c->counts[i], 0, __ATOMIC_RELAXED);
		__atomic_store_n(&c->counts_pid, getpid(), __ATOMIC_RELEASE);
	}
	for (int i = 0; i < JC_NCOUNTERS; i++)
		if (delta[i])
			__atomic_add_fetch(&c->counts[i], delta[i], __ATOMIC_RELAXED);
}

void jc_cache_count(struct jc_cache *c, const uint64_t delta[JC_NCOUNTERS],
		    uint64_t shared_after[JC_NCOUNTERS])
{
	jc_cache_counted(c, delta);
	if (c->store)
		jc_store_count(c->store, delta, shared_after);
	else if (shared_after)
		memset(shared_after, 0, sizeof(uint64_t) * JC_NCOUNTERS);
}

void jc_cache_process_stats(const struct jc_cache *cache, struct jc_cache_stats *out)
{
	uint64_t v[JC_NCOUNTERS];
	int mine = counts_are_mine(cache);
	for (int i = 0; i < JC_NCOUNTERS; i++)
		v[i] = mine ? __atomic_load_n(&cache->counts[i], __ATOMIC_RELAXED) : 0;
	memset(out, 0, sizeof *out);
	jc_stats_fill(v, out);
}

/* One more of one counter, from this process. */
static void count_one(struct jc_cache *c, enum jc_counter which)
{
	if (!c)
		return;
	uint64_t delta[JC_NCOUNTERS] = { 0 };
	delta[which] = 1;
	jc_cache_count(c, delta, NULL);
}

void jc_cache_count_build_failure(struct jc_cache *c)
{
	count_one(c, JC_BUILD_FAILURES);
}

void jc_cache_count_failure_hit(struct jc_cache *c)
{
	count_one(c, JC_FAILED_HITS);
}

void jc_cache_count_pass(struct jc_cache *c, enum jc_pass why)
{
	static const enum jc_counter counter[] = { [JC_PASS_NATIVE] = JC_PASSED_NATIVE,
						   [JC_PASS_COMPILE_LINK] = JC_PASSED_COMPILE_LINK,
						   [JC_PASS_NOT_KEYABLE] = JC_PASSED_NOT_KEYABLE };
	count_one(c, counter[why]);
}

/* ---- the shared counters and the admin's calls: the store's --------------- */

void jc_cache_flush(struct jc_cache *cache)
{
	if (cache)
		jc_store_flush(cache->store);
}

int jc_cache_zero_stats(struct jc_cache *cache)
{
	return cache ? jc_store_zero_stats(cache->store) : -1;
}

int jc_cache_shared_stats(struct jc_cache *cache, struct jc_cache_stats *out)
{
	if (cache->store)
		return jc_store_shared_stats(cache->store, out);
	memset(out, 0, sizeof *out);
	return -1;
}

int jc_cache_clear(struct jc_cache *cache)
{
	return cache->store ? jc_store_clear(cache->store) : -1;
}

int jc_cache_trim(struct jc_cache *cache, uint64_t max_size)
{
	return cache->store ? jc_store_trim(cache->store, max_size) : -1;
}

int jc_cache_trim_unused(struct jc_cache *cache, int64_t used_before_ns)
{
	return cache->store ? jc_store_trim_unused(cache->store, used_before_ns) : -1;
}

long jc_cache_verify(struct jc_cache *cache, FILE *out)
{
	return cache->store ? jc_store_verify(cache->store, out) : -1;
}

/* ---- stats_log ---------------------------------------------------------- */

extern char *program_invocation_short_name;

/* stats_log: a regular file, or a character device (a terminal, /dev/null),
 * opened without waiting.  A FIFO is refused (JC_ENOTREG): opening one
 * whose reader has gone would wait for ever, and writing to one whose
 * reader leaves would kill the program with SIGPIPE. */
static int open_log(const char *file)
{
	struct stat st;
	int fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY |
			    O_NONBLOCK, 0666);
	if (fd < 0 && errno == ENXIO)
		errno = JC_ENOTREG; /* a FIFO with no reader, or a socket */
	if (fd < 0 || (fstat(fd, &st) == 0 && (S_ISREG(st.st_mode) || S_ISCHR(st.st_mode))))
		return fd;
	close(fd);
	errno = JC_ENOTREG;
	return -1;
}

int jc_cache_stats_log(const struct jc_cache *cache, const char *file)
{
	struct jc_cache_stats s;
	char *line = NULL, when[32];
	size_t size = 0;
	time_t now = time(NULL);
	struct tm tm;
	if (!cache || !file || !*file)
		return 0;
	jc_cache_process_stats(cache, &s);
	FILE *m = open_memstream(&line, &size);
	if (!m)
		return -1;
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
	fprintf(m, "{\"time\": \"%s\", \"program\": ", when);
	jc_json_string(m, program_invocation_short_name ? program_invocation_short_name : "");
	fprintf(m, ", \"pid\": %ld, \"dir\": ", (long)getpid());
	jc_json_string(m, cache->store ? jc_store_dir(cache->store) : "");
	fprintf(m, ", \"hits\": %llu, \"misses\": %llu", (unsigned long long)s.hits,
		(unsigned long long)s.misses);
	jc_stats_json_parts(m, &s);
	fprintf(m, "}\n");
	if (fclose(m) != 0) {
		free(line);
		return -1;
	}
	int fd = open_log(file);
	ssize_t n = fd >= 0 ? write(fd, line, size) : -1;
	int err = errno;
	if (fd >= 0)
		close(fd);
	free(line);
	if (n == (ssize_t)size)
		return 0;
	JC_LOG_ONCE(JC_LOG_INFO, "cannot append to stats_log %s (%s)", file,
		    n < 0 ? jc_fs_strerror(err) : "short write");
	return -1;
}
