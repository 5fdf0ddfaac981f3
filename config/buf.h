// SPDX-License-Identifier: MIT
/*
 * buf.h — a growable byte buffer: a recipe being written, a canonical
 * request being signed, macro text being expanded.
 *
 *   struct jc_buf b = { 0 };
 *   jc_buf_put(&b, bytes, n);      // as many times as there are pieces
 *   jc_buf_puts(&b, "text");
 *   if (b.failed) ...              // an allocation failed: b.s is partial
 *   use(b.s, b.n);
 *   free(b.s);                     // the caller's, failed or not
 *
 * After a put b.s is NUL-terminated (the NUL not counted in b.n), so text
 * can be read as a string; a put of nothing still makes b.s "".  After a
 * failed allocation the buffer stays failed and later puts do nothing: a
 * writer checks once, at the end.  A caller may set failed itself, for a
 * reason of its own, to the same effect, and may set max: a put that
 * would make b.n larger fails the buffer the same way (a bound on what a
 * file or an entry may hold, checked once, here).
 *
 * Numbers of a binary format are put little-endian, whatever the host:
 *   jc_buf_put_le32(&b, count);  jc_buf_put_le64(&b, size);
 */
#ifndef JITCACHE_BUF_H
#define JITCACHE_BUF_H

#include <stddef.h>
#include <stdint.h>

struct jc_buf {
	char *s;    /* NULL until the first put */
	size_t n;   /* bytes put, the NUL not counted */
	size_t cap; /* bytes allocated */
	size_t max; /* 0: no bound but memory; else b.n never exceeds it */
	int failed;
};

/* n bytes at data (NULL when n is 0) to the end of b. */
void jc_buf_put(struct jc_buf *b, const void *data, size_t n);

/* The string s, without its NUL. */
void jc_buf_puts(struct jc_buf *b, const char *s);

/* v as 4 (8) little-endian bytes. */
void jc_buf_put_le32(struct jc_buf *b, uint32_t v);
void jc_buf_put_le64(struct jc_buf *b, uint64_t v);

#endif
