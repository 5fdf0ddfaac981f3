// SPDX-License-Identifier: MIT
/* token.c — the preprocessing tokens of a line (token.h). */
#include "key/token.h"

#include <ctype.h>
#include <string.h>

static int ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

const char *jc_token(const char *p, const char *end, enum jc_token *kind)
{
	if (*p == '"' || *p == '\'') {
		char q = *p++;
		while (p < end && *p != q)
			p += *p == '\\' && p + 1 < end ? 2 : 1;
		*kind = JC_TOKEN_LITERAL;
		return p + (p < end);
	}
	if (isdigit((unsigned char)*p) || (*p == '.' && p + 1 < end && isdigit((unsigned char)p[1]))) {
		for (p++; p < end && (ident_char(*p) || *p == '.' ||
				      ((*p == '+' || *p == '-') && strchr("eEpP", p[-1])));)
			p++;
		*kind = JC_TOKEN_NUMBER;
		return p;
	}
	if (isalpha((unsigned char)*p) || *p == '_') {
		while (p < end && ident_char(*p))
			p++;
		*kind = JC_TOKEN_NAME;
		return p;
	}
	*kind = JC_TOKEN_OTHER;
	return p + 1;
}
