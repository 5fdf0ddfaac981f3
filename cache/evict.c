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
 * Every scan of a subdirectory also recounts its usage record (under the
 * record's lock, so that stores into it wait) and removes temporary files
 * and unlocked lock files more than an hour old.
 *
 * trim, clear and verify are for the `jitcache` command: they visit every
 * subdirectory, and trim evicts in exact LRU order over the whole cache.
 */
#include "cache/internal.h"

#include "cache/fsutil.h"
#include "config/log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#define CLEAN_ROUNDS 8

struct item {
	char name[2 * JC_KEY_BYTES + 1];
	int sub;
	uint64_t size;
	struct jc_file_id id;
};

struct listing {
	struct item *v;
	size_t n, cap;
	uint64_t size;
};

enum kind { OTHER, ENTRY, LOCK, TEMP };

static enum kind classify(const char *name)
{
	size_t hex = strspn(name, "0123456789abcdef");
	if (hex == 2 * JC_KEY_BYTES && name[hex] == '\0')
		return ENTRY;
	if (hex == 2 * JC_KEY_BYTES && strcmp(name + hex, ".lock") == 0)
		return LOCK;
	return strncmp(name, ".tmp.", 5) == 0 ? TEMP : OTHER;
}

static int add_item(struct listing *l, int sub, const char *name, const struct stat *st)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		struct item *v = realloc(l->v, cap * sizeof *v);
		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	struct item *it = &l->v[l->n++];
	memcpy(it->name, name, sizeof it->name);
	it->sub = sub;
	it->size = (uint64_t)st->st_size;
	jc_file_id_of(st, &it->id);
	l->size += it->size;
	return 0;
}

/* A lock file nobody holds can go: lock_key() copes with that (lock.c). */
static void remove_unheld(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		unlinkat(dfd, name, 0);
	close(fd);
}

/* Add the entries of subdirectory sub to l, removing stale temporary files
 * and lock files (every unheld lock file if all_locks).  A subdirectory
 * that does not exist is empty. */
static int list_subdir(const struct jc_cache *c, int sub, int all_locks, struct listing *l)
{
	char path[PATH_MAX];
	jc_subdir_path(c, sub, path);
	int dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return errno == ENOENT ? 0 : -1;
	}
	int64_t now = jc_wall_ns();
	struct dirent *de;
	int rc = 0;
	while (rc == 0 && (de = readdir(d))) {
		struct stat st;
		enum kind kind = classify(de->d_name);
		if (kind == OTHER || fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		if (!S_ISREG(st.st_mode)) {
			/* Never followed, so harmless, but no entry: tidy it away. */
			if (kind == ENTRY && S_ISLNK(st.st_mode))
				unlinkat(dfd, de->d_name, 0);
			continue;
		}
		int stale = now - jc_fs_mtime_ns(&st) > JC_STALE_NS;
		if (kind == ENTRY)
			rc = add_item(l, sub, de->d_name, &st);
		else if (kind == TEMP && stale)
			unlinkat(dfd, de->d_name, 0);
		else if (kind == LOCK && (stale || all_locks))
			remove_unheld(dfd, de->d_name);
	}
	closedir(d);
	return rc;
}

static int by_age(const void *a, const void *b)
{
	int64_t x = ((const struct item *)a)->id.mtime_ns, y = ((const struct item *)b)->id.mtime_ns;
	return (x > y) - (x < y);
}

static void sort_by_age(struct listing *l)
{
	if (l->n > 1)
		qsort(l->v, l->n, sizeof *l->v, by_age);
}

/* The usage record of the entries l->v[from..]. */
static void usage_of(const struct listing *l, size_t from, struct jc_usage *u)
{
	*u = (struct jc_usage){ 0 };
	for (size_t i = from; i < l->n; i++) {
		u->size += l->v[i].size;
		if (u->count++ == 0 || l->v[i].id.mtime_ns < u->oldest_ns)
			u->oldest_ns = l->v[i].id.mtime_ns;
	}
}

/* Lock sub's usage record and list its entries into l: the lock's fd, or
 * -1 (with nothing held) if either fails. */
static int lock_and_list(struct jc_cache *c, int sub, int all_locks, struct listing *l,
			 struct jc_usage *u)
{
	int lock = jc_usage_lock(c->dir, sub, u);
	if (lock >= 0 && list_subdir(c, sub, all_locks, l) != 0) {
		jc_usage_release(lock);
		return -1;
	}
	return lock;
}

/* What an eviction round may remove from one subdirectory. */
struct quota {
	int64_t bound;  /* entries older than this go first (INT64_MAX: any) */
	uint64_t need;  /* stop once this many bytes are freed */
	int all_locks;  /* remove every unheld lock file (clear) */
};

/* Scan sub under its record lock, remove entries oldest first as q allows,
 * and rewrite the record from what is left.  Returns the number removed, or
 * -1 if the subdirectory could not be locked or read. */
static long clean_subdir(struct jc_cache *c, int sub, const struct quota *q)
{
	struct listing l = { 0 };
	struct jc_usage u;
	char path[PATH_MAX];
	uint64_t freed = 0;
	size_t i = 0;
	int lock = lock_and_list(c, sub, q->all_locks, &l, &u);
	if (lock < 0) {
		free(l.v);
		return -1;
	}
	sort_by_age(&l);
	for (; i < l.n && freed < q->need; i++) {
		if (l.v[i].id.mtime_ns > q->bound && (i == 0 || freed >= l.size / 8))
			break;
		jc_file_path(c, sub, l.v[i].name, path);
		if (unlink(path) != 0 && errno != ENOENT)
			break;
		freed += l.v[i].size;
	}
	usage_of(&l, i, &u);
	jc_usage_commit(lock, sub, &u);
	free(l.v);
	return (long)i;
}

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
		struct quota q = { .need = total - target };
		int sub = oldest_subdir(u, &q.bound);
		long removed = sub < 0 ? -1 : clean_subdir(c, sub, &q);
		if (removed < 0)
			return;
		count_evictions(c, removed);
	}
}

void jc_resync(struct jc_cache *c, int sub)
{
	struct quota q = { .bound = INT64_MIN, .need = 0 };
	clean_subdir(c, sub, &q);
}

void jc_resync_all(struct jc_cache *c)
{
	for (int sub = 0; sub < JC_SUBDIRS; sub++)
		jc_resync(c, sub);
}

int jc_cache_clear(struct jc_cache *cache)
{
	struct quota q = { .bound = INT64_MAX, .need = UINT64_MAX, .all_locks = 1 };
	int rc = 0;
	if (!cache->local)
		return -1;
	jc_stats_init(cache->dir, cache->file_mode);
	for (int sub = 0; sub < JC_SUBDIRS; sub++)
		if (clean_subdir(cache, sub, &q) < 0)
			rc = -1;
	return rc;
}

/* Every entry of the cache, recounting each subdirectory on the way. */
static int list_all(struct jc_cache *c, struct listing *all)
{
	int rc = 0;
	for (int sub = 0; sub < JC_SUBDIRS; sub++) {
		struct jc_usage u;
		size_t first = all->n;
		int lock = lock_and_list(c, sub, 0, all, &u);
		if (lock < 0) {
			rc = -1;
			continue;
		}
		usage_of(all, first, &u);
		jc_usage_commit(lock, sub, &u);
	}
	return rc;
}

int jc_cache_trim(struct jc_cache *cache, uint64_t max_size)
{
	struct listing all = { 0 };
	long removed = 0;
	if (!cache->local)
		return -1;
	jc_stats_init(cache->dir, cache->file_mode);
	int rc = list_all(cache, &all);
	sort_by_age(&all);
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

/* Read and check one entry; remove it if bad.  1 if it was bad. */
static int check_entry(struct jc_cache *c, const struct item *it, FILE *out)
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
 * good ones in l.  Returns the number of bad ones, or -1. */
static long verify_subdir(struct jc_cache *c, int sub, FILE *out, struct listing *l)
{
	struct jc_usage u;
	size_t kept = 0;
	int lock = lock_and_list(c, sub, 0, l, &u);
	if (lock < 0)
		return -1;
	for (size_t i = 0; i < l->n; i++)
		if (!check_entry(c, &l->v[i], out))
			l->v[kept++] = l->v[i];
	long bad = (long)(l->n - kept);
	l->n = kept;
	usage_of(l, 0, &u);
	jc_usage_commit(lock, sub, &u);
	l->size = u.size;
	return bad;
}

long jc_cache_verify(struct jc_cache *cache, FILE *out)
{
	uint64_t entries = 0, bytes = 0;
	long bad = 0, failed = 0;
	if (!cache->local)
		return -1;
	jc_stats_init(cache->dir, cache->file_mode);
	for (int sub = 0; sub < JC_SUBDIRS; sub++) {
		struct listing l = { 0 };
		long n = verify_subdir(cache, sub, out, &l);
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
	if (out)
		fprintf(out, "%llu good entries (%llu bytes), %ld bad removed%s\n",
			(unsigned long long)entries, (unsigned long long)bytes, bad,
			failed ? "; some subdirectories could not be checked" : "");
	return bad;
}
