// SPDX-License-Identifier: MIT
/* file.c — the file tier (file:///PATH): entries shared through a directory
 * that several caches see, on NFS or a mounted volume, as ccache's file
 * storage.  Each entry is one file, its bytes exactly an entry file's
 * (header + stored payload), where the layout puts it under PATH
 * (PATH/<2 hex>/<32 hex> by default), so that a value read is verified
 * exactly like one from any other remote (jc_remote_value_check).
 *
 * PATH itself must exist: it is never made, so that a volume not mounted
 * is said, not filled in the directory under it.  A write is a temporary
 * file in the entry's own directory, renamed into place: a reader sees the
 * whole entry or none, on a local file system and on NFS.  No compile
 * lease: machines sharing only a directory may compile a kernel at once.
 * A directory on a file system that hangs (an NFS server gone, mounted
 * hard) holds up the lookup with it: that is the mount's to bound. */
#include "tiers/tier.h"
#include "tiers/client.h"

#include "store/object.h"
#include "store/fsutil.h"
#include "config/tempfile.h"
#include "config/clock.h"
#include "config/log.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

enum problem { P_READ, P_WRITE, P_LARGE, P_LINK, P_OWNER, P_COUNT };

struct file_tier {
	char dir[sizeof ((struct jc_path_url *)0)->path]; /* PATH */
	char shown[sizeof ((struct jc_path_url *)0)->path + 8]; /* file://PATH, for messages */
	enum jc_remote_layout layout;
	uint64_t limit;              /* an entry larger is never read */
	int told[P_COUNT];           /* each kind of problem said once: atomic */
};

__attribute__((format(printf, 3, 4)))
static void problem(struct file_tier *f, enum problem kind, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	jc_remote_problem(&f->told[kind], f->shown, NULL, fmt, ap);
	va_end(ap);
}

/* The directory that holds the entry: PATH opened as named (symbolic links
 * in it are the user's choice), then its subdirectory sub reached from it
 * without following a link (made first, with make), so that nobody who may
 * write PATH can lead this process's reads or writes elsewhere: the
 * subdirectory is held from the moment it is checked.  A subdirectory that
 * belongs to another user (neither this one, PATH's owner nor root) is
 * refused where PATH is writable by its owner alone: a private remote holds
 * nothing of others.  The directory's descriptor; or -1, with *absent set
 * when there is nothing to read (ENOENT), and a problem said otherwise. */
static int entry_dir(struct file_tier *f, const char *sub, int make, int *absent)
{
	struct stat top, st;
	*absent = 0;
	int root = open(f->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root < 0 || fstat(root, &top) != 0) {
		int err = errno;
		*absent = !make && err == ENOENT;
		if (!*absent)
			problem(f, make ? P_WRITE : P_READ, "cannot open %s (%s)%s", f->dir,
				strerror(err), err == ENOENT ? ": the directory named does not "
				"exist (never made here: a volume not mounted?)" : "");
		if (root >= 0)
			close(root);
		errno = err;
		return -1;
	}
	if (!*sub)
		return root;
	if (make && mkdirat(root, sub, 0777) != 0 && errno != EEXIST) {
		problem(f, P_WRITE, "cannot make %s/%s (%s)", f->dir, sub, strerror(errno));
		close(root);
		return -1;
	}
	int fd = openat(root, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int err = errno;
	close(root);
	if (fd < 0) {
		*absent = !make && err == ENOENT;
		if (err == ELOOP || err == ENOTDIR)
			problem(f, P_LINK, "%s/%s is a symbolic link or not a directory: not "
				"followed, nothing read or written there", f->dir, sub);
		else if (!*absent)
			problem(f, make ? P_WRITE : P_READ, "cannot open %s/%s (%s)", f->dir, sub,
				strerror(err));
		errno = err;
		return -1;
	}
	uid_t me = geteuid();
	if (fstat(fd, &st) == 0 && !(top.st_mode & (S_IWGRP | S_IWOTH)) && st.st_uid != me &&
	    st.st_uid != top.st_uid && st.st_uid != 0) {
		problem(f, P_OWNER, "%s/%s belongs to uid %u, in a directory only its owner (uid "
			"%u) may write: not used", f->dir, sub, (unsigned)st.st_uid,
			(unsigned)top.st_uid);
		close(fd);
		return errno = EPERM, -1;
	}
	return fd;
}

static void *file_open(const struct jc_tier_open *o)
{
	struct file_tier *f = calloc(1, sizeof *f);
	if (!f)
		return NULL;
	snprintf(f->dir, sizeof f->dir, "%s", o->spec->at.path.path);
	snprintf(f->shown, sizeof f->shown, "file://%s", f->dir);
	f->layout = o->spec->layout;
	f->limit = o->limit;
	return f;
}

/* Refused from its first bytes, the rest unread: what jc_remote_value_check()
 * refuses (the header's own fault, or "larger than max_size allows"). */
static int refused_unread(struct jc_remote_value *v, uint64_t size, size_t head)
{
	v->size = size;
	if (head < JC_ENTRY_HEADER_SIZE)
		memset(v->header + head, 0, JC_ENTRY_HEADER_SIZE - head);
	return 1;
}

/* Read the entry file fd of size bytes: its header first, and the rest only
 * if the header holds key and declares the file's size within the limit, so
 * that a file planted under an entry's name (gigabytes of zeros, a sparse
 * file) costs 64 bytes, not its size in memory. */
static int read_entry(struct file_tier *f, int fd, const struct jc_key *key, uint64_t size,
		      struct jc_remote_value *v, uint64_t delta[JC_NCOUNTERS])
{
	struct jc_entry_header h;
	const char *why;
	size_t head = size < JC_ENTRY_HEADER_SIZE ? (size_t)size : JC_ENTRY_HEADER_SIZE;
	if (jc_fs_read_all(fd, v->header, head) != 0)
		return -1;
	delta[JC_REMOTE_BYTES_IN] += head;
	if (head < JC_ENTRY_HEADER_SIZE ||
	    jc_accept_header(v->header, size, key, f->limit, &h, &why) != JC_ENTRY_OK)
		return refused_unread(v, size, head);
	size_t rest = (size_t)size - head;
	v->payload = malloc(rest ? rest : 1);
	if (!v->payload || jc_fs_read_all(fd, v->payload, rest) != 0)
		return -1;
	v->size = size;
	delta[JC_REMOTE_BYTES_IN] += rest;
	return 1;
}

static int file_get(void *t, const struct jc_key *key, struct jc_remote_value *v,
		    struct jc_remote_lease **look, uint64_t delta[JC_NCOUNTERS])
{
	(void)look; /* no leases (tier.h) */
	struct file_tier *f = t;
	char sub[JC_OBJECT_SUB_MAX], name[JC_OBJECT_NAME_MAX];
	struct stat st;
	int absent;
	memset(v, 0, sizeof *v);
	jc_object_name(key, f->layout, sub, name);
	int dfd = entry_dir(f, sub, 0, &absent);
	if (dfd < 0) {
		if (absent)
			return 0;
		delta[JC_REMOTE_ERRORS]++;
		return -1;
	}
	int fd = jc_fs_open_file(dfd, name, O_RDONLY, 0);
	close(dfd);
	if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
		return 0;
	if (fd < 0 || fstat(fd, &st) != 0) {
		problem(f, P_READ, "cannot read %s/%s/%s (%s)", f->dir, sub, name,
			jc_fs_strerror(errno));
		delta[JC_REMOTE_ERRORS]++;
		if (fd >= 0)
			close(fd);
		return -1;
	}
	uint64_t size = (uint64_t)st.st_size;
	if (size > f->limit) {
		problem(f, P_LARGE, "an entry of %llu bytes is larger than max_size allows "
			"(%llu bytes); not read, compiling here", (unsigned long long)size,
			(unsigned long long)f->limit);
		delta[JC_REMOTE_CORRUPT]++;
		close(fd);
		return 0;
	}
	int rc = read_entry(f, fd, key, size, v, delta);
	if (rc < 0) {
		problem(f, P_READ, "cannot read %s/%s/%s (%s)", f->dir, sub, name,
			jc_fs_strerror(errno));
		delta[JC_REMOTE_ERRORS]++;
		free(v->payload);
		memset(v, 0, sizeof *v);
	}
	close(fd);
	return rc;
}

/* n bytes as a new temporary file in the directory dfd, never following a
 * link nor reusing a name: 0 with its name in tmp, or -1, nothing left. */
static int write_temp(int dfd, const void *bytes, size_t n, char tmp[PATH_MAX])
{
	int fd = jc_temp_open(dfd, ".", 0666, tmp);
	if (fd < 0)
		return -1;
	if (jc_temp_write(fd, bytes, n) != 0) {
		jc_temp_discard(dfd, fd, tmp);
		return -1;
	}
	if (close(fd) != 0) {
		jc_temp_discard(dfd, -1, tmp);
		return -1;
	}
	return 0;
}

static int file_put(void *t, const struct jc_key *key, const void *bytes, size_t n,
		    struct jc_remote_lease **lease, uint64_t delta[JC_NCOUNTERS])
{
	(void)lease; /* no leases (tier.h) */
	struct file_tier *f = t;
	char sub[JC_OBJECT_SUB_MAX], name[JC_OBJECT_NAME_MAX], tmp[PATH_MAX];
	int absent;
	jc_object_name(key, f->layout, sub, name);
	int dfd = entry_dir(f, sub, 1, &absent); /* said why if not */
	if (dfd < 0) {
		delta[JC_REMOTE_ERRORS]++;
		return -1;
	}
	if (write_temp(dfd, bytes, n, tmp) != 0) {
		problem(f, P_WRITE, "cannot write in %s%s%s (%s)", f->dir, *sub ? "/" : "", sub,
			jc_fs_strerror(errno));
		close(dfd);
		delta[JC_REMOTE_ERRORS]++;
		return -1;
	}
	if (jc_temp_place(dfd, tmp, name, JC_TEMP_RENAME) < 0) { /* tmp gone */
		problem(f, P_WRITE, "cannot rename into %s%s%s/%s (%s)", f->dir, *sub ? "/" : "",
			sub, name, jc_fs_strerror(errno));
		close(dfd);
		delta[JC_REMOTE_ERRORS]++;
		return -1;
	}
	close(dfd);
	delta[JC_REMOTE_STORES]++;
	delta[JC_REMOTE_BYTES_OUT] += n;
	return 0;
}

static void file_describe(void *t, char *out, size_t size)
{
	snprintf(out, size, "file %s", ((struct file_tier *)t)->shown);
}

static void file_close(void *t)
{
	free(t);
}

const struct jc_tier_ops jc_tier_file = {
	.name = "file",
	.slot = JC_SLOT_FILE,
	.open = file_open,
	.get = file_get,
	.put = file_put,
	.describe = file_describe,
	.close = file_close,
};
