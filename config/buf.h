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
 * reason of its own, to the same effect.
 */
#ifndef JITCACHE_BUF_H
#define JITCACHE_BUF_H

#include <stddef.h>

struct jc_buf {
	char *s;    /* NULL until the first put */
	size_t n;   /* bytes put, the NUL not counted */
	size_t cap; /* bytes allocated */
	int failed;
};

/* n bytes at data (NULL when n is 0) to the end of b. */
void jc_buf_put(struct jc_buf *b, const void *data, size_t n);

/* The string s, without its NUL. */
void jc_buf_puts(struct jc_buf *b, const char *s);

#endif
