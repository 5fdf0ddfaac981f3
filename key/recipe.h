// SPDX-License-Identifier: MIT
/*
 * recipe.h — a request that missed, written down so that it can be made
 * again: `jitcache warm` replays it on another driver or another GPU, and
 * the shim computes the new key itself (README "First run warm").
 *
 * A recipe holds what the driver was given: for Level Zero the SPIR-V of
 * every input with its build flags and specialization constants; for
 * OpenCL the source text (or IL), the options, the specialization
 * constants and the path and contents of every file the source #includes.
 * After the request come the facts of the recording, which a replay does
 * not use: the key of the entry it was recorded for and the device.
 *
 *   struct jc_recipe r = { .api = JC_RECIPE_ZE, .ze_count = n, .ze = inputs, ... };
 *   void *bytes; size_t size;
 *   if (jc_recipe_encode(&r, &bytes, &size) == 0) { store(bytes, size); free(bytes); }
 *
 *   struct jc_recipe r;
 *   if (jc_recipe_decode(bytes, size, &r) == 0) { replay(&r); jc_recipe_free(&r); }
 *
 * jc_recipe_decode() checks every length against size and returns -1 on
 * anything malformed; the decoded recipe points into `bytes` (which must
 * outlive it) and into arrays it owns, freed by jc_recipe_free().  Values of
 * specialization constants are copied to aligned memory.  Nothing here
 * knows GPU API types; the shim and the replayer translate.
 */
#ifndef JITCACHE_KEY_RECIPE_H
#define JITCACHE_KEY_RECIPE_H

#include <stddef.h>
#include <stdint.h>

#include "cache/cache.h"
#include "key/cl_request.h"
#include "key/ze_request.h"

/* JC_RECIPE_CL: a clBuildProgram.  JC_RECIPE_CL_COMPILE: a clCompileProgram,
 * the CL request plus its embedded headers (each a name and the source of
 * the header program).  JC_RECIPE_CL_LINK: a clLinkProgram of programs
 * compiled so, its options and each input's own JC_RECIPE_CL_COMPILE
 * recipe, whole (decode each with jc_recipe_decode). */
enum jc_recipe_api { JC_RECIPE_ZE = 1, JC_RECIPE_CL = 2, JC_RECIPE_CL_COMPILE = 3,
		     JC_RECIPE_CL_LINK = 4 };

struct jc_recipe_device {
	uint32_t vendor, id, ip; /* ip: 0 when the driver did not say */
	char name[256];
};

/* An embedded header of a compile (input_headers, header_include_names). */
struct jc_recipe_header {
	const char *name;
	const void *text;
	size_t size;
};

/* An encoded recipe inside another (a link's inputs). */
struct jc_recipe_bytes {
	const void *data;
	size_t size;
};

/* An included file, by the path the compiler found it at. */
struct jc_recipe_file {
	const char *path;
	const void *data;
	size_t size;
};

struct jc_recipe {
	uint32_t api;
	/* JC_RECIPE_ZE: the inputs, each with its constants' sizes */
	uint32_t ze_count;
	const struct jc_ze_input *ze;
	const uint32_t *const *ze_spec_sizes; /* [input][constant]; encode only */
	/* JC_RECIPE_CL */
	const void *cl_text;       /* source text, or IL if cl_from_il */
	size_t cl_size;
	int cl_from_il;
	const char *cl_options;    /* NULL: none */
	size_t cl_n_specs;
	const struct jc_cl_spec *cl_specs;
	size_t cl_n_files;
	const struct jc_recipe_file *cl_files;
	/* JC_RECIPE_CL_COMPILE */
	size_t cl_n_headers;
	const struct jc_recipe_header *cl_headers;
	/* JC_RECIPE_CL_LINK */
	const char *link_options;  /* NULL: none */
	size_t link_n_inputs;
	const struct jc_recipe_bytes *link_inputs;
	/* the recording */
	struct jc_key entry;
	struct jc_recipe_device device;
	/* decode only: what jc_recipe_free() releases */
	void *owned;
};

int jc_recipe_encode(const struct jc_recipe *r, void **out, size_t *size);
int jc_recipe_decode(const void *bytes, size_t size, struct jc_recipe *r);
void jc_recipe_free(struct jc_recipe *r);

/* A hash of the request part alone: two recordings of the same request
 * (say, for two drivers) give the same value.  0 if bytes is no recipe. */
uint64_t jc_recipe_request_hash(const void *bytes, size_t size);

#endif
