// SPDX-License-Identifier: MIT
/*
 * preload.h — the two libraries of jitcache and the one table between them.
 *
 * Every process of a user who leaves jitcache on maps the preloaded library
 * (libjitcache.so: shim/preload.c, shim/dlsym.c, shim/exec.c and
 * config/capture.c), so it holds only what must be there from the start:
 * the exports of shim/exports.h, glibc's real dlsym found relative to
 * itself, and the environment captured at start.  Everything else (the ze
 * and cl wrappers, the cache, its tiers, zstd, inih, xxHash, signing) is the
 * core, libjitcache-core.so.SONAME_MAJOR beside it (beside its real file,
 * if only root and its owner could have written it: shim/core_file.h),
 * which the preloaded library loads (RTLD_LOCAL, never unloaded) on the
 * first intercepted call: a call to a ze or cl export, or a dlsym() that
 * finds one of them in a library.  Its exports then jump straight to the
 * core's wrappers, with the caller's return address untouched.  No core is
 * loaded in a secure-execution process, nor by a second jitcache in one
 * process (shim/preload.c).
 *
 * The core exports one function, jc_core_attach, and gets from the
 * preloaded library what must be asked from its place in the process:
 * glibc's dlsym seen from it (RTLD_NEXT is "after the preloaded library",
 * as it was when jitcache was one library), which addresses are jitcache's,
 * and the captured environment.  Both sides are built from one tree: the
 * core refuses a table of another version (the preloaded library then says
 * so and passes every call through).
 */
#ifndef JITCACHE_PRELOAD_H
#define JITCACHE_PRELOAD_H

#include "config/capture.h"

#define JC_PRELOAD_ABI 1

/* The core's file, looked for in the preloaded library's directory: the
 * soname link of an installed or built library, else the plain name (the
 * wheel's lib/ has no soname links). */
#define JC_CORE_NAME "libjitcache-core.so"
#ifndef JC_CORE_FILE /* its soname: mk/build.mk sets it from the version */
#error "JC_CORE_FILE (the core's soname, libjitcache-core.so.N) is set by mk/build.mk"
#endif

/* What the preloaded library gives the core (shim.h's functions of the
 * same names, answered from the preloaded library's place). */
struct jc_preload {
	unsigned abi;
	const char *version; /* JC_VERSION */
	void *(*real_dlsym)(void *handle, const char *name);
	void *(*real_for_caller)(const void *caller, const char *name);
	int (*is_ours)(const void *address);
	const char *(*library_file_of)(const void *address);
	const struct jc_start_env *start_env;
};

/* What the core gives back. */
struct jc_core {
	/* The wrapper of each ze and cl export, in shim/exports.h's order
	 * (NULL for the others). */
	void *const *wrapper;
	/* shim.h's dlsym hooks, asked in turn: the wrapper to hand out for a
	 * lookup that found real, or NULL. */
	void *(*dlsym_hook)(const char *name, void *real);
	/* What an exec function does before the real one (tiers/remote.h). */
	void (*before_exec)(void);
};

/* The core's one export: NULL if preload is not of this build. */
const struct jc_core *jc_core_attach(const struct jc_preload *preload);
typedef const struct jc_core *(*jc_core_attach_fn)(const struct jc_preload *preload);

/* In the preloaded library: the core, loaded now if it was not (NULL if it
 * cannot be: said once on stderr); and whether it is loaded, without
 * loading it. */
const struct jc_core *jc_preload_core(void);
const struct jc_core *jc_preload_core_if_loaded(void);

/* The preloaded library's mark, exported (shim/exports.h): its version
 * line.  The copy whose mark a lookup in the global scope finds first is
 * the one jitcache that works in a process (shim/preload.c). */
const char *jitcache_preloaded(void);
/* The same function under a hidden name: its address is this copy's own,
 * to compare with the one the global scope finds. */
const char *jc_preloaded_here(void);

/* In the dlsym door (dlsym.c), given by the preloaded library's
 * constructor: hook(name, real), the door's answer for a lookup of name
 * that found real in a library (for a ze or cl name of shim/exports.h,
 * what the core's hooks hand out, loading the core; else real), and
 * in_core(address), whether address lies in the core. */
void jc_dlsym_use(void *(*hook)(const char *name, void *real), int (*in_core)(const void *address));

#endif
