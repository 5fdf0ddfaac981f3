#include "config/inifile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define STR(x)  #x
#define XSTR(x) STR(x)

enum got { GOT_LINE, GOT_TOO_LONG, GOT_NUL, GOT_EOF };

/* One physical line into buf (at most JC_INI_MAX_LINE bytes and a NUL), without
 * its "\n" or "\r\n".  A longer line is read to its end and reported whole as
 * GOT_TOO_LONG, so that line numbers stay true. */
static enum got read_line(FILE *f, char *buf)
{
	size_t n = 0;
	int c, nul = 0, too_long = 0;
	while ((c = getc(f)) != EOF && c != '\n') {
		if (c == '\0')
			nul = 1;
		if (n < JC_INI_MAX_LINE)
			buf[n++] = (char)c;
		else
			too_long = 1;
	}
	if (c == EOF && n == 0 && !too_long && !nul)
		return GOT_EOF;
	if (n > 0 && buf[n - 1] == '\r')
		n--;
	buf[n] = '\0';
	return too_long ? GOT_TOO_LONG : nul ? GOT_NUL : GOT_LINE;
}

static int blank(char c)
{
	return c == ' ' || c == '\t';
}

/* s without leading and trailing blanks (trims in place). */
static char *trim(char *s)
{
	while (blank(*s))
		s++;
	size_t n = strlen(s);
	while (n > 0 && blank(s[n - 1]))
		s[--n] = '\0';
	return s;
}

/* Cut s at an inline comment: a ';' at the start or after a blank. */
static void cut_comment(char *s)
{
	for (char *p = s; *p; p++)
		if (*p == ';' && (p == s || blank(p[-1]))) {
			*p = '\0';
			return;
		}
}

/* One trimmed, non-empty line: a section header or name = value.  Returns
 * NULL, or what is wrong with the line. */
static const char *parse_line(char *s, char *section, int line, jc_ini_value_fn *on_value,
			      void *user)
{
	if (*s == '[') {
		char *end = strchr(s, ']');
		if (!end)
			return "syntax error (a [section] without its ']')";
		*end = '\0';
		cut_comment(end + 1);
		if (*trim(end + 1))
			return "syntax error (text after [section])";
		strcpy(section, trim(s + 1));
		return NULL;
	}
	size_t at = strcspn(s, "=:");
	if (s[at] == '\0')
		return "syntax error (expected [section] or name = value)";
	s[at] = '\0';
	char *name = trim(s), *value = s + at + 1;
	if (*name == '\0')
		return "syntax error (no name before '=')";
	cut_comment(value);
	on_value(user, line, section, name, trim(value));
	return NULL;
}

int jc_ini_parse(FILE *file, jc_ini_value_fn *on_value, jc_ini_error_fn *on_error, void *user)
{
	char *buf = malloc(2 * (JC_INI_MAX_LINE + 1));
	if (!buf)
		return -1;
	char *section = buf + JC_INI_MAX_LINE + 1;
	section[0] = '\0';
	enum got got;
	for (int line = 1; (got = read_line(file, buf)) != GOT_EOF; line++) {
		char *s = buf;
		if (line == 1 && strncmp(s, "\xEF\xBB\xBF", 3) == 0)
			s += 3;
		s = trim(s);
		const char *why = NULL;
		if (got == GOT_TOO_LONG)
			why = "line too long (over " XSTR(JC_INI_MAX_LINE) " bytes)";
		else if (got == GOT_NUL)
			why = "line holds a NUL byte";
		else if (*s && *s != ';' && *s != '#')
			why = parse_line(s, section, line, on_value, user);
		if (why)
			on_error(user, line, why);
	}
	int failed = ferror(file);
	free(buf);
	if (failed)
		errno = EIO;
	return failed ? -1 : 0;
}
