// SPDX-License-Identifier: MIT
/* buf.c — a growable byte buffer (buf.h). */
#include "config/buf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void jc_buf_put(struct jc_buf *b, const void *data, size_t n)
{
	if (b->failed)
		return;
	if (n > SIZE_MAX / 2 - 1 - b->n) { /* the doubling below would wrap */
		b->failed = 1;
		return;
	}
	if (b->n + n + 1 > b->cap) {
		size_t cap = 2 * (b->n + n + 1);
		char *grown = realloc(b->s, cap);
		if (!grown) {
			b->failed = 1;
			return;
		}
		b->s = grown;
		b->cap = cap;
	}
	if (n)
		memcpy(b->s + b->n, data, n);
	b->n += n;
	b->s[b->n] = '\0';
}

void jc_buf_puts(struct jc_buf *b, const char *s)
{
	jc_buf_put(b, s, strlen(s));
}
