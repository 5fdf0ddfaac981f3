// SPDX-License-Identifier: MIT
/* The OpenCL loader's own functions (see cl_api.h), and two small helpers
 * every OpenCL file uses. */
#include "shim/cl/cl_api.h"
#include "shim/shim.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <string.h>

/* Written under real_lock; read only once `complete` is published. */
static struct jc_cl_real real;
static int complete; /* every required function found */
static pthread_mutex_t real_lock = PTHREAD_MUTEX_INITIALIZER;

/* jitcache holds no reference to the loader it found (a program that
 * dlclose()s its OpenCL stack unloads it), so a table taken from a loader
 * the program loaded itself is checked again after any object was unloaded:
 * the object it came from (base address and name) must still be there. */
static int pinned;                 /* from RTLD_NEXT: linked in, never unloaded */
static unsigned long long unloads; /* dlpi_subs when the table was last checked */
static void *loader_base;          /* the object the table came from */
static char loader_name[512];

static int count_unloads(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(unsigned long long *)data = info->dlpi_subs;
	return 1; /* the first object says it */
}

static unsigned long long unloads_now(void)
{
	unsigned long long n = 0;
	dl_iterate_phdr(count_unloads, &n);
	return n;
}

/* Where the table's functions live now: 0 with base and name filled. */
static int table_object(void **base, const char **name)
{
	Dl_info info;
	void *p;
	memcpy(&p, &real.real_clBuildProgram, sizeof p);
	if (!p || !dladdr(p, &info))
		return -1;
	*base = info.dli_fbase;
	*name = info.dli_fname ? info.dli_fname : "";
	return 0;
}

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
		memcpy(&found.real_##name, &p, sizeof p);                      \
		if (required && !p)                                             \
			all = 0;                                                \
	}
	JC_CL_FUNCTIONS(X)
#undef X
	if (!all)
		return;
	real = found;
	const char *name;
	pinned = handle == RTLD_NEXT;
	if (!pinned && table_object(&loader_base, &name) == 0)
		snprintf(loader_name, sizeof loader_name, "%s", name);
	__atomic_store_n(&complete, 1, __ATOMIC_RELEASE);
}

/* 1 if the table is still the loaded loader's (called with real_lock). */
static int still_loaded(unsigned long long now)
{
	void *base;
	const char *name;
	int same = table_object(&base, &name) == 0 && base == loader_base &&
		   strcmp(name, loader_name) == 0;
	unloads = now;
	if (!same)
		__atomic_store_n(&complete, 0, __ATOMIC_RELEASE);
	return same;
}

/* The table, if complete and its loader is still loaded. */
static int table_usable(void)
{
	if (!__atomic_load_n(&complete, __ATOMIC_ACQUIRE))
		return 0;
	if (pinned)
		return 1;
	unsigned long long now = unloads_now();
	if (now == __atomic_load_n(&unloads, __ATOMIC_ACQUIRE))
		return 1;
	pthread_mutex_lock(&real_lock);
	int usable = complete && (now == unloads || still_loaded(now));
	pthread_mutex_unlock(&real_lock);
	return usable;
}

/* The loader, wherever the application's own call would have gone:
 *  - RTLD_NEXT: a loader in the global scope (the program links it);
 *  - libOpenCL.so.1 loaded only in a local scope (a runtime that dlopen()s
 *    it, or a Python extension module that links it);
 *  - the caller's own object and its dependencies: a loader the caller
 *    links under another name, as manylinux wheels ship theirs
 *    (pyopencl's libOpenCL-5519dec5.so.1.0.0).
 * The references the RTLD_NOLOAD lookups take are given back: the program's
 * own keep the loader loaded while it uses it (table_usable() checks). */
static void look_up(const void *caller)
{
	unloads = unloads_now();
	fill_from(RTLD_NEXT);
	void *handle = NULL;
	if (!complete && (handle = dlopen("libOpenCL.so.1", RTLD_LAZY | RTLD_NOLOAD))) {
		fill_from(handle);
		dlclose(handle);
	}
	const char *file = caller && !complete ? jc_library_file_of(caller) : NULL;
	if (file && (handle = dlopen(file, RTLD_LAZY | RTLD_NOLOAD))) {
		fill_from(handle);
		dlclose(handle);
	}
}

const struct jc_cl_real *jc_cl_real_for(const void *caller)
{
	if (table_usable())
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
	if (table_usable())
		return;
	const char *file = jc_library_file_of(symbol);
	void *handle = file ? dlopen(file, RTLD_LAZY | RTLD_NOLOAD) : NULL;
	if (!handle)
		return;
	pthread_mutex_lock(&real_lock);
	if (!complete) {
		unloads = unloads_now();
		fill_from(handle);
	}
	pthread_mutex_unlock(&real_lock);
	dlclose(handle);
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
