// SPDX-License-Identifier: MIT
#include "config/inifile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* What inih's reader and handler callbacks share. */
struct reading {
	FILE *file;
	int line;             /* of the last line handed to inih */
	char *buf;            /* one whole line */
	size_t cap;
	jc_ini_value_fn *on_value;
	jc_ini_error_fn *on_error;
	void *user;
	int failed;           /* errno of a read or allocation failure, or 0 */
};

enum got { GOT_LINE, GOT_NUL, GOT_EOF };

/* One physical line into r->buf, without its "\n"; *len its length. */
static enum got read_line(struct reading *r, size_t *len)
{
	size_t n = 0;
	int c, nul = 0;
	while ((c = getc(r->file)) != EOF && c != '\n') {
		if (n + 1 >= r->cap) {
			size_t cap = r->cap * 2;
			char *p = realloc(r->buf, cap);
			if (!p) {
				r->failed = ENOMEM;
				return GOT_EOF;
			}
			r->buf = p;
			r->cap = cap;
		}
		nul |= c == '\0';
		r->buf[n++] = (char)c;
	}
	if (c == EOF && ferror(r->file))
		r->failed = EIO;
	if (c == EOF && n == 0)
		return GOT_EOF;
	r->buf[n] = '\0';
	*len = n;
	return nul ? GOT_NUL : GOT_LINE;
}

/* inih's reader (fgets-like): the next line, whole, with its leading blanks
 * dropped (so that inih never takes it for a continuation); a line that
 * does not fit into inih's buffer of num bytes is reported (unless it is a
 * comment) and handed on as an empty line, so that inih's line count stays
 * ours. */
static char *reader(char *str, int num, void *stream)
{
	struct reading *r = stream;
	size_t len = 0;
	enum got got = read_line(r, &len);
	if (got == GOT_EOF)
		return NULL;
	r->line++;
	const char *s = r->buf;
	while (*s == ' ' || *s == '\t')
		s++;
	len -= (size_t)(s - r->buf);
	if (got == GOT_NUL) {
		r->on_error(r->user, r->line, "line holds a NUL byte");
		len = 0;
	} else if ((num < 2 || len > (size_t)num - 2) && *s != ';' && *s != '#') {
		char why[96];
		snprintf(why, sizeof why, "line too long (over %d bytes, the most the ini reader takes)",
			 num - 2);
		r->on_error(r->user, r->line, why);
		len = 0;
	}
	if (num < 2 || len > (size_t)num - 2)
		len = 0; /* a long comment: nothing to say */
	memcpy(str, s, len);
	str[len] = '\n';
	str[len + 1] = '\0';
	return str;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct reading *r = user;
	r->on_value(r->user, r->line, section, name, value);
	return 1; /* a bad value is the caller's to report; inih goes on */
}

int jc_ini_parse(FILE *file, jc_ini_value_fn *on_value, jc_ini_error_fn *on_error, void *user)
{
	struct reading r = { .file = file, .cap = 256, .on_value = on_value,
			     .on_error = on_error, .user = user };
	r.buf = malloc(r.cap);
	if (!r.buf) {
		errno = ENOMEM;
		return -1;
	}
	int first_error = ini_parse_stream(reader, &r, handler, &r);
	free(r.buf);
	if (first_error > 0)
		on_error(user, first_error,
			 "syntax error (expected [section], name = value or a ; comment)");
	if (r.failed || first_error < 0) {
		errno = r.failed ? r.failed : ENOMEM;
		return -1;
	}
	return 0;
}
