/*
 * evict.c — keeping the cache under its cap, and the management commands.
 *
 * Eviction is incremental.  Before a store renames its entry into place
 * (holding the store lock of stats.h, so that concurrent stores cannot all
 * see room for themselves), jc_make_room() sums the 256 usage records (one
 * read of the statistics file); only when the total would pass max_size
 * does it clean, one subdirectory per round and at most CLEAN_ROUNDS
 * rounds, until the total is under 90% of the cap.  Each round
 * picks the subdirectory whose oldest entry is the oldest of all (the usage
 * records keep that time), scans just that subdirectory, and removes its
 * entries oldest first while they are older than every other subdirectory's
 * oldest entry, then at most another eighth of the subdirectory.  With few
 * entries this is exact LRU; with many, each round frees a useful amount
 * without visiting the whole cache.  A hit moves an entry's mtime forward,
 * which can leave a record's oldest time too old: the round that picks that
 * subdirectory then removes nothing and corrects the record.
 *
 * Every scan of a subdirectory also recounts its usage record and removes
 * stale temporary and lock files (scan.c).
 *
 * trim, clear and verify are for the `jitcache` command: they visit every
 * subdirectory, and trim evicts in exact LRU order over the whole cache.
 */
#include "cache/internal.h"

#include "cache/fsutil.h"
#include "config/log.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CLEAN_ROUNDS 8

/* The non-empty subdirectory holding the oldest entry; *bound gets the
 * oldest entry time of all the others. */
static int oldest_subdir(const struct jc_usage u[JC_SUBDIRS], int64_t *bound)
{
	int best = -1;
	*bound = INT64_MAX;
	for (int i = 0; i < JC_SUBDIRS; i++) {
		if (u[i].count == 0)
			continue;
		if (best < 0 || u[i].oldest_ns < u[best].oldest_ns) {
			if (best >= 0)
				*bound = u[best].oldest_ns;
			best = i;
		} else if (u[i].oldest_ns < *bound) {
			*bound = u[i].oldest_ns;
		}
	}
	return best;
}

static void count_evictions(struct jc_cache *c, long n)
{
	if (n > 0)
		jc_count(c, (uint64_t[JC_NCOUNTERS]){ [JC_EVICTIONS] = (uint64_t)n }, NULL);
}

void jc_make_room(struct jc_cache *c, uint64_t incoming)
{
	uint64_t target = c->max_size - c->max_size / 10;
	for (int round = 0; c->max_size && round < CLEAN_ROUNDS; round++) {
		struct jc_usage u[JC_SUBDIRS];
		uint64_t total = incoming;
		if (jc_stats_usage_all(c->dir, u) != 0)
			return;
		for (int i = 0; i < JC_SUBDIRS; i++)
			total += u[i].size;
		/* Start only past the cap; once started, go down to the target. */
		if (total <= (round == 0 ? c->max_size : target))
			return;
		struct jc_quota q = { .need = total - target };
		int sub = oldest_subdir(u, &q.bound);
		long removed = sub < 0 ? -1 : jc_clean_subdir(c, sub, &q);
		if (removed < 0)
			return;
		count_evictions(c, removed);
	}
}

int jc_cache_clear(struct jc_cache *cache)
{
	struct jc_quota q = { .bound = INT64_MAX, .need = UINT64_MAX, .all_locks = 1 };
	int rc = 0;
	if (!cache->local)
		return -1;
	jc_stats_init(cache->dir, cache->file_mode);
	for (int sub = 0; sub < JC_SUBDIRS; sub++)
		if (jc_clean_subdir(cache, sub, &q) < 0)
			rc = -1;
	return rc;
}

/* Every entry of the cache, recounting each subdirectory on the way. */
static int list_all(struct jc_cache *c, struct jc_listing *all)
{
	int rc = 0;
	for (int sub = 0; sub < JC_SUBDIRS; sub++) {
		struct jc_usage u;
		size_t first = all->n;
		int lock = jc_lock_and_list(c, sub, 0, all, &u);
		if (lock < 0) {
			rc = -1;
			continue;
		}
		jc_usage_of(all, first, &u);
		jc_usage_commit(lock, sub, &u);
	}
	return rc;
}

int jc_cache_trim(struct jc_cache *cache, uint64_t max_size)
{
	struct jc_listing all = { 0 };
	long removed = 0;
	if (!cache->local)
		return -1;
	jc_stats_init(cache->dir, cache->file_mode);
	int rc = list_all(cache, &all);
	jc_sort_by_age(&all);
	for (size_t i = 0; i < all.n && all.size > max_size; i++) {
		/* Skipped if used (or replaced) since it was listed. */
		if (jc_remove_entry(cache, all.v[i].sub, all.v[i].name, &all.v[i].id) == 0) {
			all.size -= all.v[i].size;
			removed++;
		}
	}
	free(all.v);
	count_evictions(cache, removed);
	return rc;
}

static void key_of(const char *hex, struct jc_key *key)
{
	for (int i = 0; i < JC_KEY_BYTES; i++) {
		char byte[3] = { hex[2 * i], hex[2 * i + 1], '\0' };
		key->bytes[i] = (uint8_t)strtoul(byte, NULL, 16);
	}
}

/* Read and check one entry; remove it if bad.  1 if it was bad; *recipe
 * says whether a good one is a recipe. */
static int check_entry(struct jc_cache *c, const struct jc_item *it, FILE *out, int *recipe)
{
	char path[PATH_MAX];
	struct jc_key key;
	struct jc_entry e;
	const char *why = "";
	key_of(it->name, &key);
	jc_file_path(c, it->sub, it->name, path);
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	enum jc_entry_status status = jc_read_entry(fd, &key, &e, &why);
	uint8_t flags = 0;
	*recipe = status == JC_ENTRY_OK && pread(fd, &flags, 1, 12) == 1 &&
		  (flags & JC_ENTRY_RECIPE);
	close(fd);
	if (status == JC_ENTRY_OK)
		jc_entry_free(&e);
	if (status == JC_ENTRY_OK || status == JC_ENTRY_UNREADABLE || unlink(path) != 0)
		return 0;
	if (out)
		fprintf(out, "removed %s: %s\n", path, why);
	return 1;
}

/* Check every entry of one subdirectory under its record lock, leaving the
 * good ones in l (and adding the recipes among them to *recipes).  Returns
 * the number of bad ones, or -1. */
static long verify_subdir(struct jc_cache *c, int sub, FILE *out, struct jc_listing *l,
			  uint64_t *recipes)
{
	struct jc_usage u;
	size_t kept = 0;
	int lock = jc_lock_and_list(c, sub, 0, l, &u);
	if (lock < 0)
		return -1;
	for (size_t i = 0; i < l->n; i++) {
		int recipe = 0;
		if (!check_entry(c, &l->v[i], out, &recipe)) {
			l->v[kept++] = l->v[i];
			*recipes += (uint64_t)recipe;
		}
	}
	long bad = (long)(l->n - kept);
	l->n = kept;
	jc_usage_of(l, 0, &u);
	jc_usage_commit(lock, sub, &u);
	l->size = u.size;
	return bad;
}

long jc_cache_verify(struct jc_cache *cache, FILE *out)
{
	uint64_t entries = 0, bytes = 0, recipes = 0;
	long bad = 0, failed = 0;
	if (!cache->local)
		return -1;
	jc_stats_init(cache->dir, cache->file_mode);
	for (int sub = 0; sub < JC_SUBDIRS; sub++) {
		struct jc_listing l = { 0 };
		long n = verify_subdir(cache, sub, out, &l, &recipes);
		if (n < 0)
			failed++;
		else
			bad += n;
		entries += l.n;
		bytes += l.size;
		free(l.v);
	}
	if (bad)
		jc_count(cache, (uint64_t[JC_NCOUNTERS]){ [JC_CORRUPT] = (uint64_t)bad }, NULL);
	if (out && recipes)
		fprintf(out, "%llu good entries (%llu bytes; %llu of them recipes), %ld bad "
			"removed%s\n", (unsigned long long)entries, (unsigned long long)bytes,
			(unsigned long long)recipes, bad,
			failed ? "; some subdirectories could not be checked" : "");
	else if (out)
		fprintf(out, "%llu good entries (%llu bytes), %ld bad removed%s\n",
			(unsigned long long)entries, (unsigned long long)bytes, bad,
			failed ? "; some subdirectories could not be checked" : "");
	return bad;
}
