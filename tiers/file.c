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

#include "store/entry.h"
#include "store/fsutil.h"
#include "config/log.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum problem { P_READ, P_WRITE, P_LARGE, P_COUNT };

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
	char what[PATH_MAX + 128];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	if (!__atomic_exchange_n(&f->told[kind], 1, __ATOMIC_RELAXED))
		jc_log(JC_LOG_WARN, "remote %s: %s", f->shown, what);
}

/* The entry's directory (dir) and file (path), as the layout puts it. */
static int entry_path(const struct file_tier *f, const struct jc_key *key, char dir[PATH_MAX],
		      char path[PATH_MAX])
{
	char hex[2 * JC_KEY_BYTES + 1];
	int n = 0;
	jc_key_hex(key, hex);
	switch (f->layout) {
	case JC_LAYOUT_FLAT:
		snprintf(dir, PATH_MAX, "%s", f->dir);
		n = snprintf(path, PATH_MAX, "%s/%s", f->dir, hex);
		break;
	case JC_LAYOUT_BAZEL: /* as ccache: the digest's hex, extended to 64 with itself */
		snprintf(dir, PATH_MAX, "%s/ac", f->dir);
		n = snprintf(path, PATH_MAX, "%s/ac/%s%s", f->dir, hex, hex);
		break;
	default:
		snprintf(dir, PATH_MAX, "%s/%02x", f->dir, key->bytes[0]);
		n = snprintf(path, PATH_MAX, "%s/%02x/%s", f->dir, key->bytes[0], hex);
		break;
	}
	return n > 0 && n < PATH_MAX ? 0 : -1;
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

static int file_get(void *t, const struct jc_key *key, struct jc_remote_value *v,
		    uint64_t delta[JC_NCOUNTERS])
{
	struct file_tier *f = t;
	char dir[PATH_MAX], path[PATH_MAX];
	struct stat st;
	memset(v, 0, sizeof *v);
	if (entry_path(f, key, dir, path) != 0)
		return -1;
	int fd = jc_fs_open_file(AT_FDCWD, path, O_RDONLY, 0);
	if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
		return 0;
	if (fd < 0 || fstat(fd, &st) != 0) {
		problem(f, P_READ, "cannot read %s (%s)", path, jc_fs_strerror(errno));
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
	size_t head = size < JC_ENTRY_HEADER_SIZE ? (size_t)size : JC_ENTRY_HEADER_SIZE;
	size_t rest = (size_t)size - head;
	v->payload = malloc(rest ? rest : 1);
	if (!v->payload || jc_fs_read_all(fd, v->header, head) != 0 ||
	    jc_fs_read_all(fd, v->payload, rest) != 0) {
		problem(f, P_READ, "cannot read %s (%s)", path, jc_fs_strerror(errno));
		delta[JC_REMOTE_ERRORS]++;
		free(v->payload);
		memset(v, 0, sizeof *v);
		close(fd);
		return -1;
	}
	close(fd);
	v->size = size;
	delta[JC_REMOTE_BYTES_IN] += size;
	return 1;
}

static int file_put(void *t, const struct jc_key *key, const void *bytes, size_t n,
		    uint64_t delta[JC_NCOUNTERS])
{
	struct file_tier *f = t;
	char dir[PATH_MAX], path[PATH_MAX], tmp[PATH_MAX];
	if (entry_path(f, key, dir, path) != 0)
		return -1;
	if ((strcmp(dir, f->dir) != 0 && mkdir(dir, 0777) != 0 && errno != EEXIST) ||
	    jc_fs_write_temp(dir, bytes, n, 0666, tmp) != 0) {
		problem(f, P_WRITE, "cannot write in %s (%s)%s", dir, jc_fs_strerror(errno),
			errno == ENOENT ? ": the directory named does not exist (never made "
			"here: a volume not mounted?)" : "");
		delta[JC_REMOTE_ERRORS]++;
		return -1;
	}
	if (rename(tmp, path) != 0) {
		problem(f, P_WRITE, "cannot rename into %s (%s)", path, jc_fs_strerror(errno));
		unlink(tmp);
		delta[JC_REMOTE_ERRORS]++;
		return -1;
	}
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
