// SPDX-License-Identifier: MIT
/* The core's side of preload.h: its one export, and shim.h's lookups
 * answered by the preloaded library, which alone sits where they must be
 * asked from (shim/dlsym.c). */
#include "shim/exports.h"
#include "shim/preload.h"
#include "shim/shim.h"
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

/* The wrappers of shim/ze and shim/cl, in shim/exports.h's order (NULL
 * for the stub's own exports): each API puts its own in the linker set of
 * JC_CORE_WRAPPER (shim.h), and they leave the core only through this
 * table (its version script keeps every name but jc_core_attach local). */
extern const struct jc_core_wrapper __start_jc_core_wrappers[]
	__attribute__((weak, visibility("hidden")));
extern const struct jc_core_wrapper __stop_jc_core_wrappers[]
	__attribute__((weak, visibility("hidden")));
#define X(api, name) #name,
static const char *const export_names[] = { JC_EXPORTS(X) };
#undef X
static void *wrappers[sizeof export_names / sizeof *export_names];

static void find_wrappers(void)
{
	for (size_t i = 0; i < sizeof export_names / sizeof *export_names; i++)
		for (const struct jc_core_wrapper *w = __start_jc_core_wrappers;
		     w < __stop_jc_core_wrappers; w++)
			if (strcmp(w->name, export_names[i]) == 0)
				wrappers[i] = w->fn;
}

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
	find_wrappers();
	jc_config_use_start_env(p->start_env);
	return &core;
}
