// SPDX-License-Identifier: MIT
/*
 * shim.h — what every interposed entry point shares.
 *
 * The shim is the only part of jitcache that knows GPU APIs.  Each entry
 * point (shim/ze/ze.c for Level Zero, shim/cl/ for OpenCL) is thin: it unpacks
 * the call into a request (key/), and hands the cache question to the shared
 * miss path (shim/compile_once.h) with callbacks that load, compile and
 * export.  The shim does no file I/O.  This header gives them:
 *
 *   - the runtime: settings and the cache, set up once per process
 *     (jc_runtime_cache() returns NULL when caching is off or unusable, and
 *     the entry point then passes the call straight through);
 *   - the per-thread "inside jitcache" guard, so that a call arriving through
 *     two doors (a loader wrapper calling a driver wrapper, or jitcache's own
 *     calls into the driver) is looked up and stored once;
 *   - the real dlsym, and the hook through which lookups on library handles
 *     are answered with jitcache's wrappers (shim/dlsym.c);
 *   - JC_EXPORT, the one way a symbol leaves the library (each one also
 *     listed in shim/exports.h).
 *
 * jitcache is two libraries (shim/preload.h): the small preloaded one
 * (preload.c, dlsym.c, exec.c) and the core it loads on the first
 * intercepted call (everything else).  The ze and cl functions defined
 * here with JC_EXPORT live in the core and stay local to it: the
 * preloaded library's export of the same name jumps to them.  The
 * lookups below are answered by the preloaded library in both (the
 * core's are calls through preload.h's table, shim/core.c), so that
 * RTLD_NEXT still means "after the preloaded library".
 */
#ifndef JITCACHE_SHIM_H
#define JITCACHE_SHIM_H

#include <stdint.h>

#include "cache/cache.h"
#include "config/config.h"
#include "config/log.h"

#define JC_EXPORT __attribute__((visibility("default")))

/* Settings and cache, initialised once (thread-safe), on the first call
 * that needs them: never at load (idle is free: shim/runtime.c).
 * jc_runtime_config() reads the settings only; jc_runtime_cache() also
 * opens the cache directory, the layers and the remotes. */
const struct jc_config *jc_runtime_config(void);
struct jc_cache *jc_runtime_cache(void);

/* Returns 1 and marks this thread as inside jitcache if it was not already;
 * returns 0 if it was (the caller must then pass straight through and must
 * not call jc_leave()). */
int jc_enter(void);
void jc_leave(void);

/* Compile times are measured with config/clock.h's clocks. */

/* glibc's own dlsym, bypassing jitcache's interposed one. */
void *jc_real_dlsym(void *handle, const char *name);

/* The definition of `name` that a call from address `caller` would have
 * reached without jitcache: the next one after jitcache in the global scope,
 * else the one in the caller's own scope.  The latter matters because a
 * library dlopen()ed with RTLD_LOCAL (a loader calling its own exports, a
 * runtime adapter linked to a privately loaded loader) still has its calls
 * bound to jitcache's global exports.  NULL if there is none. */
void *jc_real_for_caller(const void *caller, const char *name);

/* Whether address lies in one of jitcache's libraries (an export of the
 * preloaded one, or a wrapper of the core). */
int jc_is_ours(const void *address);

/* The file name of the loaded object that holds address, as dladdr() gives
 * it (valid while that object stays loaded), or
 * NULL.  A handle for jc_real_dlsym() is then dlopen(file, RTLD_NOLOAD):
 * the object's link map alone is not one (glibc sets up the search list of
 * a library loaded at start-up only when it is dlopen()ed). */
const char *jc_library_file_of(const void *address);

/* Called by the interposed dlsym for every successful lookup on a handle:
 * return the wrapper to hand out instead of `real`, or NULL to leave the
 * lookup alone.  Each API (shim/ze/, shim/cl/) puts its own in the library's
 * table of hooks with JC_DLSYM_HOOK(fn): a linker set (the section
 * jc_dlsym_hooks, which the linker bounds with __start_ and __stop_
 * symbols), so the dlsym door asks every API without calling up into any,
 * and the table is there before any code of the library has run. */
typedef void *(*jc_dlsym_hook_fn)(const char *name, void *real);
#define JC_DLSYM_HOOK(fn)                                                        \
	__attribute__((used, section("jc_dlsym_hooks"))) static const jc_dlsym_hook_fn \
		jc_dlsym_hook_of_##fn = fn

/* The core's table of the exported wrappers (shim/core.c, preload.h) is
 * filled the same way: each API puts each of its exports (shim/exports.h)
 * in the linker set jc_core_wrappers with JC_CORE_WRAPPER(name), in the
 * file of its own that names them all, so that core.c calls up into
 * neither API. */
struct jc_core_wrapper {
	const char *name;
	void *fn;
};
#define JC_CORE_WRAPPER(name)                                                          \
	__attribute__((used, section("jc_core_wrappers"))) static const struct jc_core_wrapper \
		jc_core_wrapper_of_##name = { #name, (void *)name }

#endif
