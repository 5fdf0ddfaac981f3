// SPDX-License-Identifier: MIT
/*
 * cl_build.h — what the OpenCL paths that build share (cl.c: clBuildProgram;
 * cl_link.c: clCompileProgram and clLinkProgram): a cache entry's bytes
 * from a built program, a program from an entry's binaries, and the
 * record of an answer from the cache beside the application's handle.
 *
 *   jc_cl_export(program, n, devices, failed, &key, &bytes, &size);   // miss: store
 *   err = jc_cl_from_binaries(context, n, devices, &payload, options, &key, &program);
 *   if (err != CL_SUCCESS) jc_cl_say_rejected(hex, err);        // hit refused
 *   shadow = jc_cl_shadow_new(n, devices, program, &payload);   // NULL: no memory
 *
 * Everything here is called inside jitcache (jc_enter) with the loader's
 * table found.  Errors are the driver's, or those named below.
 */
#ifndef JITCACHE_CL_BUILD_H
#define JITCACHE_CL_BUILD_H

#include "shim/cl/cl_api.h"
#include "shim/cl/cl_payload.h"
#include "shim/cl/cl_program_map.h"

/* jc_cl_from_binaries(): the driver recompiled the binaries from their IR
 * (a binary for another GPU or driver): no hit. */
#define JC_CL_RECOMPILED 1

/* The program's binaries and build logs for every device as a payload (a
 * failure record when failed is nonzero): 0 and *bytes (malloc'd), or -1.
 * An executable stored under *watch (NULL: none) is watched for code its
 * driver compiles later (cl_pocl.h). */
int jc_cl_export(cl_program program, cl_uint ndev, const cl_device_id *devices, cl_int failed,
		 const struct jc_key *watch, void **bytes, size_t *size);

/* The application took the binaries of `program` (CL_PROGRAM_BINARIES):
 * with PoCL's cache off, a program stored or served as its directory
 * (cl_pocl.h) has its entry replaced by that binary, which PoCL made for
 * the application and keeps; nothing else is done. */
void jc_cl_binaries_taken(cl_program program);

/* clCreateProgramWithBinary + clBuildProgram with options, as the API
 * requires even for binaries.  CL_SUCCESS with *out set, the driver's
 * error, or JC_CL_RECOMPILED.  The program, an executable loaded from the
 * entry under *watch (NULL: none), is watched as jc_cl_export() does. */
cl_int jc_cl_from_binaries(cl_context context, cl_uint ndev, const cl_device_id *devices,
			   const struct jc_cl_payload *p, const char *options,
			   const struct jc_key *watch, cl_program *out);
/* One line on why a stored entry was not used (err CL_SUCCESS: the entry
 * is not a payload this version reads). */
void jc_cl_say_rejected(const char *hex, cl_int err);

/* A record of program (may be NULL) with the payload's logs, to be given
 * to the map (jc_clmap_set_shadow); NULL when out of memory. */
struct jc_cl_shadow *jc_cl_shadow_new(cl_uint ndev, const cl_device_id *devices,
				      cl_program program, const struct jc_cl_payload *p);

/* The program's context and devices (CL_PROGRAM_DEVICES order; *devices
 * malloc'd): 0, or -1. */
int jc_cl_program_devices(cl_program program, cl_context *context, cl_uint *ndev,
			  cl_device_id **devices);

/* Whether the devices a call names (n, list: as the application gave
 * them) are all `ndev` devices of the program, as a cached build must be. */
int jc_cl_covers(cl_uint n, const cl_device_id *list, cl_uint ndev, const cl_device_id *devices);

/* A deferred compile (cl_program_map.h) of `app`, carried out now by the
 * driver, or its pending build's program made now: its status (CL_SUCCESS
 * when none was deferred). */
cl_int jc_cl_carry_out(cl_program app);
/* The program of pending build d, taken out of the map for `app`, made
 * from its entry and given to the map as app's shadow; if the driver
 * refuses the entry, app is built by the driver from its own source, as
 * without jitcache.  d is freed.  The build's status. */
cl_int jc_cl_make_pending(cl_program app, struct jc_cl_shadow *d);

/* Whether the key of a build of `in` made now is still `key` (cl.c): made
 * again once the driver's compile is over, so that a file it covers that
 * changed while the compiler read it stores nothing (JC_BUILT_CHANGED). */
int jc_cl_key_still(const struct jc_cl_input *in, const char *options,
		    jc_cl_hash_devices_fn hash_devices, void *ctx, const struct jc_key *key);

/* Encode r, a recipe (key/recipe.h) with its request set, with the files
 * the includes of the n inputs reach under options and the device's
 * identity (NULL: none): 0 and *bytes (malloc'd), or -1. */
struct jc_recipe;
int jc_cl_recipe_encode(struct jc_recipe *r, size_t n, const struct jc_cl_input *const *inputs,
			const char *options, cl_device_id device, void **bytes, size_t *size);
#endif
