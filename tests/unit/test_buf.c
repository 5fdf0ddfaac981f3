// SPDX-License-Identifier: MIT
/* The growable byte buffer (config/buf.h) that recipes, signed requests
 * and expanded macros are written into. */
#include "config/buf.h"
#include "tests/unit/check.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
	struct jc_buf b = { 0 };
	jc_buf_put(&b, "", 0);
	CHECK(b.s && !strcmp(b.s, "") && b.n == 0 && !b.failed, "a put of nothing makes the empty string");
	jc_buf_put(&b, NULL, 0);
	CHECK(b.n == 0 && !b.failed, "nothing from NULL is nothing");

	jc_buf_puts(&b, "ab");
	jc_buf_put(&b, "c\0d", 3);
	CHECK(b.n == 5 && !memcmp(b.s, "abc\0d", 6), "pieces in order, NULs kept, one NUL after (%zu)", b.n);

	struct jc_buf big = { 0 };
	char piece[1000];
	for (size_t i = 0; i < sizeof piece; i++)
		piece[i] = (char)('a' + i % 26);
	int same = 1;
	for (int i = 0; i < 100; i++)
		jc_buf_put(&big, piece, sizeof piece);
	for (size_t i = 0; i < big.n; i++)
		same &= big.s[i] == piece[i % sizeof piece];
	CHECK(!big.failed && big.n == 100 * sizeof piece && same && big.s[big.n] == '\0',
	      "grows past its first allocations, keeping what was put (%zu bytes)", big.n);
	free(big.s);

	b.failed = 1;
	jc_buf_puts(&b, "more");
	CHECK(b.n == 5, "a failed buffer takes nothing more: the writer checks once, at the end");
	b.failed = 0;
	jc_buf_put(&b, piece, SIZE_MAX - 2);
	CHECK(b.failed && b.n == 5 && b.s[5] == '\0',
	      "a size the buffer cannot hold fails it, leaving what it held (%zu)", b.n);
	free(b.s);

	struct jc_buf le = { 0 };
	jc_buf_put_le32(&le, 0x04030201u);
	jc_buf_put_le64(&le, 0x0c0b0a0908070605ull);
	CHECK(le.n == 12 && !memcmp(le.s, "\1\2\3\4\5\6\7\10\11\12\13\14", 12),
	      "numbers put little-endian, whatever the host");
	free(le.s);

	struct jc_buf capped = { .max = 8 };
	jc_buf_puts(&capped, "12345678");
	CHECK(!capped.failed && capped.n == 8, "up to max: taken");
	jc_buf_puts(&capped, "9");
	CHECK(capped.failed && capped.n == 8, "one byte past max fails the buffer (%zu)", capped.n);
	free(capped.s);
	return check_summary();
}
