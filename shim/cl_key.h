/*
 * cl_key.h — what decides the output of one OpenCL build.
 *
 * When a program is created, its input is summarised: a digest of the exact
 * source text (the strings joined, each as long as `lengths` says, or up to
 * its NUL where `lengths` is NULL or 0) or of the IL bytes, and the
 * #include directives of the source.  At clBuildProgram, jc_cl_key() adds
 * the options, the included files (resolved against -I options and the
 * current directory, recursively, and hashed by content), each device's
 * identity, the driver and compiler libraries, the compiler environment and
 * any specialization constants.
 *
 *   struct jc_cl_input in;
 *   if (jc_cl_input_source(&in, count, strings, lengths) == 0) ...keep in...
 *   jc_cl_input_spec(&in, id, size, value);       // clSetProgramSpecializationConstant
 *   if (jc_cl_key(&in, ndev, devices, options, &key) == 0) ...cacheable...
 *   jc_cl_input_free(&in);
 *
 * The jc_cl_input_* functions return -1 only when out of memory (the
 * program is then not cached: a failed jc_cl_input_spec() marks the input
 * incomplete).  jc_cl_key() returns -1, after a debug-level
 * line saying why, when the build must not be cached: an #include that
 * cannot be found or read, or a device that does not answer its queries.
 */
#ifndef JITCACHE_CL_KEY_H
#define JITCACHE_CL_KEY_H

#include "cache/cache.h"
#include "shim/cl_api.h"

struct jc_cl_spec {
	cl_uint id;
	size_t size;
	unsigned char *value;
};

struct jc_cl_input {
	struct jc_key digest;     /* the source text or the IL bytes */
	int from_il;
	size_t n_includes;
	char **includes;          /* '"' or '<' then the name; '?' for a macro */
	size_t n_specs;
	struct jc_cl_spec *specs; /* sorted by id */
	int incomplete;           /* a value could not be recorded: never cache */
};

int jc_cl_input_source(struct jc_cl_input *in, cl_uint count, const char **strings,
		       const size_t *lengths);
int jc_cl_input_il(struct jc_cl_input *in, const void *il, size_t size);
int jc_cl_input_spec(struct jc_cl_input *in, cl_uint id, size_t size, const void *value);
void jc_cl_input_free(struct jc_cl_input *in);

/* Devices in the program's own order (CL_PROGRAM_DEVICES). */
int jc_cl_key(const struct jc_cl_input *in, cl_uint ndev, const cl_device_id *devices,
	      const char *options, struct jc_key *key);

#endif
