// SPDX-License-Identifier: MIT
/* libFuzzer target: the #include scanner and resolver (key/include.c) must
 * survive any source text and any options: no crash, no read outside the
 * text or a directive's name (the sanitizers check the copy), and
 * resolution that either hashes files or says "not cached".  The input is options, a NUL, then the
 * source (no NUL: all source).  The options always start with -I of a
 * temporary directory holding a few headers that include each other. */
#include "key/fingerprint.h"
#include "key/include.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[4096];

static void put(const char *name, const char *text)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0)
		abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");
	char inc[4200];
	snprintf(dir, sizeof dir, "%s/jc-fuzz-include.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		abort();
	snprintf(inc, sizeof inc, "%s/inc", dir);
	if (mkdir(inc, 0700) != 0)
		abort();
	put("a.h", "#include \"b.h\"\n#include <inc/c.h>\n");
	put("b.h", "#ifndef B\n#define B\n#include \"a.h\"\n#endif\n");
	put("inc/c.h", "#include \"d.h\"\n");
	put("inc/d.h", "#define D 1\n");
	return 0;
}

struct text {
	size_t n;
	char *directives[64];
};

static int keep(void *ctx, char kind, const char *name, size_t len)
{
	struct text *t = ctx;
	if (!strchr("\"<?d!#_mf", kind) || !kind)
		abort();
	if (t->n == 64)
		return 1; /* enough: stop the scan */
	char *d = malloc(len + 2);
	d[0] = kind;
	memcpy(d + 1, name, len);
	d[len + 1] = '\0';
	t->directives[t->n++] = d;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, '\0', size);
	size_t n = nul ? (size_t)(nul - data) : 0;
	char *options = malloc(strlen(dir) + n + 8);
	sprintf(options, "-I '%s' ", dir);
	memcpy(options + strlen(options), data, n);
	options[strlen(dir) + 6 + n] = '\0';
	size_t at = nul ? (size_t)(nul - data) + 1 : 0;
	char *source = malloc(size - at + 1);
	memcpy(source, data + at, size - at);
	struct text t = { 0, { NULL } };
	int rc = jc_include_scan(source, size - at, keep, &t);
	if (rc != 0 && rc != 1)
		abort();
	struct jc_fp *fp = jc_fp_begin("fuzz");
	rc = jc_include_hash(fp, t.n, t.directives, options);
	if (rc != 0 && rc != -1)
		abort();
	struct jc_key key;
	jc_fp_end(fp, &key);
	for (size_t i = 0; i < t.n; i++)
		free(t.directives[i]);
	free(source);
	free(options);
	return 0;
}
