// SPDX-License-Identifier: MIT
/* PoCL's binary format, version 9 (PoCL 3.x: lib/CL/pocl_binary.c), as far
 * as cl_pocl.h needs it, and the program directory it packs.
 *
 * Integers are little-endian.  A string or a file's content is a u32
 * length and its bytes; a file is its path relative to the program
 * directory ("/KERNEL/0-0-0/KERNEL.so"), then its content.
 *   header:  "poclbin\0", u64 device id, u32 version, u32 kernel count,
 *            u64 flags, u32 root entry count, 41 bytes: the program
 *            directory's name, NUL-padded;
 *   each root entry: u64 size, then that many bytes of files (program.bc);
 *   each kernel: u64 struct_size (the whole record), u64 binaries_size (its
 *            files, at the record's end), u32 argument info size, the
 *            kernel's name (a string), its metadata, then its files: those
 *            of DIR/KERNEL/, as PoCL found them there. */
#include "shim/cl/cl_pocl.h"
#include "config/buf.h"
#include "store/fsutil.h"

#include <endian.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC "poclbin" /* with its NUL: 8 bytes */
#define VERSION 9
#define HASH_SIZE 41    /* SHA1_digest_t: 2 x 20 characters and a NUL */
#define HEADER_SIZE (8 + 8 + 4 + 4 + 8 + 4 + HASH_SIZE)
#define MAX_DEPTH 8     /* DIR/KERNEL/SPECIALIZATION/FILE is 3 deep */

struct reader {
	const unsigned char *at, *end;
};

static int take(struct reader *r, void *out, size_t n)
{
	if ((size_t)(r->end - r->at) < n)
		return -1;
	memcpy(out, r->at, n);
	r->at += n;
	return 0;
}

static int take32(struct reader *r, uint32_t *v)
{
	int rc = take(r, v, sizeof *v);
	*v = le32toh(*v);
	return rc;
}

static int take64(struct reader *r, uint64_t *v)
{
	int rc = take(r, v, sizeof *v);
	*v = le64toh(*v);
	return rc;
}

/* A string or a file's content: its bytes, left in place. */
static int take_bytes(struct reader *r, const unsigned char **bytes, uint32_t *len)
{
	if (take32(r, len) != 0 || (size_t)(r->end - r->at) < *len)
		return -1;
	*bytes = r->at;
	r->at += *len;
	return 0;
}

/* The next file of a section: 1, 0 at its end, -1 if malformed. */
static int next_file(struct reader *r, const unsigned char **path, uint32_t *path_len,
		     const unsigned char **content, uint32_t *content_len)
{
	if (r->at == r->end)
		return 0;
	return take_bytes(r, path, path_len) == 0 && *path_len > 0 &&
	       take_bytes(r, content, content_len) == 0 ? 1 : -1;
}

/* Each file of a section: the number of files, or -1 if malformed. */
static long count_files(struct reader r)
{
	const unsigned char *path, *content;
	uint32_t path_len, content_len;
	long n = 0;
	int rc;
	while ((rc = next_file(&r, &path, &path_len, &content, &content_len)) == 1)
		n++;
	return rc == 0 ? n : -1;
}

struct kernel {
	const unsigned char *start; /* the record */
	uint64_t size;              /* struct_size */
	const unsigned char *name;
	uint32_t name_len;
	struct reader files;        /* its files' section */
};

/* The next kernel record: 0, or -1 if malformed. */
static int next_kernel(struct reader *r, struct kernel *k)
{
	struct reader rec = *r;
	uint64_t binaries_size;
	uint32_t arginfo_size;
	k->start = r->at;
	if (take64(&rec, &k->size) != 0 || take64(&rec, &binaries_size) != 0 ||
	    take32(&rec, &arginfo_size) != 0 || take_bytes(&rec, &k->name, &k->name_len) != 0 ||
	    k->size > (uint64_t)(r->end - r->at) || binaries_size > k->size ||
	    k->start + (k->size - binaries_size) < rec.at || k->name_len == 0 ||
	    memchr(k->name, '/', k->name_len) || k->name[0] == '.')
		return -1;
	k->files = (struct reader){ k->start + (k->size - binaries_size), k->start + k->size };
	r->at += k->size;
	return count_files(k->files) < 0 ? -1 : 0;
}

/* The header and root entries: 0 with r at the first kernel record. */
static int read_front(const void *bin, size_t size, struct jc_pocl_binary *out,
		      struct reader *r, uint32_t *nkernels)
{
	uint64_t device, flags;
	uint32_t version, nroots;
	unsigned char magic[8];
	*r = (struct reader){ bin, (const unsigned char *)bin + size };
	memset(out, 0, sizeof *out);
	if (take(r, magic, sizeof magic) != 0 || memcmp(magic, MAGIC, sizeof magic) != 0 ||
	    take64(r, &device) != 0 || take32(r, &version) != 0 || version != VERSION ||
	    take32(r, nkernels) != 0 || take64(r, &flags) != 0 || take32(r, &nroots) != 0 ||
	    take(r, out->dir, HASH_SIZE) != 0)
		return -1;
	out->dir[HASH_SIZE - 1] = '\0';
	/* A directory name PoCL made: "AB/CDE..." or "_UNCACHED_XXXXXX". */
	if (!out->dir[0] || out->dir[0] == '/' || strstr(out->dir, ".."))
		return -1;
	for (uint32_t i = 0; i < nroots; i++) {
		uint64_t n;
		if (take64(r, &n) != 0 || n > (uint64_t)(r->end - r->at))
			return -1;
		struct reader files = { r->at, r->at + n }, f = files;
		const unsigned char *path, *content;
		uint32_t path_len, content_len;
		int rc;
		while ((rc = next_file(&f, &path, &path_len, &content, &content_len)) == 1)
			if (path_len == 11 && memcmp(path, "/program.bc", 11) == 0) {
				out->program_bc = content;
				out->program_bc_size = content_len;
			}
		if (rc != 0)
			return -1;
		r->at = files.end;
	}
	return 0;
}

int jc_pocl_parse(const void *bin, size_t size, struct jc_pocl_binary *out)
{
	struct reader r;
	uint32_t nkernels;
	if (size < HEADER_SIZE || read_front(bin, size, out, &r, &nkernels) != 0)
		return -1;
	for (uint32_t i = 0; i < nkernels; i++) {
		struct kernel k;
		if (next_kernel(&r, &k) != 0)
			return -1;
		out->files += (size_t)count_files(k.files);
	}
	return r.at == r.end ? 0 : -1;
}

/* ---- the program directory ---- */

static int skipped(const char *name)
{
	size_t n = strlen(name);
	/* PoCL writes a file as NAME_XXXXXX.temp, then renames it. */
	return strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
	       (n >= 5 && strcmp(name + n - 5, ".temp") == 0);
}

/* The directory is walked with store/fsutil.h's jc_fs_walk(), which gives
 * the names of a directory sorted: an entry then packs the same files in
 * the same order wherever it is refreshed. */
static void count_one(void *ctx, const char *path, int depth, uint64_t size)
{
	(void)path, (void)size;
	if (depth > 0) /* in a kernel's directory, not the program's own files */
		++*(size_t *)ctx;
}

size_t jc_pocl_dir_files(const char *dir)
{
	size_t files = 0;
	jc_fs_walk(dir, 0, MAX_DEPTH, skipped, count_one, &files);
	return files;
}

/* ---- merging ---- */

static int carries(struct reader files, const char *rel)
{
	const unsigned char *path, *content;
	uint32_t path_len, content_len;
	size_t n = strlen(rel);
	while (next_file(&files, &path, &path_len, &content, &content_len) == 1)
		if (path_len == n && memcmp(path, rel, n) == 0)
			return 1;
	return 0;
}

/* Append the files below a kernel's directory (rel_at: where a file's
 * name relative to the program directory starts in its path) that the
 * kernel's section does not carry. */
struct adding {
	struct jc_buf *o;
	const struct kernel *k;
	size_t rel_at;
};

static void add_one(void *ctx, const char *path, int depth, uint64_t size_now)
{
	const struct adding *a = ctx;
	const char *rel = path + a->rel_at;
	unsigned char *data;
	size_t size;
	(void)depth, (void)size_now;
	if (a->o->failed || carries(a->k->files, rel) ||
	    jc_fs_read_file(path, JC_POCL_MAX_BINARY, &data, &size) != 0)
		return;
	jc_buf_put_le32(a->o, (uint32_t)strlen(rel));
	jc_buf_puts(a->o, rel);
	if (size > UINT32_MAX)
		a->o->failed = 1;
	jc_buf_put_le32(a->o, (uint32_t)size);
	jc_buf_put(a->o, data, size);
	free(data);
}

/* Whether dir holds the binary's program.bc. */
static int same_program(const struct jc_pocl_binary *b, const char *dir)
{
	char path[PATH_MAX];
	unsigned char *data;
	size_t size;
	if (!b->program_bc || snprintf(path, sizeof path, "%s/program.bc", dir) >= (int)sizeof path ||
	    jc_fs_read_file(path, b->program_bc_size, &data, &size) != 0)
		return 0;
	int same = size == b->program_bc_size && memcmp(data, b->program_bc, size) == 0;
	free(data);
	return same;
}

int jc_pocl_merge(const void *bin, size_t size, const char *dir, void **out_bytes,
		  size_t *out_size)
{
	struct jc_pocl_binary b;
	struct reader r;
	uint32_t nkernels;
	char path[PATH_MAX];
	size_t dir_len = strlen(dir);
	if (jc_pocl_parse(bin, size, &b) != 0 || read_front(bin, size, &b, &r, &nkernels) != 0 ||
	    !same_program(&b, dir) || dir_len >= sizeof path)
		return -1;
	struct jc_buf o = { .max = JC_POCL_MAX_BINARY };
	int added = 0;
	jc_buf_put(&o, bin, (size_t)(r.at - (const unsigned char *)bin));
	for (uint32_t i = 0; i < nkernels && !o.failed; i++) {
		struct kernel k;
		next_kernel(&r, &k); /* parsed above */
		size_t at = o.n;
		jc_buf_put(&o, k.start, (size_t)k.size);
		if (dir_len + 1 + k.name_len >= sizeof path)
			continue;
		snprintf(path, sizeof path, "%s/%.*s", dir, (int)k.name_len, (const char *)k.name);
		jc_fs_walk(path, 1, MAX_DEPTH, skipped, add_one,
			   &(struct adding){ .o = &o, .k = &k, .rel_at = dir_len });
		if (o.failed || o.n == at + k.size)
			continue;
		/* The record and its files grew by the same bytes. */
		uint64_t grown = (uint64_t)(o.n - at - k.size), v;
		memcpy(&v, o.s + at, 8);
		v = htole64(le64toh(v) + grown);
		memcpy(o.s + at, &v, 8);
		memcpy(&v, o.s + at + 8, 8);
		v = htole64(le64toh(v) + grown);
		memcpy(o.s + at + 8, &v, 8);
		added = 1;
	}
	if (o.failed || !added) {
		free(o.s);
		return o.failed ? -1 : 0;
	}
	*out_bytes = o.s;
	*out_size = o.n;
	return 1;
}
