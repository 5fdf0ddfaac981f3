// SPDX-License-Identifier: MIT
/*
 * archive.h — one file that carries cache entries between machines and into
 * container images: a POSIX tar archive (ustar), zstd-compressed, as
 * jc_cache_export() and jc_cache_import() (cache/transfer.h) write and read
 * it.
 *
 * Each member (header, data, padding) is its own zstd frame, and the end
 * marker another: standard tools read the archive as one stream, and a
 * reader that meets a damaged frame loses that member only, resuming at the
 * next frame.  A truncated archive gives every whole member before the cut.
 * The reader also takes an uncompressed tar (e.g. `tar -cf` of a cache).
 *
 * The member reader and writer know tar and zstd but not entries (the unit
 * and fuzz tests use them too):
 *
 *   struct jc_archive_writer *w = jc_archive_create(path, msgs); // NULL: said why
 *   jc_archive_add(w, "ab", 0, NULL, 0, 1);                  // a directory
 *   jc_archive_add(w, "ab/<hex>", mtime_s, data, size, 0);   // a file
 *   jc_archive_commit(w);  // 0: path holds the archive; w is freed either way
 *
 *   struct jc_archive_reader *r = jc_archive_open(file, max_member);
 *   struct jc_archive_member m;
 *   while ((rc = jc_archive_next(r, &m)) > 0) {
 *       if (m.data) use(m.name, m.data, m.size); else refuse(m.name, m.why);
 *       jc_archive_member_free(&m);
 *   }
 *   if (rc < 0) say(jc_archive_error(r)); // damaged or cut short from here
 *   jc_archive_close(r);                  // does not close file
 */
#ifndef JITCACHE_ARCHIVE_H
#define JITCACHE_ARCHIVE_H

#include "store/store.h"

#include <stdint.h>
#include <stdio.h>

struct jc_archive_writer;

/* Messages (one line each, on msgs) say why a call failed. */
struct jc_archive_writer *jc_archive_create(const char *path, FILE *msgs);
int jc_archive_add(struct jc_archive_writer *w, const char *name, int64_t mtime_s,
		   const void *data, size_t size, int is_dir);
/* Bytes written so far (compressed). */
uint64_t jc_archive_written(const struct jc_archive_writer *w);
int jc_archive_commit(struct jc_archive_writer *w);
void jc_archive_abandon(struct jc_archive_writer *w); /* remove the temporary file */

struct jc_archive_member {
	char name[260];       /* printable: other bytes shown as '?' */
	int64_t mtime_s;
	uint64_t size;
	void *data;           /* malloc'd; NULL if the member is refused ... */
	const char *why;      /* ... for this reason */
	int sunk;             /* 1: its data went to the sink instead (data NULL) */
};

struct jc_archive_reader;

/* Members larger than max_member bytes are refused (and skipped over). */
struct jc_archive_reader *jc_archive_open(FILE *file, uint64_t max_member);
/* Optionally, judge each regular member from its first bytes (up to 512,
 * all of a smaller one) and its size before the rest is kept in memory:
 * NULL takes it, a reason refuses it (then read past, never kept). */
typedef const char *jc_archive_check_fn(void *arg, const char *name, const void *head,
					size_t n, uint64_t size);
void jc_archive_set_check(struct jc_archive_reader *r, jc_archive_check_fn *check, void *arg);
/* Optionally, with a check set: hand the data of each member the check
 * takes to a sink as it arrives instead of keeping it in memory, so that a
 * member of any size costs one small buffer: sink(arg, name, NULL, size)
 * when it begins, then its bytes in order, the first ones those checked.  NULL
 * goes on; a reason has the rest read past and the member refused with it.
 * A member wholly given to the sink comes out with sunk 1 and no data. */
typedef const char *jc_archive_sink_fn(void *arg, const char *name, const void *data,
				       size_t n);
void jc_archive_set_sink(struct jc_archive_reader *r, jc_archive_sink_fn *sink, void *arg);
/* 1: *m is the next regular file (directories and tar metadata are passed
 * over); 0: the end of the archive; -1: the rest cannot be read. */
int jc_archive_next(struct jc_archive_reader *r, struct jc_archive_member *m);
const char *jc_archive_error(const struct jc_archive_reader *r);
void jc_archive_member_free(struct jc_archive_member *m);
void jc_archive_close(struct jc_archive_reader *r);

#endif
