// SPDX-License-Identifier: MIT
/*
 * The file door: access() and rename(), for the time PoCL takes to compile
 * a kernel's work-group function (cl_pocl.h).  PoCL looks for the function's
 * KERNEL.so with access() before it compiles it, on the thread that then
 * compiles it, and renames the finished file into place with rename(): the
 * thread's CPU time between the two is what the compile cost, and what an
 * entry holding that file saves the next process.  Both pass straight
 * through, with the program's arguments, result and errno; a process whose
 * core is not loaded (one that never called OpenCL) pays one load.  If a
 * real function cannot be found the call fails with ENOSYS.
 */
#include "shim/preload.h"
#include "shim/shim.h"

#include <dlfcn.h>
#include <errno.h>

/* Declared here, not from <unistd.h> and <stdio.h>, whose declarations say
 * the names are never NULL: a program's NULL reaches the real function
 * (EFAULT) and is then left alone here. */
int access(const char *path, int mode);
int rename(const char *from, const char *to);

typedef int (*access_fn)(const char *, int);
typedef int (*rename_fn)(const char *, const char *);

static void *real(void **slot, const char *name)
{
	void *fn = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
	if (!fn) {
		fn = jc_real_dlsym(RTLD_NEXT, name);
		__atomic_store_n(slot, fn, __ATOMIC_RELEASE);
	}
	if (!fn)
		errno = ENOSYS;
	return fn;
}

JC_EXPORT int access(const char *path, int mode)
{
	static void *slot;
	access_fn real_access = (access_fn)real(&slot, "access");
	if (!real_access)
		return -1;
	int r = real_access(path, mode);
	const struct jc_core *core = r != 0 && path ? jc_preload_core_if_loaded() : NULL;
	if (core) {
		int saved = errno;
		core->file_missing(path);
		errno = saved;
	}
	return r;
}

JC_EXPORT int rename(const char *from, const char *to)
{
	static void *slot;
	rename_fn real_rename = (rename_fn)real(&slot, "rename");
	if (!real_rename)
		return -1;
	int r = real_rename(from, to);
	const struct jc_core *core = r == 0 && to ? jc_preload_core_if_loaded() : NULL;
	if (core) {
		int saved = errno;
		core->file_renamed(to);
		errno = saved;
	}
	return r;
}
