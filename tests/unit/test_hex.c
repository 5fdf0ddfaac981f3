// SPDX-License-Identifier: MIT
/* Lowercase hexadecimal (config/hex.h): what names cache entries, and
 * what reads a name back into a key. */
#include "config/hex.h"
#include "tests/unit/check.h"

#include <string.h>

int main(void)
{
	const unsigned char bytes[] = { 0x00, 0x01, 0x7f, 0x80, 0xab, 0xff };
	char text[2 * sizeof bytes + 1];
	memset(text, 'x', sizeof text);
	jc_hex(bytes, sizeof bytes, text);
	CHECK(!strcmp(text, "00017f80abff"), "bytes as lowercase digits, NUL-terminated (%s)", text);

	unsigned char back[sizeof bytes] = { 0 };
	CHECK(jc_unhex(text, sizeof back, back) == 0 && !memcmp(back, bytes, sizeof bytes),
	      "and back");
	CHECK(jc_unhex("00017F80ABFF", sizeof back, back) != 0,
	      "capitals are not read back: no name jitcache writes has them");
	CHECK(jc_unhex("00017f80abf", sizeof back, back) != 0, "one digit short: refused, "
	      "reading nothing past the NUL");
	CHECK(jc_unhex("0g", 1, back) != 0 && jc_unhex("-1", 1, back) != 0 &&
		      jc_unhex(" 1", 1, back) != 0, "a character that is no digit: refused");
	CHECK(jc_unhex("0a1b2c", 2, back) == 0 && back[0] == 0x0a && back[1] == 0x1b,
	      "only the 2n digits asked for are read; what follows is the caller's");
	jc_hex(bytes, 0, text);
	CHECK(text[0] == '\0', "no bytes: the empty string");
	return check_summary();
}
