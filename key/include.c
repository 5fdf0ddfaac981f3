/* #include directives, resolved and hashed (see include.h). */
#include "key/include.h"

#include "config/log.h"

#include <ctype.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the directives of a text -------------------------------------------- */

static const char *skip_blanks(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

/* One line: add() for an #include directive, 0 for anything else. */
static int scan_line(const char *p, const char *end, jc_include_fn add, void *ctx)
{
	p = skip_blanks(p, end);
	if (p == end || *p != '#')
		return 0;
	p = skip_blanks(p + 1, end);
	if (end - p <= 7 || memcmp(p, "include", 7) != 0 || isalnum((unsigned char)p[7]) ||
	    p[7] == '_')
		return 0;
	p = skip_blanks(p + 7, end);
	char close = p < end && *p == '"' ? '"' : p < end && *p == '<' ? '>' : 0;
	const char *name = p + 1;
	const char *stop = close ? memchr(name, close, (size_t)(end - name)) : NULL;
	return stop ? add(ctx, *p, name, (size_t)(stop - name)) : add(ctx, '?', "", 0);
}

int jc_include_scan(const char *text, size_t size, jc_include_fn add, void *ctx)
{
	const char *end = text + size;
	for (const char *p = text; p < end;) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		int rc = scan_line(p, eol ? eol : end, add, ctx);
		if (rc != 0)
			return rc;
		p = eol ? eol + 1 : end;
	}
	return 0;
}

/* ---- resolving and hashing ------------------------------------------------ */

struct includes {
	struct jc_fp *fp;
	char **dirs;          /* from -I options */
	size_t n_dirs;
	char *seen[JC_INCLUDE_MAX_FILES];
	size_t n_seen;
	const char *from_dir; /* directory of the file being scanned; NULL: top level */
	int depth;
	int other_paths;      /* options add include paths other than -I */
	jc_include_file_fn file_fn; /* jc_include_collect(): each file read */
	void *file_ctx;
};

static int add_dir(struct includes *inc, const char *dir)
{
	char **grown = realloc(inc->dirs, (inc->n_dirs + 1) * sizeof *grown);
	if (!grown)
		return -1;
	inc->dirs = grown;
	if (!(inc->dirs[inc->n_dirs] = strdup(dir)))
		return -1;
	inc->n_dirs++;
	return 0;
}

/* The -I directories of an options string ("-I dir", "-Idir", quoted or
 * not).  A token is never longer than the options, so one buffer that size
 * holds any of them whole. */
static int parse_include_dirs(const char *options, struct includes *inc)
{
	const char *p = options ? options : "";
	char *token = malloc(strlen(p) + 1);
	int want_dir = 0, rc = token ? 0 : -1;
	while (rc == 0 && *p) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		size_t n = 0;
		char quote = 0;
		for (; *p && (quote || !isspace((unsigned char)*p)); p++) {
			if ((*p == '"' || *p == '\'') && (!quote || quote == *p))
				quote = quote ? 0 : *p;
			else
				token[n++] = *p;
		}
		token[n] = '\0';
		const char *dir = want_dir ? token
			: strncmp(token, "-I", 2) == 0 && token[2] ? token + 2 : NULL;
		if (!want_dir && (strncmp(token, "-isystem", 8) == 0 ||
				  strncmp(token, "-idirafter", 10) == 0 ||
				  strncmp(token, "-iquote", 7) == 0 ||
				  strncmp(token, "-iprefix", 8) == 0 ||
				  strncmp(token, "-iwithprefix", 12) == 0 ||
				  strncmp(token, "--include-directory", 19) == 0))
			inc->other_paths = 1;
		want_dir = strcmp(token, "-I") == 0;
		if (dir)
			rc = add_dir(inc, dir);
	}
	free(token);
	return rc;
}

static int readable_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, R_OK) == 0;
}

enum found { FOUND, NOT_FOUND, TOO_LONG, NO_MEMORY };

/* dir/name (or name alone), into a new string in *path, if it fits in
 * PATH_MAX; FOUND if it names a readable file. */
static enum found try_path(const char *dir, const char *name, char **path)
{
	size_t d = dir ? strlen(dir) + 1 : 0, n = strlen(name);
	if (d + n >= PATH_MAX)
		return TOO_LONG;
	char *p = malloc(d + n + 1);
	if (!p)
		return NO_MEMORY;
	if (dir) {
		memcpy(p, dir, d - 1);
		p[d - 1] = '/';
	}
	memcpy(p + d, name, n + 1);
	if (readable_file(p)) {
		*path = p;
		return FOUND;
	}
	free(p);
	return NOT_FOUND;
}

/* Where the compiler finds `name`: beside the including file (for "..."),
 * then the -I directories, then the current directory.  Any candidate too
 * long to be a path stops the search: what the compiler makes of it is not
 * worth guessing. */
static enum found resolve(const struct includes *inc, char kind, const char *name, char **path)
{
	if (name[0] == '/')
		return try_path(NULL, name, path);
	enum found r = NOT_FOUND;
	if (kind == '"' && inc->from_dir)
		r = try_path(inc->from_dir, name, path);
	for (size_t i = 0; r == NOT_FOUND && i < inc->n_dirs; i++)
		r = try_path(inc->dirs[i], name, path);
	if (r == NOT_FOUND)
		r = try_path(NULL, name, path);
	/* Where a compiler might still look: hashing a file it does not use
	 * only costs a miss when that file changes. */
	static const char *const system_dirs[] = { "/usr/local/include", "/usr/include" };
	for (size_t i = 0; r == NOT_FOUND && i < sizeof system_dirs / sizeof *system_dirs; i++)
		r = try_path(system_dirs[i], name, path);
	return r;
}

/* Include paths the compiler takes from the environment (clang's driver). */
static const char *include_path_variable(void)
{
	static const char *const names[] = { "CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH",
					     "OBJC_INCLUDE_PATH" };
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (getenv(names[i]))
			return names[i];
	return NULL;
}

/* A file found nowhere jitcache knows is the compiler's own header (OpenCL
 * compilers bring <stddef.h>, <opencl-c.h>...: part of the compiler, whose
 * identity is in the key), or one in a branch the compiler does not take
 * (Random123's array.h includes <stddef.h> only #ifdef __cplusplus), or
 * one that does not exist, and the build fails.  Its name goes into the
 * key.  That is sound only while the compiler looks in no place jitcache
 * does not: include paths from options other than -I or from the
 * environment make the build uncacheable instead. */
static int unresolved(struct includes *inc, char kind, const char *name)
{
	const char *var = include_path_variable();
	char close = kind == '<' ? '>' : '"';
	if (inc->other_paths || var) {
		jc_log(JC_LOG_DEBUG, "OpenCL build not cached: #include %c%s%c not found, and "
		       "the compiler also searches %s", kind, name, close,
		       var ? var : "the include paths of options other than -I");
		return -1;
	}
	jc_log(JC_LOG_DEBUG, "OpenCL build: #include %c%s%c not found where jitcache looks; "
	       "keyed by its name (the compiler's own header, or not compiled)", kind, name, close);
	jc_fp_str(inc->fp, kind == '<' ? "include.unresolved<" : "include.unresolved\"", name);
	return 0;
}

static char *read_file(const char *path, size_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || (uint64_t)st.st_size > JC_INCLUDE_MAX_SIZE) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	char *data = malloc((size_t)st.st_size + 1);
	size_t got = 0;
	while (data && got < (size_t)st.st_size) {
		ssize_t n = read(fd, data + got, (size_t)st.st_size - got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (!data || got != (size_t)st.st_size) {
		free(data);
		return NULL;
	}
	*size = got;
	return data;
}

static int hash_include(void *ctx, char kind, const char *name, size_t len);

/* Hash one included file and, recursively, what it includes. */
static int hash_file(struct includes *inc, const char *path)
{
	for (size_t i = 0; i < inc->n_seen; i++)
		if (strcmp(inc->seen[i], path) == 0) {
			jc_fp_str(inc->fp, "include.again", path);
			return 0; /* include guards make this common and fine */
		}
	if (inc->n_seen == JC_INCLUDE_MAX_FILES || inc->depth == JC_INCLUDE_MAX_DEPTH)
		return -1;
	size_t size = 0;
	char *text = read_file(path, &size);
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
	if (!text || !dir || !(inc->seen[inc->n_seen] = strdup(path))) {
		free(text);
		free(dir);
		return -1;
	}
	inc->n_seen++;
	jc_fp_bytes(inc->fp, "include.content", text, size);
	if (inc->file_fn && inc->file_fn(inc->file_ctx, path, text, size) != 0) {
		free(text);
		free(dir);
		return -1;
	}
	const char *outer = inc->from_dir;
	inc->from_dir = dir;
	inc->depth++;
	int rc = jc_include_scan(text, size, hash_include, inc);
	inc->depth--;
	inc->from_dir = outer;
	free(dir);
	free(text);
	return rc;
}

static int hash_include(void *ctx, char kind, const char *name_in, size_t len)
{
	struct includes *inc = ctx;
	if (kind == '?') {
		jc_log(JC_LOG_DEBUG, "OpenCL build not cached: an #include names its file "
				     "through a macro");
		return -1;
	}
	char close = kind == '<' ? '>' : '"', *path = NULL;
	if (memchr(name_in, '\0', len) || len >= PATH_MAX) {
		jc_log(JC_LOG_DEBUG, "OpenCL build not cached: an #include names a file "
				     "that no path can name (%zu bytes)", len);
		return -1;
	}
	char *name = strndup(name_in, len);
	enum found r = name ? resolve(inc, kind, name, &path) : NO_MEMORY;
	if (r == NOT_FOUND) {
		int rc = unresolved(inc, kind, name);
		free(name);
		return rc;
	}
	if (r == TOO_LONG)
		jc_log(JC_LOG_DEBUG, "OpenCL build not cached: #include %c%s%c: a place to look "
				     "for it makes a path longer than PATH_MAX", kind, name, close);
	int rc = r == FOUND ? 0 : -1;
	if (rc == 0) {
		jc_fp_str(inc->fp, "include", name);
		if ((rc = hash_file(inc, path)) != 0)
			jc_log(JC_LOG_DEBUG, "OpenCL build not cached: cannot read %s (or too "
					     "many nested includes)", path);
	}
	free(name);
	free(path);
	return rc;
}

int jc_include_hash(struct jc_fp *fp, size_t n, char *const *directives, const char *options)
{
	return jc_include_collect(fp, n, directives, options, NULL, NULL);
}

int jc_include_collect(struct jc_fp *fp, size_t n, char *const *directives, const char *options,
		       jc_include_file_fn fn, void *ctx)
{
	if (n == 0)
		return 0;
	struct includes inc = { .fp = fp, .file_fn = fn, .file_ctx = ctx };
	int rc = parse_include_dirs(options, &inc);
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = hash_include(&inc, directives[i][0], directives[i] + 1,
				  strlen(directives[i] + 1));
	for (size_t i = 0; i < inc.n_dirs; i++)
		free(inc.dirs[i]);
	for (size_t i = 0; i < inc.n_seen; i++)
		free(inc.seen[i]);
	free(inc.dirs);
	return rc;
}
