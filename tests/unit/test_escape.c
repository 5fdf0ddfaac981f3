// SPDX-License-Identifier: MIT
/* Escaping what came from programs (config/escape.h): text that cannot
 * forge a line or reach the terminal, JSON that is always valid UTF-8. */
#include "config/escape.h"
#include "tests/unit/check.h"

#include <stdlib.h>
#include <string.h>

static const char *text(const char *s)
{
	static char out[256];
	return jc_escape_text(out, sizeof out, s, strlen(s));
}

static const char *json(const char *s)
{
	static char *buf;
	size_t size;
	free(buf);
	FILE *f = open_memstream(&buf, &size);
	jc_json_string(f, s);
	fclose(f);
	return buf;
}

int main(void)
{
	CHECK(!strcmp(text("-O2 -DX=1"), "-O2 -DX=1"), "plain text is kept");
	CHECK(!strcmp(text("a\nb\r\tc\\"), "a\\nb\\r\\tc\\\\"), "newline, tab, backslash: C-style");
	CHECK(!strcmp(text("\x1b]0;x\a\x7f"), "\\x1b]0;x\\x07\\x7f"), "controls and DEL as \\xNN");
	CHECK(!strcmp(text("caf\xc3\xa9"), "caf\xc3\xa9"), "valid UTF-8 is kept");
	CHECK(!strcmp(text("\xc2\x9b" "2J"), "\\xc2\\x9b2J"), "a C1 control (U+009B) escaped byte by byte");
	CHECK(!strcmp(text("\xff\xc3"), "\\xff\\xc3"), "invalid and cut-short UTF-8 escaped");
	CHECK(!strcmp(text("\xc0\xaf\xed\xa0\x80"), "\\xc0\\xaf\\xed\\xa0\\x80"),
	      "overlong forms and surrogates escaped");
	char small[5];
	jc_escape_text(small, sizeof small, "ab\ncd", 5);
	CHECK(!strcmp(small, "ab\\n"), "cut before what does not fit, never mid-escape (%s)", small);

	CHECK(!strcmp(json("a\"b\\c"), "\"a\\\"b\\\\c\""), "JSON: quote and backslash");
	CHECK(!strcmp(json("a\nb\x1b"), "\"a\\u000ab\\u001b\""), "JSON: controls as \\u00XX");
	CHECK(!strcmp(json("\xc2\x85"), "\"\\u0085\""), "JSON: a C1 control as \\u0085");
	CHECK(!strcmp(json("caf\xc3\xa9 \xe2\x82\xac"), "\"caf\xc3\xa9 \xe2\x82\xac\""), "JSON: UTF-8 kept");
	CHECK(!strcmp(json("x\xff\xc3y"), "\"x\\ufffd\\ufffdy\""), "JSON: each invalid byte is \\ufffd");
	CHECK(!strcmp(json("\xf4\x90\x80\x80"), "\"\\ufffd\\ufffd\\ufffd\\ufffd\""),
	      "JSON: past U+10FFFF is invalid");
	CHECK(jc_utf8_valid("/home/r\xc3\xa9my/\"q\"\\") && jc_utf8_valid(""),
	      "jc_utf8_valid: UTF-8 with quotes and backslashes is valid (JSON escapes those)");
	CHECK(!jc_utf8_valid("/home/\xe9") && !jc_utf8_valid("\xc0\xaf") &&
		      !jc_utf8_valid("\xed\xa0\x80") && !jc_utf8_valid("\xe2\x82"),
	      "jc_utf8_valid: Latin-1, overlong, surrogate and cut-short bytes are not");
	return check_summary();
}
