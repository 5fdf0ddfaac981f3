// SPDX-License-Identifier: MIT
/*
 * cl_program_map.h — what jitcache knows of each application program.
 *
 * The application's program handle is the one it keeps.  When a build is
 * answered from the cache, jitcache builds a second program from the stored
 * binaries, the "shadow", and records it here beside the application's
 * handle, which stays created-but-unbuilt in the driver.  The entry points
 * that take a program ask this map which handle to give the driver
 * (jc_clmap_target), and it answers what the shadow cannot: the original
 * build log and the application's reference count.
 *
 *   jc_clmap_add(app, &input);                 // clCreateProgramWith{Source,IL}
 *   struct jc_cl_program *p = jc_clmap_find(app);            // clBuildProgram
 *   jc_clmap_set_shadow(app, shadow);          // a build from the cache (NULL: none)
 *   kernel = clCreateKernel(jc_clmap_target(app), ...);
 *   program = jc_clmap_app_of(program);        // CL_KERNEL_PROGRAM answers
 *   jc_clmap_retain(app); jc_clmap_release(app);
 *   jc_clmap_kernels_made(app, kernels, n);    // clCreateKernel{,sInProgram}
 *   jc_clmap_kernel_retain(k); jc_clmap_kernel_release(k);
 *
 * Reference counts.  The map counts the application's own references
 * (create, retain, release).  Where a driver counts kernels in their
 * program's references (PoCL, Intel), kernels made from the shadow are in
 * the shadow's count, so the application's count answer is its references
 * plus the shadow's count less the map's one reference: what the driver
 * itself would answer (NVIDIA does not count kernels, and neither then does
 * this).  The kernels made through the application's handle are counted
 * too, each with the application's references to it: a driver's own count
 * cannot tell when the application is done with a kernel, since the driver
 * holds references of its own for a while (PoCL: until a finished
 * command's event is freed by its worker thread).  When the application's
 * last reference to its program goes, the record, the shadow and the
 * program are released, unless the application still holds kernels of its
 * shadow: then the record stays (the program remains a valid handle for
 * CL_KERNEL_PROGRAM) until the last of those is released.
 *
 * Ownership: records belong to the map.  A record found with jc_clmap_find()
 * stays valid while the application holds its program, as the program does.
 * The map owns each shadow given to it and releases its program.
 * All functions are thread-safe; none calls back into the application.
 */
#ifndef JITCACHE_CL_PROGRAM_MAP_H
#define JITCACHE_CL_PROGRAM_MAP_H

#include "shim/cl/cl_api.h"
#include "key/cl_request.h"

/* A build answered from the cache.  A failed build replayed from a failure
 * record has no program (the application's handle stays unbuilt, so kernels
 * and binaries are refused as the failed build's would be): `failed` is the
 * error clBuildProgram returned, and the map answers the build status
 * (CL_BUILD_ERROR), log and options. */
struct jc_cl_shadow {
	cl_program program; /* built from cached binaries; one reference is the map's */
	cl_uint ndev;
	cl_device_id *devices;
	char **logs;        /* each device's original build log, replayed */
	size_t *log_sizes;
	cl_int failed;      /* 0, or the failed build's error (program is NULL) */
	char *options;      /* a failed build's or a deferred compile's options,
			       as given ("" for NULL) */
	/* A compile answered from the cache (clCompileProgram) that reads no
	 * file (cl_link.c) is deferred: the
	 * driver compiles only when something needs its result (a link that
	 * misses, a query of the compiled object), with these; program is
	 * NULL.  Until then the map answers the build status, log, options
	 * and binary type. */
	int deferred;
	/* A build answered from an entry of one PoCL binary with PoCL's cache
	 * off is pending: its program is made from the entry only when
	 * something needs it (a kernel, a question of the build other than
	 * its binary; jc_cl_carry_out).  An application that takes the binary
	 * and makes its own program of it (tinygrad) is answered `given`, the
	 * entry's binary naming a directory of its own (cl_pocl.h), watched as
	 * the program's: PoCL loads the binary once, not twice.  The entry's
	 * payload (malloc'd) and what the program is made with are kept;
	 * program is NULL; the map answers the build status, log, options
	 * and binary type. */
	void *pending;
	size_t pending_size;
	cl_context context;
	struct jc_key key;
	unsigned char *given;
	size_t given_size;
	/* Each kernel's attributes as the driver answered on the miss
	 * (cl_payload.h version 3), when kernels_known. */
	int kernels_known;
	cl_uint nkernels;
	char **kernel_names;
	char **attributes;
	cl_uint nheaders;
	cl_program *headers; /* retained by the map */
	char **header_names;
};

struct jc_cl_program {
	cl_program app;
	struct jc_cl_input input;
	/* The rest is the map's, under its lock. */
	struct jc_cl_shadow *shadow;
	cl_uint app_refs;
	cl_uint kernels;    /* kernels made through the application's handle that it holds */
	int compiled;       /* compiled (clCompileProgram) under compile_key */
	struct jc_key compile_key;
	void *compile_recipe; /* that compile's recipe (key/recipe.h), or NULL */
	size_t compile_recipe_size;
	struct jc_cl_program *next_app, *next_shadow;
};

/* Record a program the application created; takes over `input` (freed on
 * failure too).  Returns -1 when out of memory: the program is then just
 * not cached. */
int jc_clmap_add(cl_program app, struct jc_cl_input *input);
struct jc_cl_program *jc_clmap_find(cl_program app);

/* The program the driver should see for `app`: its shadow, else itself. */
cl_program jc_clmap_target(cl_program app);
/* The application's handle for a shadow; any other program unchanged. */
cl_program jc_clmap_app_of(cl_program program);

/* Whether kernels are attached to the program (to its shadow, or to itself
 * after a real build): the driver then refuses a new build. */
int jc_clmap_has_kernels(cl_program app);

/* Whether the map holds no program at all (kernels need no counting then). */
int jc_clmap_empty(void);

/* `n` kernels (NULL entries skipped) were made through the application's
 * handle `app`; a clone of such a kernel is one of them too. */
void jc_clmap_kernels_made(cl_program app, const cl_kernel *kernels, cl_uint n);
void jc_clmap_kernel_cloned(cl_kernel source, cl_kernel clone);
/* clRetainKernel and clReleaseKernel, counting the application's
 * references to the kernels above; the last release of the last kernel of
 * a released program releases its record. */
cl_int jc_clmap_kernel_retain(cl_kernel kernel);
cl_int jc_clmap_kernel_release(cl_kernel kernel);

/* Give `app` a new shadow (NULL: none); the old one is released. */
void jc_clmap_set_shadow(cl_program app, struct jc_cl_shadow *shadow);
void jc_cl_shadow_free(struct jc_cl_shadow *shadow);

/* A program's compile key (NULL: it is not, or no longer, a keyed compiled
 * object), and the key of its last compile: 1 and *key, or 0. */
void jc_clmap_set_compiled(cl_program app, const struct jc_key *key);
int jc_clmap_compiled(cl_program app, struct jc_key *key);
/* The recipe of a keyed compile of `app` (malloc'd; the map takes it, and
 * drops it with the compile key), and a copy of it for a link's recipe:
 * 0 and *bytes (malloc'd), or -1 (none, or no memory). */
void jc_clmap_set_compile_recipe(cl_program app, void *bytes, size_t size);
int jc_clmap_compile_recipe(cl_program app, void **bytes, size_t *size);
/* Whether `app` has a deferred compile or a pending build; take it out of
 * the map (NULL: none), for the caller to carry out and free. */
int jc_clmap_deferred(cl_program app);
struct jc_cl_shadow *jc_clmap_take_deferred(cl_program app);

/* The answers the map gives for a program with a shadow: 1 and *err set
 * when answered, 0 when the driver should be asked. */
int jc_clmap_build_log(cl_program app, cl_device_id device, size_t value_size,
		       void *value, size_t *size_ret, cl_int *err);
int jc_clmap_ref_count(cl_program app, cl_uint *count);
/* CL_KERNEL_ATTRIBUTES of a kernel named `name` made through an
 * application's handle answered from the cache, as recorded on the miss
 * (a driver may lose them when it loads a binary); same convention. */
int jc_clmap_kernel_attributes(cl_kernel kernel, const char *name, size_t value_size,
			       void *value, size_t *size_ret, cl_int *err);
/* CL_PROGRAM_BINARY_SIZES and CL_PROGRAM_BINARIES of a pending build
 * (its `given` binary); same convention. */
int jc_clmap_pending_binaries(cl_program app, cl_program_info param, size_t value_size,
			      void *value, size_t *size_ret, cl_int *err);
/* A replayed failed build's, a deferred compile's or a pending build's
 * status and options (CL_PROGRAM_BUILD_STATUS, CL_PROGRAM_BUILD_OPTIONS;
 * the other two's CL_PROGRAM_BINARY_TYPE too); same convention.  Any other
 * question of those two needs the driver's compile, or the program made
 * from the entry, first (jc_cl_carry_out). */
int jc_clmap_failed_build_info(cl_program app, cl_device_id device,
			       cl_program_build_info param, size_t value_size, void *value,
			       size_t *size_ret, cl_int *err);

cl_int jc_clmap_retain(cl_program app);
cl_int jc_clmap_release(cl_program app);

#endif
