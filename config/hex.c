// SPDX-License-Identifier: MIT
/* hex.c — lowercase hexadecimal (hex.h). */
#include "config/hex.h"

void jc_hex(const void *bytes, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	const unsigned char *b = bytes;
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
	out[2 * n] = '\0';
}

static int digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int jc_unhex(const char *s, size_t n, void *out)
{
	unsigned char *b = out;
	for (size_t i = 0; i < n; i++) {
		int hi = digit(s[2 * i]), lo = hi < 0 ? -1 : digit(s[2 * i + 1]);
		if (lo < 0)
			return -1;
		b[i] = (unsigned char)(hi << 4 | lo);
	}
	return 0;
}
