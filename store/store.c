// SPDX-License-Identifier: MIT
/* store.c — the store's verbs (store.h): opening a cache directory, reading,
 * writing and removing entries, walking the entry files. */
#include "store/internal.h"
#include "config/clock.h"
#include "config/tempfile.h"

#include "store/misses.h"
#include "store/object.h"
#include "config/log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Every this many stores (counted across processes), one subdirectory is
 * rescanned, so that usage records left wrong by a crash heal themselves. */
#define RESYNC_EVERY 32

/* ---- opening ---------------------------------------------------------- */

/* Keep the directory as given (symlinks in it are the user's choice), but
 * absolute, so that a later chdir() of the host process does not move it. */
static int set_dir(struct jc_store *s, const char *dir)
{
	char cwd[PATH_MAX] = "";
	if (!dir || !*dir) {
		jc_log(JC_LOG_WARN, "no cache directory: HOME, XDG_CACHE_HOME and JITCACHE_DIR are "
		       "all unset; caching disabled (set JITCACHE_DIR)");
		return -1;
	}
	if (dir[0] != '/' && !getcwd(cwd, sizeof cwd)) {
		jc_log(JC_LOG_WARN, "cannot resolve cache directory %s (%s); caching disabled",
		       dir, strerror(errno));
		return -1;
	}
	int n = snprintf(s->shown, sizeof s->shown, "%s%s%s", cwd, *cwd ? "/" : "", dir);
	if (n < 0 || (size_t)n >= sizeof s->shown) {
		jc_log(JC_LOG_WARN, "cache directory path too long (%s); caching disabled", dir);
		return -1;
	}
	while (n > 1 && s->shown[n - 1] == '/')
		s->shown[--n] = '\0';
	return 0;
}

/* Create the directory, refuse one that others could write into (they
 * could plant entries that this user's programs would load as GPU code),
 * and hold it open: from now on it is reached through the descriptor,
 * never through its path, so a later rename of the directory or of a
 * parent cannot put another in its place.  The descriptor keeps the number
 * the kernel gave (the lowest free): one jitcache chose could be a number
 * the program uses, or is about to (issue 35). */
static int hold_dir(struct jc_store *s, int shared)
{
	struct stat st;
	/* A shared cache leaves permissions to the umask (002 for a group). */
	int fd = jc_dir_open(s->shown, JC_DIR_CREATE, shared ? 0777 : 0700, shared, &st);
	if (fd < 0)
		return -1;
	if (jc_dir_name(fd, &st, s->shown, s->names[0], sizeof s->names[0]) != 0) {
		close(fd);
		return -1;
	}
	s->held_dev = (uint64_t)st.st_dev;
	s->held_ino = (uint64_t)st.st_ino;
	s->dir = s->names[0];
	s->dfd = fd;
	return 0;
}

struct jc_store *jc_store_open(const struct jc_store_options *opts)
{
	struct jc_store *s = calloc(1, sizeof *s);
	if (!s) {
		jc_log(JC_LOG_WARN, "out of memory opening the cache; caching disabled");
		return NULL;
	}
	s->dfd = -1;
	s->dir = "";
	s->pending_pid = getpid();
	if (set_dir(s, opts->dir) != 0 || hold_dir(s, opts->shared) != 0) {
		free(s);
		return NULL;
	}
	s->counted = opts->counted;
	s->counted_ctx = opts->counted_ctx;
	s->shared = opts->shared;
	s->max_size = opts->max_size;
	/* A shared cache leaves permissions to the umask (002 for a group). */
	s->file_mode = opts->shared ? 0666 : 0600;
	s->dir_mode = opts->shared ? 0777 : 0700;
	/* Whoever may open a file can hold a lock on it: not others. */
	s->lock_mode = opts->shared ? 0660 : 0600;
	if (jc_stats_init(s->dir, s->lock_mode) == 1)
		jc_resync_all(s); /* new statistics file: count what is there */
	return s;
}

struct jc_store *jc_store_open_read_only(const char *dir, int shared, uint64_t max_size)
{
	struct stat st;
	struct jc_store *s = calloc(1, sizeof *s);
	if (!s) {
		jc_log(JC_LOG_WARN, "out of memory opening cache layer %s; skipped", dir);
		return NULL;
	}
	s->dfd = -1;
	s->dir = "";
	s->read_only = 1;
	s->shared = shared;
	s->max_size = max_size;
	if (set_dir(s, dir) != 0 ||
	    (s->dfd = jc_dir_open(s->shown, JC_DIR_LAYER, 0, shared, &st)) < 0 ||
	    jc_dir_name(s->dfd, &st, s->shown, s->names[0], sizeof s->names[0]) != 0) {
		if (s->dfd >= 0)
			close(s->dfd);
		free(s);
		return NULL;
	}
	s->held_dev = (uint64_t)st.st_dev;
	s->held_ino = (uint64_t)st.st_ino;
	s->dir = s->names[0];
	return s;
}

void jc_store_close(struct jc_store *s)
{
	if (s && jc_dir_held(s))
		close(s->dfd); /* any reopened earlier stay: layout.c says why */
	free(s);
}

const char *jc_store_dir(const struct jc_store *s)
{
	return s->shown;
}

int jc_store_usable(struct jc_store *s)
{
	return jc_dir_usable(s) == 0;
}

int jc_store_spool(struct jc_store *s)
{
	if (jc_dir_usable(s) != 0)
		return -1;
	int fd = open(s->dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0) { /* a file system without O_TMPFILE: named, then unnamed */
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s/.tmp.import.XXXXXX", s->dir);
		fd = mkostemp(path, O_CLOEXEC);
		if (fd >= 0)
			unlink(path);
	}
	return fd;
}

int jc_store_each_object(struct jc_store *s, jc_object_fn *fn, void *ctx)
{
	return jc_dir_usable(s) == 0 ? jc_objects_each(s->dir, fn, ctx) : 0;
}

/* ---- reading ---------------------------------------------------------- */

/* Remove the bad file we have open, unless it has been replaced meanwhile. */
static void drop_bad(struct jc_store *s, const struct jc_key *key, int fd,
		     enum jc_entry_status status, const char *why)
{
	char name[2 * JC_KEY_BYTES + 1];
	struct stat st;
	struct jc_file_id id;
	jc_key_hex(key, name);
	if (fstat(fd, &st) != 0)
		return;
	jc_file_id_of(&st, &id);
	jc_remove_entry(s, key->bytes[0], name, &id);
	if (status == JC_ENTRY_CORRUPT)
		JC_LOG_ONCE(JC_LOG_WARN, "removed a corrupt cache entry %s/%02x/%s (%s); "
			    "it will be compiled and stored again", s->shown, key->bytes[0], name, why);
	else
		JC_LOG_ONCE(JC_LOG_INFO, "removed a cache entry of another format version "
			    "(%s/%02x/%s); it will be compiled and stored again",
			    s->shown, key->bytes[0], name);
}

/* A hit keeps the entry's recipe as recent as the entry (cache.h). */
static void touch_recipe(struct jc_store *s, const struct jc_key *key, int64_t now)
{
	char name[2 * JC_KEY_BYTES + 1], path[PATH_MAX];
	struct jc_key recipe;
	jc_recipe_key(key, &recipe);
	jc_key_hex(&recipe, name);
	jc_file_path(s, recipe.bytes[0], name, path);
	struct timespec t[2] = { { .tv_nsec = UTIME_OMIT },
				 { .tv_sec = now / 1000000000, .tv_nsec = now % 1000000000 } };
	utimensat(AT_FDCWD, path, t, AT_SYMLINK_NOFOLLOW); /* none: nothing to do */
}

int jc_store_get(struct jc_store *s, const struct jc_key *key, struct jc_entry *out)
{
	char name[2 * JC_KEY_BYTES + 1], path[PATH_MAX];
	const char *why = "";
	char shown[PATH_MAX];
	memset(out, 0, sizeof *out);
	if (jc_dir_usable(s) != 0)
		return -1;
	jc_key_hex(key, name);
	jc_file_path(s, key->bytes[0], name, path);
	int fd = jc_fs_open_file(AT_FDCWD, path, O_RDONLY, 0);
	if (fd < 0) {
		if (errno != ENOENT && errno != ENOTDIR)
			JC_LOG_ONCE(JC_LOG_WARN, "cannot open cache entry %s (%s); treating it as a miss",
				    jc_shown(s, path, shown), jc_fs_strerror(errno));
		return -1;
	}
	enum jc_entry_status status = jc_read_entry(fd, key, jc_entry_limit(s->max_size), out,
						    &why);
	if (status == JC_ENTRY_OK) {
		int64_t now = jc_wall_ns();
		jc_fs_set_mtime(fd, now); /* recency for LRU; fails harmlessly if read-only */
		close(fd);
		touch_recipe(s, key, now);
		return 0;
	}
	if (status == JC_ENTRY_UNREADABLE)
		JC_LOG_ONCE(JC_LOG_INFO, "cannot read cache entry %s (%s); treating it as a miss",
			    jc_shown(s, path, shown), why);
	else
		drop_bad(s, key, fd, status, why);
	close(fd);
	return status == JC_ENTRY_CORRUPT ? -2 : -1;
}

int jc_store_has(struct jc_store *s, const struct jc_key *key)
{
	char name[2 * JC_KEY_BYTES + 1], path[PATH_MAX];
	struct jc_entry e;
	const char *why;
	jc_key_hex(key, name);
	jc_file_path(s, key->bytes[0], name, path);
	int fd = jc_fs_open_file(AT_FDCWD, path, O_RDONLY, 0);
	if (fd < 0)
		return 0;
	int ok = jc_read_entry(fd, key, jc_entry_limit(s->max_size), &e, &why) == JC_ENTRY_OK;
	close(fd);
	if (ok)
		jc_entry_free(&e);
	return ok;
}

int jc_store_open_object(struct jc_store *s, const struct jc_key *key)
{
	char path[PATH_MAX];
	if (jc_dir_usable(s) != 0) {
		errno = EBADF;
		return -1;
	}
	jc_object_path(s->dir, key, JC_LAYOUT_SUBDIRS, path, sizeof path);
	return jc_fs_open_file(AT_FDCWD, path, O_RDONLY, 0);
}

uint64_t jc_store_file_size(struct jc_store *s, const struct jc_key *key)
{
	char name[2 * JC_KEY_BYTES + 1], path[PATH_MAX];
	struct stat st;
	jc_key_hex(key, name);
	jc_file_path(s, key->bytes[0], name, path);
	return lstat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

/* ---- storing ---------------------------------------------------------- */

/* Write the whole entry to a new temporary file in its subdirectory. */
static int write_temp(struct jc_store *s, int sub, const struct jc_encoded *e,
		      int64_t mtime, char tmp[PATH_MAX])
{
	char dir[PATH_MAX], shown[PATH_MAX];
	jc_subdir_path(s, sub, dir);
	int fd = jc_temp_open(AT_FDCWD, dir, s->file_mode, tmp);
	if (fd < 0 && errno == ENOENT && jc_dir_usable(s) == 0 &&
	    jc_fs_mkdir_p(dir, s->dir_mode) == 0)
		fd = jc_temp_open(AT_FDCWD, dir, s->file_mode, tmp);
	if (fd < 0) {
		int err = errno;
		if (!jc_store_unwritable(s, JC_LOG_WARN))
			JC_LOG_ONCE(JC_LOG_WARN, "cannot create a file in %s (%s); results are not "
				    "cached", jc_shown(s, dir, shown), strerror(err));
		return -1;
	}
	struct iovec iov[3] = {
		{ (void *)(uintptr_t)e->header, JC_ENTRY_HEADER_SIZE },
		{ (void *)(uintptr_t)e->payload, e->payload_size },
		{ (void *)(uintptr_t)e->trailer, e->trailer_size },
	};
	int rc = jc_fs_write_all(fd, iov, e->trailer_size ? 3 : 2);
	if (rc == 0)
		rc = jc_fs_set_mtime(fd, mtime);
	int err = errno;
	if (close(fd) != 0 && rc == 0)
		rc = -1, err = errno;
	if (rc != 0) {
		JC_LOG_ONCE(JC_LOG_WARN, "cannot write a cache entry in %s (%s); results are not cached",
			    jc_shown(s, dir, shown), strerror(err));
		unlink(tmp);
	}
	return rc;
}

/* Lock the subdirectory's usage record, making a statistics file first if
 * the cache directory was removed or the file damaged. */
static int lock_usage(struct jc_store *s, int sub, struct jc_usage *u)
{
	int fd = jc_usage_lock(s->dir, sub, u);
	if (fd < 0 && (errno == ENOENT || errno == EBADMSG)) {
		if (jc_dir_usable(s) == 0 && jc_stats_init(s->dir, s->lock_mode) == 1)
			jc_resync_all(s);
		fd = jc_usage_lock(s->dir, sub, u);
	}
	if (fd < 0)
		JC_LOG_ONCE(JC_LOG_INFO, "cannot lock the statistics file in %s (%s); "
			    "storing without counting (sizes are recounted later)",
			    s->shown, strerror(errno));
	return fd;
}

/* Rename the temporary file into place and account for it. */
static int commit(struct jc_store *s, int sub, const char *tmp, const char *name,
		  uint64_t size, int recipe, int64_t mtime)
{
	char path[PATH_MAX], shown[PATH_MAX];
	struct jc_usage u;
	struct stat old;
	jc_file_path(s, sub, name, path);
	int lock = lock_usage(s, sub, &u);
	int replacing = lstat(path, &old) == 0 && S_ISREG(old.st_mode);
	if (jc_temp_place(AT_FDCWD, tmp, path, JC_TEMP_RENAME) < 0) { /* tmp gone */
		JC_LOG_ONCE(JC_LOG_WARN, "cannot rename a new cache entry to %s (%s); "
			    "results are not cached", jc_shown(s, path, shown), strerror(errno));
		if (lock >= 0)
			jc_usage_release(lock);
		return -1;
	}
	if (lock < 0)
		return 0;
	/* A file replaced is of the same kind: recipes and entries have keys
	 * of their own (jc_recipe_key). */
	if (replacing) {
		u.size = jc_sub_sat(u.size, (uint64_t)old.st_size);
		u.count = jc_sub_sat(u.count, 1);
		if (u.recipes != JC_USAGE_UNSPLIT)
			u.recipes = jc_sub_sat(u.recipes, (uint64_t)recipe);
	}
	if (u.count == 0)
		u.size = 0, u.oldest_ns = mtime, u.recipes = 0;
	u.size += size;
	u.count++;
	if (u.recipes != JC_USAGE_UNSPLIT)
		u.recipes += (uint64_t)recipe;
	jc_usage_commit(lock, sub, &u);
	return 0;
}

int jc_store_put(struct jc_store *s, const struct jc_key *key, const struct jc_encoded *e,
		 int counted)
{
	char tmp[PATH_MAX], name[2 * JC_KEY_BYTES + 1];
	uint64_t size = JC_ENCODED_SIZE(e), after[JC_NCOUNTERS];
	int sub = key->bytes[0];
	if (s->read_only || (s->max_size && size > s->max_size))
		return -1;
	int64_t mtime = jc_wall_ns();
	jc_key_hex(key, name);
	if (jc_dir_usable(s) != 0 || write_temp(s, sub, e, mtime, tmp) != 0)
		return -1;
	int serial = s->max_size ? jc_stats_store_lock(s->dir) : -1;
	jc_make_room(s, size);
	int rc = commit(s, sub, tmp, name, size, jc_entry_is_recipe(e->header, sizeof e->header),
			mtime);
	if (serial >= 0)
		jc_stats_store_unlock(serial);
	if (rc != 0)
		return -1;
	if (!counted)
		return 0;
	jc_store_count_own(s, (uint64_t[JC_NCOUNTERS]){ [JC_STORES] = 1,
			   [JC_BYTES_STORED] = e->payload_size }, after);
	if (after[JC_STORES] % RESYNC_EVERY == 0 && after[JC_STORES] > 0)
		jc_resync(s, (int)(after[JC_STORES] / RESYNC_EVERY % JC_SUBDIRS));
	return 0;
}

int jc_store_remove(struct jc_store *s, const struct jc_key *key)
{
	char name[2 * JC_KEY_BYTES + 1];
	if (s->read_only)
		return -1;
	jc_key_hex(key, name);
	return jc_remove_entry(s, key->bytes[0], name, NULL);
}

/* ---- walking the entry files ------------------------------------------ */

/* Read the entry file name in subdirectory sub if used since since_ns:
 * 1 and *data (malloc'd), 0 if left out, -1 if bad (*why). */
static int read_entry_file(struct jc_store *s, int sub, const char *name, int64_t since_ns,
			   uint8_t **data, struct stat *st, const char **why)
{
	char path[PATH_MAX];
	jc_file_path(s, sub, name, path);
	int fd = jc_fs_open_file(AT_FDCWD, path, O_RDONLY, 0);
	if (fd < 0)
		return errno == ENOENT ? 0 : (*why = jc_fs_strerror(errno), -1); /* evicted meanwhile */
	int rc = -1;
	*data = NULL;
	if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode))
		*why = "not a regular file";
	else if (jc_fs_mtime_ns(st) < since_ns)
		rc = 0;
	else if ((uint64_t)st->st_size > jc_entry_limit(s->max_size))
		*why = "larger than max_size allows (not read)";
	else if (!(*data = malloc(st->st_size ? (size_t)st->st_size : 1)))
		*why = "out of memory";
	else if (jc_fs_read_all(fd, *data, (size_t)st->st_size) != 0)
		*why = strerror(errno);
	else
		rc = 1;
	close(fd);
	if (rc != 1) {
		free(*data);
		*data = NULL;
	}
	return rc;
}

static int each_file_of(struct jc_store *s, int sub, int64_t since_ns, jc_store_file_fn *fn,
			void *ctx)
{
	char dir[PATH_MAX];
	int rc = 0;
	jc_subdir_path(s, sub, dir);
	DIR *d = opendir(dir);
	struct dirent *de;
	while (rc == 0 && d && (de = readdir(d))) {
		struct jc_key key;
		struct stat st;
		uint8_t *data = NULL;
		const char *why = "";
		if (jc_key_from_hex(de->d_name, &key) != 0 || key.bytes[0] != sub)
			continue; /* lock, temporary and other files */
		int got = read_entry_file(s, sub, de->d_name, since_ns, &data, &st, &why);
		if (got < 0)
			rc = fn(ctx, &key, NULL, 0, 0, why);
		else if (got == 1)
			rc = fn(ctx, &key, data, (uint64_t)st.st_size, st.st_mtim.tv_sec, NULL);
		free(data);
	}
	if (d)
		closedir(d);
	return rc;
}

int jc_store_each_file(struct jc_store *s, int64_t since_ns, jc_store_file_fn *fn, void *ctx)
{
	int rc = 0;
	for (int sub = 0; sub < JC_SUBDIRS && rc == 0; sub++)
		rc = each_file_of(s, sub, since_ns, fn, ctx);
	return rc;
}

/* ---- the ring of recent misses ---------------------------------------- */

void jc_store_note_miss(struct jc_store *s, struct jc_miss *m)
{
	if (jc_dir_usable(s) == 0 && jc_misses_add(s->dir, s->lock_mode, m) != 0) {
		int err = errno;
		if (!jc_store_unwritable(s, JC_LOG_INFO))
			JC_LOG_ONCE(JC_LOG_INFO, "cannot record a miss in %s/misses (%s); "
				    "`jitcache explain` will not see it", s->shown, strerror(err));
	}
}

int jc_store_misses(struct jc_store *s, struct jc_miss **out, size_t *n)
{
	return jc_misses_read(s->dir, out, n);
}
