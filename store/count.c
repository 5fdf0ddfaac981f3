// SPDX-License-Identifier: MIT
/* count.c — the shared counters (see internal.h). */
#include "store/internal.h"
#include "config/clock.h"

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

/* ---- statistics ------------------------------------------------------- */

/* Every count goes to the statistics file as it happens: an open, a lock,
 * a read, a write, an unlock and a close (~10-30 us), beside a hit's read
 * of the entry and the driver's load of a binary (milliseconds).  Hits
 * were once batched and written at exit, and a server stopped with
 * SIGTERM then SIGKILL lost all of them (issue 31); now `jitcache stats`
 * sees a count as soon as the call that made it returns, with no thread
 * or timer of jitcache's in the program, and a process killed at any
 * moment loses at most the one update it was making.
 *
 * The counters' lock is held for a read and a write.  A holder that keeps
 * it (a process stopped with Ctrl-Z inside it, or any program that opened
 * the file, or only one the scheduler stopped there while 64 processes
 * count at once on two cores) must not slow the hits of others: a count
 * waits at most COUNT_WAIT for it, and after a wait that failed, for
 * BUSY_PAUSE, only tries once.  A count that cannot have it is set aside
 * (stats.c: a file of this process's own beside the statistics file, which
 * the next count that has the lock folds in, and which `jitcache stats`
 * counts meanwhile), so that it too is in the cache directory before the
 * call returns.  Only what cannot be set aside either (that file's own
 * lock held as long, the disk full) waits in s->pending for the next count
 * or for jc_store_flush() at exit; what the exit cannot write either is
 * said in one line, with how many (its own exit line and stats_log line
 * keep them: cache/stats.c). */
#define COUNT_WAIT 0.005
#define FLUSH_WAIT 0.05
#define BUSY_PAUSE_NS 1000000000

/* 1 if s->pending are this process's: a child of fork() inherits its
 * parent's, which are not its own. */
static int pending_are_mine(const struct jc_store *s)
{
	return __atomic_load_n(&s->pending_pid, __ATOMIC_ACQUIRE) == getpid();
}

/* Take this process's pending counts into sum (delta plus them).  Those a
 * child of fork() finds are its parent's: dropped.  Only a process that
 * finds some asks who it is, so a count costs no getpid() of its own. */
static int take_pending(struct jc_store *s, const uint64_t *delta, uint64_t sum[JC_NCOUNTERS])
{
	uint64_t p[JC_NCOUNTERS];
	int any = 0, found = 0;
	for (int i = 0; i < JC_NCOUNTERS; i++) {
		p[i] = __atomic_exchange_n(&s->pending[i], 0, __ATOMIC_RELAXED);
		found |= p[i] != 0;
	}
	if (found && !pending_are_mine(s)) {
		memset(p, 0, sizeof p);
		__atomic_store_n(&s->pending_pid, getpid(), __ATOMIC_RELEASE);
	}
	for (int i = 0; i < JC_NCOUNTERS; i++) {
		sum[i] = (delta ? delta[i] : 0) + p[i];
		any |= sum[i] != 0;
	}
	return any;
}

static void keep_pending(struct jc_store *s, const uint64_t sum[JC_NCOUNTERS])
{
	__atomic_store_n(&s->pending_pid, getpid(), __ATOMIC_RELEASE); /* this process's now */
	for (int i = 0; i < JC_NCOUNTERS; i++)
		if (sum[i])
			__atomic_add_fetch(&s->pending[i], sum[i], __ATOMIC_RELAXED);
}

/* Add sum to the file, waiting at most wait (less after a busy lock):
 * 0, or -1 with the counts kept pending when the lock was busy. */
static int add_or_keep(struct jc_store *c, const uint64_t sum[JC_NCOUNTERS],
		       uint64_t shared_after[JC_NCOUNTERS], double wait)
{
	int64_t now = jc_wall_ns();
	if (now - __atomic_load_n(&c->counters_busy_ns, __ATOMIC_RELAXED) < BUSY_PAUSE_NS)
		wait = 0; /* one attempt */
	if (jc_stats_add(c->dir, sum, shared_after, wait) == 0)
		return 0;
	if (errno == ETIMEDOUT) {
		__atomic_store_n(&c->counters_busy_ns, jc_wall_ns(), __ATOMIC_RELAXED);
		if (shared_after) /* not known: the counts went aside */
			memset(shared_after, 0, sizeof(uint64_t) * JC_NCOUNTERS);
		if (jc_stats_aside(c->dir, c->lock_mode, sum, wait) == 0)
			return 0;
		keep_pending(c, sum);
		errno = ETIMEDOUT;
	}
	return -1;
}

static void write_counts(struct jc_store *c, const uint64_t delta[JC_NCOUNTERS],
			 uint64_t shared_after[JC_NCOUNTERS])
{
	/* Only through a descriptor still ours (issue 35: never into a
	 * directory the program put under a number it reused). */
	if (jc_dir_usable(c) != 0) { /* said why */
		if (shared_after)
			memset(shared_after, 0, sizeof(uint64_t) * JC_NCOUNTERS);
		return;
	}
	uint64_t sum[JC_NCOUNTERS];
	take_pending(c, delta, sum);
	if (add_or_keep(c, sum, shared_after, COUNT_WAIT) == 0)
		return;
	if (errno == ENOENT || errno == EBADMSG || errno == JC_ENOTREG) { /* made anew */
		if (jc_dir_usable(c) == 0 && jc_stats_init(c->dir, c->lock_mode) == 1)
			jc_resync_all(c);
		if (add_or_keep(c, sum, shared_after, COUNT_WAIT) == 0)
			return;
	}
	if (shared_after)
		memset(shared_after, 0, sizeof(uint64_t) * JC_NCOUNTERS);
	if (errno == ETIMEDOUT)
		return; /* kept pending */
	int err = errno;
	if (!jc_store_unwritable(c, JC_LOG_INFO)) /* else said once, with why */
		JC_LOG_ONCE(JC_LOG_INFO, "cannot update the statistics file in %s (%s); "
			    "counting in this process only", c->shown, jc_fs_strerror(err));
}

void jc_store_count(struct jc_store *s, const uint64_t *delta, uint64_t *shared_after)
{
	write_counts(s, delta, shared_after);
}

void jc_store_count_own(struct jc_store *s, const uint64_t delta[JC_NCOUNTERS],
			uint64_t shared_after[JC_NCOUNTERS])
{
	if (s->counted)
		s->counted(s->counted_ctx, delta);
	jc_store_count(s, delta, shared_after);
}

void jc_store_flush(struct jc_store *s)
{
	uint64_t sum[JC_NCOUNTERS];
	if (!s || !take_pending(s, NULL, sum))
		return;
	__atomic_store_n(&s->counters_busy_ns, 0, __ATOMIC_RELAXED);
	if (jc_dir_usable(s) == 0 && add_or_keep(s, sum, NULL, FLUSH_WAIT) == 0)
		return;
	/* Lost from the shared statistics (the process ends: nobody will
	 * write what is pending): say so, with how many. */
	int err = errno;
	for (int i = 0; i < JC_NCOUNTERS; i++)
		__atomic_store_n(&s->pending[i], 0, __ATOMIC_RELAXED);
	jc_log(JC_LOG_WARN, "the statistics file in %s could not be updated at exit (%s): %llu "
	       "hits, %llu misses and the other counts of this process are missing from "
	       "`jitcache stats`", s->shown, jc_fs_strerror(err),
	       (unsigned long long)sum[JC_HITS], (unsigned long long)sum[JC_MISSES]);
}

int jc_store_zero_stats(struct jc_store *s)
{
	if (!s)
		return -1;
	return jc_stats_zero(s->dir);
}

void jc_stats_fill(const uint64_t *v, struct jc_cache_stats *out)
{
#define X(NAME, field, label) out->field = v[JC_##NAME];
	JC_COUNTERS(X)
#undef X
	for (int i = 0; i < JC_TIER_SLOTS; i++)
		out->tier_hits[i] = v[JC_TIER_HITS(i)];
}

/* Anyone who may write the cache directory may write any numbers into its
 * statistics file.  No counter reaches 2^62 (hits at a million a second for
 * 146 000 years, 146 years of compile time saved in nanoseconds, 4 EiB
 * stored), and no
 * subdirectory holds 2^54 bytes or entries (16 PiB): such values are shown
 * as 0, with one line, and such a usage record is recounted. */
#define COUNTER_MAX (1ull << 62)
#define USAGE_MAX (1ull << 54)

static void drop_absurd(const struct jc_store *c, uint64_t v[JC_NCOUNTERS])
{
	int absurd = 0;
	for (int i = 0; i < JC_NCOUNTERS; i++)
		if (v[i] >= COUNTER_MAX)
			v[i] = 0, absurd = 1;
	if (absurd)
		JC_LOG_ONCE(JC_LOG_WARN, "the statistics file in %s holds impossible counts "
			    "(2^62 or more); they are shown as 0 (`jitcache stats --zero` starts "
			    "the counters again)", c->shown);
}

static int usage_absurd(const struct jc_usage *u)
{
	return u->size >= USAGE_MAX || u->count >= USAGE_MAX ||
	       (u->recipes != JC_USAGE_UNSPLIT && u->recipes > u->count);
}

int jc_store_shared_stats(struct jc_store *cache, struct jc_cache_stats *out)
{
	uint64_t v[JC_NCOUNTERS];
	struct jc_usage u[JC_SUBDIRS];
	memset(out, 0, sizeof *out);
	if (!cache || jc_stats_read(cache->dir, v) != 0 || jc_stats_usage_all(cache->dir, u) != 0)
		return -1;
	drop_absurd(cache, v);
	jc_stats_fill(v, out);
	if (jc_stats_since(cache->dir, &out->since_ns) != 0 || out->since_ns < 0 ||
	    out->since_ns > jc_wall_ns() + 86400 * (int64_t)1000000000)
		out->since_ns = 0; /* not recorded, or not a time */
	for (int i = 0; i < JC_SUBDIRS; i++) {
		/* Written by a jitcache that counted recipes as entries, or
		 * impossible: recount. */
		if ((u[i].recipes == JC_USAGE_UNSPLIT || usage_absurd(&u[i])) &&
		    jc_dir_usable(cache) == 0) {
			jc_resync(cache, i);
			if (jc_stats_usage_all(cache->dir, u) != 0)
				return -1;
		}
		if (usage_absurd(&u[i]))
			continue; /* could not be recounted (a read-only cache) */
		uint64_t recipes = u[i].recipes == JC_USAGE_UNSPLIT ? 0 : u[i].recipes;
		out->entries += jc_sub_sat(u[i].count, recipes);
		out->recipes += recipes;
		out->size += u[i].size;
	}
	return 0;
}

/* ---- statistics as JSON and Prometheus ---------------------------------- */

/* The misses by cause: JSON key, Prometheus label and counter. */
#define MISS_CAUSES(X)                                     \
	X("not_found",   JC_MISS_NOT_FOUND,   miss_not_found)   \
	X("damaged",     JC_MISS_CORRUPT,     miss_corrupt)     \
	X("rejected",    JC_MISS_REJECTED,    miss_rejected)    \
	X("not_trusted", JC_MISS_UNTRUSTED,   miss_untrusted)   \
	X("unreachable", JC_MISS_UNREACHABLE, miss_unreachable) \
	X("changed",     JC_MISS_CHANGED,     miss_changed) \
	X("login_refused", JC_MISS_LOGIN_REFUSED, miss_login_refused)

/* How many slots of a tier to show: 1, or for one of several instances
 * (the layers) up to the last with a hit. */
static int shown_slots(const struct jc_cache_stats *s, int slot, int n)
{
	int last = 0;
	for (int i = 0; i < n; i++)
		if (s->tier_hits[slot + i])
			last = i + 1;
	return last;
}

void jc_stats_json_parts(FILE *out, const struct jc_cache_stats *s)
{
	uint64_t lookups = s->hits + s->misses;
	if (lookups)
		fprintf(out, ", \"hit_rate\": %.4f", (double)s->hits / (double)lookups);
	else
		fprintf(out, ", \"hit_rate\": null");
	fprintf(out, ", \"hits_by_tier\": {");
	const char *sep = "";
#define X(NAME, name, slot, n)                                              \
	if (n == 1) {                                                              \
		fprintf(out, "%s\"%s\": %llu", sep, #name,                         \
			(unsigned long long)s->tier_hits[slot]);                   \
	} else {                                                                   \
		fprintf(out, "%s\"%s\": [", sep, #name);                           \
		for (int i = 0, k = shown_slots(s, slot, n); i < k; i++)           \
			fprintf(out, "%s%llu", i ? ", " : "",                      \
				(unsigned long long)s->tier_hits[slot + i]);        \
		fprintf(out, "]");                                                 \
	}                                                                          \
	sep = ", ";
	JC_TIERS(X)
#undef X
	fprintf(out, "}, \"misses_by_cause\": {");
	sep = "";
#define X(key, counter, field) \
	fprintf(out, "%s\"%s\": %llu", sep, key, (unsigned long long)s->field), sep = ", ";
	MISS_CAUSES(X)
#undef X
	fprintf(out, ", \"build_failed\": %llu}", (unsigned long long)s->build_failures);
	/* Every local store is made in the program before the call returns;
	 * the remote writes of a process are done or dropped (counted) by its
	 * end: none is pending once counted. */
	fprintf(out, ", \"stores_by_tier\": {\"local\": %llu, \"remote\": %llu, \"failed\": %llu, "
		"\"pending\": 0, \"dropped\": %llu}", (unsigned long long)s->stores,
		(unsigned long long)s->remote_stores, (unsigned long long)s->store_failures,
		(unsigned long long)s->remote_dropped);
	fprintf(out, ", \"saved_s\": {\"cpu\": %.3f, \"wall\": %.3f}", (double)s->saved_ns / 1e9,
		(double)s->saved_wall_ns / 1e9);
}

/* A label value: backslash, double quote and newline escaped. */
static void prom_label(FILE *out, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fprintf(out, "\\%c", *v);
		else if (*v == '\n')
			fputs("\\n", out);
		else
			fputc(*v, out);
	}
}

static void prom_head(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP jitcache_%s %s\n# TYPE jitcache_%s %s\n", name, help, name, type);
}

static void prom_sample(FILE *out, const char *name, const char *dir, const char *labels,
			double v)
{
	fprintf(out, "jitcache_%s{dir=\"", name);
	prom_label(out, dir);
	fprintf(out, "\"%s%s} %.17g\n", labels && *labels ? "," : "", labels ? labels : "", v);
}

void jc_stats_prometheus(FILE *out, const struct jc_cache_stats *s, const char *dir,
			 uint64_t max_size)
{
	char l[96];
	prom_head(out, "hits_total", "counter", "Lookups answered from the cache, by tier.");
#define X(NAME, name, slot, n)                                              \
	for (int i = 0, k = n == 1 ? 1 : shown_slots(s, slot, n); i < k; i++) {      \
		if (n == 1)                                                        \
			snprintf(l, sizeof l, "tier=\"%s\"", #name);               \
		else                                                               \
			snprintf(l, sizeof l, "tier=\"%s\",%s=\"%d\"", #name, #name, i + 1); \
		prom_sample(out, "hits_total", dir, l, (double)s->tier_hits[slot + i]); \
	}
	JC_TIERS(X)
#undef X
	prom_head(out, "misses_total", "counter", "Lookups that found no usable entry, by cause.");
#define X(key, counter, field)                                                     \
	snprintf(l, sizeof l, "cause=\"%s\"", key);                                \
	prom_sample(out, "misses_total", dir, l, (double)s->field);
	MISS_CAUSES(X)
#undef X
	prom_head(out, "build_failures_total", "counter", "Compiles after a miss that failed.");
	prom_sample(out, "build_failures_total", dir, NULL, (double)s->build_failures);
	prom_head(out, "stores_total", "counter",
		  "Entries stored: in the local store, and values written to the remotes (all kinds).");
	prom_sample(out, "stores_total", dir, "tier=\"local\"", (double)s->stores);
	prom_sample(out, "stores_total", dir, "tier=\"remote\"", (double)s->remote_stores);
	prom_head(out, "store_failures_total", "counter", "Stores that failed.");
	prom_sample(out, "store_failures_total", dir, NULL, (double)s->store_failures);
	prom_head(out, "saved_seconds_total", "counter",
		  "Compile time the hits saved: the compiler's CPU time and the wall time waited.");
	prom_sample(out, "saved_seconds_total", dir, "clock=\"cpu\"", (double)s->saved_ns / 1e9);
	prom_sample(out, "saved_seconds_total", dir, "clock=\"wall\"",
		    (double)s->saved_wall_ns / 1e9);
	prom_head(out, "remote_wait_seconds_total", "counter",
		  "Wall time the programs waited for remote lookups, timeouts included.");
	prom_sample(out, "remote_wait_seconds_total", dir, NULL, (double)s->remote_wait_ns / 1e9);
	prom_head(out, "evictions_total", "counter", "Entries evicted to stay under max_size.");
	prom_sample(out, "evictions_total", dir, NULL, (double)s->evictions);
	prom_head(out, "entries", "gauge", "Entries in the cache directory (recipes apart).");
	prom_sample(out, "entries", dir, NULL, (double)s->entries);
	prom_head(out, "size_bytes", "gauge", "Bytes of entry and recipe files.");
	prom_sample(out, "size_bytes", dir, NULL, (double)s->size);
	prom_head(out, "max_size_bytes", "gauge", "The size cap (0: none).");
	prom_sample(out, "max_size_bytes", dir, NULL, (double)max_size);
	if (s->since_ns) {
		prom_head(out, "stats_since_seconds", "gauge",
			  "When the counters started (Unix time): the cache was made or zeroed.");
		prom_sample(out, "stats_since_seconds", dir, NULL, (double)(s->since_ns / 1000000000));
	}
}
