// SPDX-License-Identifier: MIT
/*
 * OpenCL programs: creation and builds, where the cache is asked.
 *
 * clCreateProgramWith{Source,IL} record what the program is made of
 * (key/cl_request.h).  clBuildProgram keys the build; on a hit it builds a shadow
 * program from the stored binaries and records it beside the application's
 * handle (cl_program_map.h); on a miss it builds the application's program
 * and stores the binaries of all its devices with their build logs
 * (cl_payload.h), also when the build completes later through pfn_notify.
 * Anything unusual (a subset of the devices, a rejected binary, no cache)
 * falls through to the driver, which then answers as it always would.
 */
#include "key/cl_request.h"
#include "config/clock.h"
#include "key/include.h"
#include "key/recipe.h"
#include "shim/cl/cl_api.h"
#include "shim/cl/cl_build.h"
#include "shim/cl/cl_device.h"
#include "shim/cl/cl_payload.h"
#include "shim/cl/cl_pocl.h"
#include "shim/cl/cl_program_map.h"
#include "shim/compile_once.h"
#include "shim/shim.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- program creation --------------------------------------------------- */

static void track(cl_program program, struct jc_cl_input *input, int ok)
{
	if (ok && !jc_runtime_config()->recipes) {
		free(input->text); /* kept for recipes only */
		input->text = NULL;
	}
	if (ok)
		jc_clmap_add(program, input);
}

JC_EXPORT cl_program clCreateProgramWithSource(cl_context context, cl_uint count,
					       const char **strings, const size_t *lengths,
					       cl_int *errcode_ret)
{
	const struct jc_cl_real *cl = jc_cl_entry();
	if (!cl) {
		if (errcode_ret)
			*errcode_ret = CL_INVALID_OPERATION;
		return NULL;
	}
	cl_program program = cl->real_clCreateProgramWithSource(context, count, strings, lengths,
							   errcode_ret);
	if (program && jc_enter()) {
		struct jc_cl_input in;
		if (jc_runtime_cache())
			track(program, &in, jc_cl_input_source(&in, count, strings, lengths) == 0);
		jc_leave();
	}
	return program;
}

/* The IL entry points share this: `create` is the driver's function. */
typedef cl_program(CL_API_CALL *create_il_fn)(cl_context, const void *, size_t, cl_int *);

static cl_program create_with_il(create_il_fn create, cl_context context, const void *il,
				 size_t length, cl_int *errcode_ret)
{
	if (!create) {
		if (errcode_ret)
			*errcode_ret = CL_INVALID_OPERATION;
		return NULL;
	}
	cl_program program = create(context, il, length, errcode_ret);
	if (program && jc_enter()) {
		struct jc_cl_input in;
		if (jc_runtime_cache())
			track(program, &in, jc_cl_input_il(&in, il, length) == 0);
		jc_leave();
	}
	return program;
}

JC_EXPORT cl_program clCreateProgramWithIL(cl_context context, const void *il, size_t length,
					   cl_int *errcode_ret)
{
	const struct jc_cl_real *cl = jc_cl_entry();
	return create_with_il(cl ? cl->real_clCreateProgramWithIL : NULL, context, il, length,
			      errcode_ret);
}

/* clCreateProgramWithILKHR is each driver's own, found per platform. */
static cl_platform_id platform_of(cl_context context)
{
	const struct jc_cl_real *cl = jc_cl_real();
	cl_device_id *devices = NULL;
	cl_platform_id platform = NULL;
	size_t size = 0;
	if (cl->real_clGetContextInfo(context, CL_CONTEXT_DEVICES, 0, NULL, &size) == CL_SUCCESS &&
	    size >= sizeof *devices && (devices = malloc(size)) &&
	    cl->real_clGetContextInfo(context, CL_CONTEXT_DEVICES, size, devices, NULL) == CL_SUCCESS)
		cl->real_clGetDeviceInfo(devices[0], CL_DEVICE_PLATFORM, sizeof platform, &platform,
				    NULL);
	free(devices);
	return platform;
}

static cl_program CL_API_CALL create_with_il_khr(cl_context context, const void *il,
						 size_t length, cl_int *errcode_ret)
{
	const struct jc_cl_real *cl = jc_cl_real();
	void *fn = cl ? cl->real_clGetExtensionFunctionAddressForPlatform(
				platform_of(context), "clCreateProgramWithILKHR")
		      : NULL;
	create_il_fn create;
	memcpy(&create, &fn, sizeof fn);
	return create_with_il(create, context, il, length, errcode_ret);
}

static void *extension(void *fn, const char *name)
{
	if (fn && name && strcmp(name, "clCreateProgramWithILKHR") == 0)
		return (void *)create_with_il_khr;
	return fn;
}

JC_EXPORT void *clGetExtensionFunctionAddressForPlatform(cl_platform_id platform,
							 const char *name)
{
	const struct jc_cl_real *cl = jc_cl_entry();
	return cl ? extension(cl->real_clGetExtensionFunctionAddressForPlatform(platform, name), name)
		  : NULL;
}

JC_EXPORT void *clGetExtensionFunctionAddress(const char *name)
{
	const struct jc_cl_real *cl = jc_cl_entry();
	return cl ? extension(cl->real_clGetExtensionFunctionAddress(name), name) : NULL;
}

/* ---- one build ------------------------------------------------------------ */

/* What a finished build stores: the program's binaries and build logs
 * (export_payload), how its log line names it (stored), and what it was
 * built from (recipe: from input, or already encoded for builds that end
 * later; neither: none). */
struct built {
	cl_program program;
	cl_uint ndev;
	const cl_device_id *devices;
	const char *hex;
	cl_int failed; /* the build failed with this error: store a failure record */
	const struct jc_cl_input *input;
	const char *options;
	struct jc_key key;
	const void *recipe;  /* encoded when the build began (jc_recipe_encode) */
	size_t recipe_size;
	char *pocl_dir;      /* PoCL's cache directory of the build: stored packed */
};

/* One clBuildProgram call.  `out` comes first, so that the miss path's
 * export and log callbacks see a build as the program it built. */
struct build {
	struct built out;
	cl_program app;
	struct jc_cl_program *rec;
	const char *options;
	cl_context context;
	cl_uint ndev;           /* all the program's devices, in its order */
	cl_device_id *devices;
	struct jc_once once;
	/* the application's request, as given */
	cl_uint req_ndev;
	const cl_device_id *req_devices;
	jc_cl_notify_fn notify;
	void *user_data;
	int notify_now;         /* answered from the cache: call notify on return */
	cl_int answer;          /* what a build answered from the cache returns */
};

/* The devices the build is for must be all the program's devices: a
 * multi-device program is cached whole or not at all. */
int jc_cl_covers(cl_uint n, const cl_device_id *list, cl_uint ndev, const cl_device_id *devices)
{
	if (n == 0)
		return list == NULL;
	if (!list || n != ndev)
		return 0;
	for (cl_uint i = 0; i < ndev; i++) {
		cl_uint j = 0;
		while (j < n && list[j] != devices[i])
			j++;
		if (j == n)
			return 0;
	}
	return 1;
}

int jc_cl_program_devices(cl_program program, cl_context *context, cl_uint *ndev,
			  cl_device_id **devices)
{
	const struct jc_cl_real *cl = jc_cl_real();
	size_t size = 0;
	*devices = NULL;
	if (cl->real_clGetProgramInfo(program, CL_PROGRAM_CONTEXT, sizeof *context, context, NULL) !=
		    CL_SUCCESS ||
	    cl->real_clGetProgramInfo(program, CL_PROGRAM_DEVICES, 0, NULL, &size) != CL_SUCCESS ||
	    size == 0 || !(*devices = malloc(size)) ||
	    cl->real_clGetProgramInfo(program, CL_PROGRAM_DEVICES, size, *devices, NULL) != CL_SUCCESS)
		return -1;
	*ndev = (cl_uint)(size / sizeof **devices);
	return 0;
}

static int hash_devices(void *ctx, struct jc_fp *fp)
{
	const struct build *b = ctx;
	return jc_cl_hash_devices(fp, b->ndev, b->devices);
}

/* Fill in the program's context, devices and the key: 0 if the build can
 * be cached. */
static int prepare(struct build *b)
{
	if ((!b->notify && b->user_data) ||
	    jc_cl_program_devices(b->app, &b->context, &b->ndev, &b->devices) != 0)
		return -1;
	b->out = (struct built){ .program = b->app, .ndev = b->ndev, .devices = b->devices,
				 .hex = b->once.hex, .input = &b->rec->input,
				 .options = b->options };
	if (!jc_cl_covers(b->req_ndev, b->req_devices, b->ndev, b->devices)) {
		jc_log(JC_LOG_DEBUG, "OpenCL build not cached: it is for a subset of the "
				     "program's devices");
		return -1;
	}
	return jc_cl_key(&b->rec->input, b->options, hash_devices, b, &b->once.key);
}

/* The files a build's key covers are hashed before the driver reads them:
 * one saved while the compiler ran (an editor, a build system) would give
 * an entry of the old files' key and the new files' code, served once the
 * old files are back.  So the key is made again once the compile is over,
 * the same way: the result is stored only if it is the same (ccache
 * refuses such a compile too).  A file changed and changed back during the
 * compile is not seen, as no hash can see it. */
int jc_cl_key_still(const struct jc_cl_input *in, const char *options,
		    jc_cl_hash_devices_fn hash, void *ctx, const struct jc_key *key)
{
	struct jc_key now;
	return jc_cl_key(in, options, hash, ctx, &now) == 0 &&
	       memcmp(&now, key, sizeof now) == 0;
}

/* ---- hit: a shadow program from the stored binaries --------------------- */

struct jc_cl_shadow *jc_cl_shadow_new(cl_uint ndev, const cl_device_id *devices,
				      cl_program program, const struct jc_cl_payload *p)
{
	struct jc_cl_shadow *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->program = program;
	s->ndev = ndev;
	s->devices = malloc(ndev * sizeof *s->devices);
	s->logs = calloc(ndev, sizeof *s->logs);
	s->log_sizes = calloc(ndev, sizeof *s->log_sizes);
	int ok = s->devices && s->logs && s->log_sizes;
	for (cl_uint i = 0; ok && i < ndev; i++) {
		s->devices[i] = devices[i];
		s->log_sizes[i] = p->log_sizes[i];
		ok = (s->logs[i] = malloc(p->log_sizes[i] + 1)) != NULL;
		if (ok)
			memcpy(s->logs[i], p->logs[i], p->log_sizes[i]);
	}
	if (ok && p->kernels_known && p->nkernels) {
		s->nkernels = p->nkernels;
		ok = (s->kernel_names = calloc(p->nkernels, sizeof *s->kernel_names)) &&
		     (s->attributes = calloc(p->nkernels, sizeof *s->attributes));
		for (cl_uint i = 0; ok && i < p->nkernels; i++)
			ok = (s->kernel_names[i] = strdup(p->kernel_names[i])) &&
			     (s->attributes[i] = strdup(p->attributes[i]));
	}
	s->kernels_known = p->kernels_known;
	if (!ok) {
		s->program = NULL; /* the caller still owns it */
		jc_cl_shadow_free(s);
		return NULL;
	}
	return s;
}

static char *build_log(cl_program program, cl_device_id device, size_t *size);

/* Did the driver rebuild the program from its IR on some device? (compile_once.h) */
static int recompiled_from_ir(cl_uint ndev, const cl_device_id *devices, cl_program program)
{
	int found = 0;
	for (cl_uint i = 0; i < ndev && !found; i++) {
		size_t size;
		char *log = build_log(program, devices[i], &size);
		found = jc_recompiled_from_ir(log, log ? size : 0);
		free(log);
	}
	return found;
}

cl_int jc_cl_from_binaries(cl_context context, cl_uint ndev, const cl_device_id *devices,
			   const struct jc_cl_payload *p, const char *given,
			   const struct jc_key *watch, cl_program *out)
{
	const struct jc_cl_real *cl = jc_cl_real();
	cl_int err = CL_SUCCESS;
	int failed;
	char *options = jc_keep_recompiled_warning(given, &failed);
	cl_int *status = calloc(ndev, sizeof *status);
	const unsigned char **binaries = calloc(ndev, sizeof *binaries);
	unsigned char **copies = calloc(ndev, sizeof *copies);
	if (!status || !binaries || !copies || failed) {
		free(status);
		free(binaries);
		free(copies);
		free(options);
		return CL_OUT_OF_HOST_MEMORY;
	}
	for (cl_uint i = 0; i < ndev; i++) {
		copies[i] = jc_pocl_own_dir(p->binaries[i], p->binary_sizes[i]);
		binaries[i] = copies[i] ? copies[i] : p->binaries[i];
	}
	cl_program program = cl->real_clCreateProgramWithBinary(context, ndev, devices,
							   p->binary_sizes, binaries, status,
							   &err);
	if (program)
		err = cl->real_clBuildProgram(program, ndev, devices, options ? options : given, NULL,
					 NULL);
	free(options);
	if (err == CL_SUCCESS && recompiled_from_ir(ndev, devices, program))
		err = JC_CL_RECOMPILED;
	/* the binaries as given: a private directory's name */
	if (err == CL_SUCCESS && watch) {
		jc_pocl_watch(program, watch, ndev, binaries, p->binary_sizes);
		jc_pocl_watch_times(program, p);
	}
	for (cl_uint i = 0; i < ndev; i++)
		free(copies[i]);
	free(copies);
	free(binaries);
	free(status);
	if (err != CL_SUCCESS && program)
		cl->real_clReleaseProgram(program);
	else
		*out = program;
	return err;
}

/* A shadow program from the stored binaries: CL_SUCCESS with *out set, or
 * as jc_cl_from_binaries(). */
static cl_int build_shadow(const struct build *b, const struct jc_cl_payload *p,
			   struct jc_cl_shadow **out)
{
	cl_program program = NULL;
	cl_int err = jc_cl_from_binaries(b->context, b->ndev, b->devices, p, b->options,
					 &b->once.key, &program);
	if (err == CL_SUCCESS && !(*out = jc_cl_shadow_new(b->ndev, b->devices, program, p))) {
		jc_cl_real()->real_clReleaseProgram(program);
		err = CL_OUT_OF_HOST_MEMORY;
	}
	return err;
}

static const char *cl_error_name(cl_int err)
{
	switch (err) {
	case CL_INVALID_BINARY: return "CL_INVALID_BINARY";
	case CL_BUILD_PROGRAM_FAILURE: return "CL_BUILD_PROGRAM_FAILURE";
	case CL_INVALID_VALUE: return "CL_INVALID_VALUE";
	case CL_OUT_OF_HOST_MEMORY: return "CL_OUT_OF_HOST_MEMORY";
	case CL_OUT_OF_RESOURCES: return "CL_OUT_OF_RESOURCES";
	default: return "an error";
	}
}

/* Why a stored entry cannot be used: the driver refused it, or it is not a
 * payload this version reads.  Either way it is dropped and replaced. */
void jc_cl_say_rejected(const char *hex, cl_int err)
{
	if (err == CL_SUCCESS) {
		JC_LOG_ONCE(JC_LOG_WARN, "an OpenCL cache entry is not in a format this "
					 "jitcache reads; entry dropped, compiling from source");
		return;
	}
	if (err == JC_CL_RECOMPILED) {
		jc_log(JC_LOG_WARN, "the OpenCL driver recompiled cached binary %s from its IR "
		       "(a binary for another GPU or driver); entry dropped, compiling from "
		       "source", hex);
		return;
	}
	JC_LOG_ONCE(JC_LOG_WARN, "the OpenCL driver rejected a cached binary (%s); entry "
				 "dropped, compiling from source", cl_error_name(err));
	jc_log(JC_LOG_DEBUG, "OpenCL entry %s rejected by the driver (%d); dropped", hex,
	       (int)err);
}

/* A failure record: the build failed with p->status the first time, and
 * fails the same way now, without compiling.  A build with pfn_notify is
 * compiled instead (drivers differ in what such a call returns). */
static enum jc_load load_failure(struct build *b, struct jc_cl_payload *p)
{
	struct jc_cl_shadow *failure = b->notify ? NULL : jc_cl_shadow_new(b->ndev, b->devices,
									     NULL, p);
	if (failure) {
		failure->failed = p->status;
		failure->options = strdup(b->options ? b->options : "");
	}
	jc_cl_payload_free(p);
	if (!failure || !failure->options) {
		jc_cl_shadow_free(failure);
		return JC_LOAD_FAILED;
	}
	jc_clmap_set_shadow(b->app, failure);
	b->answer = failure->failed;
	jc_cache_count_failure_hit(b->once.cache);
	jc_log(JC_LOG_DEBUG, "OpenCL build %s: hit, a failed build (%d) replayed", b->once.hex,
	       (int)b->answer);
	return JC_LOADED;
}

/* A PoCL build is to begin on this thread: 0 where PoCL's own access()
 * and rename() of the build's program.bc will name its directory (the
 * hooks, cl_pocl.h), else the time it starts as file times go, after a
 * wait of a few milliseconds for the clock's tick (its directory is then
 * the one PoCL touched since). */
static int64_t pocl_build_starts(void)
{
	if (!jc_pocl_hook())
		return jc_pocl_build_starts();
	jc_pocl_named_starts();
	return 0;
}

/* The application's program built by PoCL with the pack put in the
 * directory PoCL makes for the build (cl_pocl.h): a hit if it was put
 * there (or, PoCL's cache on, PoCL had it already) and the build
 * succeeded, else refused, and the build is made again as a miss. */
static enum jc_load load_pack_in_build(struct build *b, struct jc_cl_payload *p)
{
	jc_clmap_set_shadow(b->app, NULL); /* the driver answers: its own build */
	jc_pocl_hook(); /* the pack is put in when PoCL's access() comes */
	jc_pocl_fill_begin(p->binaries[0], p->binary_sizes[0]);
	cl_int err = jc_cl_real()->real_clBuildProgram(b->app, b->req_ndev, b->req_devices,
						  b->options, NULL, NULL);
	char *name = jc_pocl_fill_end();
	int loaded = err == CL_SUCCESS && name;
	if (loaded)
		jc_pocl_served_dir(name);
	void *renamed = NULL;
	size_t size = 0;
	/* watched as a pack naming the directory it is in now */
	if (loaded && jc_pocl_pack_renamed(p->binaries[0], p->binary_sizes[0], name, &renamed,
					   &size) == 0) {
		const unsigned char *bins[1] = { renamed };
		jc_pocl_watch(b->app, &b->once.key, 1, bins, &size);
		jc_pocl_watch_times(b->app, p);
	}
	jc_log(JC_LOG_DEBUG, "OpenCL build %s: %s", b->once.hex,
	       loaded ? "hit, PoCL's directory put in the one it made for the build"
		      : "PoCL did not look for the stored directory; compiling");
	free(renamed);
	free(name);
	jc_cl_payload_free(p);
	b->answer = err;
	return loaded ? JC_LOADED : JC_LOAD_REJECTED;
}

/* PoCL's cache directory from the entry, put back, and the application's
 * program built by PoCL from it (cl_pocl.h): a hit if PoCL loaded that
 * directory (touched it), else refused, and the build is made again as a
 * miss.  PoCL's cache off, or a pack of a temporary directory (made with
 * it off): load_pack_in_build(). */
static enum jc_load load_pack(struct build *b, struct jc_cl_payload *p)
{
	char *dir = jc_pocl_cache_on() ? jc_pocl_unpack(p->binaries[0], p->binary_sizes[0]) : NULL;
	if (!dir)
		return load_pack_in_build(b, p);
	int64_t t0 = pocl_build_starts();
	jc_clmap_set_shadow(b->app, NULL); /* the driver answers: its own build */
	cl_int err = jc_cl_real()->real_clBuildProgram(b->app, b->req_ndev, b->req_devices,
						  b->options, NULL, NULL);
	int loaded = err == CL_SUCCESS &&
		     (t0 ? jc_pocl_touched_ns(dir) >= t0 : jc_pocl_named_found(dir));
	if (loaded)
		jc_pocl_watch(b->app, &b->once.key, 1, (const unsigned char *const *)p->binaries,
			      p->binary_sizes);
	jc_log(JC_LOG_DEBUG, "OpenCL build %s: %s", b->once.hex,
	       loaded ? "hit, PoCL's cache directory put back"
		      : "PoCL did not load the stored directory; compiling");
	free(dir);
	jc_cl_payload_free(p);
	b->answer = err;
	return loaded ? JC_LOADED : JC_LOAD_REJECTED;
}

/* An entry of one PoCL binary, PoCL's cache off: the build is pending
 * (cl_program_map.h), its program made when something needs it. */
static int pending_fits(const struct jc_cl_payload *p)
{
	struct jc_pocl_binary parsed;
	return p->ndev == 1 && !p->status && !jc_pocl_cache_on() &&
	       jc_pocl_parse(p->binaries[0], p->binary_sizes[0], &parsed) == 0;
}

static enum jc_load load_pending(struct build *b, const struct jc_entry *e,
				 struct jc_cl_payload *p)
{
	struct jc_cl_shadow *s = jc_cl_shadow_new(b->ndev, b->devices, NULL, p);
	if (s) {
		s->context = b->context;
		s->key = b->once.key;
		s->options = strdup(b->options ? b->options : "");
		s->pending = malloc(e->size);
		s->given = jc_pocl_own_dir(p->binaries[0], p->binary_sizes[0]);
		if (!s->given && (s->given = malloc(p->binary_sizes[0])))
			memcpy(s->given, p->binaries[0], p->binary_sizes[0]);
		s->given_size = p->binary_sizes[0];
	}
	if (!s || !s->options || !s->pending || !s->given) {
		jc_cl_shadow_free(s);
		jc_cl_payload_free(p);
		return JC_LOAD_FAILED;
	}
	memcpy(s->pending, e->data, e->size);
	s->pending_size = e->size;
	jc_pocl_watch_given(b->app, &b->once.key, s->given, s->given_size);
	jc_pocl_watch_times(b->app, p);
	jc_cl_payload_free(p);
	jc_clmap_set_shadow(b->app, s);
	jc_log(JC_LOG_DEBUG, "OpenCL build %s: hit, its program made when needed", b->once.hex);
	return JC_LOADED;
}

cl_int jc_cl_make_pending(cl_program app, struct jc_cl_shadow *d)
{
	struct jc_cl_payload p;
	cl_program program = NULL;
	struct jc_cl_shadow *shadow = NULL;
	cl_int err = CL_OUT_OF_HOST_MEMORY;
	if (jc_cl_payload_decode(d->pending, d->pending_size, &p) == 0) {
		err = jc_cl_from_binaries(d->context, d->ndev, d->devices, &p, d->options, &d->key,
					  &program);
		if (err == CL_SUCCESS && !(shadow = jc_cl_shadow_new(d->ndev, d->devices, program,
								    &p))) {
			jc_cl_real()->real_clReleaseProgram(program);
			err = CL_OUT_OF_HOST_MEMORY;
		}
		jc_cl_payload_free(&p);
	}
	if (shadow) {
		jc_clmap_set_shadow(app, shadow);
	} else { /* the driver's own build, as without jitcache */
		char hex[2 * JC_KEY_BYTES + 1];
		jc_key_hex(&d->key, hex);
		jc_cl_say_rejected(hex, err);
		err = jc_cl_real()->real_clBuildProgram(app, d->ndev, d->devices, d->options, NULL,
						   NULL);
	}
	jc_log(JC_LOG_DEBUG, "OpenCL build answered from the cache: its program made now (%d)",
	       (int)err);
	jc_cl_shadow_free(d);
	return err;
}

/* A shadow program from the entry.  Running out of memory or resources says
 * nothing about the entry, which stays; anything else rejects it. */
static enum jc_load load_shadow(void *call, const struct jc_entry *e)
{
	struct build *b = call;
	struct jc_cl_payload p;
	struct jc_cl_shadow *shadow = NULL;
	int readable = jc_cl_payload_decode(e->data, e->size, &p) == 0 && p.ndev == b->ndev;
	if (readable && p.status)
		return load_failure(b, &p);
	if (readable && p.ndev == 1 && jc_pocl_is_pack(p.binaries[0], p.binary_sizes[0]))
		return load_pack(b, &p);
	if (readable && pending_fits(&p))
		return load_pending(b, e, &p);
	cl_int err = readable ? build_shadow(b, &p, &shadow) : CL_SUCCESS;
	jc_cl_payload_free(&p);
	if (!shadow) {
		if (err == CL_OUT_OF_HOST_MEMORY || err == CL_OUT_OF_RESOURCES)
			return JC_LOAD_FAILED;
		jc_cl_say_rejected(b->once.hex, err);
		return JC_LOAD_REJECTED;
	}
	jc_clmap_set_shadow(b->app, shadow);
	jc_log(JC_LOG_DEBUG, "OpenCL build %s: hit", b->once.hex);
	return JC_LOADED;
}

/* ---- miss: store what the driver built -------------------------------------- */

static char *build_log(cl_program program, cl_device_id device, size_t *size)
{
	const struct jc_cl_real *cl = jc_cl_real();
	char *log = NULL;
	*size = 0;
	if (cl->real_clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, NULL, size) ==
		    CL_SUCCESS &&
	    (log = malloc(*size + 1)) &&
	    cl->real_clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, *size, log, NULL) ==
		    CL_SUCCESS)
		return log;
	free(log);
	return NULL;
}

static int built_on(cl_program program, cl_device_id device)
{
	cl_build_status status = CL_BUILD_ERROR;
	jc_cl_real()->real_clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_STATUS,
					    sizeof status, &status, NULL);
	return status == CL_BUILD_SUCCESS;
}

static int failed_on(cl_program program, cl_device_id device)
{
	cl_build_status status = CL_BUILD_SUCCESS;
	jc_cl_real()->real_clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_STATUS,
					    sizeof status, &status, NULL);
	return status == CL_BUILD_ERROR;
}

/* Whether a failed build's log reports a compile error: a diagnostic of
 * the compiler ("error: ", as Clang, PoCL and Intel's compilers write
 * them), a fact about what the key covers.  A build that failed for a
 * reason outside it (PoCL's cache directory full or unwritable: "Device
 * ... failed to build the program" alone; out of memory; an empty log)
 * may build the next time, and is never remembered. */
static int compile_error_log(const char *log, size_t size)
{
	return log && memmem(log, size, "error: ", 7) != NULL;
}

/* A failed build's logs, into `owned` (one per device); -1 unless every
 * device's build failed with a compile error. */
static int collect_logs(cl_program program, cl_uint ndev, const cl_device_id *devices,
			struct jc_cl_payload *p, void **owned)
{
	for (cl_uint i = 0; i < ndev; i++) {
		if (!failed_on(program, devices[i]) ||
		    !(owned[i] = build_log(program, devices[i], &p->log_sizes[i])) ||
		    !compile_error_log(owned[i], p->log_sizes[i])) {
			jc_log(JC_LOG_DEBUG, "OpenCL build failed, not remembered: not a compile "
					     "error on every device (its log names none)");
			return -1;
		}
		p->logs[i] = owned[i];
		p->binary_sizes[i] = 0;
	}
	return 0;
}

/* Binaries and logs of every device, into buffers listed in `owned` (2 per
 * device) for the caller to free; -1 if any is missing. */
static int collect(cl_program program, cl_uint ndev, const cl_device_id *devices,
		   struct jc_cl_payload *p, void **owned)
{
	if (p->status) /* a failure record: every device failed, logs only */
		return collect_logs(program, ndev, devices, p, owned + ndev);
	const struct jc_cl_real *cl = jc_cl_real();
	cl_uint n = 0;
	if (cl->real_clGetProgramInfo(program, CL_PROGRAM_NUM_DEVICES, sizeof n, &n, NULL) !=
		    CL_SUCCESS || n != ndev ||
	    cl->real_clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, ndev * sizeof(size_t),
				 p->binary_sizes, NULL) != CL_SUCCESS)
		return -1;
	unsigned char **binaries = (unsigned char **)owned;
	for (cl_uint i = 0; i < ndev; i++) {
		char *log;
		if (!p->binary_sizes[i] || !built_on(program, devices[i]) ||
		    !(binaries[i] = malloc(p->binary_sizes[i])) ||
		    !(log = owned[ndev + i] = build_log(program, devices[i], &p->log_sizes[i])))
			return -1;
		p->binaries[i] = binaries[i];
		p->logs[i] = log;
	}
	return cl->real_clGetProgramInfo(program, CL_PROGRAM_BINARIES, ndev * sizeof *binaries,
				    binaries, NULL) == CL_SUCCESS ? 0 : -1;
}

/* A kernel's string answer, NUL-terminated, malloc'd; NULL if none. */
static char *kernel_string(cl_kernel kernel, cl_kernel_info param, size_t *size)
{
	const struct jc_cl_real *cl = jc_cl_real();
	size_t n = 0;
	char *s = NULL;
	if (cl->real_clGetKernelInfo(kernel, param, 0, NULL, &n) != CL_SUCCESS ||
	    !(s = calloc(1, n + 1)) ||
	    (n && cl->real_clGetKernelInfo(kernel, param, n, s, NULL) != CL_SUCCESS)) {
		free(s);
		return NULL;
	}
	*size = strlen(s) + 1;
	return s;
}

/* Each kernel's CL_KERNEL_ATTRIBUTES as the driver answers them after the
 * build (PoCL loses them when it loads a binary): into p, with the strings
 * in *owned (2 per kernel, for the caller to free).  p->kernels_known stays
 * 0 when the program has no kernels to ask (a compiled object). */
static void collect_attributes(cl_program program, struct jc_cl_payload *p, char ***owned)
{
	const struct jc_cl_real *cl = jc_cl_real();
	cl_uint n = 0;
	if (cl->real_clCreateKernelsInProgram(program, 0, NULL, &n) != CL_SUCCESS ||
	    n > JC_CL_PAYLOAD_MAX_KERNELS)
		return;
	cl_kernel *k = calloc(n + 1, sizeof *k);
	char **strings = *owned = calloc(2 * (size_t)n + 1, sizeof *strings);
	p->kernel_names = calloc(n + 1, sizeof *p->kernel_names);
	p->name_sizes = calloc(n + 1, sizeof *p->name_sizes);
	p->attributes = calloc(n + 1, sizeof *p->attributes);
	p->attribute_sizes = calloc(n + 1, sizeof *p->attribute_sizes);
	int ok = k && strings && p->kernel_names && p->name_sizes && p->attributes &&
		 p->attribute_sizes &&
		 (n == 0 || cl->real_clCreateKernelsInProgram(program, n, k, NULL) == CL_SUCCESS);
	for (cl_uint i = 0; ok && i < n; i++) {
		strings[2 * i] = kernel_string(k[i], CL_KERNEL_FUNCTION_NAME, &p->name_sizes[i]);
		strings[2 * i + 1] = kernel_string(k[i], CL_KERNEL_ATTRIBUTES,
						   &p->attribute_sizes[i]);
		p->kernel_names[i] = strings[2 * i];
		p->attributes[i] = strings[2 * i + 1];
		ok = strings[2 * i] && strings[2 * i + 1];
	}
	for (cl_uint i = 0; k && i < n; i++)
		if (k[i])
			cl->real_clReleaseKernel(k[i]);
	free(k);
	p->nkernels = n;
	p->kernels_known = ok;
}

/* Whether device is PoCL's (its platform's name). */
static int on_pocl(cl_device_id device)
{
	const struct jc_cl_real *cl = jc_cl_real();
	cl_platform_id platform;
	char name[64] = "";
	return cl->real_clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform, &platform,
				       NULL) == CL_SUCCESS &&
	       cl->real_clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof name - 1, name,
					 NULL) == CL_SUCCESS &&
	       strstr(name, "Portable Computing Language") != NULL;
}

int jc_cl_export(cl_program program, cl_uint ndev, const cl_device_id *devices, cl_int failed,
		 const struct jc_key *watch, void **bytes, size_t *size)
{
	struct jc_cl_payload p = { .status = failed, .ndev = ndev };
	p.binaries = calloc(ndev, sizeof *p.binaries);
	p.binary_sizes = calloc(ndev, sizeof *p.binary_sizes);
	p.logs = calloc(ndev, sizeof *p.logs);
	p.log_sizes = calloc(ndev, sizeof *p.log_sizes);
	void **owned = calloc(2 * (size_t)ndev, sizeof *owned);
	char **strings = NULL;
	/* PoCL's work-group compiles as its binary is taken, timed */
	int timing = watch && !failed && ndev == 1 && on_pocl(devices[0]);
	if (timing)
		jc_pocl_time_begin();
	int rc = p.binaries && p.binary_sizes && p.logs && p.log_sizes && owned &&
		 collect(program, ndev, devices, &p, owned) == 0 ? 0 : -1;
	char *timed = timing ? jc_pocl_time_end(program) : NULL, *times = NULL;
	if (rc == 0 && !failed)
		collect_attributes(program, &p, &strings);
	cl_uint nstrings = strings ? p.nkernels : 0; /* before the times' record */
	if (rc == 0 && !failed && timed && !jc_pocl_cache_on())
		jc_pocl_add_times(&p, timed, &times);
	if (rc == 0 && !failed && watch)
		jc_pocl_watch(program, watch, ndev, p.binaries, p.binary_sizes);
	if (rc == 0)
		rc = jc_cl_payload_encode(&p, bytes, size);
	free(timed);
	free(times);
	for (size_t i = 0; owned && i < 2 * (size_t)ndev; i++)
		free(owned[i]);
	free(owned);
	for (size_t i = 0; strings && i < 2 * (size_t)nstrings; i++)
		free(strings[i]);
	free(strings);
	jc_cl_payload_free(&p);
	return rc;
}

void jc_cl_binaries_taken(cl_program program)
{
	struct jc_cache *cache = jc_runtime_cache();
	struct jc_key key;
	cl_context context;
	cl_uint ndev = 0;
	cl_device_id *devices = NULL;
	void *bytes = NULL;
	size_t size = 0;
	struct jc_entry e;
	if (!cache || jc_pocl_cache_on() || !jc_pocl_packed(program, &key) ||
	    jc_cl_program_devices(program, &context, &ndev, &devices) != 0)
		return;
	/* PoCL keeps the binary it made: taken again, nothing is compiled.
	 * Watched from now on as that binary (the pack's watch refreshed
	 * first: what PoCL compiled for it joins the entry's times); the
	 * generic functions it compiled for the application's take are
	 * credited when found, as those it compiled for jitcache's were
	 * (jc_pocl_time_end() hands their times to the export). */
	if (ndev == 1 && jc_cl_export(program, 1, devices, 0, &key, &bytes, &size) == 0 &&
	    jc_cache_peek(cache, &key, &e) == 0) {
		char hex[2 * JC_KEY_BYTES + 1];
		jc_key_hex(&key, hex);
		if (jc_cache_replace(cache, &key, bytes, size,
				     jc_compile_word(e.compile_ns, e.wall_ns)) == 0)
			jc_log(JC_LOG_DEBUG, "OpenCL entry %s: the binary the application took "
			       "replaces PoCL's directory (%zu bytes)", hex, size);
		jc_entry_free(&e);
	}
	free(bytes);
	free(devices);
}

/* A PoCL build whose cache directory was found: that directory packed, and
 * the build log (cl_pocl.h).  No kernel attributes: a hit is PoCL's own
 * build of the application's program, which answers them itself. */
static int export_pack(const struct built *w, void **bytes, size_t *size)
{
	void *pack = NULL;
	size_t pack_size = 0, log_size = 0;
	char *log = build_log(w->program, w->devices[0], &log_size);
	int rc = -1;
	if (log && jc_pocl_pack(w->pocl_dir, &pack, &pack_size) == 0) {
		const unsigned char *bins[1] = { pack };
		const char *logs[1] = { log };
		/* no kernels but room for the work-group functions' times */
		struct jc_cl_payload p = { .ndev = 1, .binaries = bins, .binary_sizes = &pack_size,
					   .logs = logs, .log_sizes = &log_size,
					   .kernels_known = 1 };
		rc = jc_cl_payload_encode(&p, bytes, size);
		if (rc == 0)
			jc_pocl_watch(w->program, &w->key, 1, bins, &pack_size);
	}
	free(pack);
	free(log);
	return rc;
}

static int export_payload(void *call, void **bytes, size_t *size)
{
	const struct built *w = call;
	if (w->pocl_dir && !w->failed && w->ndev == 1 && export_pack(w, bytes, size) == 0)
		return 0;
	return jc_cl_export(w->program, w->ndev, w->devices, w->failed, &w->key, bytes, size);
}

static void stored(void *call, size_t size, uint64_t compile_ns, uint64_t store_ns)
{
	const struct built *w = call;
	jc_log(JC_LOG_DEBUG, "OpenCL build %s: %s in %.3f s, stored %zu bytes in %.3f s",
	       w->hex, w->failed ? "failed" : "compiled", (double)compile_ns / 1e9, size,
	       (double)store_ns / 1e9);
}

/* ---- the recipe: source, options, constants and included files ------------ */

struct files {
	struct jc_recipe_file *v;
	size_t n;
};

static int keep_file(void *ctx, const char *path, const void *data, size_t size)
{
	struct files *f = ctx;
	struct jc_recipe_file *grown = realloc(f->v, (f->n + 1) * sizeof *grown);
	char *p = strdup(path), *d = malloc(size ? size : 1);
	if (!grown || !p || !d) {
		free(p), free(d);
		if (grown)
			f->v = grown;
		return -1;
	}
	memcpy(d, data, size);
	f->v = grown;
	f->v[f->n++] = (struct jc_recipe_file){ p, d, size };
	return 0;
}

static void device_of(cl_device_id dev, struct jc_recipe_device *d)
{
	const struct jc_cl_real *cl = jc_cl_real();
	cl->real_clGetDeviceInfo(dev, CL_DEVICE_VENDOR_ID, sizeof d->vendor, &d->vendor, NULL);
	cl->real_clGetDeviceInfo(dev, JC_CL_DEVICE_ID_INTEL, sizeof d->id, &d->id, NULL);
	cl->real_clGetDeviceInfo(dev, JC_CL_DEVICE_IP_VERSION_INTEL, sizeof d->ip, &d->ip, NULL);
	if (cl->real_clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof d->name - 1, d->name, NULL) !=
	    CL_SUCCESS)
		d->name[0] = '\0';
	d->name[sizeof d->name - 1] = '\0';
}

static void free_files(struct files *files)
{
	for (size_t i = 0; i < files->n; i++) {
		free((void *)(uintptr_t)files->v[i].path);
		free((void *)(uintptr_t)files->v[i].data);
	}
	free(files->v);
}

int jc_cl_recipe_encode(struct jc_recipe *r, size_t n, const struct jc_cl_input *const *inputs,
			const char *options, cl_device_id device, void **bytes, size_t *size)
{
	struct files files = { 0 };
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = jc_include_collect(NULL, inputs[i]->n_includes, inputs[i]->includes, options,
					keep_file, &files);
	r->cl_n_files = files.n;
	r->cl_files = files.v;
	if (rc == 0) {
		if (device)
			device_of(device, &r->device);
		rc = jc_recipe_encode(r, bytes, size);
	}
	free_files(&files);
	r->cl_n_files = 0;
	r->cl_files = NULL;
	return rc;
}

static int recipe(void *call, void **bytes, size_t *size)
{
	const struct built *w = call;
	const struct jc_cl_input *in = w->input;
	if (w->failed) /* a failure record needs no replay */
		return -1;
	if (w->recipe) {
		if (!(*bytes = malloc(w->recipe_size)))
			return -1;
		memcpy(*bytes, w->recipe, w->recipe_size);
		*size = w->recipe_size;
		return 0;
	}
	if (!in || !in->text)
		return -1;
	struct jc_recipe r = {
		.api = JC_RECIPE_CL, .cl_text = in->text, .cl_size = in->text_size,
		.cl_from_il = in->from_il, .cl_options = w->options, .cl_n_specs = in->n_specs,
		.cl_specs = in->specs, .entry = w->key,
	};
	return jc_cl_recipe_encode(&r, 1, &in, w->options, w->ndev ? w->devices[0] : NULL, bytes,
				   size);
}

static int compile(void *call, struct jc_request *request, enum jc_built *built);
static int refuse(void *call, const char *why);

static const struct jc_once_ops build_ops = { load_shadow, compile, export_payload, stored,
					       recipe, refuse };

/* Store the program's binaries as request's value (its key), compiled in
 * compile_ns, with the recipe encoded when the build began (NULL: none). */
static void store(cl_program program, cl_uint ndev, const cl_device_id *devices,
		  struct jc_request *request, uint64_t compile_ns, const void *recipe,
		  size_t recipe_size)
{
	const struct jc_key *key = &request->key;
	struct built w = { .program = program, .ndev = ndev, .devices = devices, .key = *key,
			   .recipe = recipe, .recipe_size = recipe_size };
	struct jc_once once = { .cache = jc_runtime_cache(), .key = *key,
				.what = "OpenCL build", .ops = &build_ops, .call = &w,
				.request = request };
	jc_key_hex(key, once.hex);
	w.hex = once.hex;
	jc_once_store(&once, compile_ns, compile_ns); /* wall: CPU time unknown */
}

/* ---- miss with pfn_notify: the build may end later ---------------------------- */

struct pending {
	struct jc_request request; /* taken over from jc_compile_once(): its key, lock, lease */
	cl_uint ndev;
	cl_device_id *devices;
	uint64_t start;
	jc_cl_notify_fn notify;
	void *user_data;
	void *recipe; /* encoded now: the program's record may be gone by then */
	size_t recipe_size;
	/* to make the key again once the build is over (jc_cl_key_still) */
	struct jc_cl_input input;
	char *options;
	int cause;         /* the miss's cause, as the lookup saw it */
	uint8_t *trace;    /* the key's trace */
	size_t trace_len;
	int finished; /* the build's outcome has been handled */
	int refs;     /* the clBuildProgram call and the callback */
};

static void pending_free(struct pending *w)
{
	jc_cl_input_free(&w->input);
	free(w->options);
	free(w->trace);
	free(w->recipe);
	free(w->devices);
	free(w);
}

static void pending_put(struct pending *w)
{
	if (__atomic_sub_fetch(&w->refs, 1, __ATOMIC_ACQ_REL) == 0)
		pending_free(w);
}

static int pending_devices(void *ctx, struct jc_fp *fp)
{
	const struct pending *w = ctx;
	return jc_cl_hash_devices(fp, w->ndev, w->devices);
}

/* The build ended (the driver calls this once the compiler is done): its
 * key is made again, as the sync path does. */
static void built_later(cl_program program, struct pending *w)
{
	uint64_t ns = jc_mono_ns() - w->start;
	char hex[2 * JC_KEY_BYTES + 1];
	jc_key_hex(&w->request.key, hex);
	if (!jc_cl_key_still(&w->input, w->options, pending_devices, w, &w->request.key)) {
		jc_log(JC_LOG_DEBUG, "OpenCL build %s: a file the key covers changed while it "
		       "compiled: not stored", hex);
		jc_cache_note_changed(jc_runtime_cache(), &w->request.key, w->cause, w->trace,
				      w->trace_len);
		return;
	}
	store(program, w->ndev, w->devices, &w->request, ns, w->recipe, w->recipe_size);
}

static void CL_CALLBACK on_built(cl_program program, void *data)
{
	struct pending *w = data;
	if (!__atomic_exchange_n(&w->finished, 1, __ATOMIC_ACQ_REL)) {
		int ok = 1;
		for (cl_uint i = 0; ok && i < w->ndev; i++)
			ok = built_on(program, w->devices[i]);
		if (ok)
			built_later(program, w);
		else
			jc_cache_count_build_failure(jc_runtime_cache());
		jc_request_end(&w->request);
	}
	jc_cl_call_notify(w->notify, program, w->user_data);
	pending_put(w);
}

static cl_int compile_async(struct build *b, struct jc_request *request)
{
	const struct jc_cl_real *cl = jc_cl_real();
	struct pending *w = calloc(1, sizeof *w);
	cl_device_id *devices = malloc(b->ndev * sizeof *devices);
	if (!w || !devices) {
		free(w);
		free(devices);
		jc_request_end(request);
		return cl->real_clBuildProgram(b->app, b->req_ndev, b->req_devices, b->options,
					  b->notify, b->user_data);
	}
	memcpy(devices, b->devices, b->ndev * sizeof *devices);
	*w = (struct pending){ .request = *request, .ndev = b->ndev, .devices = devices,
			       .notify = b->notify, .user_data = b->user_data, .refs = 2,
			       .cause = jc_request_cause(request) }; /* the request moved */
	const uint8_t *trace = NULL;
	w->trace_len = jc_fp_trace_of(&b->once.key, &trace);
	if (w->trace_len && (w->trace = malloc(w->trace_len)))
		memcpy(w->trace, trace, w->trace_len);
	else
		w->trace_len = 0;
	if (jc_cl_input_copy(&w->input, &b->rec->input) != 0 ||
	    (b->options && !(w->options = strdup(b->options)))) {
		/* not stored: its key could not be made again */
		w->input.incomplete = 1;
	}
	if (jc_runtime_config()->recipes && recipe(&b->out, &w->recipe, &w->recipe_size) != 0)
		w->recipe = NULL;
	w->start = jc_mono_ns();
	cl_int err = cl->real_clBuildProgram(b->app, b->req_ndev, b->req_devices, b->options,
					on_built, w);
	if (err != CL_SUCCESS && !__atomic_exchange_n(&w->finished, 1, __ATOMIC_ACQ_REL)) {
		/* Refused before the build began: the callback will not come. */
		jc_request_end(&w->request);
		pending_free(w);
		return err;
	}
	pending_put(w);
	return err;
}

/* Whether the build is PoCL's, for one device: its directory is then what
 * is stored, PoCL's cache on or off (cl_pocl.h). */
static int on_pocl_one(const struct build *b)
{
	char version[256] = "";
	if (b->ndev != 1 ||
	    jc_cl_real()->real_clGetDeviceInfo(b->devices[0], CL_DEVICE_VERSION, sizeof version - 1,
					  version, NULL) != CL_SUCCESS)
		return 0;
	return strstr(version, "PoCL") != NULL;
}

/* The application's own build.  With pfn_notify it may end later: the
 * callback then stores and unlocks. */
static int compile(void *call, struct jc_request *request, enum jc_built *built)
{
	struct build *b = call;
	jc_log(JC_LOG_DEBUG, "OpenCL build %s: miss", b->once.hex);
	jc_clmap_set_shadow(b->app, NULL); /* the program's own build replaces it */
	jc_pocl_release(b->app);           /* as it replaces an earlier build's directory */
	if (b->notify) {
		*built = JC_BUILT_LATER;
		return compile_async(b, request);
	}
	int pocl = on_pocl_one(b), pocl_cache = pocl && jc_pocl_cache_on();
	int64_t t0 = pocl_cache ? pocl_build_starts() : 0;
	if (pocl && !pocl_cache) {
		jc_pocl_hook(); /* PoCL's access() of the build's program.bc names its directory */
		jc_pocl_named_starts();
	}
	cl_int err = jc_cl_real()->real_clBuildProgram(b->app, b->req_ndev, b->req_devices,
						  b->options, NULL, NULL);
	if (pocl && err == CL_SUCCESS)
		b->out.pocl_dir = pocl_cache ? jc_pocl_find_dir(b->app, t0, jc_pocl_build_ended())
					     : jc_pocl_find_uncached(b->app);
	/* A compile error is a fact about the key, remembered like a result:
	 * export then stores a failure record (only if every device failed). */
	if (err == CL_BUILD_PROGRAM_FAILURE)
		b->out.failed = err;
	*built = err == CL_SUCCESS || err == CL_BUILD_PROGRAM_FAILURE ? JC_BUILT_NOW
								     : JC_BUILT_FAILED;
	if (*built == JC_BUILT_NOW && !jc_cl_key_still(&b->rec->input, b->options, hash_devices, b,
						       &b->once.key))
		*built = JC_BUILT_CHANGED;
	return err;
}

/* JITCACHE_STRICT=error (compile_once.h): the build fails as one that does
 * not compile, CL_BUILD_PROGRAM_FAILURE, and every device's build log says
 * why; the application's program stays unbuilt, as a failed build leaves
 * it (the map answers its status and log, as for a replayed failure). */
static int refuse(void *call, const char *why)
{
	struct build *b = call;
	char text[700];
	snprintf(text, sizeof text, "jitcache: JITCACHE_STRICT=error: not compiled, since it "
		 "is not in the cache: %s%s%s%s\n", why, b->once.hex[0] ? " (key " : "",
		 b->once.hex, b->once.hex[0] ? ")" : "");
	const char **logs = calloc(b->ndev, sizeof *logs);
	size_t *sizes = calloc(b->ndev, sizeof *sizes);
	struct jc_cl_shadow *failure = NULL;
	for (cl_uint i = 0; logs && sizes && i < b->ndev; i++)
		logs[i] = text, sizes[i] = strlen(text) + 1;
	struct jc_cl_payload p = { .ndev = b->ndev, .logs = logs, .log_sizes = sizes };
	if (logs && sizes)
		failure = jc_cl_shadow_new(b->ndev, b->devices, NULL, &p);
	if (failure) {
		failure->failed = CL_BUILD_PROGRAM_FAILURE;
		failure->options = strdup(b->options ? b->options : "");
	}
	free(logs);
	free(sizes);
	if (failure && !failure->options) {
		jc_cl_shadow_free(failure);
		failure = NULL;
	}
	jc_clmap_set_shadow(b->app, failure); /* NULL: the driver answers, unbuilt */
	b->notify_now = b->notify != NULL;
	return CL_BUILD_PROGRAM_FAILURE;
}

static cl_int build(struct build *b)
{
	if (jc_clmap_has_kernels(b->app))
		return CL_INVALID_OPERATION;
	if (prepare(b) != 0) {
		jc_log(JC_LOG_DEBUG, "OpenCL build: passed through (not keyable: see above, or "
				     "user_data without pfn_notify)");
		jc_cache_count_pass(b->once.cache, JC_PASS_NOT_KEYABLE);
		static const char why[] = "a request jitcache cannot key: see JITCACHE_LOG=debug";
		if (jc_strict_passed("OpenCL build", why))
			return refuse(b, why);
		jc_clmap_set_shadow(b->app, NULL);
		return jc_cl_real()->real_clBuildProgram(b->app, b->req_ndev, b->req_devices,
						    b->options, b->notify, b->user_data);
	}
	int err = CL_SUCCESS;
	b->out.key = b->once.key;
	if (jc_compile_once(&b->once, &err)) {
		b->notify_now = b->notify != NULL;
		return b->answer;
	}
	return err;
}

JC_EXPORT cl_int clBuildProgram(cl_program program, cl_uint num_devices,
				const cl_device_id *device_list, const char *options,
				jc_cl_notify_fn pfn_notify, void *user_data)
{
	const struct jc_cl_real *cl = jc_cl_entry();
	if (!cl)
		return CL_INVALID_OPERATION;
	if (!jc_enter())
		return cl->real_clBuildProgram(program, num_devices, device_list, options, pfn_notify,
					  user_data);
	struct jc_cache *cache = jc_runtime_cache();
	struct build b = { .app = program, .options = options, .req_ndev = num_devices,
			   .req_devices = device_list, .notify = pfn_notify,
			   .user_data = user_data,
			   .once = { .cache = cache, .what = "OpenCL build", .ops = &build_ops } };
	b.once.call = &b;
	b.rec = cache ? jc_clmap_find(program) : NULL;
	if (b.rec) /* an executable now, or a failed build: no compiled object to link */
		jc_clmap_set_compiled(program, NULL);
	if (cache && !b.rec) {
		/* One line per build, so that a log accounts for every one. */
		jc_log(JC_LOG_DEBUG, "OpenCL build: passed through (a program created from "
				     "binaries, or not from source or IL)");
		jc_cache_count_pass(cache, JC_PASS_NATIVE);
	}
	cl_int err = b.rec ? build(&b)
			   : cl->real_clBuildProgram(program, num_devices, device_list, options,
						pfn_notify, user_data);
	free(b.out.pocl_dir);
	free(b.devices);
	jc_leave();
	if (b.notify_now)
		jc_cl_call_notify(pfn_notify, program, user_data);
	return err;
}
