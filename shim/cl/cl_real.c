/* The OpenCL loader's own functions (see cl_api.h), and two small helpers
 * every OpenCL file uses. */
#include "shim/cl/cl_api.h"
#include "shim/shim.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

/* Written under real_lock; read only once `complete` is published. */
static struct jc_cl_real real;
static int complete; /* every required function found */
static pthread_mutex_t real_lock = PTHREAD_MUTEX_INITIALIZER;

/* Take the whole table from `handle` (a dlsym handle or RTLD_NEXT) if it
 * has every required function, none of them jitcache's own: the functions
 * of one loader, never a mixture. */
static void fill_from(void *handle)
{
	struct jc_cl_real found;
	int all = 1;
#define X(name, ret, params, required)                                          \
	{                                                                       \
		void *p = jc_real_dlsym(handle, #name);                         \
		if (p && jc_is_ours(p))                                         \
			p = NULL;                                               \
		memcpy(&found.name, &p, sizeof p);                              \
		if (required && !p)                                             \
			all = 0;                                                \
	}
	JC_CL_FUNCTIONS(X)
#undef X
	if (!all)
		return;
	real = found;
	__atomic_store_n(&complete, 1, __ATOMIC_RELEASE);
}

/* The loader, wherever the application's own call would have gone:
 *  - RTLD_NEXT: a loader in the global scope (the program links it);
 *  - libOpenCL.so.1 loaded only in a local scope (a runtime that dlopen()s
 *    it, or a Python extension module that links it);
 *  - the caller's own object and its dependencies: a loader the caller
 *    links under another name, as manylinux wheels ship theirs
 *    (pyopencl's libOpenCL-5519dec5.so.1.0.0).
 * The handles are kept: jitcache calls into them for the process's life. */
static void look_up(const void *caller)
{
	fill_from(RTLD_NEXT);
	void *handle = NULL;
	if (!complete && (handle = dlopen("libOpenCL.so.1", RTLD_LAZY | RTLD_NOLOAD)))
		fill_from(handle);
	const char *file = caller && !complete ? jc_library_file_of(caller) : NULL;
	if (file && (handle = dlopen(file, RTLD_LAZY | RTLD_NOLOAD)))
		fill_from(handle);
}

const struct jc_cl_real *jc_cl_real_for(const void *caller)
{
	if (__atomic_load_n(&complete, __ATOMIC_ACQUIRE))
		return &real;
	pthread_mutex_lock(&real_lock);
	if (!complete)
		look_up(caller);
	pthread_mutex_unlock(&real_lock);
	if (complete)
		return &real;
	JC_LOG_ONCE(JC_LOG_WARN, "no OpenCL loader found after jitcache nor beside the "
				 "caller; OpenCL calls are not cached");
	return NULL;
}

const struct jc_cl_real *jc_cl_real(void)
{
	return jc_cl_real_for(NULL);
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
	if (!complete)
		fill_from(handle);
	pthread_mutex_unlock(&real_lock);
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
