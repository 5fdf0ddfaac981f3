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
	if (n > SIZE_MAX / 2 - 1 - b->n || /* the doubling below would wrap */
	    (b->max && (b->n > b->max || n > b->max - b->n))) {
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

void jc_buf_put_le32(struct jc_buf *b, uint32_t v)
{
	uint8_t le[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
	jc_buf_put(b, le, 4);
}

void jc_buf_put_le64(struct jc_buf *b, uint64_t v)
{
	uint8_t le[8];
	for (int i = 0; i < 8; i++)
		le[i] = (uint8_t)(v >> (8 * i));
	jc_buf_put(b, le, 8);
}
