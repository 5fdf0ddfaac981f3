/* The OpenCL loader's own functions (see cl_api.h), the dlsym door for the
 * OpenCL entry points, and two small helpers every OpenCL file uses. */
#include "shim/cl_api.h"
#include "shim/exports.h"
#include "shim/shim.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

/* Written under real_lock; read only once `complete` is published. */
static struct jc_cl_real real;
static int complete; /* every required function found */
static pthread_mutex_t real_lock = PTHREAD_MUTEX_INITIALIZER;

/* Fill the missing entries by looking each name up on `handle`. */
static void fill_from(void *handle)
{
	int all = 1;
#define X(name, ret, params, required)                                          \
	if (!real.name) {                                                       \
		void *p = jc_real_dlsym(handle, #name);                         \
		memcpy(&real.name, &p, sizeof p);                               \
	}                                                                       \
	if (required && !real.name)                                             \
		all = 0;
	JC_CL_FUNCTIONS(X)
#undef X
	if (all)
		__atomic_store_n(&complete, 1, __ATOMIC_RELEASE);
}

/* RTLD_NEXT finds the loader when the program links it; a Python extension
 * module or a runtime that dlopen()s it has it only in a local scope, where
 * its soname still finds it once loaded. */
static void look_up(void)
{
	fill_from(RTLD_NEXT);
	if (complete)
		return;
	void *handle = dlopen("libOpenCL.so.1", RTLD_LAZY | RTLD_NOLOAD);
	if (handle)
		fill_from(handle); /* the handle is kept: jitcache calls into it */
}

const struct jc_cl_real *jc_cl_real(void)
{
	if (__atomic_load_n(&complete, __ATOMIC_ACQUIRE))
		return &real;
	pthread_mutex_lock(&real_lock);
	if (!complete)
		look_up();
	pthread_mutex_unlock(&real_lock);
	if (complete)
		return &real;
	JC_LOG_ONCE(JC_LOG_WARN, "OpenCL loader (libOpenCL.so.1) not found; OpenCL calls "
				 "are not cached");
	return NULL;
}

void jc_cl_real_from(const void *symbol)
{
	if (__atomic_load_n(&complete, __ATOMIC_ACQUIRE))
		return;
	const char *file = jc_library_file_of(symbol);
	void *handle = file ? dlopen(file, RTLD_LAZY | RTLD_NOLOAD) : NULL;
	if (!handle)
		return;
	pthread_mutex_lock(&real_lock);
	fill_from(handle);
	pthread_mutex_unlock(&real_lock);
}

/* ---- the dlsym door ---------------------------------------------------- */

/* The OpenCL entry points jitcache exports (shim/exports.h), by name.  Defined
 * in cl.c and cl_handles.c with the API's own prototypes from <CL/cl.h>. */
static const struct {
	const char *name;
	void *wrapper;
} wrapped[] = {
#define W_dl(name)
#define W_ze(name)
#define W_cl(name) { #name, (void *)name },
#define X(api, name) W_##api(name)
	JC_EXPORTS(X)
#undef X
#undef W_cl
#undef W_ze
#undef W_dl
};

/* Only the ICD loader's functions are wrapped.  An ICD loader itself looks up
 * the same names on each driver's handle (libpocl, libigdrcl): those lookups
 * are the loader's business and must reach the driver untouched. */
static int in_loader(const void *symbol)
{
	const char *file = jc_library_file_of(symbol);
	if (!file)
		return 0;
	const char *base = strrchr(file, '/');
	base = base ? base + 1 : file;
	return strncmp(base, "libOpenCL.so", 12) == 0;
}

void *jc_cl_dlsym_hook(const char *name, void *symbol)
{
	if (name[0] != 'c' || name[1] != 'l')
		return NULL;
	for (size_t i = 0; i < sizeof wrapped / sizeof *wrapped; i++) {
		if (strcmp(name, wrapped[i].name) != 0)
			continue;
		if (!in_loader(symbol))
			return NULL;
		jc_cl_real_from(symbol);
		return wrapped[i].wrapper;
	}
	return NULL;
}

/* ---- helpers ----------------------------------------------------------- */

cl_int jc_cl_answer(const void *src, size_t size, size_t value_size, void *value,
		    size_t *size_ret)
{
	if (value) {
		if (value_size < size)
			return CL_INVALID_VALUE;
		memcpy(value, src, size);
	}
	if (size_ret)
		*size_ret = size;
	return CL_SUCCESS;
}

void jc_cl_call_notify(jc_cl_notify_fn fn, cl_program program, void *user_data)
{
	int was_inside = !jc_enter();
	jc_leave();
	fn(program, user_data);
	if (was_inside)
		jc_enter();
}
