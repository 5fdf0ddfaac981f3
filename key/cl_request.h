// SPDX-License-Identifier: MIT
/*
 * cl_request.h — what an OpenCL program is made of, and the key of one of
 * its builds.
 *
 * A program is recorded when it is created: the digest of its source text
 * (with the #include directives in it) or of its IL, then any
 * specialization constants set on it.  A build's key adds the options, the
 * devices (hashed by the caller, which can ask the driver), the contents of
 * every included file (key/include.h), the compiler libraries' builds and
 * the compiler environment (key/compiler.h).
 *
 *   struct jc_cl_input in;
 *   if (jc_cl_input_source(&in, count, strings, lengths) == 0) ...keep in...
 *   jc_cl_input_spec(&in, id, size, value);       // clSetProgramSpecializationConstant
 *   if (jc_cl_key(&in, options, hash_devices, ctx, &key) == 0) ...cacheable...
 *   jc_cl_compile_key(&in, options, n, header_inputs, header_names, hash_devices, ctx, &key);
 *   jc_cl_link_key(options, n, compile_keys, hash_devices, ctx, &key);
 *   jc_cl_input_free(&in);
 *
 * The input keeps the program's text (or IL) in in->text for its recipe;
 * a caller that records no recipes frees it and sets it NULL.
 * The jc_cl_input_* functions return -1 only when out of memory (the
 * program is then not cached: a failed jc_cl_input_spec() marks the input
 * incomplete).  jc_cl_key() calls hash_devices(ctx, fp) to add the devices
 * to the key, and returns -1 when the build must not be cached: the input
 * is incomplete, hash_devices returned nonzero, or an #include cannot be
 * resolved (after a debug-level line saying why).  This file knows no
 * OpenCL types: counts and ids are plain integers of the same size.
 */
#ifndef JITCACHE_KEY_CL_REQUEST_H
#define JITCACHE_KEY_CL_REQUEST_H

#include <stddef.h>
#include <stdint.h>

#include "key/fingerprint.h"

struct jc_cl_spec {
	uint32_t id;
	size_t size;
	unsigned char *value;
};

struct jc_cl_input {
	struct jc_key digest;     /* the source text or the IL bytes */
	uint64_t semantic;        /* a hash of it without debug information
				   * (comments, white space; SPIR-V's debug
				   * instructions): for explain only, 0 = none */
	int from_il;
	size_t n_includes;
	char **includes;          /* the directives jc_include_scan() found, each
				   * its kind then its name (key/include.h) */
	size_t n_specs;
	struct jc_cl_spec *specs; /* sorted by id */
	int incomplete;           /* a value could not be recorded: never cache */
	void *text;               /* the source text or IL itself, for a recipe
				     (key/recipe.h); NULL once dropped */
	size_t text_size;
};

int jc_cl_input_source(struct jc_cl_input *in, uint32_t count, const char **strings,
		       const size_t *lengths);
int jc_cl_input_il(struct jc_cl_input *in, const void *il, size_t size);
int jc_cl_input_spec(struct jc_cl_input *in, uint32_t id, size_t size, const void *value);
/* Whether the source names a file the compiler may read: an #include (or
 * __has_include) of any form, or one jitcache does not follow.  The other
 * records (#define names, pieces, macros, #if expressions) read none. */
int jc_cl_input_names_files(const struct jc_cl_input *in);
void jc_cl_input_free(struct jc_cl_input *in);
/* A copy of in for a key computed again later (its text left out):
 * 0, or -1 when out of memory (out is then empty). */
int jc_cl_input_copy(struct jc_cl_input *out, const struct jc_cl_input *in);

typedef int (*jc_cl_hash_devices_fn)(void *ctx, struct jc_fp *fp);
int jc_cl_key(const struct jc_cl_input *in, const char *options,
	      jc_cl_hash_devices_fn hash_devices, void *ctx, struct jc_key *key);

/* Separate compile and link (clCompileProgram, clLinkProgram).  A
 * compile's key is a build's with another tag (a compiled object is not an
 * executable), plus its embedded headers: each one's name as the source
 * includes it, its text, and the files it includes.  A link's key is its
 * options, its inputs' compile keys in the order given, the devices and
 * the compiler.  Same return convention as jc_cl_key(); a header from IL,
 * or without a name, makes the compile uncacheable. */
int jc_cl_compile_key(const struct jc_cl_input *in, const char *options, size_t n_headers,
		      const struct jc_cl_input *const *headers, const char *const *names,
		      jc_cl_hash_devices_fn hash_devices, void *ctx, struct jc_key *key);
int jc_cl_link_key(const char *options, size_t n_inputs, const struct jc_key *inputs,
		   jc_cl_hash_devices_fn hash_devices, void *ctx, struct jc_key *key);

#endif
