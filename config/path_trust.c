// SPDX-License-Identifier: MIT
/* Who could replace what a path names (path_trust.h). */
#include "config/path_trust.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Why a user other than root and `owner` might have written st (at path),
 * or NULL.  A symbolic link's mode bits are not its permissions. */
static const char *untrusted(const struct stat *st, uid_t owner, const char *owner_is,
			     const char *path, char *why, size_t size)
{
	if (st->st_uid != 0 && st->st_uid != owner) {
		if (!owner_is)
			snprintf(why, size, "%s is owned by uid %u, not root", path,
				 (unsigned)st->st_uid);
		else
			snprintf(why, size, "%s is owned by uid %u, neither root nor %s (uid %u)",
				 path, (unsigned)st->st_uid, owner_is, (unsigned)owner);
		return why;
	}
	if (S_ISLNK(st->st_mode) || !(st->st_mode & (S_IWGRP | S_IWOTH)) ||
	    (S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX)))
		return NULL;
	snprintf(why, size, "%s can be written by %s", path,
		 st->st_mode & S_IWOTH ? "every user" : "its group");
	return why;
}

/* path and every directory above it, as written (no resolving): 0 or -1. */
static int walk_up(const char *path, uid_t owner, const char *owner_is, char *why, size_t size)
{
	char p[PATH_MAX];
	struct stat st;
	snprintf(p, sizeof p, "%s", path);
	for (;;) {
		const char *at = p[0] ? p : "/";
		if (lstat(at, &st) != 0) {
			snprintf(why, size, "%s: %s", at, strerror(errno));
			return -1;
		}
		if (untrusted(&st, owner, owner_is, at, why, size))
			return -1;
		char *slash = strrchr(p, '/');
		if (!slash || !p[0])
			return 0;
		*slash = '\0'; /* "/a/b" -> "/a" -> "" (the root) */
	}
}

int jc_path_trusted(const char *path, uid_t owner, const char *owner_is, char *why,
		    size_t size)
{
	char real[PATH_MAX];
	if (!realpath(path, real)) {
		snprintf(why, size, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (walk_up(path, owner, owner_is, why, size) != 0)
		return -1;
	return strcmp(real, path) ? walk_up(real, owner, owner_is, why, size) : 0;
}
