// SPDX-License-Identifier: MIT
/* The core's side of preload.h: its one export, and shim.h's lookups
 * answered by the preloaded library, which alone sits where they must be
 * asked from (shim/dlsym.c). */
#include "shim/cl/cl_api.h"
#include "shim/exports.h"
#include "shim/preload.h"
#include "shim/shim.h"
#include "shim/ze/ze_api.h"
#include "tiers/remote.h"

#include <string.h>

static const struct jc_preload *preload;

void *jc_real_dlsym(void *handle, const char *name)
{
	return preload->real_dlsym(handle, name);
}

void *jc_real_for_caller(const void *caller, const char *name)
{
	return preload->real_for_caller(caller, name);
}

int jc_is_ours(const void *address)
{
	return preload->is_ours(address);
}

const char *jc_library_file_of(const void *address)
{
	return preload->library_file_of(address);
}

/* The hooks of the APIs (JC_DLSYM_HOOK in shim.h), bounded by the linker. */
extern const jc_dlsym_hook_fn __start_jc_dlsym_hooks[] __attribute__((weak, visibility("hidden")));
extern const jc_dlsym_hook_fn __stop_jc_dlsym_hooks[] __attribute__((weak, visibility("hidden")));

static void *dlsym_hook(const char *name, void *real)
{
	for (const jc_dlsym_hook_fn *hook = __start_jc_dlsym_hooks; hook < __stop_jc_dlsym_hooks;
	     hook++) {
		void *wrapped = (*hook)(name, real);
		if (wrapped)
			return wrapped;
	}
	return NULL;
}

/* The wrappers of shim/ze and shim/cl, in shim/exports.h's order: each
 * defined there with JC_EXPORT, which leaves the core only through this
 * table (its version script keeps every name but jc_core_attach local). */
#define W_dl(name) NULL,
#define W_exec(name) NULL,
#define W_ze(name) (void *)name,
#define W_cl(name) (void *)name,
#define X(api, name) W_##api(name)
static void *const wrappers[] = { JC_EXPORTS(X) };
#undef X
#undef W_cl
#undef W_ze
#undef W_exec
#undef W_dl

static const struct jc_core core = {
	.wrapper = wrappers,
	.dlsym_hook = dlsym_hook,
	.before_exec = jc_remote_before_exec,
};

__attribute__((visibility("default"))) const struct jc_core *
jc_core_attach(const struct jc_preload *p)
{
	if (!p || p->abi != JC_PRELOAD_ABI || strcmp(p->version, JC_VERSION) != 0)
		return NULL;
	preload = p;
	jc_config_use_start_env(p->start_env);
	return &core;
}
