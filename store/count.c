/* count.c — this process's counters and the shared ones (see internal.h). */
#include "store/internal.h"

#include "config/log.h"

#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- statistics ------------------------------------------------------- */

/* Hits go to the statistics file in batches.  Adding to the file is an open,
 * a lock, a read, a write, an unlock and a close: ~30 us on the first hit of
 * a process, as much as reading a small entry, and on every hit after that
 * a third of its cost.  So a count of hits alone (with the compile time they
 * saved, layer hits, and requests passed through) waits in c->pending, and
 * all that waits goes to the file with the next count of anything else (a
 * miss, a store...), with the first hit that comes a second or more after
 * the oldest waiting one, and
 * at jc_cache_flush() (at exit, for the shim), jc_cache_shared_stats() and
 * jc_cache_close().  A process killed by a signal loses the hits of its
 * last second or so from the shared counts, nothing else. */
#define JC_PENDING_NS 1000000000

static int hits_only(const uint64_t delta[JC_NCOUNTERS])
{
	for (int i = 0; i < JC_NCOUNTERS; i++)
		if (delta[i] && i != JC_HITS && i != JC_SAVED_NS && i != JC_LAYER_HITS &&
		    i != JC_PASSED_NATIVE && i != JC_PASSED_COMPILE_LINK &&
		    i != JC_PASSED_NOT_KEYABLE)
			return 0;
	return 1;
}

static int64_t monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Counts waiting in a process that forked are the parent's to write: the
 * child starts with none. */
static void adopt_pending(struct jc_cache *c)
{
	pid_t pid = getpid();
	if (__atomic_load_n(&c->pending_pid, __ATOMIC_RELAXED) == pid)
		return;
	for (int i = 0; i < JC_NCOUNTERS; i++)
		__atomic_store_n(&c->pending[i], 0, __ATOMIC_RELAXED);
	__atomic_store_n(&c->pending_since, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&c->pending_pid, pid, __ATOMIC_RELEASE);
}

/* 1 if what waits may wait longer (it is under a second old). */
static int may_wait(struct jc_cache *c)
{
	int64_t now = monotonic_ns(), since = 0;
	if (__atomic_compare_exchange_n(&c->pending_since, &since, now, 0, __ATOMIC_RELAXED,
					__ATOMIC_RELAXED))
		return 1; /* nothing waited: the clock starts now */
	return now - since < JC_PENDING_NS;
}

/* Add everything waiting to the statistics file. */
static void write_pending(struct jc_cache *c, uint64_t shared_after[JC_NCOUNTERS])
{
	uint64_t delta[JC_NCOUNTERS];
	__atomic_store_n(&c->pending_since, 0, __ATOMIC_RELAXED);
	for (int i = 0; i < JC_NCOUNTERS; i++)
		delta[i] = __atomic_exchange_n(&c->pending[i], 0, __ATOMIC_RELAXED);
	if (jc_stats_add(c->dir, delta, shared_after) == 0)
		return;
	if (errno == ENOENT || errno == EBADMSG) { /* removed or damaged: make it anew */
		if (jc_dir_usable(c) == 0 && jc_stats_init(c->dir, c->file_mode) == 1)
			jc_resync_all(c);
		if (jc_stats_add(c->dir, delta, shared_after) == 0)
			return;
	}
	JC_LOG_ONCE(JC_LOG_INFO, "cannot update the statistics file in %s (%s); "
		    "counting in this process only", c->shown, strerror(errno));
	if (shared_after)
		memset(shared_after, 0, sizeof(uint64_t) * JC_NCOUNTERS);
}

void jc_count(struct jc_cache *c, const uint64_t delta[JC_NCOUNTERS],
	      uint64_t shared_after[JC_NCOUNTERS])
{
	for (int i = 0; i < JC_NCOUNTERS; i++)
		if (delta[i])
			__atomic_add_fetch(&c->counts[i], delta[i], __ATOMIC_RELAXED);
	if (!c->local) {
		if (shared_after)
			memset(shared_after, 0, sizeof(uint64_t) * JC_NCOUNTERS);
		return;
	}
	adopt_pending(c);
	for (int i = 0; i < JC_NCOUNTERS; i++)
		if (delta[i])
			__atomic_add_fetch(&c->pending[i], delta[i], __ATOMIC_RELAXED);
	if (!shared_after && hits_only(delta) && may_wait(c))
		return;
	write_pending(c, shared_after);
}

void jc_cache_flush(struct jc_cache *cache)
{
	if (!cache || !cache->local)
		return;
	adopt_pending(cache);
	if (__atomic_load_n(&cache->pending_since, __ATOMIC_RELAXED))
		write_pending(cache, NULL);
}

static void fill_stats(const uint64_t v[JC_NCOUNTERS], struct jc_cache_stats *out)
{
#define X(NAME, field, label) out->field = v[JC_##NAME];
	JC_COUNTERS(X)
#undef X
}

void jc_cache_process_stats(const struct jc_cache *cache, struct jc_cache_stats *out)
{
	uint64_t v[JC_NCOUNTERS];
	for (int i = 0; i < JC_NCOUNTERS; i++)
		v[i] = __atomic_load_n(&cache->counts[i], __ATOMIC_RELAXED);
	memset(out, 0, sizeof *out);
	fill_stats(v, out);
}

int jc_cache_shared_stats(struct jc_cache *cache, struct jc_cache_stats *out)
{
	uint64_t v[JC_NCOUNTERS];
	struct jc_usage u[JC_SUBDIRS];
	memset(out, 0, sizeof *out);
	jc_cache_flush(cache);
	if (!cache->local || jc_stats_read(cache->dir, v) != 0 || jc_stats_usage_all(cache->dir, u) != 0)
		return -1;
	fill_stats(v, out);
	for (int i = 0; i < JC_SUBDIRS; i++) {
		/* Written by a jitcache that counted recipes as entries: recount. */
		if (u[i].recipes == JC_USAGE_UNSPLIT && jc_dir_usable(cache) == 0) {
			jc_resync(cache, i);
			if (jc_stats_usage_all(cache->dir, u) != 0)
				return -1;
		}
		uint64_t recipes = u[i].recipes == JC_USAGE_UNSPLIT ? 0 : u[i].recipes;
		out->entries += jc_sub_sat(u[i].count, recipes);
		out->recipes += recipes;
		out->size += u[i].size;
	}
	return 0;
}

/* One more of one counter, from this process. */
static void count_one(struct jc_cache *c, enum jc_counter which)
{
	if (!c)
		return;
	uint64_t delta[JC_NCOUNTERS] = { 0 };
	delta[which] = 1;
	jc_count(c, delta, NULL);
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
