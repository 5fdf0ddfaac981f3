// SPDX-License-Identifier: MIT
/* layout.c — where a cache's files are, and reading or removing one entry
 * file: what every other file of store/ builds on (see internal.h). */
#include "store/internal.h"
#include "store/object.h"

#include "store/fsutil.h"
#include "store/hash.h"
#include "config/hex.h"
#include "config/log.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void jc_key_hex(const struct jc_key *key, char out[2 * JC_KEY_BYTES + 1])
{
	jc_hex(key->bytes, JC_KEY_BYTES, out);
}

int jc_key_from_hex(const char *s, struct jc_key *key)
{
	return jc_unhex(s, JC_KEY_BYTES, key->bytes) == 0 && s[2 * JC_KEY_BYTES] == '\0' ? 0 : -1;
}

/* Same first byte, so the same subdirectory as the entry; the rest a hash
 * of the entry's key, which no request's key is made of. */
void jc_recipe_key(const struct jc_key *entry, struct jc_key *recipe)
{
	uint64_t a = jc_hash64(entry->bytes, JC_KEY_BYTES, 0x7265636970653a31ull); /* "recipe:1" */
	uint64_t b = jc_hash64(entry->bytes, JC_KEY_BYTES, a);
	recipe->bytes[0] = entry->bytes[0];
	memcpy(recipe->bytes + 1, &a, 8);
	memcpy(recipe->bytes + 9, &b, 7);
}

/* One line about the directory at path, unless quiet. */
__attribute__((format(printf, 3, 4)))
static void say(int flags, const char *path, const char *fmt, ...)
{
	char why[400];
	va_list ap;
	if (flags & JC_DIR_QUIET)
		return;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	if (flags & JC_DIR_LAYER)
		jc_log(JC_LOG_WARN, "cache layer %s %s", path, why);
	else
		jc_log(JC_LOG_WARN, "cache directory %s %s", path, why);
}

int jc_dir_open(const char *path, int flags, mode_t mode, int shared, struct stat *st)
{
	int layer = flags & JC_DIR_LAYER;
	const char *off = layer ? "skipped" : "caching disabled";
	const char *hint = layer ? "set JITCACHE_SHARED=1 to trust shared layers"
				 : "set JITCACHE_SHARED=1 to share a cache";
	/* Symlinks in the path are the user's choice; what they lead to now is
	 * what is checked, and then held. */
	int fd = -1;
	if ((flags & JC_DIR_CREATE) && jc_fs_mkdir_p(path, mode) != 0)
		fd = -1;
	else
		fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, st) != 0) {
		int err = errno;
		if (fd >= 0)
			close(fd);
		if (flags & JC_DIR_QUIET)
			return -1;
		if (!layer)
			jc_log(JC_LOG_WARN, "cannot create cache directory %s (%s); caching disabled",
			       path, strerror(err));
		else if (err == ENOTDIR)
			say(flags, path, "is not a directory; skipped");
		else
			jc_log(JC_LOG_WARN, "cache layer %s: %s; skipped", path, strerror(err));
		return -1;
	}
	if (!shared && st->st_uid != geteuid() && !(layer && st->st_uid == 0)) {
		if (layer)
			say(flags, path, "belongs to uid %u, neither root nor this user; %s (%s)",
			    (unsigned)st->st_uid, off, hint);
		else
			say(flags, path, "belongs to uid %u, not to this user (uid %u); %s (%s)",
			    (unsigned)st->st_uid, (unsigned)geteuid(), off, hint);
		close(fd);
		return -1;
	}
	if (!shared && (st->st_mode & (S_IWGRP | S_IWOTH))) {
		say(flags, path, "is writable by group or others (mode %03o); %s (chmod go-w it, or %s)",
		    (unsigned)(st->st_mode & 0777), off, hint);
		close(fd);
		return -1;
	}
	return fd;
}

int jc_dir_name(int fd, const struct stat *st, const char *path, char *out, size_t size)
{
	struct stat there;
	int n = snprintf(out, size, "/proc/self/fd/%d", fd);
	if (n <= 0 || (size_t)n >= size) {
		jc_log(JC_LOG_WARN, "cache directory %s: no room for its name; not used", path);
		return -1;
	}
	if (stat(out, &there) == 0 && there.st_dev == st->st_dev && there.st_ino == st->st_ino)
		return 0;
	/* Reached by its path, a directory could be swapped by a rename of a
	 * parent while programs run: better no cache than someone else's. */
	jc_log(JC_LOG_WARN, "/proc/self/fd is not available, so cache directory %s cannot be "
	       "held against renames of its parents; not used (mount /proc)", path);
	out[0] = '\0';
	return -1;
}

static int is_held(const struct jc_store *c, const struct stat *st)
{
	return S_ISDIR(st->st_mode) &&
	       (uint64_t)st->st_dev == __atomic_load_n(&c->held_dev, __ATOMIC_ACQUIRE) &&
	       (uint64_t)st->st_ino == __atomic_load_n(&c->held_ino, __ATOMIC_ACQUIRE);
}

/* Hold the cache directory again: made again if it was removed, opened
 * again if the program closed the descriptor (closefrom() after fork, say)
 * or put a file of its own under its number.  The directory is opened at
 * whatever number the kernel gives, never moved onto a chosen one: between
 * finding a number free and taking it, a thread of the program could open
 * a file there.  The old number is left alone: if the program reused it,
 * it is the program's; if it still holds the removed directory, a thread
 * may be reaching files through it this moment, and must find that
 * directory (now empty and closed to new files), never a file the program
 * would open at a number we closed.  So each reopening costs a descriptor
 * until the process ends, at most JC_DIR_REOPEN_MAX of them. */
static int revive(struct jc_store *c)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	struct stat st;
	int rc = -1;
	pthread_mutex_lock(&mu);
	int dfd = __atomic_load_n(&c->dfd, __ATOMIC_ACQUIRE);
	if (dfd >= 0 && fstat(dfd, &st) == 0 && is_held(c, &st) && st.st_nlink > 0) {
		rc = 0; /* another thread was first */
	} else if (c->read_only) { /* a layer is never made again */
		JC_LOG_ONCE(JC_LOG_WARN, "the descriptor holding cache layer %s was closed or "
			    "reused by the program (or the layer removed); the layer is not used",
			    c->shown);
		atomic_store_explicit(&c->dir, "/proc/self/fd/-1", memory_order_release);
		__atomic_store_n(&c->dfd, -1, __ATOMIC_RELEASE);
	} else if (dfd < 0 || c->reopened >= JC_DIR_REOPEN_MAX) {
		JC_LOG_ONCE(JC_LOG_WARN, "cache directory %s was lost %d times (its descriptor "
			    "closed or reused by the program, or the directory removed); caching "
			    "disabled for this process", c->shown, c->reopened);
		/* A name that leads nowhere, for a path made from dir meanwhile. */
		atomic_store_explicit(&c->dir, "/proc/self/fd/-1", memory_order_release);
		__atomic_store_n(&c->dfd, -1, __ATOMIC_RELEASE);
	} else {
		static int told;
		int quiet = jc_log_first(&told) ? 0 : JC_DIR_QUIET;
		int fd = jc_dir_open(c->shown, JC_DIR_CREATE | quiet, c->dir_mode, c->shared, &st);
		char *name = c->names[c->reopened + 1];
		if (fd >= 0 && jc_dir_name(fd, &st, c->shown, name, sizeof c->names[0]) != 0) {
			close(fd);
			fd = -1;
		}
		if (fd >= 0) {
			JC_LOG_ONCE(JC_LOG_INFO, "the descriptor of cache directory %s was closed or "
				    "reused by the program, or the directory removed; opened it again "
				    "as descriptor %d", c->shown, fd);
			c->reopened++;
			__atomic_store_n(&c->held_dev, (uint64_t)st.st_dev, __ATOMIC_RELEASE);
			__atomic_store_n(&c->held_ino, (uint64_t)st.st_ino, __ATOMIC_RELEASE);
			atomic_store_explicit(&c->dir, name, memory_order_release);
			__atomic_store_n(&c->dfd, fd, __ATOMIC_RELEASE);
			rc = 0;
		}
	}
	pthread_mutex_unlock(&mu);
	return rc;
}

int jc_dir_held(const struct jc_store *c)
{
	struct stat st;
	int dfd = __atomic_load_n(&c->dfd, __ATOMIC_ACQUIRE);
	return dfd >= 0 && fstat(dfd, &st) == 0 && is_held(c, &st);
}

int jc_dir_usable(struct jc_store *c)
{
	struct stat st;
	int dfd = __atomic_load_n(&c->dfd, __ATOMIC_ACQUIRE);
	if (dfd < 0)
		return -1;
	if (fstat(dfd, &st) == 0 && is_held(c, &st) && st.st_nlink > 0)
		return 0;
	return revive(c);
}

const char *jc_shown(const struct jc_store *c, const char *path, char out[PATH_MAX])
{
	const char *dir = c->dir;
	size_t n = strlen(dir);
	if (!n || strncmp(path, dir, n) != 0 || (path[n] != '/' && path[n] != '\0'))
		return path;
	snprintf(out, PATH_MAX, "%s%s", c->shown, path + n);
	return out;
}

/* (store.h; here, not in store.c, which counts through count.c: count.c
 * asks this too.) */
int jc_store_unwritable(struct jc_store *s, int level)
{
	static int said;
	/* As the kernel would judge a write by this process (effective ids, a
	 * read-only mount): only these say the directory itself is shut. */
	if (!s || faccessat(AT_FDCWD, s->dir, W_OK | X_OK, AT_EACCESS) == 0 ||
	    (errno != EACCES && errno != EPERM && errno != EROFS))
		return 0;
	int err = errno;
	if (jc_log_enabled((enum jc_log_level)level) && jc_log_first(&said))
		jc_log((enum jc_log_level)level, "cannot write the cache directory %s (%s): hits "
		       "load from it, but nothing is stored, counted or recorded there",
		       s->shown, strerror(err));
	return 1;
}

void jc_subdir_path(const struct jc_store *c, int sub, char path[PATH_MAX])
{
	snprintf(path, PATH_MAX, "%s/%02x", c->dir, sub);
}

void jc_file_path(const struct jc_store *c, int sub, const char *name, char path[PATH_MAX])
{
	snprintf(path, PATH_MAX, "%s/%02x/%s", c->dir, sub, name);
}

void jc_file_id_of(const struct stat *st, struct jc_file_id *id)
{
	id->dev = st->st_dev;
	id->ino = st->st_ino;
	id->mtime_ns = jc_fs_mtime_ns(st);
}

/* A plain payload this large is mapped instead of read.  Reading copies it
 * into fresh heap memory, which costs a page fault per page on the first
 * hit of a process: 7-10 ms for an 8 MB module on a 2-core VM, where
 * mapping the page cache costs well under 1 ms (the checksum's pass faults
 * the pages in, 16 at a time).  Not MAP_POPULATE: measured 0.8-2 ms slower
 * end to end.  Small payloads are cheaper to read than to map and unmap. */
#define JC_MAP_MIN (64 * 1024)

/* Hand out the payload of a plain entry as a read-only mapping of its file:
 * 0 with *status set (OK, or CORRUPT on a checksum mismatch), or -1 when
 * the file cannot be mapped and should be read instead.  Entry files are
 * written once and renamed into place, never rewritten or truncated, so
 * the mapping stays whole while the caller uses it, even if the entry is
 * evicted or replaced meanwhile (the name goes, the file stays until
 * unmapped).  Only someone else writing or truncating the file in place
 * during a hit could change the pages after their checksum or take them
 * away (SIGBUS): the price of not copying, as for any mapped cache. */
static int map_entry(int fd, const uint8_t raw[JC_ENTRY_HEADER_SIZE],
		     const struct jc_entry_header *h, uint64_t file_size, struct jc_entry *out,
		     enum jc_entry_status *status, const char **why)
{
	if (file_size > SIZE_MAX)
		return -1;
	uint8_t *map = mmap(NULL, (size_t)file_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return -1;
	uint8_t *payload = map + JC_ENTRY_HEADER_SIZE;
	if (jc_entry_checksum(raw, payload, h->stored_size) != h->checksum) {
		munmap(map, (size_t)file_size);
		*why = "checksum mismatch";
		*status = JC_ENTRY_CORRUPT;
		return 0;
	}
	out->data = payload;
	out->size = h->data_size;
	jc_compile_times(h->compile_ns, &out->compile_ns, &out->wall_ns);
	out->map = map;
	out->map_size = (size_t)file_size;
	*status = JC_ENTRY_OK;
	return 0;
}

static enum jc_entry_status read_entry(int fd, const struct jc_key *key, uint64_t limit,
				       int verify, const struct jc_trust *trust,
				       struct jc_entry *out, const char **why)
{
	uint8_t raw[JC_ENTRY_HEADER_SIZE] = { 0 };
	struct jc_entry_header h;
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		*why = "not a readable regular file";
		return JC_ENTRY_UNREADABLE;
	}
	uint64_t size = (uint64_t)st.st_size;
	if (size >= JC_ENTRY_HEADER_SIZE && jc_fs_read_all(fd, raw, sizeof raw) != 0) {
		*why = strerror(errno);
		return JC_ENTRY_UNREADABLE;
	}
	enum jc_entry_status status = jc_accept_header(raw, size, key, limit, &h, why);
	if (status != JC_ENTRY_OK)
		return status;
	if (!verify && !(h.flags & JC_ENTRY_ZSTD) && h.stored_size >= JC_MAP_MIN &&
	    map_entry(fd, raw, &h, size, out, &status, why) == 0)
		return status;
	void *stored = malloc(h.stored_size ? h.stored_size : 1);
	if (!stored) {
		*why = "out of memory";
		return JC_ENTRY_UNREADABLE;
	}
	if (jc_fs_read_all(fd, stored, h.stored_size) != 0) {
		int eof = errno == EIO;
		*why = eof ? "file ends early" : strerror(errno);
		free(stored);
		return eof ? JC_ENTRY_CORRUPT : JC_ENTRY_UNREADABLE;
	}
	if (verify) {
		uint8_t trailer[JC_SIG_TRAILER_SIZE];
		int is_signed = (h.flags & JC_ENTRY_SIGNED) != 0;
		if (is_signed && jc_fs_read_all(fd, trailer, sizeof trailer) != 0) {
			free(stored);
			*why = "file ends early";
			return JC_ENTRY_CORRUPT;
		}
		if (jc_trust_verify(trust, raw, stored, h.stored_size, is_signed ? trailer : NULL,
				    why) != 0) {
			free(stored);
			return JC_ENTRY_UNTRUSTED;
		}
	}
	return jc_entry_finish(raw, &h, stored, out, why);
}

enum jc_entry_status jc_read_entry(int fd, const struct jc_key *key, uint64_t limit,
				   struct jc_entry *out, const char **why)
{
	return read_entry(fd, key, limit, 0, NULL, out, why);
}

enum jc_entry_status jc_read_entry_trusted(int fd, const struct jc_key *key, uint64_t limit,
					   const struct jc_trust *trust, struct jc_entry *out,
					   const char **why)
{
	return read_entry(fd, key, limit, 1, trust, out, why);
}

enum jc_entry_status jc_accept_file(int fd, const struct jc_key *key, const struct jc_accept *a,
				    struct jc_entry *out, const char **why)
{
	return read_entry(fd, key, a->limit, a->required, a->trust, out, why);
}

int jc_file_is_recipe(int dfd, const char *name)
{
	uint8_t raw[16];
	int fd = jc_fs_open_file(dfd, name, O_RDONLY, 0);
	if (fd < 0)
		return 0;
	int recipe = pread(fd, raw, sizeof raw, 0) == (ssize_t)sizeof raw &&
		     jc_entry_is_recipe(raw, sizeof raw);
	close(fd);
	return recipe;
}

int jc_remove_entry(struct jc_store *c, int sub, const char *name,
		    const struct jc_file_id *expect)
{
	char path[PATH_MAX];
	struct jc_usage u;
	struct stat st;
	struct jc_file_id now;
	jc_file_path(c, sub, name, path);
	int lock = jc_usage_lock(c->dir, sub, &u); /* without it, remove anyway */
	int rc = lstat(path, &st), recipe = 0;
	if (rc == 0) {
		jc_file_id_of(&st, &now);
		if (expect && (expect->dev != now.dev || expect->ino != now.ino ||
			       expect->mtime_ns != now.mtime_ns))
			rc = -1; /* replaced or used since: not ours to remove */
		else
			recipe = jc_file_is_recipe(AT_FDCWD, path), rc = unlink(path);
	}
	if (lock >= 0 && rc == 0) {
		u.size = jc_sub_sat(u.size, (uint64_t)st.st_size);
		u.count = jc_sub_sat(u.count, 1);
		if (u.recipes != JC_USAGE_UNSPLIT)
			u.recipes = jc_sub_sat(u.recipes, (uint64_t)recipe);
		if (u.count == 0)
			u.size = 0, u.oldest_ns = 0, u.recipes = 0;
		jc_usage_commit(lock, sub, &u);
	} else if (lock >= 0) {
		jc_usage_release(lock);
	}
	return rc;
}

void jc_entry_free(struct jc_entry *entry)
{
	if (entry->map)
		munmap(entry->map, entry->map_size);
	else
		free(entry->data);
	entry->data = entry->map = NULL;
	entry->size = entry->map_size = 0;
}
