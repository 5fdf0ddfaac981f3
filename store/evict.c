// SPDX-License-Identifier: MIT
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
#include "store/internal.h"

#include "store/fsutil.h"
#include "config/hex.h"
#include "config/log.h"

#include <errno.h>
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

static void count_evictions(struct jc_store *c, long n)
{
	if (n > 0)
		jc_store_count_own(c, (uint64_t[JC_NCOUNTERS]){ [JC_EVICTIONS] = (uint64_t)n }, NULL);
}

void jc_make_room(struct jc_store *c, uint64_t incoming)
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

int jc_store_clear(struct jc_store *cache)
{
	struct jc_quota q = { .bound = INT64_MAX, .need = UINT64_MAX, .all_locks = 1 };
	int rc = 0;
	if (jc_dir_usable(cache) != 0)
		return -1;
	jc_stats_init(cache->dir, cache->lock_mode);
	for (int sub = 0; sub < JC_SUBDIRS; sub++)
		if (jc_clean_subdir(cache, sub, &q) < 0)
			rc = -1;
	return rc;
}

/* Every entry of the cache, recounting each subdirectory on the way. */
static int list_all(struct jc_store *c, struct jc_listing *all)
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

/* Evict, least recently used first, while the entries hold more than
 * max_size bytes (0: no cap) or were last used before used_before_ns. */
static int trim(struct jc_store *cache, uint64_t max_size, int64_t used_before_ns)
{
	struct jc_listing all = { 0 };
	long removed = 0;
	if (jc_dir_usable(cache) != 0)
		return -1;
	jc_stats_init(cache->dir, cache->lock_mode);
	int rc = list_all(cache, &all);
	jc_sort_by_age(&all);
	for (size_t i = 0; i < all.n; i++) {
		if (!(max_size && all.size > max_size) && all.v[i].id.mtime_ns >= used_before_ns)
			break;
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

int jc_store_trim(struct jc_store *cache, uint64_t max_size)
{
	return trim(cache, max_size, INT64_MIN);
}

int jc_store_trim_unused(struct jc_store *cache, int64_t used_before_ns)
{
	return trim(cache, 0, used_before_ns);
}

static void key_of(const char *hex, struct jc_key *key)
{
	jc_unhex(hex, JC_KEY_BYTES, key->bytes); /* a name the scan took for a key */
}

/* What verify found of one entry (a good recipe is GOOD too: cache.h). */
enum checked { GOOD, GOOD_RECIPE, REMOVED, BAD_KEPT, UNCHECKED };

/* Read and check one entry; remove it if bad.  Says (to out) what it found
 * unless the entry is good. */
static enum checked check_entry(struct jc_store *c, const struct jc_item *it, FILE *out)
{
	char path[PATH_MAX], shown[PATH_MAX];
	struct jc_key key;
	struct jc_entry e;
	const char *why = "";
	key_of(it->name, &key);
	jc_file_path(c, it->sub, it->name, path);
	const char *said = jc_shown(c, path, shown);
	int fd = jc_fs_open_file(AT_FDCWD, path, O_RDONLY, 0);
	if (fd < 0 && errno == ENOENT)
		return GOOD; /* removed or replaced since it was listed */
	enum jc_entry_status status = JC_ENTRY_UNREADABLE;
	if (fd < 0)
		why = jc_fs_strerror(errno);
	else
		status = jc_read_entry(fd, &key, jc_entry_limit(c->max_size), &e, &why);
	uint8_t flags = 0;
	int recipe = status == JC_ENTRY_OK && pread(fd, &flags, 1, 12) == 1 &&
		     (flags & JC_ENTRY_RECIPE);
	if (fd >= 0)
		close(fd);
	if (status == JC_ENTRY_OK) {
		jc_entry_free(&e);
		return recipe ? GOOD_RECIPE : GOOD;
	}
	if (status == JC_ENTRY_UNREADABLE) {
		if (out)
			fprintf(out, "could not check %s: %s\n", said, why);
		return UNCHECKED;
	}
	if (unlink(path) != 0) {
		if (out)
			fprintf(out, "bad %s: %s; could not remove it (%s)\n", said, why,
				strerror(errno));
		return BAD_KEPT;
	}
	if (out)
		fprintf(out, "removed %s: %s\n", said, why);
	return REMOVED;
}

/* What verify found, all told. */
struct verdict {
	uint64_t good, bytes, recipes; /* good entries and recipes; bytes: of both */
	long removed, kept, unchecked;
};

/* Check every entry of one subdirectory under its record lock (or, where
 * the record cannot be locked, as in a read-only cache, without it). */
static void verify_subdir(struct jc_store *c, int sub, FILE *out, struct verdict *v)
{
	struct jc_listing l = { .say = out };
	struct jc_usage u;
	char path[PATH_MAX], shown[PATH_MAX];
	int lock = jc_lock_and_list(c, sub, 0, &l, &u);
	if (lock < 0) {
		free(l.v);
		l = (struct jc_listing){ .say = out };
		if (jc_list_subdir(c, sub, 0, &l) != 0) {
			int err = errno;
			jc_subdir_path(c, sub, path);
			if (out)
				fprintf(out, "could not check %s: %s\n", jc_shown(c, path, shown),
					strerror(err));
			v->unchecked++;
			free(l.v);
			return;
		}
	}
	v->removed += l.odd;
	v->kept += l.odd_kept;
	size_t kept = 0;
	for (size_t i = 0; i < l.n; i++) {
		enum checked r = check_entry(c, &l.v[i], out);
		v->good += r == GOOD;
		v->recipes += r == GOOD_RECIPE;
		v->removed += r == REMOVED;
		v->kept += r == BAD_KEPT;
		v->unchecked += r == UNCHECKED;
		if (r != REMOVED)
			l.v[kept++] = l.v[i];
	}
	l.n = kept;
	jc_usage_of(&l, 0, &u);
	if (lock >= 0)
		jc_usage_commit(lock, sub, &u);
	v->bytes += u.size;
	free(l.v);
}

long jc_store_verify(struct jc_store *cache, FILE *out)
{
	struct verdict v = { 0 };
	if (jc_dir_usable(cache) != 0)
		return -1;
	jc_stats_init(cache->dir, cache->lock_mode);
	for (int sub = 0; sub < JC_SUBDIRS; sub++)
		verify_subdir(cache, sub, out, &v);
	if (v.removed + v.kept)
		jc_store_count_own(cache, (uint64_t[JC_NCOUNTERS]){ [JC_CORRUPT] = (uint64_t)(v.removed + v.kept) },
			 NULL);
	if (out) {
		fprintf(out, "%llu good entries", (unsigned long long)v.good);
		if (v.recipes)
			fprintf(out, " and %llu recipes", (unsigned long long)v.recipes);
		fprintf(out, " (%llu bytes), %ld bad removed", (unsigned long long)v.bytes, v.removed);
		if (v.kept)
			fprintf(out, ", %ld bad left in place (could not remove them)", v.kept);
		if (v.unchecked)
			fprintf(out, "; %ld entries or subdirectories could not be checked", v.unchecked);
		fputc('\n', out);
	}
	return v.removed + v.kept + v.unchecked;
}
