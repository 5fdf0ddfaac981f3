// SPDX-License-Identifier: MIT
/* The dlsym door for the OpenCL entry points (shim.h's JC_DLSYM_HOOK): a
 * lookup of one of the ICD loader's functions on a library handle is
 * answered with jitcache's wrapper, once the loader's own functions are
 * known (cl_real.c).  The one file of shim/cl/ that names the wrappers of
 * cl.c and cl_handles.c and the loader's functions of cl_real.c: it sits
 * above them all. */
#include "shim/cl/cl_api.h"
#include "shim/exports.h"
#include "shim/shim.h"

#include <string.h>

/* shim/exports.h's list, the OpenCL exports only: each block below says
 * what W_cl(name) (and W_clp(name), the ones returning a pointer) makes. */
#define W_dl(name)
#define W_ze(name)
#define W_exec(name)
#define X(api, name) W_##api(name)

/* The OpenCL entry points jitcache exports (shim/exports.h), by name.  Defined
 * in cl.c and cl_handles.c with the API's own prototypes from <CL/cl.h>. */
static const struct {
	const char *name;
	void *wrapper;
} wrapped[] = {
#define W_cl(name) { #name, (void *)name },
#define W_clp W_cl
	JC_EXPORTS(X)
#undef W_clp
#undef W_cl
};

/* Only the ICD loader's functions are wrapped, whatever a wheel renamed it
 * to (libOpenCL.so.1, libOpenCL-5519dec5.so.1.0.0).  An ICD loader itself
 * looks up the same names on each driver's handle (libpocl, libigdrcl):
 * those lookups are the loader's business and must reach the driver
 * untouched. */
static int in_loader(const void *symbol)
{
	const char *file = jc_library_file_of(symbol);
	if (!file)
		return 0;
	const char *base = strrchr(file, '/');
	base = base ? base + 1 : file;
	return strncmp(base, "libOpenCL", 9) == 0 && (base[9] == '.' || base[9] == '-');
}

static void *dlsym_hook(const char *name, void *symbol)
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
JC_DLSYM_HOOK(dlsym_hook);

/* The same wrappers, for the core's table of exports (shim/core.c). */
#define W_cl(name) JC_CORE_WRAPPER(name);
#define W_clp W_cl
JC_EXPORTS(X)
#undef W_clp
#undef W_cl

/* Each export's tag in shim/exports.h against its type in <CL/cl.h>: what
 * the preloaded library answers for one no driver has (shim/preload.c) is
 * CL_INVALID_OPERATION for cl and NULL for clp, and the wrong one would be
 * garbage to the caller.  A prototyped function is compatible with the
 * unprototyped type of the same return type (its parameters are none that
 * promotion changes), so _Generic tells cl_int from anything else. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#define RETURNS_CL_INT(name) _Generic(&name, cl_int (*)(): 1, default: 0)
#define W_cl(name) _Static_assert(RETURNS_CL_INT(name), #name ": tag it clp in shim/exports.h");
#define W_clp(name) _Static_assert(!RETURNS_CL_INT(name), #name ": tag it cl in shim/exports.h");
JC_EXPORTS(X)
#undef W_clp
#undef W_cl
#undef RETURNS_CL_INT
#pragma GCC diagnostic pop
