// SPDX-License-Identifier: MIT
/*
 * scan.c — listing one subdirectory, and cleaning it: every scan recounts
 * its usage record (reading each entry file's flags, to count recipes apart) (under the record's lock, so that stores into it wait)
 * and removes temporary files and unlocked lock files more than an hour
 * old; a cleaning round also removes entries oldest first, as its quota
 * allows (see evict.c for how rounds are chosen).
 */
#include "store/internal.h"
#include "config/clock.h"
#include "config/grow.h"

#include "store/fsutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

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

static int add_item(struct jc_listing *l, int sub, int dfd, const char *name,
		    const struct stat *st)
{
	struct jc_item *v = jc_grow(l->v, &l->cap, l->n, sizeof *v);
	if (!v)
		return -1;
	l->v = v;
	struct jc_item *it = &l->v[l->n++];
	memcpy(it->name, name, sizeof it->name);
	it->sub = sub;
	it->recipe = jc_file_is_recipe(dfd, name);
	it->size = (uint64_t)st->st_size;
	jc_file_id_of(st, &it->id);
	l->size += it->size;
	return 0;
}

/* A lock file nobody holds can go: lock_key() copes with that (lock.c). */
static void remove_unheld(int dfd, const char *name)
{
	int fd = jc_fs_open_file(dfd, name, O_RDONLY, 0);
	if (fd < 0)
		return;
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		unlinkat(dfd, name, 0);
	close(fd);
}

static const char *kind_of(mode_t mode)
{
	return S_ISLNK(mode) ? "a symlink" : S_ISFIFO(mode) ? "a FIFO" : S_ISSOCK(mode) ? "a socket"
	     : S_ISDIR(mode) ? "a directory" : S_ISCHR(mode) || S_ISBLK(mode) ? "a device" : "unknown";
}

static void odd_entry(const struct jc_store *c, int sub, int dfd, const char *name,
		      const struct stat *st, struct jc_listing *l)
{
	char path[PATH_MAX], shown[PATH_MAX];
	int gone = unlinkat(dfd, name, 0) == 0;
	*(gone ? &l->odd : &l->odd_kept) += 1;
	if (!l->say)
		return;
	jc_file_path(c, sub, name, path);
	fprintf(l->say, "%s %s: not a regular file (%s)%s\n", gone ? "removed" : "bad",
		jc_shown(c, path, shown), kind_of(st->st_mode), gone ? "" : "; could not remove it");
}

int jc_list_subdir(const struct jc_store *c, int sub, int all_locks, struct jc_listing *l)
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
			/* Never followed or opened, so harmless, but no entry:
			 * tidy it away (a directory stays, and is named). */
			if (kind == ENTRY)
				odd_entry(c, sub, dfd, de->d_name, &st, l);
			continue;
		}
		int stale = now - jc_fs_mtime_ns(&st) > JC_STALE_NS;
		if (kind == ENTRY)
			rc = add_item(l, sub, dfd, de->d_name, &st);
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
	int64_t x = ((const struct jc_item *)a)->id.mtime_ns, y = ((const struct jc_item *)b)->id.mtime_ns;
	return (x > y) - (x < y);
}

void jc_sort_by_age(struct jc_listing *l)
{
	if (l->n > 1)
		qsort(l->v, l->n, sizeof *l->v, by_age);
}

/* The usage record of the entries l->v[from..]. */
void jc_usage_of(const struct jc_listing *l, size_t from, struct jc_usage *u)
{
	*u = (struct jc_usage){ 0 };
	for (size_t i = from; i < l->n; i++) {
		u->size += l->v[i].size;
		u->recipes += (uint64_t)l->v[i].recipe;
		if (u->count++ == 0 || l->v[i].id.mtime_ns < u->oldest_ns)
			u->oldest_ns = l->v[i].id.mtime_ns;
	}
}

/* Lock sub's usage record and list its entries into l: the lock's fd, or
 * -1 (with nothing held) if either fails. */
int jc_lock_and_list(struct jc_store *c, int sub, int all_locks, struct jc_listing *l,
			 struct jc_usage *u)
{
	int lock = jc_usage_lock(c->dir, sub, u);
	if (lock >= 0 && jc_list_subdir(c, sub, all_locks, l) != 0) {
		jc_usage_release(lock);
		return -1;
	}
	return lock;
}

/* Scan sub under its record lock, remove entries oldest first as q allows,
 * and rewrite the record from what is left.  Returns the number removed, or
 * -1 if the subdirectory could not be locked or read. */
long jc_clean_subdir(struct jc_store *c, int sub, const struct jc_quota *q)
{
	struct jc_listing l = { 0 };
	struct jc_usage u;
	char path[PATH_MAX];
	uint64_t freed = 0;
	size_t i = 0;
	int lock = jc_lock_and_list(c, sub, q->all_locks, &l, &u);
	if (lock < 0) {
		free(l.v);
		return -1;
	}
	jc_sort_by_age(&l);
	for (; i < l.n && freed < q->need; i++) {
		if (l.v[i].id.mtime_ns > q->bound && (i == 0 || freed >= l.size / 8))
			break;
		jc_file_path(c, sub, l.v[i].name, path);
		if (unlink(path) != 0 && errno != ENOENT)
			break;
		freed += l.v[i].size;
	}
	jc_usage_of(&l, i, &u);
	jc_usage_commit(lock, sub, &u);
	free(l.v);
	return (long)i;
}

void jc_resync(struct jc_store *c, int sub)
{
	struct jc_quota q = { .bound = INT64_MIN, .need = 0 };
	jc_clean_subdir(c, sub, &q);
}

void jc_resync_all(struct jc_store *c)
{
	for (int sub = 0; sub < JC_SUBDIRS; sub++)
		jc_resync(c, sub);
}

