// SPDX-License-Identifier: MIT
/* escape.c — text and JSON escaping of what came from a program (escape.h). */
#include "config/escape.h"

#include "config/hex.h"

#include <stdint.h>
#include <string.h>

/* The length of the valid UTF-8 sequence at s (at most len bytes), with its
 * code point in *cp; 0 if the bytes there are not valid UTF-8 (overlong
 * forms, surrogates and values past U+10FFFF included). */
static size_t utf8_at(const unsigned char *s, size_t len, uint32_t *cp)
{
	size_t n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc0 ? 2 : 0;
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (!n || n > len || s[0] > 0xf4)
		return 0;
	uint32_t v = s[0] & (0x7f >> n);
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (s[i] & 0x3f);
	}
	static const uint32_t least[] = { 0, 0, 0x80, 0x800, 0x10000 };
	if (v < least[n] || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return n;
}

static int control(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp < 0xa0);
}

char *jc_escape_text(char *out, size_t size, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t o = 0;
	if (!size)
		return out;
	for (size_t i = 0; i < len;) {
		char esc[8];
		uint32_t cp = 0;
		size_t n = utf8_at(s + i, len - i, &cp);
		const char *piece = esc;
		size_t plen;
		if (n && !control(cp) && cp != '\\') {
			piece = (const char *)s + i, plen = n;
		} else if (n == 1 && (cp == '\n' || cp == '\r' || cp == '\t' || cp == '\\')) {
			esc[0] = '\\';
			esc[1] = cp == '\n' ? 'n' : cp == '\r' ? 'r' : cp == '\t' ? 't' : '\\';
			plen = 2;
		} else {
			n = 1; /* a C1 control's bytes are escaped one at a time too */
			esc[0] = '\\', esc[1] = 'x';
			jc_hex(s + i, 1, esc + 2);
			plen = 4;
		}
		if (o + plen >= size)
			break;
		memcpy(out + o, piece, plen);
		o += plen;
		i += n;
	}
	out[o] = '\0';
	return out;
}

int jc_utf8_valid(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	uint32_t cp;
	for (size_t i = 0, len = strlen(str), n; i < len; i += n)
		if (!(n = utf8_at(s + i, len - i, &cp)))
			return 0;
	return 1;
}

void jc_json_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t len = strlen(str);
	fputc('"', f);
	for (size_t i = 0; i < len;) {
		uint32_t cp = 0;
		size_t n = utf8_at(s + i, len - i, &cp);
		if (!n) {
			fputs("\\ufffd", f);
			i++;
			continue;
		}
		if (cp == '"' || cp == '\\')
			fprintf(f, "\\%c", (int)cp);
		else if (control(cp))
			fprintf(f, "\\u%04x", (unsigned)cp);
		else
			fwrite(s + i, 1, n, f);
		i += n;
	}
	fputc('"', f);
}
