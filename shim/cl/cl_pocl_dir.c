// SPDX-License-Identifier: MIT
/* PoCL's own cache directory of a program as an entry (cl_pocl.h): found
 * after the build, packed, and put back before a later build.
 *
 * A pack is ours, not PoCL's: "jcpocld\0", u32 version 1, the directory's
 * name under PoCL's cache directory ("AB/CDE...", a u32 length and its
 * bytes), u32 file count, then each file: its path relative to the
 * directory (u32 length, bytes), u64 size, its bytes.  Little-endian. */
#include "shim/cl/cl_pocl.h"
#include "config/buf.h"
#include "config/clock.h"
#include "config/tempfile.h"
#include "shim/cl/cl_api.h"
#include "store/fsutil.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PACK_MAGIC "jcpocld" /* with its NUL: 8 bytes */
#define PACK_VERSION 1
#define MAX_DEPTH 8
#define MAX_FILES 65536

int jc_pocl_cache_on(void)
{
	const char *v = getenv("POCL_KERNEL_CACHE");
	return !v || v[0] == '1'; /* as PoCL reads it: its first character */
}

int jc_pocl_is_pack(const void *bin, size_t size)
{
	return bin && size >= 8 && memcmp(bin, PACK_MAGIC, 8) == 0;
}

/* ---- finding the directory a build used ---- */

/* A file's mtime is the kernel's coarse clock (CLOCK_REALTIME_COARSE), or
 * finer; never earlier than that clock read before the write. */
static int64_t coarse_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME_COARSE, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The program directory PoCL named on this thread since the build began
 * (its access() or rename() of DIR/program.bc, through the hooks of
 * cl_pocl.c): "" if none, "\1" if more than one. */
static __thread char named[512];
/* Whether PoCL's last access() of named/program.bc found it (PoCL loads
 * it then, as from its cache): 1, or 0 (missing, or written: a rename). */
static __thread int named_found;

void jc_pocl_note_path(const char *path, int found)
{
	size_t n = strlen(path), tail = sizeof "/program.bc" - 1;
	if (n <= tail || strcmp(path + n - tail, "/program.bc") != 0 || named[0] == '\1')
		return;
	n -= tail;
	if (n >= sizeof named ||
	    (named[0] && (strncmp(named, path, n) != 0 || named[n] != '\0')))
		snprintf(named, sizeof named, "\1"); /* too long, or two: the search decides */
	else
		snprintf(named, sizeof named, "%.*s", (int)n, path);
	named_found = found;
}

int64_t jc_pocl_build_starts(void)
{
	jc_pocl_named_starts();

	/* Waiting for the coarse clock's next tick (a few ms, no CPU) leaves
	 * every touch made before at an earlier time than any made from now. */
	int64_t now = coarse_ns(), next = now;
	for (int i = 0; i < 40 && next == now; i++) {
		nanosleep(&(struct timespec){ .tv_nsec = 500000 }, NULL);
		next = coarse_ns();
	}
	return next;
}

int64_t jc_pocl_build_ended(void)
{
	/* A touch's time may be finer than the coarse clock, ahead of it by a
	 * tick: the end is a few ticks after the real clock's now. */
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec + 20000000LL;
}

/* The name PoCL gives a program's directory with its cache off
 * (mkdtemp()): "_UNCACHED_" and six letters or digits. */
static int uncached_name(const char *name, size_t n)
{
	if (n != 16 || strncmp(name, "_UNCACHED_", 10) != 0)
		return 0;
	for (size_t i = 10; i < n; i++)
		if (!((name[i] >= 'A' && name[i] <= 'Z') || (name[i] >= 'a' && name[i] <= 'z') ||
		      (name[i] >= '0' && name[i] <= '9')))
			return 0;
	return 1;
}

/* The name PoCL gives a program's directory with its cache on: two
 * letters, "/", letters. */
static int hash_name(const char *name, size_t n)
{
	if (n < 4 || n > 64 || name[2] != '/')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (i != 2 && !((name[i] >= 'A' && name[i] <= 'Z') ||
				(name[i] >= 'a' && name[i] <= 'z') ||
				(name[i] >= '0' && name[i] <= '9') || name[i] == '_'))
			return 0;
	return 1;
}

/* Either: a pack may name a directory of PoCL's cache or a temporary one. */
static int dir_name_ok(const char *name, size_t n)
{
	return hash_name(name, n) || uncached_name(name, n);
}

/* Whether path's program.bc names every kernel of names (";"-separated):
 * a directory of another program touched in the same instant is not ours. */
static int holds_kernels(const char *dir, const char *names)
{
	char path[PATH_MAX];
	unsigned char *bc;
	size_t size;
	if (snprintf(path, sizeof path, "%s/program.bc", dir) >= (int)sizeof path ||
	    jc_fs_read_file(path, JC_POCL_MAX_BINARY, &bc, &size) != 0)
		return 0;
	int all = 1;
	for (const char *s = names; all && *s;) {
		size_t n = strcspn(s, ";");
		all = n == 0 || memmem(bc, size, s, n) != NULL;
		s += n + (s[n] == ';');
	}
	free(bc);
	return all;
}

static char *kernel_names(cl_program program)
{
	const struct jc_cl_real *cl = jc_cl_real();
	size_t size = 0;
	char *names = NULL;
	if (cl->real_clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, 0, NULL, &size) !=
		    CL_SUCCESS ||
	    !(names = calloc(1, size + 1)) ||
	    cl->real_clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, size, names, NULL) !=
		    CL_SUCCESS) {
		free(names);
		return NULL;
	}
	return names;
}

/* PoCL's cache directory, as PoCL 3.x chooses it (pocl_cache_init_topdir):
 * POCL_CACHE_DIR, else XDG_CACHE_HOME/pocl/kcache, ~/.cache/pocl/kcache or
 * /tmp/pocl/kcache, "uncached" for "kcache" with its cache off
 * (POCL_KERNEL_CACHE set and not starting with 1: PoCL reads one
 * character). */
int jc_pocl_topdir(char *out, size_t size)
{
	const char *dir = getenv("POCL_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"),
		   *home = getenv("HOME"), *on = getenv("POCL_KERNEL_CACHE");
	const char *kind = !on || on[0] == '1' ? "kcache" : "uncached";
	int n = dir		? snprintf(out, size, "%s", dir)
		: xdg && *xdg	? snprintf(out, size, "%s/pocl/%s", xdg, kind)
		: home		? snprintf(out, size, "%s/.cache/pocl/%s", home, kind)
				: snprintf(out, size, "/tmp/pocl/%s", kind);
	return n > 0 && (size_t)n < size ? 0 : -1;
}

int64_t jc_pocl_touched_ns(const char *dir)
{
	char path[PATH_MAX];
	if (snprintf(path, sizeof path, "%s/last_accessed", dir) >= (int)sizeof path)
		return -1;
	return jc_fs_path_mtime_ns(path);
}

/* The search of jc_pocl_find_dir(): PoCL's top directory, the two-letter
 * subdirectory being read, and what was found. */
struct finding {
	const char *names;
	int64_t t0, t1;
	char top[PATH_MAX], sub[8], found[PATH_MAX];
	int n;
};

static int program_dir_of(void *ctx, const char *name)
{
	struct finding *f = ctx;
	char dir[PATH_MAX];
	if (name[0] == '.' ||
	    snprintf(dir, sizeof dir, "%s/%s/%s", f->top, f->sub, name) >= (int)sizeof dir)
		return 0;
	int64_t at = jc_pocl_touched_ns(dir);
	if (at >= f->t0 && at <= f->t1 && holds_kernels(dir, f->names) && f->n++ == 0)
		snprintf(f->found, sizeof f->found, "%s/%s", f->sub, name);
	return f->n >= 2;
}

static int two_letters(void *ctx, const char *name)
{
	struct finding *f = ctx;
	char path[PATH_MAX];
	if (strlen(name) != 2 || name[0] == '.' ||
	    snprintf(path, sizeof path, "%s/%s", f->top, name) >= (int)sizeof path)
		return 0;
	snprintf(f->sub, sizeof f->sub, "%s", name);
	jc_fs_each_name(path, program_dir_of, f);
	return f->n >= 2;
}

/* The directory PoCL named on this thread (jc_pocl_note_path()), if it is
 * one of f->top's, touched in the build and holding its kernels: PoCL's
 * own choice for this build, found without reading every directory of
 * its cache (one build read them all: 58 directories, 15 ms of CPU per
 * pyopencl run, and growing with PoCL's cache). */
static int named_dir(struct finding *f)
{
	size_t top = strlen(f->top);
	if (strncmp(named, f->top, top) != 0 || named[top] != '/')
		return 0;
	const char *name = named + top + 1; /* inside named: it begins with f->top */
	if (!hash_name(name, strlen(name)) || strlen(name) >= sizeof f->found)
		return 0;
	int64_t at = f->t0 ? jc_pocl_touched_ns(named) : 0; /* t0 0: named in the build */
	if (at < f->t0 || at > f->t1 || !holds_kernels(named, f->names))
		return 0;
	snprintf(f->found, sizeof f->found, "%s", name);
	f->n = 1;
	return 1;
}

char *jc_pocl_find_dir(cl_program program, int64_t t0, int64_t t1)
{
	static struct finding zero;
	struct finding *f = malloc(sizeof *f);
	char *names = f ? kernel_names(program) : NULL, *found = NULL;
	if (names) {
		*f = zero;
		f->names = names;
		f->t0 = t0;
		f->t1 = t1;
		/* (no start time, the hooks on: the directory PoCL named, or none) */
		if (jc_pocl_topdir(f->top, sizeof f->top) == 0 && !named_dir(f) && t0)
			jc_fs_each_name(f->top, two_letters, f);
		/* Two candidates: another build of the same kernels at the same
		 * time; which is ours cannot be told, so neither is taken. */
		if (f->n == 1 && hash_name(f->found, strlen(f->found)))
			found = strdup(f->found);
	}
	free(names);
	free(f);
	return found;
}

/* ---- packing ---- */

/* The pack being written: its bytes (at most JC_POCL_MAX_BINARY: b.max). */
struct pack {
	struct jc_buf b;
	size_t rel_at; /* where a path relative to the directory starts */
	uint32_t files;
};

/* PoCL's own bookkeeping, not the program: its access time, and files it
 * is still writing (NAME_XXXXXX.temp, renamed when complete). */
static int skipped(const char *name)
{
	size_t n = strlen(name);
	return strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
	       strcmp(name, "last_accessed") == 0 || (n >= 5 && strcmp(name + n - 5, ".temp") == 0);
}

static void pack_one(void *ctx, const char *path, int depth, uint64_t size_now)
{
	struct pack *o = ctx;
	unsigned char *data;
	size_t size;
	(void)depth, (void)size_now;
	if (o->b.failed || o->files >= MAX_FILES ||
	    jc_fs_read_file(path, JC_POCL_MAX_BINARY, &data, &size) != 0)
		return;
	const char *rel = path + o->rel_at;
	jc_buf_put_le32(&o->b, (uint32_t)strlen(rel));
	jc_buf_puts(&o->b, rel);
	jc_buf_put_le64(&o->b, size);
	jc_buf_put(&o->b, data, size);
	free(data);
	o->files++;
}

/* A pack's head naming directory `name`, with `files` files: where the
 * count is in b->s, for a count known only later. */
static size_t put_head(struct jc_buf *b, const char *name, uint32_t files)
{
	jc_buf_put(b, PACK_MAGIC, 8);
	jc_buf_put_le32(b, PACK_VERSION);
	jc_buf_put_le32(b, (uint32_t)strlen(name));
	jc_buf_puts(b, name);
	size_t count_at = b->n;
	jc_buf_put_le32(b, files);
	return count_at;
}

int jc_pocl_pack(const char *name, void **out, size_t *size)
{
	char top[PATH_MAX], dir[PATH_MAX];
	if (!dir_name_ok(name, strlen(name)) || jc_pocl_topdir(top, sizeof top) != 0 ||
	    snprintf(dir, sizeof dir, "%s/%s", top, name) >= (int)sizeof dir)
		return -1;
	struct pack o = { .b.max = JC_POCL_MAX_BINARY, .rel_at = strlen(dir) + 1 };
	size_t count_at = put_head(&o.b, name, 0);
	jc_fs_walk(dir, 0, MAX_DEPTH, skipped, pack_one, &o);
	if (!o.b.failed) {
		uint32_t v = htole32(o.files);
		memcpy(o.b.s + count_at, &v, 4);
	}
	/* Without its program.bc a directory is nothing PoCL can load. */
	struct jc_pocl_binary b;
	if (o.b.failed || jc_pocl_pack_parse(o.b.s, o.b.n, &b) != 0 || !b.program_bc) {
		free(o.b.s);
		return -1;
	}
	*out = o.b.s;
	*size = o.b.n;
	return 0;
}

/* ---- reading a pack ---- */

struct reader {
	const unsigned char *at, *end;
};

static int take32(struct reader *r, uint32_t *v)
{
	if (r->end - r->at < 4)
		return -1;
	memcpy(v, r->at, 4);
	*v = le32toh(*v);
	r->at += 4;
	return 0;
}

static int take64(struct reader *r, uint64_t *v)
{
	if (r->end - r->at < 8)
		return -1;
	memcpy(v, r->at, 8);
	*v = le64toh(*v);
	r->at += 8;
	return 0;
}

/* A relative path of plain names: no "", ".", "..", at most 4 deep. */
static int path_ok(const unsigned char *p, uint32_t n)
{
	if (n == 0 || n >= PATH_MAX / 2 || memchr(p, '\0', n) || p[0] == '/' || p[n - 1] == '/')
		return 0;
	int depth = 0;
	for (uint32_t i = 0; i < n;) {
		uint32_t j = i;
		while (j < n && p[j] != '/')
			j++;
		if (j == i || (j - i == 1 && p[i] == '.') ||
		    (j - i == 2 && p[i] == '.' && p[i + 1] == '.') || ++depth > 4)
			return 0;
		i = j + 1;
	}
	return 1;
}

/* Each file in turn: 1, 0 at the end, -1 if malformed. */
static int next_file(struct reader *r, const unsigned char **path, uint32_t *path_len,
		     const unsigned char **data, uint64_t *size)
{
	if (r->at == r->end)
		return 0;
	if (take32(r, path_len) != 0 || (size_t)(r->end - r->at) < *path_len ||
	    !path_ok(r->at, *path_len))
		return -1;
	*path = r->at;
	r->at += *path_len;
	if (take64(r, size) != 0 || *size > (uint64_t)(r->end - r->at))
		return -1;
	*data = r->at;
	r->at += *size;
	return 1;
}

static int read_head(const void *bin, size_t size, struct reader *r, struct jc_pocl_binary *b,
		     uint32_t *files)
{
	uint32_t version, name_len;
	*r = (struct reader){ (const unsigned char *)bin + 8, (const unsigned char *)bin + size };
	memset(b, 0, sizeof *b);
	if (!jc_pocl_is_pack(bin, size) || take32(r, &version) != 0 || version != PACK_VERSION ||
	    take32(r, &name_len) != 0 || name_len >= sizeof b->dir ||
	    (size_t)(r->end - r->at) < name_len || !dir_name_ok((const char *)r->at, name_len))
		return -1;
	memcpy(b->dir, r->at, name_len);
	r->at += name_len;
	return take32(r, files);
}

int jc_pocl_pack_parse(const void *bin, size_t size, struct jc_pocl_binary *b)
{
	struct reader r;
	uint32_t files;
	if (read_head(bin, size, &r, b, &files) != 0)
		return -1;
	const unsigned char *path, *data;
	uint32_t path_len;
	uint64_t n;
	int rc;
	uint32_t seen = 0;
	while ((rc = next_file(&r, &path, &path_len, &data, &n)) == 1) {
		seen++;
		if (path_len == 10 && memcmp(path, "program.bc", 10) == 0) {
			b->program_bc = data;
			b->program_bc_size = (size_t)n;
		} else if (memchr(path, '/', path_len)) {
			b->files++; /* in a kernel's directory, as jc_pocl_dir_files() counts */
		}
	}
	return rc == 0 && seen == files ? 0 : -1;
}

/* One file put in place if it is not there: PoCL's files are written once
 * and never changed, so one already there (PoCL's own) is kept. */
static int put_file(const char *dir, const unsigned char *rel, uint32_t rel_len,
		    const unsigned char *data, uint64_t size)
{
	char path[PATH_MAX], parent[PATH_MAX];
	if (snprintf(path, sizeof path, "%s/%.*s", dir, (int)rel_len, (const char *)rel) >=
	    (int)sizeof path)
		return -1;
	if (jc_fs_exists(path))
		return 0;
	snprintf(parent, sizeof parent, "%s", path);
	*strrchr(parent, '/') = '\0';
	if (jc_fs_mkdir_p(parent, 0700) != 0 ||
	    jc_temp_put(AT_FDCWD, parent, data, (size_t)size, 0600, path, JC_TEMP_LINK) < 0)
		return -1;
	return 0;
}

/* The files of pack bin (with its program.bc) put in dir, each as
 * put_file() does, program.bc last: a build that finds it finds every
 * file.  0, or -1. */
static int put_files(const char *dir, const void *bin, size_t size)
{
	struct reader r;
	struct jc_pocl_binary b, head;
	uint32_t files;
	if (jc_pocl_pack_parse(bin, size, &b) != 0 || !b.program_bc ||
	    read_head(bin, size, &r, &head, &files) != 0)
		return -1;
	const unsigned char *rel, *data;
	uint32_t rel_len;
	uint64_t n;
	int ok = 1;
	while (ok && next_file(&r, &rel, &rel_len, &data, &n) == 1)
		if (!(rel_len == 10 && memcmp(rel, "program.bc", 10) == 0))
			ok = put_file(dir, rel, rel_len, data, n) == 0;
	return ok && put_file(dir, (const unsigned char *)"program.bc", 10, b.program_bc,
			      b.program_bc_size) == 0
		       ? 0
		       : -1;
}

char *jc_pocl_unpack(const void *bin, size_t size)
{
	struct jc_pocl_binary b;
	char top[PATH_MAX], dir[PATH_MAX];
	if (jc_pocl_pack_parse(bin, size, &b) != 0 ||
	    !hash_name(b.dir, strlen(b.dir)) || /* a temporary one PoCL's cache never reads */
	    jc_pocl_topdir(top, sizeof top) != 0 ||
	    snprintf(dir, sizeof dir, "%s/%s", top, b.dir) >= (int)sizeof dir)
		return NULL;
	return put_files(dir, bin, size) == 0 ? jc_fs_realpath(dir) : NULL;
}

static const char *uncached_dir(const char *dir);

int jc_pocl_pack_merge(const void *bin, size_t size, const char *dir, void **out,
		       size_t *out_size)
{
	struct jc_pocl_binary old, now;
	void *bytes;
	size_t n;
	if (jc_pocl_pack_parse(bin, size, &old) != 0 || !old.program_bc)
		return -1;
	size_t len = strlen(dir), name_len = strlen(old.dir);
	/* dir must be the directory the pack names (under the cache directory),
	 * or, PoCL's cache off, the temporary one a hit put it in. */
	const char *name = uncached_dir(dir);
	if (!name)
		name = old.dir;
	if (name == old.dir && (len <= name_len || strcmp(dir + len - name_len, old.dir) != 0 ||
				dir[len - name_len - 1] != '/'))
		return -1;
	if (jc_pocl_pack(name, &bytes, &n) != 0)
		return -1;
	if (jc_pocl_pack_parse(bytes, n, &now) != 0 || now.program_bc_size != old.program_bc_size ||
	    memcmp(now.program_bc, old.program_bc, old.program_bc_size) != 0 ||
	    now.files <= old.files) {
		free(bytes);
		return now.files <= old.files ? 0 : -1;
	}
	*out = bytes;
	*out_size = n;
	return 1;
}

/* ---- PoCL's cache off: the build's temporary directory ---- */

/* The directory named (TOP/_UNCACHED_XXXXXX), if it is one: its name's
 * start in dir, or NULL. */
static const char *uncached_dir(const char *dir)
{
	char top[PATH_MAX];
	size_t n = strlen(dir);
	if (n < 17 || jc_pocl_topdir(top, sizeof top) != 0)
		return NULL;
	const char *name = dir + n - 16;
	size_t t = (size_t)(name - dir) - 1;
	if (dir[t] != '/' || !uncached_name(name, 16))
		return NULL;
	if (strlen(top) == t && strncmp(dir, top, t) == 0)
		return name;
	/* as PoCL named it, or resolved (a watch's directory) */
	char *real = jc_fs_realpath(top);
	int same = real && strlen(real) == t && strncmp(dir, real, t) == 0;
	free(real);
	return same ? name : NULL;
}

void jc_pocl_named_starts(void)
{
	named[0] = '\0';
	named_found = 0;
}

int jc_pocl_named_found(const char *dir)
{
	size_t n = strlen(named);
	if (!named_found || !n || named[0] == '\1')
		return 0;
	if (strcmp(named, dir) == 0)
		return 1;
	char *real = jc_fs_realpath(named); /* as PoCL named it: dir is resolved */
	int same = real && strcmp(real, dir) == 0;
	free(real);
	return same;
}

char *jc_pocl_find_uncached(cl_program program)
{
	const char *name = uncached_dir(named);
	char *names = name ? kernel_names(program) : NULL, *found = NULL;
	if (names && holds_kernels(named, names))
		found = strdup(name);
	free(names);
	return found;
}

/* The name under TOP of the program directory dir, if it is one with PoCL's
 * cache on or off (its start in dir), or NULL. */
static const char *build_dir(const char *dir)
{
	const char *name = uncached_dir(dir);
	char top[PATH_MAX];
	size_t n = strlen(dir), t;
	if (name || jc_pocl_topdir(top, sizeof top) != 0)
		return name;
	t = strlen(top);
	return n > t + 1 && strncmp(dir, top, t) == 0 && dir[t] == '/' &&
			       hash_name(dir + t + 1, n - t - 1)
		       ? dir + t + 1
		       : NULL;
}

/* The pack a build on this thread is to find in its directory, and the
 * name of the directory it was put in (jc_pocl_fill_begin() to _end()). */
static __thread const void *fill_bin;
static __thread size_t fill_size;
static __thread char filled[64];

void jc_pocl_fill_begin(const void *bin, size_t size)
{
	fill_bin = bin;
	fill_size = size;
	filled[0] = '\0';
}

char *jc_pocl_fill_end(void)
{
	fill_bin = NULL;
	return filled[0] ? strdup(filled) : NULL;
}

void jc_pocl_fill_at(const char *path)
{
	size_t n = strlen(path), tail = sizeof "/program.bc" - 1;
	if (!fill_bin || n <= tail || n - tail >= PATH_MAX ||
	    strcmp(path + n - tail, "/program.bc") != 0)
		return;
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%.*s", (int)(n - tail), path);
	const void *bin = fill_bin;
	fill_bin = NULL; /* one directory: the build's own */
	const char *name = build_dir(dir);
	if (!name || strlen(name) >= sizeof filled)
		return;
	/* PoCL's cache on and holding the build already: PoCL loads its own.
	 * (Off, a directory PoCL just made holds none.) */
	if (jc_fs_exists(path)) {
		if (jc_pocl_cache_on())
			snprintf(filled, sizeof filled, "%s", name);
		return;
	}
	if (jc_fs_exists(dir) && put_files(dir, bin, fill_size) == 0)
		snprintf(filled, sizeof filled, "%s", name);
}

int jc_pocl_pack_renamed(const void *bin, size_t size, const char *name, void **out,
			 size_t *out_size)
{
	struct reader r;
	struct jc_pocl_binary b;
	uint32_t files;
	if (!dir_name_ok(name, strlen(name)) || read_head(bin, size, &r, &b, &files) != 0)
		return -1;
	struct jc_buf o = { .max = JC_POCL_MAX_BINARY };
	put_head(&o, name, files);
	jc_buf_put(&o, r.at, (size_t)(r.end - r.at));
	if (o.failed) {
		free(o.s);
		return -1;
	}
	*out = o.s;
	*out_size = o.n;
	return 0;
}
