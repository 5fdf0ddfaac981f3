// SPDX-License-Identifier: MIT
/* ini_write.c — one setting of an ini file changed in place (ini_write.h). */
#include "config/ini_write.h"

#include "config/readfile.h"
#include "config/tempfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* The settings are read with the same limit (config.c). */
#define INI_MAX_BYTES (64 * 1024)

static char message[PATH_MAX + 160];

static int fail(const char **why, const char *path, const char *what)
{
	snprintf(message, sizeof message, "%s: %s", path, what);
	*why = message;
	return -1;
}

int jc_ini_value_ok(const char *value, const char **why)
{
	size_t n = strlen(value);
	if (strpbrk(value, "\n\r"))
		return *why = "a value is one line", 0;
	if (n && (strchr(" \t", value[0]) || strchr(" \t", value[n - 1])))
		return *why = "spaces at the ends of a value are not kept in an ini file", 0;
	for (const char *p = strchr(value, ';'); p; p = strchr(p + 1, ';'))
		if (p > value && strchr(" \t", p[-1]))
			return *why = "' ;' would start a comment in an ini file", 0;
	return 1;
}

/* s[0..n) without its leading and trailing spaces and tabs. */
static const char *trimmed(const char *s, size_t n, size_t *len)
{
	while (n && strchr(" \t\r", *s))
		s++, n--;
	while (n && strchr(" \t\r", s[n - 1]))
		n--;
	*len = n;
	return s;
}

static int same(const char *a, size_t n, const char *b)
{
	return strlen(b) == n && strncasecmp(a, b, n) == 0;
}

/* What one line is: a section header (its name in *name), a setting (its
 * name), or neither (a comment, a blank or a broken line). */
enum kind { OTHER, SECTION, SETTING };
static enum kind classify(const char *line, size_t n, const char **name, size_t *len)
{
	const char *t = trimmed(line, n, &n);
	if (n && t[0] == '[' && memchr(t, ']', n)) {
		*name = trimmed(t + 1, (size_t)((const char *)memchr(t, ']', n) - t - 1), len);
		return SECTION;
	}
	if (!n || t[0] == ';' || t[0] == '#')
		return OTHER;
	size_t k = 0;
	while (k < n && t[k] != '=' && t[k] != ':')
		k++;
	if (k == n)
		return OTHER;
	*name = trimmed(t, k, len);
	return SETTING;
}

/* The new text of the file: see ini_write.h. */
static char *edit(const char *text, size_t size, const char *section, const char *name,
		  const char *value, size_t *out_len)
{
	char *out = NULL;
	FILE *f = open_memstream(&out, out_len);
	if (!f)
		return NULL;
	/* First pass: where the section's last setting ends, and whether the
	 * name is there.  inih's lines before any header are section "". */
	long in_section = !*section, after = -1, replace = -1;
	const char *p = text, *end = text + size;
	for (long i = 0; p < end; i++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *nm;
		size_t n = (size_t)((nl ? nl : end) - p), len;
		enum kind k = classify(p, n, &nm, &len);
		if (k == SECTION) {
			in_section = same(nm, len, section);
			if (in_section && after < 0)
				after = i;
		} else if (k == SETTING && in_section) {
			after = i;
			if (replace < 0 && same(nm, len, name))
				replace = i;
		}
		p = nl ? nl + 1 : end;
	}
	/* Second pass: copy, changing what the first found. */
	in_section = !*section;
	p = text;
	for (long i = 0; p < end; i++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *nm;
		size_t n = (size_t)((nl ? nl : end) - p), len;
		enum kind k = classify(p, n, &nm, &len);
		if (k == SECTION)
			in_section = same(nm, len, section);
		if (i == replace)
			fprintf(f, "%s = %s\n", name, value);
		else if (!(k == SETTING && in_section && same(nm, len, name)))
			fprintf(f, "%.*s\n", (int)n, p);
		if (i == after && replace < 0)
			fprintf(f, "%s = %s\n", name, value);
		p = nl ? nl + 1 : end;
	}
	if (after < 0)
		fprintf(f, "%s[%s]\n%s = %s\n", size ? "\n" : "", section, name, value);
	if (fclose(f) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

/* mkdir -p of path's directory; new directories 0700 (settings may name
 * secrets' files). */
static int make_parent(const char *path)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s", path);
	for (char *s = strchr(dir + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdir(dir, 0700) != 0 && errno != EEXIST)
			return -1;
		*s = '/';
	}
	return 0;
}

int jc_ini_set(const char *path, const char *section, const char *name, const char *value,
	       const char **why)
{
	char real[PATH_MAX], tmp[PATH_MAX];
	struct stat st;
	size_t len = 0, new_len = 0;
	const char *reason = NULL;
	char *text = NULL;
	if (!jc_ini_value_ok(value, &reason))
		return fail(why, path, reason);
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
		if (!realpath(path, real))
			return fail(why, path, strerror(errno));
		path = real;
	}
	mode_t mode = 0644;
	if (stat(path, &st) == 0) {
		if (!(text = jc_read_small_file(path, INI_MAX_BYTES, &len, &reason)))
			return fail(why, path, reason);
		mode = st.st_mode & 07777;
	} else if (errno != ENOENT || make_parent(path) != 0) {
		return fail(why, path, strerror(errno));
	}
	char *out = edit(text ? text : "", len, section, name, value, &new_len);
	free(text);
	if (!out)
		return fail(why, path, "out of memory");
	int fd = jc_temp_open_beside(AT_FDCWD, path, 0600, tmp);
	if (fd < 0) {
		free(out);
		return fail(why, path, strerror(errno));
	}
	int rc = fchmod(fd, mode) == 0 && jc_temp_write(fd, out, new_len) == 0 ? 0 : -1;
	free(out);
	if (rc != 0)
		jc_temp_discard(AT_FDCWD, fd, tmp);
	else
		rc = jc_temp_commit(AT_FDCWD, fd, tmp, path, JC_TEMP_RENAME | JC_TEMP_SYNC);
	return rc < 0 ? fail(why, path, strerror(errno)) : 0;
}
