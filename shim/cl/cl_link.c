// SPDX-License-Identifier: MIT
/*
 * Separate compile and link (clCompileProgram, clLinkProgram), cached as a
 * pair: hashcat, for one, builds every program this way.
 *
 * A compile is keyed as a build is, plus its embedded headers
 * (key/cl_request.h).  On a miss the driver compiles, and the compiled
 * object's binaries and logs are stored.  A compile that fails is not
 * stored: drivers differ in what a failed compile's program answers (PoCL
 * calls it a compiled object), which a replay could not match.
 * On a hit of a compile that reads no file (no #include in its source or
 * embedded headers, no -include or -imacros option) nothing is compiled:
 * the compile is deferred, the map answers its status, log, options and
 * binary type (cl_program_map.h), and the program keeps its compile key.
 * A compile that reads files is carried out at the call, on a hit too: a
 * deferred one would read them when it is carried out, as they are then,
 * after the program may have changed them (it computed another result
 * than the compile would have, issue 44) or changed its directory (the
 * header not found).  Its link can still hit, and for most drivers the
 * link is the expensive part.  As for a build (cl.c), the key is made
 * again once the driver's compile is over: if a file it covers changed
 * meanwhile, nothing is stored and the program has no compile key (its
 * link passes through).  A link whose inputs all have a compile
 * key is keyed by them, its options and devices: on a hit the linked
 * program is made from the stored executables, and the map answers its
 * link log; on a miss the deferred compiles of its inputs are carried out,
 * the driver links, and the executables are stored.  Anything else (an
 * input compiled elsewhere, -create-library, a subset of the program's
 * devices) passes through, after the deferred compiles it needs are
 * carried out, so the driver always sees what it would have.  A deferred
 * compile that fails when carried out fails the link that needed it
 * (CL_LINK_PROGRAM_FAILURE, and one line), never reaching the driver's
 * link with an input that has no binary.
 *
 * A callback (pfn_notify) on a cached compile or link is called before the
 * call returns, once the result is there, as the API allows.
 */
#include "key/cl_request.h"
#include "key/recipe.h"
#include "shim/cl/cl_api.h"
#include "shim/cl/cl_build.h"
#include "shim/cl/cl_device.h"
#include "shim/cl/cl_program_map.h"
#include "shim/compile_once.h"
#include "shim/shim.h"

#include <stdint.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The devices a compile or link is for, in the program's order. */
struct devs {
	cl_uint n;
	cl_device_id *v;
};

static int hash_devices(void *ctx, struct jc_fp *fp)
{
	const struct devs *d = ctx;
	return jc_cl_hash_devices(fp, d->n, d->v);
}

/* A compile or link the driver does uncached: 1 if JITCACHE_STRICT=error
 * refuses it instead. */
static int passed(struct jc_cache *cache, const char *what, const char *why)
{
	if (!cache)
		return 0;
	jc_log(JC_LOG_DEBUG, "%s: passed through (%s)", what, why);
	jc_cache_count_pass(cache, JC_PASS_COMPILE_LINK);
	return jc_strict_passed(what, why);
}

/* One carry-out at a time: a thread that finds one under way waits for it
 * (two threads making kernels of one pending build: the second must not
 * reach the driver with the application's unbuilt handle meanwhile). */
static pthread_mutex_t carrying = PTHREAD_MUTEX_INITIALIZER;

static cl_int carry_out(cl_program app);

cl_int jc_cl_carry_out(cl_program app)
{
	pthread_mutex_lock(&carrying);
	cl_int err = carry_out(app);
	pthread_mutex_unlock(&carrying);
	return err;
}

static cl_int carry_out(cl_program app)
{
	struct jc_cl_shadow *d = jc_clmap_take_deferred(app);
	if (!d)
		return CL_SUCCESS;
	if (d->pending)
		return jc_cl_make_pending(app, d);
	const char **names = NULL;
	if (d->nheaders && !(names = malloc(d->nheaders * sizeof *names))) {
		jc_cl_shadow_free(d);
		return CL_OUT_OF_HOST_MEMORY;
	}
	for (cl_uint i = 0; i < d->nheaders; i++)
		names[i] = d->header_names[i];
	cl_int err = jc_cl_real()->real_clCompileProgram(app, d->ndev, d->devices, d->options,
						    d->nheaders, d->headers, names, NULL, NULL);
	free(names);
	jc_log(JC_LOG_DEBUG, "OpenCL compile answered from the cache: carried out now (%d)",
	       (int)err);
	jc_cl_shadow_free(d);
	return err;
}

/* ---- clCompileProgram ----------------------------------------------------- */

struct compile {
	struct jc_once once;
	cl_program app;
	const char *options;
	cl_context context;
	struct devs devs;
	cl_uint req_ndev;
	const cl_device_id *req_devices;
	cl_uint nheaders;
	const cl_program *headers;
	const char **names;
	const struct jc_cl_input **inputs; /* the headers' records, for the key */
	const struct jc_cl_input *input;   /* the program's */
	int defer;     /* a hit may be deferred: the compile reads no file */
	cl_int answer; /* what a compile answered from the cache returns */
	void *recipe;  /* its recipe (recipes on), or NULL */
	size_t recipe_size;
};

/* Whether a compile reads files beside its source and embedded headers:
 * an #include in either (wherever the driver finds it), or an option
 * that names one. */
static int reads_files(const struct compile *c)
{
	if (jc_cl_input_names_files(c->input) ||
	    (c->options && (strstr(c->options, "-include") || strstr(c->options, "-imacros"))))
		return 1;
	for (cl_uint i = 0; i < c->nheaders; i++)
		if (jc_cl_input_names_files(c->inputs[i]))
			return 1;
	return 0;
}

/* Whether the compile's key, made again now, is still the one looked up. */
static int compile_key_still(struct compile *c)
{
	struct jc_key now;
	return jc_cl_compile_key(c->input, c->options, c->nheaders, c->inputs, c->names,
				 hash_devices, &c->devs, &now) == 0 &&
	       memcmp(&now, &c->once.key, sizeof now) == 0;
}

/* The key, when the compile can be cached: 0. */
static int compile_key(struct compile *c, const struct jc_cl_program *rec)
{
	if (jc_cl_program_devices(c->app, &c->context, &c->devs.n, &c->devs.v) != 0 ||
	    !jc_cl_covers(c->req_ndev, c->req_devices, c->devs.n, c->devs.v) ||
	    (c->nheaders && (!c->headers || !c->names)))
		return -1;
	const struct jc_cl_input **inputs = calloc(c->nheaders + 1, sizeof *inputs);
	int rc = inputs ? 0 : -1;
	for (cl_uint i = 0; rc == 0 && i < c->nheaders; i++) {
		const struct jc_cl_program *h = jc_clmap_find(c->headers[i]);
		if (h)
			inputs[i] = &h->input;
		else
			rc = -1; /* a header made from binaries or IL */
	}
	c->inputs = inputs; /* freed by the caller */
	c->input = &rec->input;
	if (rc == 0)
		rc = jc_cl_compile_key(&rec->input, c->options, c->nheaders, inputs, c->names,
				       hash_devices, &c->devs, &c->once.key);
	if (rc == 0)
		c->defer = !reads_files(c);
	return rc;
}

/* What a deferred compile needs to be carried out later. */
static int keep_headers(struct jc_cl_shadow *d, const struct compile *c)
{
	if (!(d->options = strdup(c->options ? c->options : "")))
		return -1;
	if (!c->nheaders)
		return 0;
	d->headers = calloc(c->nheaders, sizeof *d->headers);
	d->header_names = calloc(c->nheaders, sizeof *d->header_names);
	if (!d->headers || !d->header_names)
		return -1;
	d->nheaders = c->nheaders;
	for (cl_uint i = 0; i < c->nheaders; i++) {
		if (!(d->header_names[i] = strdup(c->names[i])))
			return -1;
		if (jc_cl_real()->real_clRetainProgram(c->headers[i]) != CL_SUCCESS)
			return -1;
		d->headers[i] = c->headers[i];
	}
	return 0;
}

/* A hit of a compile that reads files, carried out at the call: the
 * driver's status.  The program keeps its compile key only if it compiled
 * and the files its key covers are as they were keyed. */
static cl_int carry_out_now(struct compile *c)
{
	cl_int err = jc_cl_carry_out(c->app);
	if (err != CL_SUCCESS || !compile_key_still(c)) {
		if (err == CL_SUCCESS)
			jc_log(JC_LOG_DEBUG, "OpenCL compile %s: a file the key covers changed "
			       "while it compiled: its link is not cached", c->once.hex);
		jc_clmap_set_compiled(c->app, NULL);
	}
	return err;
}

static enum jc_load load_compile(void *call, const struct jc_entry *e)
{
	struct compile *c = call;
	struct jc_cl_payload p;
	if (jc_cl_payload_decode(e->data, e->size, &p) != 0 || p.ndev != c->devs.n || p.status) {
		jc_cl_payload_free(&p);
		jc_cl_say_rejected(c->once.hex, CL_SUCCESS);
		return JC_LOAD_REJECTED;
	}
	struct jc_cl_shadow *d = jc_cl_shadow_new(c->devs.n, c->devs.v, NULL, &p);
	jc_cl_payload_free(&p);
	if (!d || keep_headers(d, c) != 0) {
		jc_cl_shadow_free(d);
		return JC_LOAD_FAILED;
	}
	d->deferred = 1;
	jc_clmap_set_shadow(c->app, d);
	jc_clmap_set_compiled(c->app, &c->once.key);
	c->answer = CL_SUCCESS;
	jc_log(JC_LOG_DEBUG, "OpenCL compile %s: hit%s", c->once.hex,
	       c->defer ? "" : " (it reads files: carried out now)");
	if (!c->defer) {
		c->answer = carry_out_now(c);
		jc_cache_hit_compiled(c->once.cache, e); /* it saved no compile time */
	}
	return JC_LOADED;
}

static int run_compile(void *call, struct jc_request *request, enum jc_built *built)
{
	struct compile *c = call;
	(void)request;
	jc_log(JC_LOG_DEBUG, "OpenCL compile %s: miss", c->once.hex);
	cl_int err = jc_cl_real()->real_clCompileProgram(c->app, c->req_ndev, c->req_devices,
						    c->options, c->nheaders, c->headers,
						    c->names, NULL, NULL);
	*built = err == CL_SUCCESS ? JC_BUILT_NOW : JC_BUILT_FAILED;
	if (err == CL_SUCCESS && !compile_key_still(c))
		*built = JC_BUILT_CHANGED; /* stored nothing, no compile key: its link passes */
	if (*built == JC_BUILT_NOW)
		jc_clmap_set_compiled(c->app, &c->once.key);
	return err;
}

static int export_compile(void *call, void **bytes, size_t *size)
{
	const struct compile *c = call;
	return jc_cl_export(c->app, c->devs.n, c->devs.v, 0, NULL, bytes, size);
}

static void stored_compile(void *call, size_t size, uint64_t compile_ns, uint64_t store_ns)
{
	const struct compile *c = call;
	jc_log(JC_LOG_DEBUG, "OpenCL compile %s: compiled in %.3f s, stored %zu bytes in %.3f s",
	       c->once.hex, (double)compile_ns / 1e9, size, (double)store_ns / 1e9);
}

/* JITCACHE_STRICT=error: the compile fails as a compile error does; why is
 * said on stderr (compile_once.c): the program's own log stays the
 * driver's, empty. */
static int refuse_compile(void *call, const char *why)
{
	(void)call, (void)why;
	return CL_COMPILE_PROGRAM_FAILURE;
}

/* The compile's recipe (recipes on): its source, options, constants,
 * embedded headers and the files the includes of all of them reach.
 * Encoded at the call, hit or miss, and kept with the program's compile
 * key: the recipe of its link nests it either way. */
static void encode_compile(struct compile *c)
{
	const struct jc_cl_input *in = c->input;
	if (!jc_runtime_config()->recipes || !in->text)
		return;
	struct jc_recipe_header *h = calloc(c->nheaders + 1, sizeof *h);
	const struct jc_cl_input **all = calloc(c->nheaders + 1, sizeof *all);
	int ok = h && all;
	for (cl_uint i = 0; ok && i < c->nheaders; i++) {
		const struct jc_cl_input *x = c->inputs[i];
		ok = x->text && !x->from_il;
		h[i] = (struct jc_recipe_header){ c->names[i], x->text, x->text_size };
		all[i + 1] = x;
	}
	struct jc_recipe r = { .api = JC_RECIPE_CL_COMPILE, .cl_text = in->text,
			       .cl_size = in->text_size, .cl_from_il = in->from_il,
			       .cl_options = c->options, .cl_n_specs = in->n_specs,
			       .cl_specs = in->specs, .cl_n_headers = c->nheaders,
			       .cl_headers = h, .entry = c->once.key };
	if (ok)
		all[0] = in;
	if (ok && jc_cl_recipe_encode(&r, c->nheaders + 1, all, c->options,
				      c->devs.n ? c->devs.v[0] : NULL, &c->recipe,
				      &c->recipe_size) != 0)
		c->recipe = NULL;
	free(h);
	free(all);
}

static int copy_recipe(const void *recipe, size_t recipe_size, void **bytes, size_t *size)
{
	if (!recipe || !(*bytes = malloc(recipe_size)))
		return -1;
	memcpy(*bytes, recipe, recipe_size);
	*size = recipe_size;
	return 0;
}

static int recipe_compile(void *call, void **bytes, size_t *size)
{
	const struct compile *c = call;
	return copy_recipe(c->recipe, c->recipe_size, bytes, size);
}

static const struct jc_once_ops compile_ops = { load_compile, run_compile, export_compile,
						 stored_compile, recipe_compile, refuse_compile };

JC_EXPORT cl_int clCompileProgram(cl_program program, cl_uint num_devices,
				  const cl_device_id *device_list, const char *options,
				  cl_uint num_input_headers, const cl_program *input_headers,
				  const char **header_include_names, jc_cl_notify_fn pfn_notify,
				  void *user_data)
{
	const struct jc_cl_real *cl = jc_cl_entry();
	if (!cl)
		return CL_INVALID_OPERATION;
	if (!jc_enter())
		return cl->real_clCompileProgram(program, num_devices, device_list, options,
					    num_input_headers, input_headers,
					    header_include_names, pfn_notify, user_data);
	struct jc_cache *cache = jc_runtime_cache();
	struct jc_cl_program *rec = cache ? jc_clmap_find(program) : NULL;
	if (rec && jc_clmap_has_kernels(program)) {
		jc_leave();
		return CL_INVALID_OPERATION;
	}
	jc_clmap_set_compiled(program, NULL);
	jc_clmap_set_shadow(program, NULL); /* this compile replaces any earlier one */
	struct compile c = { .app = program, .options = options, .req_ndev = num_devices,
			     .req_devices = device_list, .nheaders = num_input_headers,
			     .headers = input_headers, .names = header_include_names,
			     .once = { .cache = cache, .what = "OpenCL compile",
				       .ops = &compile_ops } };
	c.once.call = &c;
	int keyed = rec && (pfn_notify || !user_data) && compile_key(&c, rec) == 0;
	int refused = 0; /* JITCACHE_STRICT=error: failed as a compile error, unasked */
	cl_int err;
	int status = CL_SUCCESS;
	if (keyed) {
		encode_compile(&c);
		err = jc_compile_once(&c.once, &status) ? c.answer : (cl_int)status;
		jc_clmap_set_compile_recipe(program, c.recipe, c.recipe_size); /* it takes it */
	} else {
		refused = passed(cache, "clCompileProgram",
				 rec ? "not keyable: see above, or user_data without pfn_notify"
				     : "a program not created from source or IL");
		err = refused ? CL_COMPILE_PROGRAM_FAILURE
			      : cl->real_clCompileProgram(program, num_devices, device_list,
							  options, num_input_headers,
							  input_headers, header_include_names,
							  pfn_notify, user_data);
	}
	free(c.devs.v);
	free(c.inputs);
	jc_leave();
	if ((keyed || refused) && pfn_notify)
		jc_cl_call_notify(pfn_notify, program, user_data);
	return err;
}

/* ---- clLinkProgram ------------------------------------------------------------ */

struct link {
	struct jc_once once;
	cl_context context;
	const char *options;
	struct devs devs;
	cl_uint req_ndev;
	const cl_device_id *req_devices;
	cl_uint ninputs;
	const cl_program *inputs;
	cl_program linked; /* the program handed back */
};

/* The devices a link is for: those given, else the context's. */
static int link_devices(struct link *l)
{
	const struct jc_cl_real *cl = jc_cl_real();
	size_t size = 0;
	if (l->req_ndev) {
		if (!l->req_devices || !(l->devs.v = malloc(l->req_ndev * sizeof *l->devs.v)))
			return -1;
		memcpy(l->devs.v, l->req_devices, l->req_ndev * sizeof *l->devs.v);
		l->devs.n = l->req_ndev;
		return 0;
	}
	if (cl->real_clGetContextInfo(l->context, CL_CONTEXT_DEVICES, 0, NULL, &size) != CL_SUCCESS ||
	    size < sizeof *l->devs.v || !(l->devs.v = malloc(size)) ||
	    cl->real_clGetContextInfo(l->context, CL_CONTEXT_DEVICES, size, l->devs.v, NULL) !=
		    CL_SUCCESS)
		return -1;
	l->devs.n = (cl_uint)(size / sizeof *l->devs.v);
	return 0;
}

/* The key, when the link can be cached: 0; else why not in *why. */
static int link_key(struct link *l, const char **why)
{
	*why = "an input not compiled from source or IL by clCompileProgram";
	if (!l->ninputs || !l->inputs)
		return -1;
	if (l->options && strstr(l->options, "-create-library")) {
		*why = "a library (-create-library)";
		return -1;
	}
	struct jc_key *keys = calloc(l->ninputs, sizeof *keys);
	int rc = keys ? 0 : -1;
	for (cl_uint i = 0; rc == 0 && i < l->ninputs; i++)
		if (!jc_clmap_compiled(l->inputs[i], &keys[i]))
			rc = -1;
	if (rc == 0 && link_devices(l) != 0) {
		*why = "its devices could not be asked";
		rc = -1;
	}
	if (rc == 0 && jc_cl_link_key(l->options, l->ninputs, keys, hash_devices, &l->devs,
				      &l->once.key) != 0) {
		*why = "not keyable: see above";
		rc = -1;
	}
	free(keys);
	return rc;
}

/* The linked program from the stored executables, with its link log. */
static enum jc_load load_link(void *call, const struct jc_entry *e)
{
	struct link *l = call;
	struct jc_cl_payload p;
	cl_program program = NULL;
	int readable = jc_cl_payload_decode(e->data, e->size, &p) == 0 && p.ndev == l->devs.n &&
		       !p.status;
	cl_int err = readable ? jc_cl_from_binaries(l->context, l->devs.n, l->devs.v, &p,
						    l->options, &l->once.key, &program)
			      : CL_SUCCESS;
	struct jc_cl_shadow *log = program ? jc_cl_shadow_new(l->devs.n, l->devs.v, NULL, &p)
					   : NULL;
	jc_cl_payload_free(&p);
	if (!program) {
		if (err == CL_OUT_OF_HOST_MEMORY || err == CL_OUT_OF_RESOURCES)
			return JC_LOAD_FAILED;
		jc_cl_say_rejected(l->once.hex, err);
		return JC_LOAD_REJECTED;
	}
	/* A record marked incomplete: a later clBuildProgram of the linked
	 * program goes to the driver, as it must. */
	struct jc_cl_input none = { .incomplete = 1 };
	if (!log || jc_clmap_add(program, &none) != 0) {
		jc_cl_shadow_free(log);
		jc_cl_real()->real_clReleaseProgram(program);
		return JC_LOAD_FAILED;
	}
	jc_clmap_set_shadow(program, log);
	l->linked = program;
	jc_log(JC_LOG_DEBUG, "OpenCL link %s: hit", l->once.hex);
	return JC_LOADED;
}

/* The programs the driver links for the inputs, with the deferred compiles
 * among them carried out: CL_SUCCESS and *targets (malloc'd; NULL when
 * there are no inputs), or the error that fails the link: a compile
 * answered from the cache that the driver could not carry out now has no
 * binary to link (PoCL asserts on one: the process aborted). */
static cl_int link_targets(const struct link *l, cl_program **targets)
{
	*targets = NULL;
	if (!l->inputs || !l->ninputs)
		return CL_SUCCESS;
	if (!(*targets = malloc(l->ninputs * sizeof **targets)))
		return CL_OUT_OF_HOST_MEMORY;
	for (cl_uint i = 0; i < l->ninputs; i++) {
		cl_int err = jc_cl_carry_out(l->inputs[i]);
		if (err != CL_SUCCESS) {
			jc_log(JC_LOG_WARN, "an OpenCL compile answered from the cache could not be "
			       "carried out for its link (error %d); the link fails", (int)err);
			free(*targets);
			*targets = NULL;
			return err == CL_OUT_OF_HOST_MEMORY ? err : CL_LINK_PROGRAM_FAILURE;
		}
		(*targets)[i] = jc_clmap_target(l->inputs[i]);
	}
	return CL_SUCCESS;
}

static int run_link(void *call, struct jc_request *request, enum jc_built *built)
{
	struct link *l = call;
	const struct jc_cl_real *cl = jc_cl_real();
	(void)request;
	jc_log(JC_LOG_DEBUG, "OpenCL link %s: miss", l->once.hex);
	cl_program *targets;
	cl_int err = link_targets(l, &targets);
	if (err != CL_SUCCESS) {
		*built = JC_BUILT_FAILED;
		return err;
	}
	l->linked = cl->real_clLinkProgram(l->context, l->req_ndev, l->req_devices, l->options,
				      l->ninputs, targets, NULL, NULL, &err);
	free(targets);
	*built = l->linked && err == CL_SUCCESS ? JC_BUILT_NOW : JC_BUILT_FAILED;
	return err;
}

/* The executables, in the order the key has the devices. */
static int export_link(void *call, void **bytes, size_t *size)
{
	const struct link *l = call;
	cl_context context;
	cl_uint n = 0;
	cl_device_id *devices = NULL;
	int same = jc_cl_program_devices(l->linked, &context, &n, &devices) == 0 &&
		   n == l->devs.n && !memcmp(devices, l->devs.v, n * sizeof *devices);
	free(devices);
	return same ? jc_cl_export(l->linked, l->devs.n, l->devs.v, 0, &l->once.key, bytes, size)
		    : -1;
}

static void stored_link(void *call, size_t size, uint64_t compile_ns, uint64_t store_ns)
{
	const struct link *l = call;
	jc_log(JC_LOG_DEBUG, "OpenCL link %s: linked in %.3f s, stored %zu bytes in %.3f s",
	       l->once.hex, (double)compile_ns / 1e9, size, (double)store_ns / 1e9);
}

/* JITCACHE_STRICT=error: no program, CL_LINK_PROGRAM_FAILURE (why is said
 * on stderr, compile_once.c). */
static int refuse_link(void *call, const char *why)
{
	struct link *l = call;
	(void)why;
	l->linked = NULL;
	return CL_LINK_PROGRAM_FAILURE;
}

/* The link's recipe: its options and its inputs' compile recipes, each
 * whole; none when an input has none (compiled with recipes off). */
static int recipe_link(void *call, void **bytes, size_t *size)
{
	const struct link *l = call;
	struct jc_recipe_bytes *in = calloc(l->ninputs, sizeof *in);
	int rc = in ? 0 : -1;
	for (cl_uint i = 0; rc == 0 && i < l->ninputs; i++) {
		void *one = NULL;
		rc = jc_clmap_compile_recipe(l->inputs[i], &one, &in[i].size);
		in[i].data = one;
	}
	struct jc_recipe r = { .api = JC_RECIPE_CL_LINK, .link_options = l->options,
			       .link_n_inputs = l->ninputs, .link_inputs = in,
			       .entry = l->once.key };
	if (rc == 0)
		rc = jc_cl_recipe_encode(&r, 0, NULL, NULL, l->devs.n ? l->devs.v[0] : NULL, bytes,
					 size);
	for (cl_uint i = 0; in && i < l->ninputs; i++)
		free((void *)(uintptr_t)in[i].data);
	free(in);
	return rc;
}

static const struct jc_once_ops link_ops = { load_link, run_link, export_link, stored_link,
					      recipe_link, refuse_link };

/* An uncached link: the driver's, with the deferred compiles of its inputs
 * carried out, and programs built from the cache taking part as their
 * shadow, the program the driver built. */
static cl_program link_through(const struct link *l, jc_cl_notify_fn notify, void *user_data,
			       cl_int *err)
{
	cl_program *targets;
	if ((*err = link_targets(l, &targets)) != CL_SUCCESS)
		return NULL;
	cl_program linked = jc_cl_real()->real_clLinkProgram(l->context, l->req_ndev, l->req_devices,
							l->options, l->ninputs,
							targets ? targets : l->inputs, notify,
							user_data, err);
	free(targets);
	return linked;
}

JC_EXPORT cl_program clLinkProgram(cl_context context, cl_uint num_devices,
				   const cl_device_id *device_list, const char *options,
				   cl_uint num_input_programs, const cl_program *input_programs,
				   jc_cl_notify_fn pfn_notify, void *user_data,
				   cl_int *errcode_ret)
{
	const struct jc_cl_real *cl = jc_cl_entry();
	if (!cl) {
		if (errcode_ret)
			*errcode_ret = CL_INVALID_OPERATION;
		return NULL;
	}
	if (!jc_enter())
		return cl->real_clLinkProgram(context, num_devices, device_list, options,
					 num_input_programs, input_programs, pfn_notify,
					 user_data, errcode_ret);
	struct jc_cache *cache = jc_runtime_cache();
	struct link l = { .context = context, .options = options, .req_ndev = num_devices,
			  .req_devices = device_list, .ninputs = num_input_programs,
			  .inputs = input_programs,
			  .once = { .cache = cache, .what = "OpenCL link", .ops = &link_ops } };
	l.once.call = &l;
	const char *why = "user_data without pfn_notify";
	int keyed = cache && (pfn_notify || !user_data) && link_key(&l, &why) == 0;
	cl_int err = CL_SUCCESS;
	int status = CL_SUCCESS;
	if (keyed) {
		if (!jc_compile_once(&l.once, &status))
			err = (cl_int)status;
	} else {
		if (passed(cache, "clLinkProgram", why))
			err = CL_LINK_PROGRAM_FAILURE; /* JITCACHE_STRICT=error: no program */
		else
			l.linked = link_through(&l, pfn_notify, user_data, &err);
	}
	free(l.devs.v);
	jc_leave();
	if (keyed && pfn_notify && l.linked)
		jc_cl_call_notify(pfn_notify, l.linked, user_data);
	if (errcode_ret)
		*errcode_ret = err;
	return l.linked;
}
