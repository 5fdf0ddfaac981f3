// SPDX-License-Identifier: MIT
/*
 * include.h — the files an OpenCL C program #includes: found in its text,
 * looked for wherever a driver may look, and what is there hashed.
 *
 *   // when the program is created: the directives of its source
 *   jc_include_scan(text, size, add, ctx);   // add(ctx, kind, name, len) per #include
 *   // when it is built: every included file's contents, recursively
 *   if (jc_include_hash(fp, n, directives, options) != 0) ...not cacheable...
 *
 * jc_include_scan() reads the text as the compiler's preprocessor does as
 * far as directives go: line ends "\n", "\r\n" or "\r"; backslash-newline
 * spliced (blanks between the two too); comments one blank (string and
 * character literals and header names kept whole); blanks include form
 * feed and vertical tab; `%:` is `#`.  It calls add() for each #include,
 * #include_next, #import and #__include_macros, and each
 * __has_include(...) / __has_include_next(...) anywhere: kind '"' or '<',
 * or '?' for an include through a macro (name: its tokens); 'd' for each
 * name #defined or #undef'd; '#' once if the text pastes tokens (##), '_'
 * once for each identifier that is a piece of __has_include's name (name:
 * the piece); '!'
 * (name: why) for what jitcache does not follow: #embed, __has_embed,
 * a __has_include whose operand is not a literal name, a #pragma or
 * _Pragma that may read a file, a trigraph.  Directives inside disabled
 * #if blocks are found too: that only ever keys more.  The name is valid
 * during the call only.  It stops at, and returns, the first nonzero value
 * add() returns; else 0.
 *
 * jc_include_hash() takes directives as recorded strings: the kind, then the
 * name ("\"util.h", "<lib/x.h", "?MACRO").  The options are split both as
 * a shell does (clang, Intel) and at white space alone with quotes kept
 * (PoCL), and the include paths of both are searched.  For every name,
 * quoted or angled alike, every place a driver may look is keyed, in any
 * order the drivers use: beside the including file (the program's own
 * source: the current directory), the current directory, each -I,
 * -isystem, -idirafter, -iquote directory and those of CPATH and the like,
 * /usr/local/include and /usr/include: each path with whether a file is
 * there and, if so, its contents and, recursively, the files it includes
 * (each file once: include guards make repeats common).  -include and
 * -imacros files are keyed the same way.
 * Returns 0, or -1 after one debug-level line saying why, when the build
 * must not be cached: a '!' directive; an include through a macro the
 * sources define, the options split two ways define differently, or that
 * jitcache cannot expand; __has_include named by the options' macros, or
 * pasted (##) from pieces the texts and options all spell (the compiler's
 * own headers and predefined macros are not read: none of their macros
 * expands to such a piece); an option that makes the compiler read files
 * elsewhere (-iprefix, --sysroot, -include-pch, modules...); a file found
 * but not readable; a path longer than PATH_MAX; more than
 * JC_INCLUDE_MAX_FILES files, nesting deeper than JC_INCLUDE_MAX_DEPTH, a
 * file over JC_INCLUDE_MAX_SIZE bytes; or no memory.  Nothing is ever
 * truncated.
 * jc_include_collect() walks the same files for a recipe (see below).
 * Paths and buffers are on the heap: the stack used does not grow with path
 * lengths (the host thread's stack may be small).
 */
#ifndef JITCACHE_KEY_INCLUDE_H
#define JITCACHE_KEY_INCLUDE_H

#include <stddef.h>

#include "key/fingerprint.h"

#define JC_INCLUDE_MAX_FILES 256
#define JC_INCLUDE_MAX_DEPTH 32
#define JC_INCLUDE_MAX_SIZE (64u << 20)

typedef int (*jc_include_fn)(void *ctx, char kind, const char *name, size_t len);

int jc_include_scan(const char *text, size_t size, jc_include_fn add, void *ctx);
int jc_include_hash(struct jc_fp *fp, size_t n, char *const *directives, const char *options);

/* The same walk (fp may be NULL), calling fn with every file's path as
 * resolved and its contents (valid during the call): for a recipe
 * (key/recipe.h).  A nonzero return from fn ends the walk with -1. */
typedef int (*jc_include_file_fn)(void *ctx, const char *path, const void *data, size_t size);
int jc_include_collect(struct jc_fp *fp, size_t n, char *const *directives, const char *options,
		       jc_include_file_fn fn, void *ctx);

#endif
