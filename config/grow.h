// SPDX-License-Identifier: MIT
/*
 * grow.h — room for one more item in an array that doubles as it fills
 * (a listing's entries, a file's #define lines); bytes grow in buf.h.
 *
 *   struct item *v = jc_grow(a->v, &a->cap, a->n, sizeof *v);
 *   if (!v)
 *       return -1;             // out of memory: a->v and a->cap unchanged
 *   a->v = v;
 *   a->v[a->n++] = item;
 *
 * The first growth makes room for 64 items.
 */
#ifndef JITCACHE_GROW_H
#define JITCACHE_GROW_H

#include <stddef.h>

/* v itself while n < *cap; else v moved to twice the room (*cap set),
 * or NULL, v still valid and *cap unchanged, if memory ran out. */
void *jc_grow(void *v, size_t *cap, size_t n, size_t size);

#endif
