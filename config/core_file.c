// SPDX-License-Identifier: MIT
/* The core's file, found and checked (core_file.h). */
#include "config/core_file.h"
#include "config/path_trust.h"

#include <errno.h>
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

/* Who else may have written the core, in the line that refuses it. */
#define OWNER_IS "the owner of the preloaded library"

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
		if (jc_path_trusted(stub, owner, OWNER_IS, why, why_size) != 0 ||
		    jc_path_trusted(path, owner, OWNER_IS, why, why_size) != 0)
			return -1;
		return 0;
	}
	return -1;
}
