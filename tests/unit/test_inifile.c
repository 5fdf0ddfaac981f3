// SPDX-License-Identifier: MIT
/* The ini reader (config/inifile.h): lines longer than inih's buffer,
 * refused by jc_ini_parse() and read whole, value and all, by
 * jc_ini_parse_long_values() (AWS's credentials files, whose session
 * tokens are lines of a thousand bytes). */
#include "config/inifile.h"
#include "tests/unit/check.h"

#include <stdlib.h>
#include <string.h>

struct seen {
	char values[8][1200];
	int n;
	char errors[4][160];
	int n_errors;
};

static void on_value(void *user, int line, const char *section, const char *name,
		     const char *value)
{
	struct seen *s = user;
	if (s->n < 8)
		snprintf(s->values[s->n++], sizeof s->values[0], "%d [%s] %s=%s", line, section,
			 name, value);
}

static void on_error(void *user, int line, const char *why)
{
	struct seen *s = user;
	if (s->n_errors < 4)
		snprintf(s->errors[s->n_errors++], sizeof s->errors[0], "%d %s", line, why);
}

static struct seen *parse(const char *text, int long_values)
{
	static struct seen s;
	memset(&s, 0, sizeof s);
	FILE *f = fmemopen((void *)(size_t)text, strlen(text), "r");
	if (long_values)
		jc_ini_parse_long_values(f, on_value, on_error, &s);
	else
		jc_ini_parse(f, on_value, on_error, &s);
	fclose(f);
	return &s;
}

int main(void)
{
	char a[601], text[4096], want[1200];
	memset(a, 'a', 600);
	a[600] = '\0';

	snprintf(text, sizeof text, "[s]\ntoken = %s\nnext = 1\n", a);
	struct seen *s = parse(text, 0);
	CHECK(s->n == 1 && !strcmp(s->values[0], "3 [s] next=1") && s->n_errors == 1 &&
		      strstr(s->errors[0], "2 line too long"),
	      "jc_ini_parse: a line of 608 bytes refused, the next read on its line (%s)",
	      s->errors[0]);

	s = parse(text, 1);
	snprintf(want, sizeof want, "2 [s] token=%s", a);
	CHECK(s->n == 2 && !strcmp(s->values[0], want) && !strcmp(s->values[1], "3 [s] next=1") &&
		      s->n_errors == 0,
	      "long values: the 600-byte value read whole, the next line after it");

	snprintf(text, sizeof text, "[s]\ntoken = %s  ;  a comment\n", a);
	s = parse(text, 1);
	snprintf(want, sizeof want, "2 [s] token=%s", a);
	CHECK(s->n == 1 && !strcmp(s->values[0], want), "long values: ' ;' past inih's buffer "
	      "still starts a comment, and blanks before it are trimmed");

	snprintf(text, sizeof text, "[s]\ntoken = %s;x\n", a);
	s = parse(text, 1);
	snprintf(want, sizeof want, "2 [s] token=%s;x", a);
	CHECK(s->n == 1 && !strcmp(s->values[0], want), "long values: a ';' with no blank before "
	      "it is part of the value, as inih takes it");

	char spaces[301];
	memset(spaces, ' ', 300);
	spaces[300] = '\0';
	snprintf(text, sizeof text, "[s]\nlate =%svalue\n", spaces);
	s = parse(text, 1);
	CHECK(s->n == 1 && !strcmp(s->values[0], "2 [s] late=value"),
	      "long values: a value that starts past inih's buffer (%s)", s->values[0]);

	snprintf(text, sizeof text, "[s]\n%s = 1\n[%s]\nok = 2\n", a, a);
	s = parse(text, 1);
	CHECK(s->n == 1 && strstr(s->values[0], "ok=2") && s->n_errors == 2 &&
		      strstr(s->errors[0], "2 line too long") && strstr(s->errors[1], "3 line too long"),
	      "long values: a name or section too long for inih is still refused, on its line");
	return check_summary();
}
