// SPDX-License-Identifier: MIT
/* Application program handle -> what jitcache knows of it (see
 * cl_program_map.h): chained hash tables of programs, by the application's
 * handle and by the shadow's, and of the kernels made through them, under
 * one mutex.  Each starts with 256 chains and doubles them whenever it
 * holds more than two entries a chain (a program that keeps thousands of
 * programs or kernels alive); a table that cannot grow (no memory) keeps
 * working with longer chains. */
#include "shim/cl/cl_program_map.h"
#include "shim/cl/cl_pocl.h"
#include "shim/shim.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FIRST_CHAINS 256

/* A kernel made through an application's program handle, or cloned from
 * one, and the application's own references to it. */
struct kernel_ref {
	cl_kernel kernel;
	struct jc_cl_program *rec;
	cl_uint refs;
	struct kernel_ref *next;
};

/* One table: the heads of its chains (a power of two of them), and where
 * an entry keeps its handle and its link to the next of its chain. */
struct table {
	void **chain;
	size_t chains, entries;
	size_t key_at, next_at;      /* offsets in an entry */
	int key_in_shadow;           /* the key is entry->shadow->program */
	void *first[FIRST_CHAINS];
};
#define TABLE(type, key, next)                                                  \
	{ .chain = NULL, .chains = FIRST_CHAINS, .key_at = offsetof(type, key),   \
	  .next_at = offsetof(type, next) }
static struct table by_app = TABLE(struct jc_cl_program, app, next_app);
static struct table by_shadow = { .chains = FIRST_CHAINS, .key_in_shadow = 1,
				  .next_at = offsetof(struct jc_cl_program, next_shadow) };
static struct table by_kernel = TABLE(struct kernel_ref, kernel, next);
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int records;  /* lets programs jitcache never saw skip the lock */

static void **heads(struct table *t)
{
	return t->chain ? t->chain : t->first;
}

static void *key_of(const struct table *t, const void *entry)
{
	if (t->key_in_shadow)
		return ((const struct jc_cl_program *)entry)->shadow->program;
	void *key;
	memcpy(&key, (const char *)entry + t->key_at, sizeof key);
	return key;
}

static void **next_of(const struct table *t, void *entry)
{
	return (void **)((char *)entry + t->next_at);
}

static size_t chain_of(const struct table *t, const void *handle)
{
	uint64_t h = (uint64_t)(uintptr_t)handle;
	h ^= h >> 33; /* handles are aligned pointers: mix every bit in */
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return (size_t)h & (t->chains - 1);
}

/* The head of handle's chain in t. */
static void **head(struct table *t, const void *handle)
{
	return &heads(t)[chain_of(t, handle)];
}

/* One more entry: twice the chains once there are more than two a chain. */
static void counted_in(struct table *t)
{
	if (++t->entries <= 2 * t->chains || t->chains > SIZE_MAX / 4 / sizeof(void *))
		return;
	size_t old = t->chains;
	void **from = heads(t), **to = calloc(2 * old, sizeof *to);
	if (!to)
		return;
	t->chains = 2 * old;
	for (size_t c = 0; c < old; c++)
		for (void *e = from[c], *next; e; e = next) {
			next = *next_of(t, e);
			void **at = &to[chain_of(t, key_of(t, e))];
			*next_of(t, e) = *at;
			*at = e;
		}
	if (t->chain)
		free(t->chain);
	t->chain = to;
}

static int none(void)
{
	return __atomic_load_n(&records, __ATOMIC_ACQUIRE) == 0;
}

static struct jc_cl_program *find_app(cl_program app)
{
	struct jc_cl_program *p = *head(&by_app, app);
	while (p && p->app != app)
		p = p->next_app;
	return p;
}

static struct jc_cl_program *find_shadow(cl_program shadow)
{
	struct jc_cl_program *p = *head(&by_shadow, shadow);
	while (p && p->shadow->program != shadow)
		p = p->next_shadow;
	return p;
}

static void unlink_shadow(struct jc_cl_program *rec)
{
	if (!rec->shadow || !rec->shadow->program) /* a failure is not linked */
		return;
	struct jc_cl_program **at = (struct jc_cl_program **)head(&by_shadow, rec->shadow->program);
	while (*at != rec)
		at = &(*at)->next_shadow;
	*at = rec->next_shadow;
	by_shadow.entries--;
}

static struct kernel_ref **kernel_at(cl_kernel kernel)
{
	struct kernel_ref **at = (struct kernel_ref **)head(&by_kernel, kernel);
	while (*at && (*at)->kernel != kernel)
		at = &(*at)->next;
	return at;
}

/* Forget the kernels still counted for `rec`. */
static void forget_kernels(struct jc_cl_program *rec)
{
	void **chain = heads(&by_kernel);
	for (size_t c = 0; c < by_kernel.chains && rec->kernels > 0; c++)
		for (struct kernel_ref **at = (struct kernel_ref **)&chain[c]; *at;) {
			struct kernel_ref *k = *at;
			if (k->rec != rec) {
				at = &k->next;
				continue;
			}
			*at = k->next;
			free(k);
			by_kernel.entries--;
			rec->kernels--;
		}
}

/* The kernels still counted for a real build, handed to cl_pocl.h when
 * the application lets go of the program (with the lock held). */
static void hand_kernels(struct jc_cl_program *rec)
{
	if (!jc_pocl_watched(rec->app))
		return;
	void **chain = heads(&by_kernel);
	for (size_t c = 0; c < by_kernel.chains; c++)
		for (struct kernel_ref *k = chain[c]; k; k = k->next)
			if (k->rec == rec)
				jc_pocl_kernel_held(rec->app, k->kernel, k->refs);
}

/* Take a record out of the map, with the kernels still counted for it (a
 * record goes with none left, unless it was stale or made no shadow). */
static void unlink_app(struct jc_cl_program *rec)
{
	unlink_shadow(rec);
	forget_kernels(rec);
	struct jc_cl_program **at = (struct jc_cl_program **)head(&by_app, rec->app);
	while (*at != rec)
		at = &(*at)->next_app;
	*at = rec->next_app;
	by_app.entries--;
	__atomic_sub_fetch(&records, 1, __ATOMIC_RELEASE);
}

static void add_kernel(struct jc_cl_program *rec, cl_kernel kernel)
{
	struct kernel_ref **at = kernel_at(kernel), *k = *at;
	int added = 0;
	if (k) /* a handle the driver reused after a release jitcache missed */
		k->rec->kernels--;
	else if (!(k = calloc(1, sizeof *k)))
		return; /* not counted: the record then may go before the kernel */
	else
		*at = k, added = 1;
	k->kernel = kernel;
	k->rec = rec;
	k->refs = 1;
	rec->kernels++;
	if (added)
		counted_in(&by_kernel);
}

static cl_uint ref_count(cl_program program)
{
	cl_uint n = 0;
	jc_cl_real()->real_clGetProgramInfo(program, CL_PROGRAM_REFERENCE_COUNT, sizeof n, &n, NULL);
	return n;
}

void jc_cl_shadow_free(struct jc_cl_shadow *shadow)
{
	if (!shadow)
		return;
	if (shadow->program) {
		/* done with: its last kernel is gone, its commands may be queued */
		jc_pocl_release_later(shadow->program);
		jc_cl_real()->real_clReleaseProgram(shadow->program);
	}
	free(shadow->pending);
	free(shadow->given);
	for (cl_uint i = 0; shadow->logs && i < shadow->ndev; i++)
		free(shadow->logs[i]);
	free(shadow->logs);
	free(shadow->log_sizes);
	for (cl_uint i = 0; i < shadow->nheaders; i++) {
		if (shadow->headers && shadow->headers[i])
			jc_cl_real()->real_clReleaseProgram(shadow->headers[i]);
		if (shadow->header_names)
			free(shadow->header_names[i]);
	}
	free(shadow->headers);
	free(shadow->header_names);
	for (cl_uint i = 0; i < shadow->nkernels; i++) {
		if (shadow->kernel_names)
			free(shadow->kernel_names[i]);
		if (shadow->attributes)
			free(shadow->attributes[i]);
	}
	free(shadow->kernel_names);
	free(shadow->attributes);
	free(shadow->devices);
	free(shadow->options);
	free(shadow);
}

/* Release what an unlinked record holds: called without the lock. */
static void finish(struct jc_cl_program *rec, int release_app)
{
	jc_cl_shadow_free(rec->shadow);
	if (release_app)
		jc_cl_real()->real_clReleaseProgram(rec->app);
	jc_cl_input_free(&rec->input);
	free(rec->compile_recipe);
	free(rec);
}

int jc_clmap_add(cl_program app, struct jc_cl_input *input)
{
	struct jc_cl_program *rec = calloc(1, sizeof *rec);
	if (!rec) {
		jc_cl_input_free(input);
		return -1;
	}
	rec->app = app;
	rec->input = *input;
	rec->app_refs = 1;
	pthread_mutex_lock(&lock);
	/* A record left for a handle the driver has since reused is stale. */
	struct jc_cl_program *stale = find_app(app);
	if (stale)
		unlink_app(stale);
	struct jc_cl_program **at = (struct jc_cl_program **)head(&by_app, app);
	rec->next_app = *at;
	*at = rec;
	counted_in(&by_app);
	__atomic_add_fetch(&records, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&lock);
	if (stale)
		finish(stale, 0);
	return 0;
}

struct jc_cl_program *jc_clmap_find(cl_program app)
{
	if (none())
		return NULL;
	pthread_mutex_lock(&lock);
	struct jc_cl_program *rec = find_app(app);
	pthread_mutex_unlock(&lock);
	return rec;
}

cl_program jc_clmap_target(cl_program app)
{
	if (none())
		return app;
	pthread_mutex_lock(&lock);
	struct jc_cl_program *rec = find_app(app);
	cl_program target = rec && rec->shadow && rec->shadow->program ? rec->shadow->program
								       : app;
	pthread_mutex_unlock(&lock);
	return target;
}

cl_program jc_clmap_app_of(cl_program program)
{
	if (none())
		return program;
	pthread_mutex_lock(&lock);
	struct jc_cl_program *rec = find_shadow(program);
	cl_program app = rec ? rec->app : program;
	pthread_mutex_unlock(&lock);
	return app;
}

int jc_clmap_has_kernels(cl_program app)
{
	pthread_mutex_lock(&lock);
	struct jc_cl_program *rec = find_app(app);
	int busy = rec && rec->kernels > 0;
	pthread_mutex_unlock(&lock);
	return busy;
}

int jc_clmap_empty(void)
{
	return none();
}

void jc_clmap_kernels_made(cl_program app, const cl_kernel *kernels, cl_uint n)
{
	if (none() || n == 0)
		return;
	pthread_mutex_lock(&lock);
	struct jc_cl_program *rec = find_app(app);
	for (cl_uint i = 0; rec && i < n; i++)
		if (kernels[i])
			add_kernel(rec, kernels[i]);
	pthread_mutex_unlock(&lock);
}

void jc_clmap_kernel_cloned(cl_kernel source, cl_kernel clone)
{
	if (none() || !clone)
		return;
	pthread_mutex_lock(&lock);
	struct kernel_ref *k = *kernel_at(source);
	if (k)
		add_kernel(k->rec, clone);
	pthread_mutex_unlock(&lock);
}

cl_int jc_clmap_kernel_retain(cl_kernel kernel)
{
	const struct jc_cl_real *cl = jc_cl_real();
	if (none())
		return cl->real_clRetainKernel(kernel);
	pthread_mutex_lock(&lock);
	cl_int err = cl->real_clRetainKernel(kernel);
	struct kernel_ref *k = *kernel_at(kernel);
	if (k && err == CL_SUCCESS)
		k->refs++;
	pthread_mutex_unlock(&lock);
	return err;
}

/* The application's last reference to a kernel goes: its entry goes first,
 * before the driver may free the handle for another thread's new kernel,
 * and its record after it, once the application holds neither the
 * program nor any of its kernels. */
cl_int jc_clmap_kernel_release(cl_kernel kernel)
{
	const struct jc_cl_real *cl = jc_cl_real();
	if (none()) {
		jc_pocl_kernel_release(kernel); /* its program let go of (cl_pocl.h) */
		return cl->real_clReleaseKernel(kernel);
	}
	struct jc_cl_program *done = NULL;
	pthread_mutex_lock(&lock);
	struct kernel_ref **at = kernel_at(kernel), *k = *at;
	if (!k) /* one whose program the application let go of (cl_pocl.h) */
		jc_pocl_kernel_release(kernel);
	if (k && --k->refs == 0) {
		*at = k->next;
		struct jc_cl_program *rec = k->rec;
		free(k);
		by_kernel.entries--;
		if (--rec->kernels == 0 && rec->app_refs == 0) {
			unlink_app(rec);
			done = rec;
		}
	}
	pthread_mutex_unlock(&lock);
	cl_int err = cl->real_clReleaseKernel(kernel);
	if (done)
		finish(done, 1);
	return err;
}

void jc_clmap_set_shadow(cl_program app, struct jc_cl_shadow *shadow)
{
	pthread_mutex_lock(&lock);
	struct jc_cl_program *rec = find_app(app);
	struct jc_cl_shadow *old = shadow;
	if (rec) {
		old = rec->shadow;
		unlink_shadow(rec);
		rec->shadow = shadow;
		if (shadow && shadow->program) {
			struct jc_cl_program **at =
				(struct jc_cl_program **)head(&by_shadow, shadow->program);
			rec->next_shadow = *at;
			*at = rec;
			counted_in(&by_shadow);
		}
	}
	pthread_mutex_unlock(&lock);
	jc_cl_shadow_free(old);
}

int jc_clmap_build_log(cl_program app, cl_device_id device, size_t value_size,
		       void *value, size_t *size_ret, cl_int *err)
{
	if (none())
		return 0;
	int answered = 0;
	pthread_mutex_lock(&lock);
	struct jc_cl_program *rec = find_app(app);
	for (cl_uint i = 0; rec && rec->shadow && i < rec->shadow->ndev; i++)
		if (rec->shadow->devices[i] == device) {
			*err = jc_cl_answer(rec->shadow->logs[i], rec->shadow->log_sizes[i],
					    value_size, value, size_ret);
			answered = 1;
			break;
		}
	pthread_mutex_unlock(&lock);
	return answered;
}

void jc_clmap_set_compiled(cl_program app, const struct jc_key *key)
{
	if (none())
		return;
	pthread_mutex_lock(&lock);
	struct jc_cl_program *rec = find_app(app);
	void *old = NULL;
	if (rec) {
		rec->compiled = key != NULL;
		if (key)
			rec->compile_key = *key;
		if (!key) {
			old = rec->compile_recipe;
			rec->compile_recipe = NULL;
		}
	}
	pthread_mutex_unlock(&lock);
	free(old);
}

void jc_clmap_set_compile_recipe(cl_program app, void *bytes, size_t size)
{
	if (none()) {
		free(bytes);
		return;
	}
	pthread_mutex_lock(&lock);
	struct jc_cl_program *rec = find_app(app);
	void *old = bytes;
	if (rec && rec->compiled) {
		old = rec->compile_recipe;
		rec->compile_recipe = bytes;
		rec->compile_recipe_size = size;
	}
	pthread_mutex_unlock(&lock);
	free(old);
}

int jc_clmap_compile_recipe(cl_program app, void **bytes, size_t *size)
{
	if (none())
		return -1;
	pthread_mutex_lock(&lock);
	struct jc_cl_program *rec = find_app(app);
	int rc = -1;
	if (rec && rec->compiled && rec->compile_recipe &&
	    (*bytes = malloc(rec->compile_recipe_size))) {
		memcpy(*bytes, rec->compile_recipe, rec->compile_recipe_size);
		*size = rec->compile_recipe_size;
		rc = 0;
	}
	pthread_mutex_unlock(&lock);
	return rc;
}

int jc_clmap_compiled(cl_program app, struct jc_key *key)
{
	if (none())
		return 0;
	pthread_mutex_lock(&lock);
	struct jc_cl_program *rec = find_app(app);
	int compiled = rec && rec->compiled;
	if (compiled)
		*key = rec->compile_key;
	pthread_mutex_unlock(&lock);
	return compiled;
}

int jc_clmap_deferred(cl_program app)
{
	if (none())
		return 0;
	pthread_mutex_lock(&lock);
	struct jc_cl_program *rec = find_app(app);
	int deferred = rec && rec->shadow && (rec->shadow->deferred || rec->shadow->pending);
	pthread_mutex_unlock(&lock);
	return deferred;
}

struct jc_cl_shadow *jc_clmap_take_deferred(cl_program app)
{
	if (none())
		return NULL;
	pthread_mutex_lock(&lock);
	struct jc_cl_program *rec = find_app(app);
	struct jc_cl_shadow *d = rec && rec->shadow && (rec->shadow->deferred || rec->shadow->pending)
					 ? rec->shadow : NULL;
	if (d)
		rec->shadow = NULL; /* a shadow without a program is not in by_shadow */
	pthread_mutex_unlock(&lock);
	return d;
}

int jc_clmap_failed_build_info(cl_program app, cl_device_id device,
			       cl_program_build_info param, size_t value_size, void *value,
			       size_t *size_ret, cl_int *err)
{
	if (none())
		return 0;
	int answered = 0;
	pthread_mutex_lock(&lock);
	struct jc_cl_program *rec = find_app(app);
	struct jc_cl_shadow *f = rec && rec->shadow && (rec->shadow->failed || rec->shadow->deferred ||
							 rec->shadow->pending)
					 ? rec->shadow : NULL;
	for (cl_uint i = 0; f && i < f->ndev && !answered; i++) {
		if (f->devices[i] != device)
			continue;
		cl_build_status status = f->failed ? CL_BUILD_ERROR : CL_BUILD_SUCCESS;
		cl_program_binary_type type = f->pending ? CL_PROGRAM_BINARY_TYPE_EXECUTABLE
							 : CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT;
		answered = 1;
		if (param == CL_PROGRAM_BUILD_STATUS)
			*err = jc_cl_answer(&status, sizeof status, value_size, value, size_ret);
		else if (param == CL_PROGRAM_BUILD_OPTIONS)
			*err = jc_cl_answer(f->options, strlen(f->options) + 1, value_size, value,
					    size_ret);
		else if (param == CL_PROGRAM_BINARY_TYPE && !f->failed)
			*err = jc_cl_answer(&type, sizeof type, value_size, value, size_ret);
		else
			answered = 0;
	}
	pthread_mutex_unlock(&lock);
	return answered;
}

int jc_clmap_pending_binaries(cl_program app, cl_program_info param, size_t value_size,
			      void *value, size_t *size_ret, cl_int *err)
{
	if (none() || (param != CL_PROGRAM_BINARY_SIZES && param != CL_PROGRAM_BINARIES))
		return 0;
	pthread_mutex_lock(&lock);
	struct jc_cl_program *rec = find_app(app);
	struct jc_cl_shadow *s = rec && rec->shadow && rec->shadow->pending && rec->shadow->given &&
					 rec->shadow->ndev == 1
				 ? rec->shadow : NULL;
	if (s && param == CL_PROGRAM_BINARY_SIZES) {
		*err = jc_cl_answer(&s->given_size, sizeof s->given_size, value_size, value, size_ret);
	} else if (s) { /* an array of one pointer, to memory the application gave */
		unsigned char *to = NULL;
		*err = CL_SUCCESS;
		if (value && value_size < sizeof to)
			*err = CL_INVALID_VALUE;
		else if (value)
			memcpy(&to, value, sizeof to);
		if (to)
			memcpy(to, s->given, s->given_size);
		if (size_ret && *err == CL_SUCCESS)
			*size_ret = sizeof to;
	}
	pthread_mutex_unlock(&lock);
	return s != NULL;
}

int jc_clmap_kernel_attributes(cl_kernel kernel, const char *name, size_t value_size,
			       void *value, size_t *size_ret, cl_int *err)
{
	if (none())
		return 0;
	int answered = 0;
	pthread_mutex_lock(&lock);
	struct kernel_ref *k = *kernel_at(kernel);
	const struct jc_cl_shadow *s = k && k->rec->shadow && k->rec->shadow->kernels_known
					       ? k->rec->shadow : NULL;
	for (cl_uint i = 0; s && i < s->nkernels && !answered; i++)
		if (strcmp(s->kernel_names[i], name) == 0) {
			*err = jc_cl_answer(s->attributes[i], strlen(s->attributes[i]) + 1,
					    value_size, value, size_ret);
			answered = 1;
		}
	pthread_mutex_unlock(&lock);
	return answered;
}

int jc_clmap_ref_count(cl_program app, cl_uint *count)
{
	if (none())
		return 0;
	pthread_mutex_lock(&lock);
	struct jc_cl_program *rec = find_app(app);
	int answered = rec && rec->shadow && rec->shadow->program;
	if (answered)
		*count = rec->app_refs + ref_count(rec->shadow->program) - 1;
	pthread_mutex_unlock(&lock);
	return answered;
}

/* While the record exists, the driver's count of the application's program
 * is the application's references, or the map's one while it has none. */
cl_int jc_clmap_retain(cl_program app)
{
	const struct jc_cl_real *cl = jc_cl_real();
	if (none())
		return cl->real_clRetainProgram(app);
	pthread_mutex_lock(&lock);
	struct jc_cl_program *rec = find_app(app);
	cl_int err = CL_SUCCESS;
	if (!rec || rec->app_refs > 0)
		err = cl->real_clRetainProgram(app);
	if (rec && err == CL_SUCCESS)
		rec->app_refs++;
	pthread_mutex_unlock(&lock);
	return err;
}

cl_int jc_clmap_release(cl_program app)
{
	const struct jc_cl_real *cl = jc_cl_real();
	if (none()) {
		jc_pocl_release(app); /* a linked program: its references are not counted */
		return cl->real_clReleaseProgram(app);
	}
	pthread_mutex_lock(&lock);
	struct jc_cl_program *rec = find_app(app);
	if (!rec) {
		pthread_mutex_unlock(&lock);
		jc_pocl_release(app);
		return cl->real_clReleaseProgram(app);
	}
	if (rec->app_refs > 1) {
		cl_int err = cl->real_clReleaseProgram(app);
		if (err == CL_SUCCESS)
			rec->app_refs--;
		pthread_mutex_unlock(&lock);
		return err;
	}
	if (rec->app_refs == 0) { /* the application holds no reference */
		pthread_mutex_unlock(&lock);
		return CL_INVALID_PROGRAM;
	}
	rec->app_refs = 0;
	/* Kernels of a real build hold the application's program in the
	 * driver themselves; those of a shadow need the record. */
	int keep = rec->kernels > 0 && rec->shadow && rec->shadow->program;
	/* A real build PoCL compiles for (cl_pocl.h) goes with its last
	 * kernel, its directory too with PoCL's cache off: cl_pocl.c counts
	 * its kernels from now on, to add what PoCL compiled before then. */
	if (!keep && rec->kernels > 0)
		hand_kernels(rec);
	int done = rec->kernels == 0;
	if (!keep)
		unlink_app(rec);
	pthread_mutex_unlock(&lock);
	if (done) /* commands queued with its kernels may still compile */
		jc_pocl_release_later(app);
	if (!keep)
		finish(rec, 1);
	return CL_SUCCESS;
}
