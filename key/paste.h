// SPDX-License-Identifier: MIT
/*
 * paste.h — whether a build's preprocessing could paste (##) together a
 * name that makes the compiler look for a file: __has_include,
 * __has_include_next or __has_embed.
 *
 *   struct jc_paste p = { 0 };
 *   jc_paste_words(&p, text, n);          // every text: its ## and pieces
 *   jc_paste_define(&p, "NAME(a) BODY", n); // each #define line, from NAME on
 *   jc_paste_if(&p, expression, n);       // each #if and #elif expression
 *   if (jc_paste_possible(&p, how, sizeof how)) ...do not cache...
 *   jc_paste_free(&p);
 *
 * Such a name only looks for a file while an #if or #elif is evaluated
 * (elsewhere clang says it needs a directive before looking), and pasting
 * joins whole tokens, each spelled in some text.  So it is possible only
 * if all three hold: (1) the texts paste; (2) the name splits into
 * identifiers each spelled somewhere (the pieces; "_" and single letters
 * are common, so this rarely decides alone); (3) an #if or #elif reaches a
 * macro whose body pastes, through the macros its identifiers name, and
 * theirs in turn (every definition of a name counts), or names a
 * function-like macro no text defines (it may be the compiler's own) other
 * than the compiler's operators (defined, __has_feature and the like).
 * The compiler's own headers and predefined macros are not read: none of
 * their object-like macros pastes or expands to a piece.
 * jc_paste_each_piece() calls add(ctx, '_', piece, n) for each piece seen,
 * for records kept between creation and build.  Functions that allocate
 * return -1 when out of memory (the build is then not cached), else 0.
 */
#ifndef JITCACHE_KEY_PASTE_H
#define JITCACHE_KEY_PASTE_H

#include <stddef.h>

#define JC_PASTE_NAME_MAX 18 /* strlen("__has_include_next") */

struct jc_paste_def;

struct jc_paste {
	int pastes;                                  /* ## or %:%: seen */
	unsigned char pieces[(2 * JC_PASTE_NAME_MAX * JC_PASTE_NAME_MAX + 7) / 8];
	struct jc_paste_def *defs;                   /* #define lines, their bodies */
	size_t n_defs, cap_defs;
	char **ifs;                                  /* #if and #elif expressions */
	size_t n_ifs, cap_ifs;
};

void jc_paste_words(struct jc_paste *p, const char *text, size_t n);
void jc_paste_piece(struct jc_paste *p, const char *s, size_t n);
int jc_paste_define(struct jc_paste *p, const char *line, size_t n);
int jc_paste_if(struct jc_paste *p, const char *expr, size_t n);
int jc_paste_each_piece(const struct jc_paste *p,
			int (*add)(void *ctx, char kind, const char *name, size_t len), void *ctx);
int jc_paste_possible(struct jc_paste *p, char *how, size_t size);
void jc_paste_free(struct jc_paste *p);

#endif
