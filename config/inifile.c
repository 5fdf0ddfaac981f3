// SPDX-License-Identifier: MIT
#include "config/inifile.h"

#include <ctype.h>
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
	int long_values;      /* jc_ini_parse_long_values() */
	size_t given;         /* where the line given to inih starts in buf */
	char *inih_line;      /* inih's buffer, holding the line or its start */
	int inih_size;        /* its size */
	int cut;              /* inih was given only the start of the line */
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

/* Whether inih, given the first n bytes of line s, finds its name and the
 * '=' or ':' after it: a name = value line, not a [section] or comment. */
static int name_fits(const char *s, size_t n)
{
	if (*s == '[' || *s == ';' || *s == '#')
		return 0;
	size_t name = strcspn(s, "=:");
	return name < n && name > 0;
}

/* inih's reader (fgets-like): the next line, whole, with its leading blanks
 * dropped (so that inih never takes it for a continuation); a line that
 * does not fit into inih's buffer of num bytes is reported (unless it is a
 * comment) and handed on as an empty line, so that inih's line count stays
 * ours - or, reading long values, a name = value line is handed on cut,
 * and handler() puts its whole value back. */
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
	r->given = (size_t)(s - r->buf);
	r->inih_line = str;
	r->inih_size = num;
	r->cut = 0;
	if (got == GOT_LINE && r->long_values && num > 2 && len > (size_t)num - 2 &&
	    name_fits(s, (size_t)num - 2)) {
		r->cut = 1; /* the value is read whole from buf: see handler */
		len = (size_t)num - 2;
	} else if (got == GOT_NUL) {
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

/* The value of a name = value line that inih was given only the start of,
 * whole: from where inih's value starts (in the line's start it was given)
 * to the end of the line, ended as inih ends values: at a ';' after a
 * blank (a comment), blanks trimmed. */
static const char *whole_value(struct reading *r, const char *value)
{
	char *v = r->buf + r->given + (value - r->inih_line), *end = v;
	int was_space = isspace((unsigned char)v[-1]); /* v follows at least the '=' */
	while (*end && !(was_space && *end == ';')) {
		was_space = isspace((unsigned char)*end);
		end++;
	}
	while (end > v && isspace((unsigned char)end[-1]))
		end--;
	*end = '\0';
	while (isspace((unsigned char)*v))
		v++;
	return v;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct reading *r = user;
	if (r->cut && value > r->inih_line && value < r->inih_line + r->inih_size)
		value = whole_value(r, value);
	r->on_value(r->user, r->line, section, name, value);
	return 1; /* a bad value is the caller's to report; inih goes on */
}

static int parse(FILE *file, jc_ini_value_fn *on_value, jc_ini_error_fn *on_error, void *user,
		 int long_values)
{
	struct reading r = { .file = file, .cap = 256, .on_value = on_value,
			     .on_error = on_error, .user = user, .long_values = long_values };
	r.buf = malloc(r.cap);
	if (!r.buf) {
		errno = ENOMEM;
		return -1;
	}
	int first_error = ini_parse_stream(reader, &r, handler, &r);
	explicit_bzero(r.buf, r.cap); /* its last line may have been a secret */
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

int jc_ini_parse(FILE *file, jc_ini_value_fn *on_value, jc_ini_error_fn *on_error, void *user)
{
	return parse(file, on_value, on_error, user, 0);
}

int jc_ini_parse_long_values(FILE *file, jc_ini_value_fn *on_value, jc_ini_error_fn *on_error,
			     void *user)
{
	return parse(file, on_value, on_error, user, 1);
}
