// SPDX-License-Identifier: MIT
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

static int ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Whether the directive at p is `word`, then the text after it. */
static const char *directive(const char *p, const char *end, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(end - p) < n || memcmp(p, word, n) != 0 || (p + n < end && ident_char(p[n])))
		return NULL;
	return skip_blanks(p + n, end);
}

/* One line: add() for an #include, #define or #undef directive, 0 for
 * anything else. */
static int scan_line(const char *p, const char *end, jc_include_fn add, void *ctx)
{
	p = skip_blanks(p, end);
	if (p == end || *p != '#')
		return 0;
	p = skip_blanks(p + 1, end);
	const char *name = directive(p, end, "define");
	if (!name)
		name = directive(p, end, "undef");
	if (name) {
		const char *e = name;
		while (e < end && ident_char(*e))
			e++;
		return e > name ? add(ctx, 'd', name, (size_t)(e - name)) : 0;
	}
	if (!(p = directive(p, end, "include")))
		return 0;
	char close = p < end && *p == '"' ? '"' : p < end && *p == '<' ? '>' : 0;
	name = p + 1;
	const char *stop = close ? memchr(name, close, (size_t)(end - name)) : NULL;
	if (stop)
		return add(ctx, *p, name, (size_t)(stop - name));
	const char *e = end; /* the macro's tokens, without trailing blanks or a comment */
	for (const char *c = p; c + 1 < end; c++)
		if (c[0] == '/' && c[1] == '/') {
			e = c;
			break;
		}
	while (e > p && isspace((unsigned char)e[-1]))
		e--;
	return add(ctx, '?', p, (size_t)(e - p));
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
	struct macro *macros; /* from -D and -U options, for #include MACRO */
	size_t n_macros;
	char **defined;       /* names the sources #define or #undef (seen so far) */
	size_t n_defined;
	jc_include_file_fn file_fn; /* jc_include_collect(): each file read */
	void *file_ctx;
};

/* ---- #include through a macro ----------------------------------------- */

/* A macro the options define: -D NAME, -D NAME=BODY, -D NAME(A,B)=BODY. */
struct macro {
	char *name;
	char *params; /* NULL: object-like; else the parameter names, comma-separated */
	char *body;
};

static void free_macro(struct macro *m)
{
	free(m->name);
	free(m->params);
	free(m->body);
}

static struct macro *find_macro(const struct includes *inc, const char *name, size_t len)
{
	for (size_t i = 0; i < inc->n_macros; i++)
		if (strlen(inc->macros[i].name) == len && !memcmp(inc->macros[i].name, name, len))
			return &inc->macros[i];
	return NULL;
}

/* -U NAME (undef), or -D's text; a later option wins, as in the compiler. */
static int macro_option(struct includes *inc, const char *text, int undef)
{
	size_t len = 0;
	while (ident_char(text[len]))
		len++;
	if (!len)
		return 0;
	struct macro *m = find_macro(inc, text, len);
	if (m) {
		free_macro(m);
		*m = inc->macros[--inc->n_macros];
	}
	if (undef)
		return 0;
	struct macro add = { strndup(text, len), NULL, NULL };
	const char *rest = text + len, *close;
	if (*rest == '(' && (close = strchr(rest, ')'))) {
		add.params = strndup(rest + 1, (size_t)(close - rest - 1));
		rest = close + 1;
	}
	add.body = strdup(*rest == '=' ? rest + 1 : "1");
	struct macro *grown = realloc(inc->macros, (inc->n_macros + 1) * sizeof *grown);
	if (!grown || !add.name || !add.body || (rest > text + len && !add.params)) {
		free_macro(&add);
		return -1;
	}
	inc->macros = grown;
	inc->macros[inc->n_macros++] = add;
	return 0;
}

struct buf {
	char *s;
	size_t n, cap;
	int failed;
};

static void put(struct buf *b, const char *s, size_t n)
{
	if (b->failed)
		return;
	if (b->n + n + 1 > b->cap) {
		size_t cap = 2 * (b->n + n + 1);
		char *grown = realloc(b->s, cap);
		if (!grown) {
			b->failed = 1;
			return;
		}
		b->s = grown;
		b->cap = cap;
	}
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = '\0';
}

/* A name left as it is that the compiler itself may define as a macro
 * (__OPENCL_VERSION__, cl_khr_fp64, FLT_MAX...): jitcache cannot know what
 * it stands for, so an include that names it is not cached. */
static int maybe_compiler_macro(const char *s, size_t n)
{
	int upper = n >= 2;
	for (size_t i = 0; i < n && upper; i++)
		upper = isupper((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || s[i] == '_';
	return upper || (n >= 2 && s[0] == '_' && s[1] == '_') || (n >= 3 && !memcmp(s, "cl_", 3)) ||
	       (n == 5 && !memcmp(s, "linux", 5)) || (n == 4 && !memcmp(s, "unix", 4));
}

static char *expand(const struct includes *inc, const char *s, size_t n, int depth);

/* The `i`th of a macro's comma-separated parameters or arguments. */
static int nth(const char *list, size_t n, size_t i, const char **at, size_t *len)
{
	size_t k = 0, start = 0;
	int level = 0;
	for (size_t j = 0; j <= n; j++) {
		if (j < n && (list[j] == '(' || list[j] == ')'))
			level += list[j] == '(' ? 1 : -1;
		if (j == n || (list[j] == ',' && level == 0)) {
			if (k++ == i) {
				while (start < j && isspace((unsigned char)list[start]))
					start++;
				size_t e = j;
				while (e > start && isspace((unsigned char)list[e - 1]))
					e--;
				*at = list + start;
				*len = e - start;
				return 1;
			}
			start = j + 1;
		}
	}
	return 0;
}

/* The parameter `name` of m: its index, or -1. */
static int param_index(const struct macro *m, const char *name, size_t len)
{
	const char *p;
	size_t plen;
	for (int i = 0; nth(m->params, strlen(m->params), (size_t)i, &p, &plen); i++)
		if (plen == len && !memcmp(p, name, len))
			return i;
	return -1;
}

/* m's body with the arguments in args (n bytes) put in: # and a parameter
 * stringizes the argument as written, a parameter alone is the argument
 * expanded. */
static void substitute(const struct includes *inc, const struct macro *m, const char *args,
		       size_t n, int depth, struct buf *out)
{
	const char *b = m->body;
	while (*b && !out->failed) {
		const char *id = b + (*b == '#' ? 1 : 0);
		while (*b == '#' && (*id == ' ' || *id == '\t'))
			id++;
		size_t len = 0;
		while (ident_char(id[len]))
			len++;
		int i = len && (isalpha((unsigned char)*id) || *id == '_') ? param_index(m, id, len) : -1;
		const char *arg;
		size_t alen;
		if (i >= 0 && !nth(args, n, (size_t)i, &arg, &alen)) {
			out->failed = 1;
		} else if (i >= 0 && *b == '#') {
			if (memchr(arg, '"', alen) || memchr(arg, '\\', alen))
				out->failed = 1;
			put(out, "\"", 1);
			put(out, arg, alen);
			put(out, "\"", 1);
		} else if (i >= 0) {
			char *x = expand(inc, arg, alen, depth + 1);
			x ? put(out, x, strlen(x)) : (void)(out->failed = 1);
			free(x);
		} else {
			put(out, b, len && b == id ? len : 1);
			b += len && b == id ? len : 1;
			continue;
		}
		b = id + len;
	}
}

/* s (n bytes) with the options' macros expanded, as the preprocessor would
 * for an #include line; NULL when jitcache cannot be sure of the result:
 * a name the sources #define or #undef, one the compiler may define, a
 * call it cannot take apart, or nesting deeper than 16. */
static char *expand(const struct includes *inc, const char *s, size_t n, int depth)
{
	struct buf out = { 0 };
	put(&out, "", 0);
	for (size_t i = 0; i < n && depth <= 16 && !out.failed;) {
		if (s[i] == '"') { /* a string literal, as it is */
			const char *q = memchr(s + i + 1, '"', n - i - 1);
			size_t end = q ? (size_t)(q - s) + 1 : n;
			put(&out, s + i, end - i);
			out.failed |= !q;
			i = end;
			continue;
		}
		if (!(isalpha((unsigned char)s[i]) || s[i] == '_')) {
			put(&out, s + i, 1);
			i++;
			continue;
		}
		size_t j = i;
		while (j < n && ident_char(s[j]))
			j++;
		const struct macro *m = find_macro(inc, s + i, j - i);
		for (size_t d = 0; d < inc->n_defined && !out.failed; d++)
			out.failed = strlen(inc->defined[d]) == j - i &&
				     !memcmp(inc->defined[d], s + i, j - i);
		size_t k = j;
		while (k < n && isspace((unsigned char)s[k]))
			k++;
		if (!m || (m->params && (k == n || s[k] != '('))) {
			out.failed |= !m && maybe_compiler_macro(s + i, j - i);
			put(&out, s + i, j - i);
			i = j;
			continue;
		}
		struct buf body = { 0 };
		put(&body, "", 0);
		if (!m->params) {
			put(&body, m->body, strlen(m->body));
			i = j;
		} else {
			int level = 0;
			size_t close = k;
			for (; close < n; close++)
				if ((s[close] == '(' && level++ < 0) ||
				    (s[close] == ')' && --level == 0))
					break;
			if (close == n) {
				out.failed = 1;
				break;
			}
			substitute(inc, m, s + k + 1, close - k - 1, depth, &body);
			i = close + 1;
		}
		char *x = body.failed ? NULL : expand(inc, body.s, body.n, depth + 1);
		x ? put(&out, x, strlen(x)) : (void)(out.failed = 1);
		free(x);
		free(body.s);
	}
	if (out.failed || depth > 16) {
		free(out.s);
		return NULL;
	}
	return out.s;
}

/* An #include's tokens (n bytes) as a file name: *kind '"' or '<' and the
 * name (malloc'd), or NULL. */
static char *macro_include(const struct includes *inc, const char *tokens, size_t n, char *kind)
{
	char *x = expand(inc, tokens, n, 0), *name = NULL;
	size_t len = x ? strlen(x) : 0, start = 0;
	while (len && isspace((unsigned char)x[len - 1]))
		len--;
	while (start < len && isspace((unsigned char)x[start]))
		start++;
	if (len - start >= 3 && ((x[start] == '"' && x[len - 1] == '"') ||
				 (x[start] == '<' && x[len - 1] == '>')) &&
	    !memchr(x + start + 1, '"', len - start - 2)) {
		*kind = x[start];
		name = strndup(x + start + 1, len - start - 2);
	}
	free(x);
	return name;
}

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
	int want_dir = 0, want_macro = 0, rc = token ? 0 : -1;
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
		if (want_macro)
			rc = macro_option(inc, token, want_macro == 'U');
		else if ((token[0] == '-' && (token[1] == 'D' || token[1] == 'U')) && token[2])
			rc = macro_option(inc, token + 2, token[1] == 'U');
		want_macro = !strcmp(token, "-D") ? 'D' : !strcmp(token, "-U") ? 'U' : 0;
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
static int hash_named(struct includes *inc, char kind, const char *name_in, size_t len);

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
	char *expanded = NULL;
	if (kind == 'd') { /* a macro the sources define: no longer the options' */
		char **grown = realloc(inc->defined, (inc->n_defined + 1) * sizeof *grown);
		if (!grown)
			return -1;
		inc->defined = grown;
		return (inc->defined[inc->n_defined] = strndup(name_in, len)) ? (inc->n_defined++, 0)
									    : -1;
	}
	if (kind == '?') {
		if (!(expanded = macro_include(inc, name_in, len, &kind))) {
			jc_log(JC_LOG_DEBUG, "OpenCL build not cached: an #include names its "
					     "file through a macro jitcache cannot expand (%.*s)",
			       (int)(len < 200 ? len : 200), name_in);
			return -1;
		}
		jc_fp_str(inc->fp, "include.macro", expanded);
		name_in = expanded;
		len = strlen(expanded);
	}
	int rc = hash_named(inc, kind, name_in, len);
	free(expanded);
	return rc;
}

/* An #include of `name` (len bytes), kind '"' or '<'. */
static int hash_named(struct includes *inc, char kind, const char *name_in, size_t len)
{
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
	for (size_t i = 0; i < inc.n_macros; i++)
		free_macro(&inc.macros[i]);
	for (size_t i = 0; i < inc.n_defined; i++)
		free(inc.defined[i]);
	free(inc.macros);
	free(inc.defined);
	free(inc.dirs);
	return rc;
}
