// SPDX-License-Identifier: MIT
/* Who could replace what a path names (path_trust.h). */
#include "config/path_trust.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The owner's name, from /etc/passwd (read here, not through NSS: a
 * lookup there may leave a descriptor open in the program); or NULL. */
static const char *name_of(uid_t uid, char *out, size_t size)
{
	FILE *f = fopen("/etc/passwd", "re");
	struct passwd pw, *got = NULL;
	char buf[1024];
	const char *found = NULL;
	while (f && !found && fgetpwent_r(f, &pw, buf, sizeof buf, &got) == 0 && got)
		if (pw.pw_uid == uid)
			found = snprintf(out, size, "%s", pw.pw_name) < (int)size ? out : NULL;
	if (f)
		fclose(f);
	return found;
}

/* Whether group gid is the private group of uid, whose only member is uid
 * (Debian's user private groups, where umask 002 leaves files group
 * writable; Debian's sshd accepts them under StrictModes for the same
 * reason): its name is the user's, it lists no other member, and no other
 * account of /etc/passwd has it as its group. */
static int private_group(gid_t gid, uid_t uid)
{
	char name[256];
	if (!name_of(uid, name, sizeof name))
		return 0;
	int ok = 0;
	char buf[4096];
	FILE *f = fopen("/etc/group", "re");
	struct group gr, *got = NULL;
	while (f && fgetgrent_r(f, &gr, buf, sizeof buf, &got) == 0 && got) {
		if (gr.gr_gid != gid)
			continue;
		ok = !strcmp(gr.gr_name, name) &&
		     (!gr.gr_mem[0] || (!strcmp(gr.gr_mem[0], name) && !gr.gr_mem[1]));
		break;
	}
	if (f)
		fclose(f);
	f = ok ? fopen("/etc/passwd", "re") : NULL;
	struct passwd pw, *one = NULL;
	while (f && ok && fgetpwent_r(f, &pw, buf, sizeof buf, &one) == 0 && one)
		ok = pw.pw_gid != gid || pw.pw_uid == uid;
	if (f)
		fclose(f);
	return ok;
}

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
	    (S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX)) ||
	    (!(st->st_mode & S_IWOTH) && private_group(st->st_gid, st->st_uid)))
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
