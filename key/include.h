// SPDX-License-Identifier: MIT
/*
 * include.h — the files an OpenCL C program #includes: found in its text,
 * resolved as the compiler resolves them, and their contents hashed.
 *
 *   // when the program is created: the directives of its source
 *   jc_include_scan(text, size, add, ctx);   // add(ctx, kind, name, len) per #include
 *   // when it is built: every included file's contents, recursively
 *   if (jc_include_hash(fp, n, directives, options) != 0) ...not cacheable...
 *
 * jc_include_scan() calls add() for each #include line: kind is '"' or '<',
 * or '?' for an include through a macro (name "" then).  Directives inside
 * comments or disabled #if blocks are found too: that only ever makes a
 * build uncacheable, never wrong.  It stops at, and returns, the first
 * nonzero value add() returns; else 0.
 *
 * jc_include_hash() takes directives as recorded strings: the kind, then the
 * name ("\"util.h", "<lib/x.h", "?").  A file is looked for beside the file
 * that includes it (for "..." in included files), then in the -I
 * directories of `options` ("-I dir", "-Idir", quoted or not), then in the
 * current directory, then in /usr/local/include and /usr/include.  Every
 * file's path and contents go into fp, and the files it includes, each file
 * once (include guards make repeats common).  A file found nowhere goes
 * into fp by its name: the compiler's own header (<stddef.h>), or one in a
 * branch the compiler does not take, or a build that fails.
 * Returns 0, or -1 after one debug-level line saying why, when the build
 * must not be cached: an include through a macro, a file not found while
 * the compiler also searches paths jitcache does not (options -isystem,
 * -idirafter, -iquote...; CPATH and the like), a file found but not
 * readable, a path longer than PATH_MAX, more than JC_INCLUDE_MAX_FILES
 * files, nesting deeper than JC_INCLUDE_MAX_DEPTH, a file over
 * JC_INCLUDE_MAX_SIZE bytes, or no memory.  Nothing is ever truncated.
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
