// SPDX-License-Identifier: MIT
/* paste.c — whether pasting could make a name that reads a file (paste.h). */
#include "key/paste.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define M JC_PASTE_NAME_MAX

struct jc_paste_def {
	char *name;
	char *body; /* from the name on: parameters, then the replacement list */
	int pastes;
};

/* The names pieces are substrings of ("__has_include" is the first's prefix). */
static const char *const piece_names[] = { "__has_include_next", "__has_embed" };

static int ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* ---- the pieces ------------------------------------------------------------ */

/* One bit per distinct substring, where it first occurs; -1: not a piece. */
static int piece_bit(const char *s, size_t n)
{
	for (int t = 0; n && n <= M && t < 2; t++) {
		const char *name = piece_names[t];
		for (size_t i = 0; i + n <= strlen(name); i++)
			if (!memcmp(name + i, s, n))
				return (t * M + (int)i) * M + (int)n - 1;
	}
	return -1;
}

void jc_paste_piece(struct jc_paste *p, const char *s, size_t n)
{
	int b = piece_bit(s, n);
	if (b >= 0)
		p->pieces[b / 8] |= (unsigned char)(1u << (b % 8));
}

static int piece_seen(const struct jc_paste *p, const char *s, size_t n)
{
	int b = piece_bit(s, n);
	return b >= 0 && (p->pieces[b / 8] & (1u << (b % 8)));
}

int jc_paste_each_piece(const struct jc_paste *p,
			int (*add)(void *ctx, char kind, const char *name, size_t len), void *ctx)
{
	int rc = 0;
	for (int b = 0; rc == 0 && b < 2 * M * M; b++)
		if (p->pieces[b / 8] & (1u << (b % 8)))
			rc = add(ctx, '_', piece_names[b / (M * M)] + b / M % M, (size_t)(b % M) + 1);
	return rc;
}

/* A split of one of the names into two pieces or more, all seen, written
 * to how ("__ has _include"); 0: none. */
static int split(const struct jc_paste *p, char *how, size_t size)
{
	static const char *const names[] = { "__has_include", "__has_include_next", "__has_embed" };
	for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
		const char *name = names[k];
		size_t len = strlen(name);
		unsigned char from[M + 1] = { 1 }; /* the piece ending at j starts at from[j]-1 */
		for (size_t j = 1; j <= len; j++)
			for (size_t i = 0; i < j && !from[j]; i++)
				if (from[i] && j - i < len && piece_seen(p, name + i, j - i))
					from[j] = (unsigned char)(i + 1);
		if (!from[len])
			continue;
		char out[2 * M + 1];
		size_t at = sizeof out - 1;
		out[at] = 0;
		for (size_t j = len; j > 0; j = from[j] - 1u) {
			size_t i = from[j] - 1u;
			at -= j - i;
			memcpy(out + at, name + i, j - i);
			if (i > 0)
				out[--at] = ' ';
		}
		snprintf(how, size, "%s", out + at);
		return 1;
	}
	return 0;
}

/* ---- the identifiers of a text ------------------------------------------- */

/* The next identifier at or after *s (before end), skipping literals and
 * numbers: its start and length, and whether a '(' follows it; 0 at the end. */
static int next_ident(const char **s, const char *end, const char **id, size_t *n, int *call)
{
	const char *q = *s;
	while (q < end) {
		if (*q == '"' || *q == '\'') {
			char c = *q++;
			while (q < end && *q != c)
				q += *q == '\\' && q + 1 < end ? 2 : 1;
			q += q < end;
		} else if (isdigit((unsigned char)*q) ||
			   (*q == '.' && q + 1 < end && isdigit((unsigned char)q[1]))) {
			for (q++; q < end && (ident_char(*q) || *q == '.' ||
					      ((*q == '+' || *q == '-') && strchr("eEpP", q[-1])));)
				q++;
		} else if (ident_char(*q)) {
			const char *w = q;
			while (w < end && ident_char(*w))
				w++;
			*id = q;
			*n = (size_t)(w - q);
			while (w < end && isspace((unsigned char)*w))
				w++;
			*call = w < end && *w == '(';
			*s = w;
			return 1;
		} else {
			q++;
		}
	}
	*s = end;
	return 0;
}

static int pastes(const char *s, size_t n)
{
	for (size_t i = 0; i + 1 < n; i++)
		if ((s[i] == '#' && s[i + 1] == '#') || (i + 3 < n && !memcmp(s + i, "%:%:", 4)))
			return 1;
	return 0;
}

void jc_paste_words(struct jc_paste *p, const char *text, size_t n)
{
	const char *s = text, *end = text + n, *id;
	size_t len;
	int call;
	p->pastes |= pastes(text, n);
	while (next_ident(&s, end, &id, &len, &call))
		jc_paste_piece(p, id, len);
}

/* ---- the macros and the #if expressions ---------------------------------- */

int jc_paste_define(struct jc_paste *p, const char *line, size_t n)
{
	size_t k = 0;
	while (k < n && ident_char(line[k]))
		k++;
	if (p->n_defs == p->cap_defs) {
		size_t cap = p->cap_defs ? 2 * p->cap_defs : 64;
		struct jc_paste_def *grown = realloc(p->defs, cap * sizeof *grown);
		if (!grown)
			return -1;
		p->defs = grown;
		p->cap_defs = cap;
	}
	struct jc_paste_def *d = &p->defs[p->n_defs];
	d->name = strndup(line, k);
	d->body = strndup(line + k, n - k);
	d->pastes = pastes(line + k, n - k);
	if (!d->name || !d->body) {
		free(d->name);
		free(d->body);
		return -1;
	}
	p->n_defs++;
	return 0;
}

int jc_paste_if(struct jc_paste *p, const char *expr, size_t n)
{
	if (p->n_ifs == p->cap_ifs) {
		size_t cap = p->cap_ifs ? 2 * p->cap_ifs : 64;
		char **grown = realloc(p->ifs, cap * sizeof *grown);
		if (!grown)
			return -1;
		p->ifs = grown;
		p->cap_ifs = cap;
	}
	if (!(p->ifs[p->n_ifs] = strndup(expr, n)))
		return -1;
	p->n_ifs++;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct jc_paste_def *)a)->name, ((const struct jc_paste_def *)b)->name);
}

/* The compiler's own operators in an #if: not macros, they paste nothing. */
static int operator_word(const char *s, size_t n)
{
	static const char *const words[] = {
		"defined", "__has_feature", "__has_extension", "__has_builtin", "__has_attribute",
		"__has_c_attribute", "__has_cpp_attribute", "__has_declspec_attribute",
		"__is_identifier", "__has_warning", "__building_module", "__is_target_arch",
		"__is_target_vendor", "__is_target_os", "__is_target_environment",
	};
	for (size_t i = 0; i < sizeof words / sizeof *words; i++)
		if (strlen(words[i]) == n && !memcmp(words[i], s, n))
			return 1;
	return 0;
}

/* How a definition's name sorts against s (n bytes): as by_name() does. */
static int name_cmp(const char *name, const char *s, size_t n)
{
	int c = strncmp(name, s, n);
	return c ? c : name[n] != '\0';
}

/* Where the definitions of s (n bytes) start in the sorted table; *count of them. */
static size_t find_defs(const struct jc_paste *p, const char *s, size_t n, size_t *count)
{
	size_t lo = 0, hi = p->n_defs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (name_cmp(p->defs[mid].name, s, n) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t end = lo;
	while (end < p->n_defs && name_cmp(p->defs[end].name, s, n) == 0)
		end++;
	*count = end - lo;
	return lo;
}

/* Whether the identifiers of text reach a pasting macro (seen: the
 * definitions already followed); 1 yes, 0 no, -1 out of memory. */
static int reaches(const struct jc_paste *p, const char *text, unsigned char *seen, int depth)
{
	const char *s = text, *end = text + strlen(text), *id;
	size_t n;
	int call, after_defined = 0;
	while (next_ident(&s, end, &id, &n, &call)) {
		int operand = after_defined;
		after_defined = n == 7 && !memcmp(id, "defined", 7);
		if (operand || operator_word(id, n))
			continue;
		size_t count, first = find_defs(p, id, n, &count);
		if (!count && call)
			return 1; /* a function-like macro jitcache does not see */
		for (size_t i = first; i < first + count; i++) {
			if (seen[i])
				continue;
			seen[i] = 1;
			if (p->defs[i].pastes || depth > 200)
				return 1;
			int r = reaches(p, p->defs[i].body, seen, depth + 1);
			if (r)
				return r;
		}
	}
	return 0;
}

int jc_paste_possible(struct jc_paste *p, char *how, size_t size)
{
	if (!p->pastes || !split(p, how, size))
		return 0;
	qsort(p->defs, p->n_defs, sizeof *p->defs, by_name);
	unsigned char *seen = calloc(p->n_defs + 1, 1);
	if (!seen)
		return 1;
	int r = 0;
	for (size_t i = 0; !r && i < p->n_ifs; i++)
		r = reaches(p, p->ifs[i], seen, 0);
	free(seen);
	return r != 0;
}

void jc_paste_free(struct jc_paste *p)
{
	for (size_t i = 0; i < p->n_defs; i++) {
		free(p->defs[i].name);
		free(p->defs[i].body);
	}
	for (size_t i = 0; i < p->n_ifs; i++)
		free(p->ifs[i]);
	free(p->defs);
	free(p->ifs);
	memset(p, 0, sizeof *p);
}
