// SPDX-License-Identifier: MIT
/* object.c — the names of stored objects and the walk over a directory of
 * them (object.h); what accepts their bytes is beside the format (entry.c)
 * and the reading of a file (layout.c). */
#include "store/object.h"

#include "store/fsutil.h"
#include "store/stats.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void jc_object_name(const struct jc_key *key, enum jc_remote_layout layout,
		    char sub[JC_OBJECT_SUB_MAX], char name[JC_OBJECT_NAME_MAX])
{
	char hex[2 * JC_KEY_BYTES + 1];
	jc_key_hex(key, hex);
	switch (layout) {
	case JC_LAYOUT_FLAT:
		sub[0] = '\0';
		snprintf(name, JC_OBJECT_NAME_MAX, "%s", hex);
		break;
	case JC_LAYOUT_BAZEL: /* as ccache: the digest's hex, extended to 64 with itself */
		snprintf(sub, JC_OBJECT_SUB_MAX, "ac");
		snprintf(name, JC_OBJECT_NAME_MAX, "%s%s", hex, hex);
		break;
	default:
		snprintf(sub, JC_OBJECT_SUB_MAX, "%02x", key->bytes[0]);
		snprintf(name, JC_OBJECT_NAME_MAX, "%s", hex);
		break;
	}
}

int jc_object_path(const char *base, const struct jc_key *key, enum jc_remote_layout layout,
		   char *out, size_t cap)
{
	char sub[JC_OBJECT_SUB_MAX], name[JC_OBJECT_NAME_MAX];
	jc_object_name(key, layout, sub, name);
	int n = snprintf(out, cap, "%s%s%s/%s", base, *sub ? "/" : "", sub, name);
	return n >= 0 && (size_t)n < cap ? 0 : -1;
}

int jc_object_key(const char *relative, struct jc_key *key)
{
	while (strncmp(relative, "./", 2) == 0)
		relative += 2;
	char sub[JC_OBJECT_SUB_MAX], name[JC_OBJECT_NAME_MAX];
	if (strlen(relative) != 3 + 2 * JC_KEY_BYTES || relative[2] != '/' ||
	    jc_key_from_hex(relative + 3, key) != 0)
		return -1;
	jc_object_name(key, JC_LAYOUT_SUBDIRS, sub, name);
	return strncmp(relative, sub, 2) == 0 ? 0 : -1;
}

int jc_object_is_bookkeeping(const char *name)
{
	const char *base = strrchr(name, '/');
	base = base ? base + 1 : name;
	size_t n = strlen(base);
	return strcmp(base, "stats") == 0 || strcmp(base, "locks") == 0 ||
	       strcmp(base, "misses") == 0 || strncmp(base, "stats-aside-", 12) == 0 ||
	       strncmp(base, ".tmp.", 5) == 0 || (n > 5 && strcmp(base + n - 5, ".lock") == 0);
}

/* One file of an open subdirectory: to fn if its name is an object's. */
static int visit(int dfd, const char *name, jc_object_fn *fn, void *ctx)
{
	struct jc_key key;
	uint8_t raw[16];
	if (jc_key_from_hex(name, &key) != 0)
		return 0;
	int fd = jc_fs_open_file(dfd, name, O_RDONLY, 0);
	if (fd < 0)
		return 0;
	/* The flags word, little-endian at byte 12 (entry.h): nothing more is
	 * read here, so that a walk for recipes reads no entry past it. */
	uint32_t flags = 0;
	if (pread(fd, raw, sizeof raw, 0) == (ssize_t)sizeof raw)
		flags = (uint32_t)raw[12] | (uint32_t)raw[13] << 8 | (uint32_t)raw[14] << 16 |
			(uint32_t)raw[15] << 24;
	int rc = fn(ctx, &key, fd, flags);
	close(fd);
	return rc;
}

int jc_objects_each(const char *base, jc_object_fn *fn, void *ctx)
{
	int rc = 0;
	for (int sub = 0; sub < JC_SUBDIRS && rc == 0; sub++) {
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s/%02x", base, sub);
		int dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
		if (!d) {
			if (dfd >= 0)
				close(dfd);
			continue;
		}
		struct dirent *de;
		while (rc == 0 && (de = readdir(d)))
			rc = visit(dfd, de->d_name, fn, ctx);
		closedir(d);
	}
	return rc;
}
