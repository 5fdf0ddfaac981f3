// SPDX-License-Identifier: MIT
/* The core's file, found and checked (core_file.h). */
#include "config/core_file.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

/* The path of the file mapped at address, from /proc/self/maps, if it is
 * still the file mapped there (same device and inode).  0, or -1. */
static int mapped_file(const void *address, char *out)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[PATH_MAX + 128];
	int found = -1, whole = 1;
	if (!f)
		return -1;
	while (found < 0 && fgets(line, sizeof line, f)) {
		int was_whole = whole;
		size_t len = strlen(line);
		whole = len > 0 && line[len - 1] == '\n';
		unsigned long start, end, ino;
		unsigned major, minor;
		int at = 0;
		if (!was_whole || !whole ||
		    sscanf(line, "%lx-%lx %*s %*s %x:%x %lu %n", &start, &end, &major, &minor, &ino,
			   &at) != 5 || (uintptr_t)address < start || (uintptr_t)address >= end)
			continue;
		line[len - 1] = '\0';
		struct stat st;
		if (line[at] == '/' && stat(line + at, &st) == 0 && st.st_ino == ino &&
		    st.st_dev == makedev(major, minor)) {
			snprintf(out, PATH_MAX, "%s", line + at);
			found = 0;
		}
		break; /* the mapping is found: renamed or replaced since if not */
	}
	fclose(f);
	return found;
}

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

/* Whether group gid is the owner's private group, whose only member is the
 * owner (Debian's user private groups, where umask 002 leaves files group
 * writable; Debian's sshd accepts them under StrictModes for the same
 * reason): its name is the owner's, it lists no other member, and no other
 * account of /etc/passwd has it as its group. */
static int private_group(gid_t gid, uid_t owner)
{
	char name[256];
	if (!name_of(owner, name, sizeof name))
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
		ok = pw.pw_gid != gid || pw.pw_uid == owner;
	if (f)
		fclose(f);
	return ok;
}

/* Might a user other than root and `owner` have written st (at path)? */
static const char *untrusted(const struct stat *st, uid_t owner, char *why, size_t size,
			     const char *path)
{
	if (st->st_uid != 0 && st->st_uid != owner) {
		snprintf(why, size, "%s is owned by uid %u, neither root nor the owner of the "
			 "preloaded library (uid %u)", path, (unsigned)st->st_uid, (unsigned)owner);
		return why;
	}
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX)) &&
	    ((st->st_mode & S_IWOTH) || !private_group(st->st_gid, st->st_uid))) {
		snprintf(why, size, "%s is writable by %s", path,
			 st->st_mode & S_IWOTH ? "others" : "its group");
		return why;
	}
	return NULL;
}

/* The file at real path (no symlink in it) and every directory above it
 * trusted: 0, or -1 with why. */
static int trusted_path(const char *real, uid_t owner, char *why, size_t size)
{
	char p[PATH_MAX];
	struct stat st;
	snprintf(p, sizeof p, "%s", real);
	for (;;) {
		if (lstat(p[0] ? p : "/", &st) != 0) {
			snprintf(why, size, "%s: %s", p[0] ? p : "/", strerror(errno));
			return -1;
		}
		if (untrusted(&st, owner, why, size, p[0] ? p : "/"))
			return -1;
		char *slash = strrchr(p, '/');
		if (!slash || !p[0])
			return 0;
		*slash = '\0'; /* "/a/b" -> "/a" -> "" (the root) */
	}
}

int jc_core_file(const void *self, const char *loaded_as, const char *const names[2], char *path,
		 char *why, size_t why_size)
{
	char stub[PATH_MAX], want[PATH_MAX + 64];
	struct stat st;
	if (mapped_file(self, stub) != 0 && (!loaded_as || !realpath(loaded_as, stub))) {
		snprintf(why, why_size, "cannot find its own file (%s)", loaded_as ? loaded_as : "?");
		return -1;
	}
	if (stat(stub, &st) != 0) {
		snprintf(why, why_size, "%s: %s", stub, strerror(errno));
		return -1;
	}
	uid_t owner = st.st_uid;
	size_t dir = (size_t)(strrchr(stub, '/') - stub); /* absolute: there is one */
	for (size_t i = 0; i < 2; i++) {
		snprintf(want, sizeof want, "%.*s/%s", (int)dir, stub, names[i]);
		if (!realpath(want, path)) {
			if (i == 0) /* the soname's error: the file the user should look for */
				snprintf(why, why_size, "%s: %s", want, strerror(errno));
			continue;
		}
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
			snprintf(why, why_size, "%s is not a regular file", path);
			return -1;
		}
		if (trusted_path(stub, owner, why, why_size) != 0 ||
		    trusted_path(path, owner, why, why_size) != 0)
			return -1;
		return 0;
	}
	return -1;
}
