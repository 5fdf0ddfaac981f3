/*
 * spool.h — the files behind a program's helper (shim/storer.h): a private
 * directory the program writes requests into, one whole file each, and the
 * helper program that builds them.
 *
 *   struct jc_spool s;
 *   char helper[PATH_MAX];
 *   if (jc_spool_helper(library, helper) == 0 && jc_spool_make(&s) == 0) {
 *       ...start helper with s.dir...
 *       if (jc_spool_put(&s, bytes, size) == 0) ...the helper will find it...
 *   }
 *
 * The directory is made with mkdtemp (mode 0700) in $TMPDIR, or /tmp.  A
 * request is written under a temporary name (".PID-N") and renamed to
 * "PID-N.recipe" (N 12 digits, so names sort in the order written), never
 * following a link, so the helper reads whole files only; a child of fork()
 * writes names of its own.  The helper takes them (jc_spool_take) and
 * removes the directory when it ends.
 */
#ifndef JITCACHE_CACHE_SPOOL_H
#define JITCACHE_CACHE_SPOOL_H

#include <limits.h>
#include <stddef.h>

struct jc_spool {
	char dir[PATH_MAX - 64]; /* room for the file names below it */
	unsigned long serial;    /* the last request's N (atomic) */
};

/* The helper program for the library at `library` (a path as loaded, made
 * real in `real`, for the helper to preload): $JITCACHE_REPLAY, else
 * jitcache-replay beside the library (a build tree), in ../libexec (the
 * wheel) or ../libexec/jitcache (`make install` into any prefix) beside
 * it, or where this build's `make install` puts it (the Debian package's
 * /usr/libexec/jitcache).  0 and its path in out; -1 (also when the
 * library's real path is not known). */
int jc_spool_helper(const char *library, char real[PATH_MAX], char out[PATH_MAX]);

/* Make a new spool directory: 0; or -1 with errno set. */
int jc_spool_make(struct jc_spool *s);

/* Write one request: 0; -1 if it could not be written (nothing is left
 * behind); -2 if the directory is gone (its helper ended and removed it). */
int jc_spool_put(struct jc_spool *s, const void *bytes, size_t size);

/* Take back the request put last, which no helper will read (the caller
 * serialises put and unput). */
void jc_spool_unput(struct jc_spool *s);

/* The helper's side: hand every request now in dir to fn, oldest first,
 * each removed once read (one that is not a regular file of at most 1 GiB
 * is removed unread).  Returns how many requests there were. */
int jc_spool_take(const char *dir, void (*fn)(void *ctx, const void *bytes, size_t size),
		  void *ctx);

/* Remove the spool directory, if empty (its helper never started). */
void jc_spool_remove(const struct jc_spool *s);

#endif
