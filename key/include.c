// SPDX-License-Identifier: MIT
/* #include directives, resolved and hashed (see include.h). */
#include "key/include.h"
#include "key/paste.h"
#include "key/token.h"

#include "config/buf.h"
#include "config/log.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

/* ---- the directives of a text -------------------------------------------- */

/* White space inside a line, as the compiler takes it. */
static int blank(char c)
{
	return c == ' ' || c == '\t' || c == '\f' || c == '\v';
}

static int ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

static int ident_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

/* Translation phases 1 and 2: each line end ("\r\n", '\r' or '\n') one
 * '\n', and each backslash-newline removed, with blanks between the two as
 * clang and GCC accept (with a warning).  NULL if out of memory. */
static char *join_lines(const char *t, size_t size, size_t *n)
{
	char *o = malloc(size + 1);
	size_t k = 0;
	for (size_t i = 0; o && i < size;) {
		if (t[i] == '\\') {
			size_t j = i + 1;
			while (j < size && blank(t[j]))
				j++;
			if (j < size && (t[j] == '\n' || t[j] == '\r')) {
				i = j + 1 + (t[j] == '\r' && j + 1 < size && t[j + 1] == '\n');
				continue;
			}
		}
		if (t[i] == '\r') {
			o[k++] = '\n';
			i += 1 + (i + 1 < size && t[i + 1] == '\n');
			continue;
		}
		o[k++] = t[i++];
	}
	*n = k;
	return o;
}

/* Where a line stands, as its characters come: a directive's name is
 * needed to know whether a header name (<a//b.h> is one name, no comment)
 * comes next. */
enum line_state { LINE_START, LINE_HASH, LINE_PERCENT, LINE_NAME, LINE_AFTER_NAME, LINE_OTHER };

struct cleaned {
	char *o;
	size_t k;
	enum line_state state;
	size_t name, name_end; /* the directive's name in o */
};

static void emit(struct cleaned *c, char ch)
{
	switch (c->state) {
	case LINE_START:
		c->state = blank(ch) ? LINE_START : ch == '#' ? LINE_HASH
			 : ch == '%' ? LINE_PERCENT : LINE_OTHER;
		break;
	case LINE_PERCENT:
		c->state = ch == ':' ? LINE_HASH : LINE_OTHER;
		break;
	case LINE_HASH:
		c->state = blank(ch) ? LINE_HASH : ident_start(ch) ? LINE_NAME : LINE_OTHER;
		c->name = c->k;
		break;
	case LINE_NAME:
		c->state = ident_char(ch) ? LINE_NAME : blank(ch) ? LINE_AFTER_NAME : LINE_OTHER;
		c->name_end = c->k;
		break;
	case LINE_AFTER_NAME:
		c->state = blank(ch) ? LINE_AFTER_NAME : LINE_OTHER;
		break;
	case LINE_OTHER:
		break;
	}
	if (ch == '\n')
		c->state = LINE_START;
	c->o[c->k++] = ch;
}

static int is_word(const char *s, size_t n, const char *word)
{
	return strlen(word) == n && memcmp(s, word, n) == 0;
}

/* The directives that read a file by a header name. */
static int include_word(const char *s, size_t n)
{
	return is_word(s, n, "include") || is_word(s, n, "include_next") ||
	       is_word(s, n, "import") || is_word(s, n, "__include_macros") ||
	       is_word(s, n, "embed");
}

/* The operators whose operand is a header name. */
static int has_word(const char *s, size_t n)
{
	return is_word(s, n, "__has_include") || is_word(s, n, "__has_include_next") ||
	       is_word(s, n, "__has_embed");
}

/* Whether a header name comes next in the cleaned text: after an include
 * directive's name, or after `__has_include (`. */
static int header_name_next(const struct cleaned *c)
{
	if (c->state == LINE_NAME || c->state == LINE_AFTER_NAME) {
		size_t end = c->state == LINE_NAME ? c->k : c->name_end;
		if (include_word(c->o + c->name, end - c->name))
			return 1;
	}
	size_t e = c->k;
	while (e > 0 && blank(c->o[e - 1]))
		e--;
	if (e == 0 || c->o[e - 1] != '(')
		return 0;
	e--;
	while (e > 0 && blank(c->o[e - 1]))
		e--;
	size_t s = e;
	while (s > 0 && ident_char(c->o[s - 1]))
		s--;
	return has_word(c->o + s, e - s);
}

/* Translation phase 3 as far as directives need it: each comment one
 * blank, string and character literals and header names kept whole (a
 * literal ends at its line's end, as the compiler ends an unterminated
 * one). */
static char *clean(const char *t, size_t n, size_t *out_n)
{
	struct cleaned c = { malloc(n + 1), 0, LINE_START, 0, 0 };
	for (size_t i = 0; c.o && i < n;) {
		if (t[i] == '/' && i + 1 < n && (t[i + 1] == '*' || t[i + 1] == '/')) {
			if (t[i + 1] == '*') {
				for (i += 2; i + 1 < n && !(t[i] == '*' && t[i + 1] == '/'); i++)
					;
				i = i + 1 < n ? i + 2 : n;
			} else {
				while (i < n && t[i] != '\n')
					i++;
			}
			emit(&c, ' ');
			continue;
		}
		if (t[i] == '"' || t[i] == '\'' || t[i] == '<') {
			int header = (t[i] != '\'') && header_name_next(&c);
			if (t[i] == '<' && !header) {
				emit(&c, t[i++]);
				continue;
			}
			char close = t[i] == '<' ? '>' : t[i];
			emit(&c, t[i++]);
			while (i < n && t[i] != '\n' && t[i] != close) {
				if (!header && t[i] == '\\' && i + 1 < n && t[i + 1] != '\n')
					emit(&c, t[i++]);
				emit(&c, t[i++]);
			}
			if (i < n && t[i] == close)
				emit(&c, t[i++]);
			continue;
		}
		emit(&c, t[i++]);
	}
	*out_n = c.k;
	return c.o;
}

/* A trigraph (??= is #, ??/ a backslash): compilers differ on whether
 * they apply them; jitcache does not follow them. */
static int has_trigraph(const char *t, size_t n)
{
	for (const char *p = t; (p = memchr(p, '?', (size_t)(t + n - p))) && p + 2 < t + n; p++)
		if (p[1] == '?' && strchr("=/'()!<>-", p[2]) && p[2])
			return 1;
	return 0;
}

/* A prefix of such a name that only pasting can complete ("__has_"). */
static int has_prefix(const char *s, size_t n)
{
	return n >= 3 && !has_word(s, n) && (!strncmp("__has_include_next", s, n) ||
					      !strncmp("__has_embed", s, n)) &&
	       n < strlen("__has_include_next");
}

struct scan {
	jc_include_fn add;
	void *ctx;
	int pastes, pragma_op;
	struct jc_paste paste; /* the pieces of __has_include's name seen */
	struct jc_buf calls;   /* every call of add(), kept (texts scanned before, below) */
};

/* add(), kept in sc->calls: its kind, the name's length, the name, a NUL.
 * Inline: a call adds no frame to the nested scans of included files,
 * which may run on a small stack. */
static inline int call(struct scan *sc, char kind, const char *name, size_t len)
{
	jc_buf_put(&sc->calls, &kind, 1);
	jc_buf_put(&sc->calls, &len, sizeof len);
	jc_buf_put(&sc->calls, name, len);
	jc_buf_put(&sc->calls, "", 1);
	return sc->add(sc->ctx, kind, name, len);
}

static int call_back(void *ctx, char kind, const char *name, size_t len)
{
	return call(ctx, kind, name, len);
}

/* `__has_include` at s (in line [line, end)): add() its operand as an
 * include, or '!' when it is not a literal name.  *next: where to go on. */
static int has_include(struct scan *sc, const char *line, const char *s, const char *w,
		       const char *end, const char **next)
{
	const char *p = w, *b = s;
	*next = w;
	while (b > line && blank(b[-1])) /* defined(__has_include): a test, fine */
		b--;
	if (b > line && b[-1] == '(')
		b--;
	while (b > line && blank(b[-1]))
		b--;
	if (b - line >= 7 && is_word(b - 7, 7, "defined") && (b - line == 7 || !ident_char(b[-8])))
		return 0;
	while (p < end && blank(*p))
		p++;
	if (p == end || *p != '(')
		return call(sc, '!', "__has_include without a literal name", 36);
	for (p++; p < end && blank(*p); p++)
		;
	char close = p < end && *p == '"' ? '"' : p < end && *p == '<' ? '>' : 0;
	const char *stop = close ? memchr(p + 1, close, (size_t)(end - p - 1)) : NULL;
	const char *q = stop ? stop + 1 : NULL;
	while (q && q < end && blank(*q))
		q++;
	if (!q || q == end || *q != ')')
		return call(sc, '!', "__has_include without a literal name", 36);
	*next = q + 1;
	return call(sc, *p, p + 1, (size_t)(stop - p - 1));
}

/* The identifiers and operators of one line that can make the compiler
 * look for a file outside an include directive. */
static int scan_words(struct scan *sc, const char *line, const char *end, int in_ifdef)
{
	for (const char *p = line; p < end;) {
		enum jc_token kind;
		const char *w = jc_token(p, end, &kind);
		if (kind == JC_TOKEN_OTHER && ((*p == '#' && p + 1 < end && p[1] == '#') ||
					       (end - p >= 4 && !memcmp(p, "%:%:", 4))))
			sc->pastes = 1;
		if (kind != JC_TOKEN_NAME) {
			p = w;
			continue;
		}
		size_t n = (size_t)(w - p);
		int rc = 0;
		const char *next = w;
		jc_paste_piece(&sc->paste, p, n);
		if (is_word(p, n, "__has_embed"))
			rc = call(sc, '!', "__has_embed", 11);
		else if (has_word(p, n) && !in_ifdef)
			rc = has_include(sc, line, p, w, end, &next);
		else if (has_prefix(p, n))
			rc = call(sc, '!', "a part of __has_include's name", 30);
		else if (is_word(p, n, "_Pragma") || is_word(p, n, "__pragma"))
			sc->pragma_op = 1;
		if (rc != 0)
			return rc;
		p = next;
	}
	return 0;
}

/* Whether the directive at p is `word`, then the text after it. */
static const char *directive(const char *p, const char *end, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(end - p) < n || memcmp(p, word, n) != 0 || (p + n < end && ident_char(p[n])))
		return NULL;
	while (p + n < end && blank(p[n]))
		n++;
	return p + n;
}

/* Whether a #pragma line can make the compiler read a file (GCC
 * dependency, clang module, MS include_alias). */
static int pragma_reads(const char *p, const char *end)
{
	static const char *const words[] = { "dependency", "module", "include_alias" };
	for (size_t i = 0; i < sizeof words / sizeof *words; i++)
		if (memmem(p, (size_t)(end - p), words[i], strlen(words[i])))
			return 1;
	return 0;
}

/* Whether a macro's parameters and body (after its name) can lead a paste
 * anywhere: an identifier or a ## in it (a number or an operator cannot). */
static int body_matters(const char *s, const char *end)
{
	for (; s < end; s++)
		if (ident_start(*s) || (*s == '#' && s + 1 < end && s[1] == '#') ||
		    (*s == '%' && end - s >= 4 && !memcmp(s, "%:%:", 4)))
			return 1;
	return 0;
}

/* One line of the cleaned text: add() for a directive that reads a file
 * (or '!' for one jitcache does not follow), #define or #undef; then the
 * words that make the compiler look for a file elsewhere in it. */
static int scan_line(struct scan *sc, const char *line, const char *end)
{
	const char *p = line;
	while (p < end && blank(*p))
		p++;
	int hash = p < end && *p == '#' ? 1 : end - p >= 2 && p[0] == '%' && p[1] == ':' ? 2 : 0;
	if (!hash)
		return scan_words(sc, line, end, 0);
	for (p += hash; p < end && blank(*p);)
		p++;
	const char *name = directive(p, end, "define");
	if (!name)
		name = directive(p, end, "undef");
	if (name) {
		const char *e = name;
		while (e < end && ident_char(*e))
			e++;
		int rc = e > name ? call(sc, 'd', name, (size_t)(e - name)) : 0;
		if (rc == 0 && e > name && directive(p, end, "define") && body_matters(e, end))
			rc = call(sc, 'm', name, (size_t)(end - name));
		return rc ? rc : scan_words(sc, e, end, 0);
	}
	if (directive(p, end, "embed"))
		return call(sc, '!', "an #embed directive", 19);
	if ((name = directive(p, end, "pragma")) && pragma_reads(name, end))
		return call(sc, '!', "a #pragma that may read a file", 30);
	const char *rest = NULL;
	static const char *const words[] = { "include", "include_next", "import", "__include_macros" };
	for (size_t i = 0; !rest && i < sizeof words / sizeof *words; i++)
		rest = directive(p, end, words[i]);
	if (!rest) {
		int ifdef = directive(p, end, "ifdef") || directive(p, end, "ifndef");
		const char *expr = directive(p, end, "if");
		if (!expr)
			expr = directive(p, end, "elif");
		int rc = expr ? call(sc, 'f', expr, (size_t)(end - expr)) : 0;
		return rc ? rc : scan_words(sc, p, end, ifdef);
	}
	p = rest;
	char close = p < end && *p == '"' ? '"' : p < end && *p == '<' ? '>' : 0;
	const char *stop = close ? memchr(p + 1, close, (size_t)(end - p - 1)) : NULL;
	if (stop)
		return call(sc, *p, p + 1, (size_t)(stop - p - 1));
	const char *e = end; /* the macro's tokens, without trailing blanks */
	while (e > p && isspace((unsigned char)e[-1]))
		e--;
	return call(sc, '?', p, (size_t)(e - p));
}

/* The scan itself, with every call kept in sc->calls; *whole cleared
 * when it could not read the text (no memory), which says nothing about
 * the text. */
static __attribute__((noinline)) int scan_text(struct scan *sc, const char *text, size_t size,
					       int *whole)
{
	if (has_trigraph(text, size))
		return call(sc, '!', "a trigraph", 10);
	size_t n1 = 0, n = 0;
	char *spliced = join_lines(text, size, &n1);
	char *t = spliced ? clean(spliced, n1, &n) : NULL;
	free(spliced);
	if (!t) {
		*whole = 0;
		return call(sc, '!', "no memory to scan the source", 28);
	}
	int rc = 0;
	for (const char *p = t, *end = t + n; rc == 0 && p < end;) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		rc = scan_line(sc, p, eol ? eol : end);
		p = eol ? eol + 1 : end;
	}
	if (rc == 0 && sc->pastes)
		rc = call(sc, '#', "##", 2);
	if (rc == 0)
		rc = jc_paste_each_piece(&sc->paste, call_back, sc);
	if (rc == 0 && sc->pragma_op &&
	    (memmem(t, n, "dependency", 10) || memmem(t, n, "include_alias", 13)))
		rc = call(sc, '!', "a _Pragma that may read a file", 30);
	free(t);
	return rc;
}

/* ---- texts scanned before ------------------------------------------------ */

/* What add() is given depends on the text's bytes alone, and a process
 * scans the same texts again and again: a build's key reads every header
 * the program may include, the key is made again once the compile is over,
 * and the recipe reads the headers once more; pyopencl builds 49 programs
 * that include the same few headers.  So the calls of a scan that reached
 * the text's end are kept, by the text's 128-bit hash and size (the latest
 * SCANNED_MAX texts, each's calls in at most SCANNED_BYTES), and made again
 * in the same order for the same text.  Every caller still reads and
 * hashes the text itself: only the scan is saved. */
#define SCANNED_MAX 256
#define SCANNED_BYTES (32u << 10)

struct scanned {
	XXH128_hash_t hash;
	size_t size;
	int used;
	char *calls; /* each: kind, the name's length (size_t), the name, a NUL */
	size_t n;
};

static struct scanned scanned[SCANNED_MAX];
static size_t scanned_next;
static pthread_mutex_t scanned_lock = PTHREAD_MUTEX_INITIALIZER;

/* A copy of the calls kept for the text (*n bytes; none is an empty
 * copy), or NULL. */
static char *scanned_before(XXH128_hash_t hash, size_t size, size_t *n)
{
	char *copy = NULL;
	pthread_mutex_lock(&scanned_lock);
	for (size_t i = 0; i < SCANNED_MAX; i++) {
		const struct scanned *s = &scanned[i];
		if (s->used && s->size == size && XXH128_isEqual(s->hash, hash)) {
			if ((copy = malloc(s->n ? s->n : 1)) && s->n)
				memcpy(copy, s->calls, s->n);
			*n = s->n;
			break;
		}
	}
	pthread_mutex_unlock(&scanned_lock);
	return copy;
}

/* Keep calls (n bytes, malloc'd: taken) for the text. */
static void keep_scanned(XXH128_hash_t hash, size_t size, char *calls, size_t n)
{
	pthread_mutex_lock(&scanned_lock);
	struct scanned *s = &scanned[scanned_next++ % SCANNED_MAX];
	char *old = s->calls;
	*s = (struct scanned){ .hash = hash, .size = size, .used = 1, .calls = calls, .n = n };
	pthread_mutex_unlock(&scanned_lock);
	free(old);
}

static int replay(const char *calls, size_t n, jc_include_fn add, void *ctx)
{
	int rc = 0;
	for (size_t at = 0; rc == 0 && at < n;) {
		size_t len;
		memcpy(&len, calls + at + 1, sizeof len);
		rc = add(ctx, calls[at], calls + at + 1 + sizeof len, len);
		at += 1 + sizeof len + len + 1;
	}
	return rc;
}

int jc_include_scan(const char *text, size_t size, jc_include_fn add, void *ctx)
{
	XXH128_hash_t hash = XXH3_128bits(text, size);
	size_t n = 0;
	char *calls = scanned_before(hash, size, &n);
	if (calls) {
		int rc = replay(calls, n, add, ctx);
		free(calls);
		return rc;
	}
	struct scan *sc = calloc(1, sizeof *sc); /* on the heap: the stack may be small */
	if (!sc)
		return add(ctx, '!', "no memory to scan the source", 28);
	sc->add = add;
	sc->ctx = ctx;
	sc->calls.max = SCANNED_BYTES;
	int whole = 1;
	int rc = scan_text(sc, text, size, &whole);
	if (rc == 0 && whole && !sc->calls.failed)
		keep_scanned(hash, size, sc->calls.s, sc->calls.n);
	else
		free(sc->calls.s);
	jc_paste_free(&sc->paste);
	free(sc);
	return rc;
}

/* ---- resolving and hashing ------------------------------------------------ */

struct includes {
	struct jc_fp *fp;
	char **dirs;          /* from -I and the other include path options, and CPATH... */
	size_t n_dirs;
	char **forced;        /* -include and -imacros files */
	size_t n_forced;
	char *seen[JC_INCLUDE_MAX_FILES];
	size_t n_seen;
	const char *from_dir; /* directory of the file being scanned; NULL: the current one */
	int depth;
	const char *other_paths; /* an option that makes the compiler read files jitcache does not */
	int macros_differ;    /* the two ways to split the options define other macros */
	struct jc_paste paste; /* ##, the pieces of __has_include's name, the macros
				* and #if expressions of every text (key/paste.h) */
	size_t found;         /* candidates found so far */
	struct jc_buf absent;    /* the candidates found empty, keyed as one field at the end:
			       * the trace `jitcache explain` reads has room for few */
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
		       size_t n, int depth, struct jc_buf *out)
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
			jc_buf_put(out, "\"", 1);
			jc_buf_put(out, arg, alen);
			jc_buf_put(out, "\"", 1);
		} else if (i >= 0) {
			char *x = expand(inc, arg, alen, depth + 1);
			x ? jc_buf_puts(out, x) : (void)(out->failed = 1);
			free(x);
		} else {
			jc_buf_put(out, b, len && b == id ? len : 1);
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
	struct jc_buf out = { 0 };
	jc_buf_put(&out, "", 0);
	for (size_t i = 0; i < n && depth <= 16 && !out.failed;) {
		if (s[i] == '"') { /* a string literal, as it is */
			const char *q = memchr(s + i + 1, '"', n - i - 1);
			size_t end = q ? (size_t)(q - s) + 1 : n;
			jc_buf_put(&out, s + i, end - i);
			out.failed |= !q;
			i = end;
			continue;
		}
		if (!(isalpha((unsigned char)s[i]) || s[i] == '_')) {
			jc_buf_put(&out, s + i, 1);
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
			jc_buf_put(&out, s + i, j - i);
			i = j;
			continue;
		}
		struct jc_buf body = { 0 };
		jc_buf_put(&body, "", 0);
		if (!m->params) {
			jc_buf_puts(&body, m->body);
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
		x ? jc_buf_puts(&out, x) : (void)(out.failed = 1);
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

/* dir into *list (n), once. */
static int add_to(char ***list, size_t *n, const char *dir)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*list)[i], dir))
			return 0;
	char **grown = realloc(*list, (*n + 1) * sizeof *grown);
	if (!grown)
		return -1;
	*list = grown;
	if (!(grown[*n] = strdup(dir)))
		return -1;
	(*n)++;
	return 0;
}

/* The options' token at *p, split as a shell does (quotes removed: as
 * clang's and Intel's drivers take them) or at white space alone (quotes
 * kept: as PoCL takes them), into token; 0 at the end. */
static int next_token(const char **p, char *token, int shell)
{
	while (isspace((unsigned char)**p))
		(*p)++;
	if (!**p)
		return 0;
	size_t n = 0;
	char quote = 0;
	for (; **p && (quote || !isspace((unsigned char)**p)); (*p)++) {
		if (shell && (**p == '"' || **p == '\'') && (!quote || quote == **p))
			quote = quote ? 0 : **p;
		else
			token[n++] = **p;
	}
	token[n] = '\0';
	return 1;
}

/* An option whose value is a directory the compiler searches, and how
 * long its name is (the value follows, or is the next token). */
static size_t dir_option(const char *t)
{
	static const char *const names[] = { "--include-directory=", "--include-directory",
					     "-isystem", "-idirafter", "-iquote", "-I" };
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (!strncmp(t, names[i], strlen(names[i])))
			return strlen(names[i]);
	return 0;
}

/* An option that makes the compiler read files jitcache does not follow:
 * a prefix or sysroot for include paths, modules, a PCH, a VFS overlay. */
static const char *reads_option(const char *t)
{
	static const char *const names[] = { "-iprefix", "-iwithprefix", "-isysroot", "--sysroot",
					     "-include-pch", "-ivfsoverlay", "-fmodule", "-cxx-isystem",
					     "-iframework", "-F", "--config", "-I=", "-I$SYSROOT",
					     "-iembed-dir", "--embed-dir" };
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (!strncmp(t, names[i], strlen(names[i])))
			return names[i];
	return NULL;
}

/* The include paths, forced includes (-include, -imacros) and macros of
 * an options string split one way (shell or not). */
static int parse_options(const char *options, struct includes *inc, int shell)
{
	const char *p = options ? options : "";
	char *token = malloc(strlen(p) + 1);
	int rc = token ? 0 : -1;
	enum { NONE, DIR, MACRO_D, MACRO_U, FORCED } want = NONE;
	while (rc == 0 && next_token(&p, token, shell)) {
		size_t d = dir_option(token);
		const char *reads = want == NONE ? reads_option(token) : NULL;
		if (want == DIR)
			rc = add_to(&inc->dirs, &inc->n_dirs, token);
		else if (want == FORCED)
			rc = add_to(&inc->forced, &inc->n_forced, token);
		else if (want == MACRO_D || want == MACRO_U)
			rc = macro_option(inc, token, want == MACRO_U);
		else if (reads)
			inc->other_paths = reads;
		else if (d && token[d])
			rc = add_to(&inc->dirs, &inc->n_dirs, token + d);
		else if (!strncmp(token, "-include", 8) && token[8])
			rc = add_to(&inc->forced, &inc->n_forced, token + 8);
		else if (!strncmp(token, "-imacros", 8) && token[8])
			rc = add_to(&inc->forced, &inc->n_forced, token + 8);
		else if (token[0] == '-' && (token[1] == 'D' || token[1] == 'U') && token[2])
			rc = macro_option(inc, token + 2, token[1] == 'U');
		int was_value = want != NONE;
		want = was_value ? NONE : d && !token[d] ? DIR : !strcmp(token, "-D") ? MACRO_D
		     : !strcmp(token, "-U") ? MACRO_U
		     : !strcmp(token, "-include") || !strcmp(token, "-imacros") ? FORCED : NONE;
	}
	free(token);
	return rc;
}

/* Whether two macro tables define the same macros. */
static int same_macros(const struct includes *a, const struct includes *b)
{
	if (a->n_macros != b->n_macros)
		return 0;
	for (size_t i = 0; i < a->n_macros; i++) {
		const struct macro *m = &a->macros[i];
		const struct macro *o = find_macro(b, m->name, strlen(m->name));
		if (!o || strcmp(m->body, o->body) || !m->params != !o->params ||
		    (m->params && strcmp(m->params, o->params)))
			return 0;
	}
	return 1;
}

/* The options' macros, for what pasting may make (key/paste.h). */
static int macro_words(struct includes *inc, const struct macro *m)
{
	jc_paste_words(&inc->paste, m->body, strlen(m->body));
	char *line = NULL;
	int n = asprintf(&line, "%s%s%s%s %s", m->name, m->params ? "(" : "",
			 m->params ? m->params : "", m->params ? ")" : "", m->body);
	int rc = n < 0 ? -1 : jc_paste_define(&inc->paste, line, (size_t)n);
	free(n < 0 ? NULL : line);
	return rc;
}

/* Include paths the compiler may take from the environment (clang's
 * driver): their directories are searched as -I ones. */
static int path_variables(struct includes *inc)
{
	static const char *const names[] = { "CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH",
					     "OBJC_INCLUDE_PATH" };
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < sizeof names / sizeof *names; i++) {
		const char *v = getenv(names[i]);
		char *copy = v ? strdup(v) : NULL, *save = NULL;
		if (v && !copy)
			return -1;
		for (char *d = copy ? strtok_r(copy, ":", &save) : NULL; rc == 0 && d;
		     d = strtok_r(NULL, ":", &save))
			rc = add_to(&inc->dirs, &inc->n_dirs, d);
		free(copy);
	}
	return rc;
}

/* Everything a struct includes holds. */
static void free_includes(struct includes *inc)
{
	for (size_t i = 0; i < inc->n_dirs; i++)
		free(inc->dirs[i]);
	for (size_t i = 0; i < inc->n_forced; i++)
		free(inc->forced[i]);
	for (size_t i = 0; i < inc->n_seen; i++)
		free(inc->seen[i]);
	for (size_t i = 0; i < inc->n_macros; i++)
		free_macro(&inc->macros[i]);
	for (size_t i = 0; i < inc->n_defined; i++)
		free(inc->defined[i]);
	free(inc->macros);
	free(inc->defined);
	free(inc->dirs);
	free(inc->forced);
	free(inc->absent.s);
	jc_paste_free(&inc->paste);
}

/* The options split both ways: the union of the paths and forced
 * includes, and whether the two splits' macros differ. */
static int parse_include_dirs(const char *options, struct includes *inc)
{
	struct includes lit = { 0 };
	int rc = parse_options(options, inc, 1);
	if (rc == 0)
		rc = parse_options(options, &lit, 0);
	for (size_t i = 0; rc == 0 && i < lit.n_dirs; i++)
		rc = add_to(&inc->dirs, &inc->n_dirs, lit.dirs[i]);
	for (size_t i = 0; rc == 0 && i < lit.n_forced; i++)
		rc = add_to(&inc->forced, &inc->n_forced, lit.forced[i]);
	if (!inc->other_paths)
		inc->other_paths = lit.other_paths;
	inc->macros_differ = !same_macros(inc, &lit) || !same_macros(&lit, inc);
	for (size_t i = 0; rc == 0 && i < inc->n_macros; i++)
		rc = macro_words(inc, &inc->macros[i]);
	for (size_t i = 0; rc == 0 && i < lit.n_macros; i++)
		rc = macro_words(inc, &lit.macros[i]);
	if (rc == 0)
		rc = path_variables(inc);
	free_includes(&lit);
	return rc;
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
	char *dir = slash ? strndup(path, (size_t)(slash - path) + (slash == path)) : NULL;
	if (!text || (slash && !dir) || !(inc->seen[inc->n_seen] = strdup(path))) {
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
	inc->from_dir = dir; /* NULL: beside it is the current directory */
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
	if (kind == '#' || kind == '_') {
		inc->paste.pastes |= kind == '#';
		if (kind == '_')
			jc_paste_piece(&inc->paste, name_in, len);
		return 0;
	}
	if (kind == 'm' || kind == 'f') {
		return kind == 'm' ? jc_paste_define(&inc->paste, name_in, len)
				   : jc_paste_if(&inc->paste, name_in, len);
	}
	if (kind == '!') {
		jc_log(JC_LOG_DEBUG, "OpenCL build not cached: the source has %.*s, which "
				     "jitcache does not follow", (int)(len < 80 ? len : 80), name_in);
		return -1;
	}
	if (kind == '?') {
		if (inc->macros_differ) {
			jc_log(JC_LOG_DEBUG, "OpenCL build not cached: an #include names its file "
					     "through a macro, and the drivers split the options' "
					     "-D and -U differently (quotes)");
			return -1;
		}
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

/* One place the compiler may find `name`: dir/name (dir NULL: the current
 * directory), keyed by whether it is there and, if it is, its contents and
 * what it includes. */
static int hash_candidate(struct includes *inc, const char *dir, const char *name)
{
	size_t d = dir ? strlen(dir) + 1 : 0, n = strlen(name);
	if (d + n >= PATH_MAX) {
		jc_log(JC_LOG_DEBUG, "OpenCL build not cached: #include %s: a place to look for it "
				     "makes a path longer than PATH_MAX", name);
		return -1;
	}
	char *path = malloc(d + n + 1);
	if (!path)
		return -1;
	if (dir) {
		memcpy(path, dir, d - 1);
		path[d - 1] = '/';
	}
	memcpy(path + d, name, n + 1);
	struct stat st;
	int rc = 0;
	if (stat(path, &st) != 0) {
		if (errno == ENOENT || errno == ENOTDIR || errno == EACCES)
			jc_buf_put(&inc->absent, "A", 1); /* the compiler finds none either */
		else
			rc = -1;
		if (rc == 0)
			jc_buf_put(&inc->absent, path, n + d + 1);
	} else if (S_ISDIR(st.st_mode)) {
		jc_buf_put(&inc->absent, "D", 1); /* a directory: the compiler looks on */
		jc_buf_put(&inc->absent, path, n + d + 1);
	} else if (!S_ISREG(st.st_mode) || access(path, R_OK) != 0) {
		rc = -1;
	} else {
		jc_fp_str(inc->fp, "include", path);
		inc->found++;
		rc = hash_file(inc, path);
	}
	if (rc != 0)
		jc_log(JC_LOG_DEBUG, "OpenCL build not cached: cannot read %s (or too many "
				     "nested includes)", path);
	free(path);
	return rc;
}

/* An #include of `name` (len bytes), quoted or angled alike: every place
 * a driver's search may find it, in any order: beside the including file
 * (for the program's own source: the current directory), the current
 * directory, each include path, /usr/local/include and /usr/include.
 * Keying a file the compiler does not use only costs a miss when that file
 * changes. */
static int hash_named(struct includes *inc, char kind, const char *name_in, size_t len)
{
	static const char *const system_dirs[] = { "/usr/local/include", "/usr/include" };
	if (memchr(name_in, '\0', len) || len >= PATH_MAX || len == 0) {
		jc_log(JC_LOG_DEBUG, "OpenCL build not cached: an #include names a file "
				     "that no path can name (%zu bytes)", len);
		return -1;
	}
	char *name = strndup(name_in, len);
	if (!name)
		return -1;
	int rc = 0;
	size_t found = inc->found;
	if (name[0] == '/') {
		rc = hash_candidate(inc, NULL, name);
	} else {
		const char *beside = inc->from_dir; /* hash_candidate may change it: kept */
		if (beside)
			rc = hash_candidate(inc, beside, name);
		if (rc == 0)
			rc = hash_candidate(inc, NULL, name);
		for (size_t i = 0; rc == 0 && i < inc->n_dirs; i++)
			rc = hash_candidate(inc, inc->dirs[i], name);
		for (size_t i = 0; rc == 0 && i < sizeof system_dirs / sizeof *system_dirs; i++)
			rc = hash_candidate(inc, system_dirs[i], name);
	}
	if (rc == 0 && inc->found == found)
		jc_log(JC_LOG_DEBUG, "OpenCL build: #include %c%s%c not found where jitcache looks; "
		       "keyed by its name and every place it was looked for (the compiler's "
		       "own header, or not compiled)", kind, name, kind == '<' ? '>' : '"');
	free(name);
	return rc;
}

int jc_include_hash(struct jc_fp *fp, size_t n, char *const *directives, const char *options)
{
	return jc_include_collect(fp, n, directives, options, NULL, NULL);
}

int jc_include_collect(struct jc_fp *fp, size_t n, char *const *directives, const char *options,
		       jc_include_file_fn fn, void *ctx)
{
	struct includes inc = { .fp = fp, .file_fn = fn, .file_ctx = ctx };
	int rc = parse_include_dirs(options, &inc);
	if (rc == 0 && inc.other_paths) {
		jc_log(JC_LOG_DEBUG, "OpenCL build not cached: option %s makes the compiler read "
				     "files where jitcache does not look", inc.other_paths);
		rc = -1;
	}
	if (rc == 0 && options && strstr(options, "__has")) {
		jc_log(JC_LOG_DEBUG, "OpenCL build not cached: its options name __has_include "
				     "(or a part of it), which jitcache does not follow");
		rc = -1;
	}
	if (rc == 0 && inc.n_forced)
		jc_fp_u64(fp, "include.forced", inc.n_forced);
	for (size_t i = 0; rc == 0 && i < inc.n_forced; i++)
		rc = hash_include(&inc, '"', inc.forced[i], strlen(inc.forced[i]));
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = hash_include(&inc, directives[i][0], directives[i] + 1,
				  strlen(directives[i] + 1));
	if (rc == 0 && inc.absent.n)
		jc_fp_bytes(fp, "include.absent", inc.absent.s, inc.absent.n);
	rc = rc == 0 && inc.absent.failed ? -1 : rc;
	char how[2 * JC_PASTE_NAME_MAX + 1];
	if (rc == 0 && jc_paste_possible(&inc.paste, how, sizeof how)) {
		jc_log(JC_LOG_DEBUG, "OpenCL build not cached: its text pastes tokens (##) and "
				     "an #if reaches a paste that can make __has_include (%s)", how);
		rc = -1;
	}
	free_includes(&inc);
	return rc;
}
