// SPDX-License-Identifier: MIT
/*
 * compile_once.h — the miss path that Level Zero and OpenCL share:
 *
 *   get -> hit: load ............................................ answered
 *       -> miss: lock the key (another thread or process may be compiling it)
 *                -> recheck -> hit: load, unlock ................ answered
 *                           -> miss: compile, export, store, unlock
 *
 * Each API describes only its side, in three callbacks on its own call
 * (`call`): load a result from a stored entry, compile, and export what was
 * compiled as the bytes to store; a fourth writes its "stored" log line.
 *
 *   struct jc_once once = { .cache = cache, .key = key, .what = "zeModuleCreate",
 *                           .ops = &ze_once_ops, .call = &c };
 *   int status;
 *   if (jc_compile_once(&once, &status)) ...answered from the cache...
 *   else return status;                      // what compile() returned
 *
 * Counting (cache.h): each request counts one hit or one miss.  The first
 * lookup counts; a hit on the recheck after waiting for the lock takes that
 * miss back; an entry that load() rejects is dropped and its hit becomes a
 * miss (jc_cache_reject).  An entry that load() could not use for reasons of
 * its own (JC_LOAD_FAILED: out of memory) stays, and the request compiles.
 *
 * compile() returns the API's status and says in *built whether the result
 * is there to store now (JC_BUILT_NOW), is not (JC_BUILT_FAILED), or will be
 * later (JC_BUILT_LATER: an OpenCL build with pfn_notify), or was compiled
 * from a file the key covers that changed while the compiler read it
 * (JC_BUILT_CHANGED: the key computed again after the compile differs; the
 * result stands for the caller, nothing is stored, and the miss is counted
 * and recorded with that cause: jc_cache_note_changed).  The request
 * (cache.h's struct jc_request: the key, what each tier answered, the lock
 * and the remote lease, the miss's cause) is made by the first lookup and
 * carried through lock, recheck, store and unlock; in JC_BUILT_LATER's
 * case compile() takes it over (moves it: a copy of *request is now the
 * one), and whoever finishes the build, on whatever thread, calls
 * jc_once_store() with it if it succeeded, then jc_request_end() (so the
 * store of the value still releases the remote lease in the same request).
 * Otherwise this file stores and ends it.  After an entry is stored, the
 * request's recipe is stored beside it (cache.h "Recipes").
 *
 * The JIT monitor (the strict setting, a log level): at warn (or info,
 * debug) each miss that is final is said in one line, naming the program,
 * the API, the key and the cause as `jitcache explain` does; at error the
 * request is refused instead of compiled (refuse() below), so that a CI job
 * can prove a pack or layer holds every kernel a model needs.  Hits are
 * untouched either way.
 * Nothing else here fails the request: a store that fails only costs the
 * next process a compile.
 */
#ifndef JITCACHE_SHIM_COMPILE_ONCE_H
#define JITCACHE_SHIM_COMPILE_ONCE_H

#include <stddef.h>
#include <stdint.h>

#include "cache/cache.h"

enum jc_load { JC_LOADED, JC_LOAD_REJECTED, JC_LOAD_FAILED };
enum jc_built { JC_BUILT_NOW, JC_BUILT_FAILED, JC_BUILT_LATER, JC_BUILT_CHANGED };

struct jc_once_ops {
	/* Answer the request from entry; log the hit, or why it is rejected. */
	enum jc_load (*load)(void *call, const struct jc_entry *entry);
	int (*compile)(void *call, struct jc_request *request, enum jc_built *built);
	/* 0 and *bytes (malloc'd, freed by the caller) to store; -1 if none. */
	int (*export)(void *call, void **bytes, size_t *size);
	/* One debug line: stored `size` bytes, compiled in compile_ns. */
	void (*stored)(void *call, size_t size, uint64_t compile_ns, uint64_t store_ns);
	/* The request as a recipe (key/recipe.h), stored beside the entry when
	 * the recipes setting is on: 0 and *bytes (malloc'd, freed by the
	 * caller); -1 if none.  May be NULL. */
	int (*recipe)(void *call, void **bytes, size_t *size);
	/* JITCACHE_STRICT=error: fail the request, without compiling, the way
	 * the driver fails a build that does not compile, with `why` (one
	 * line) as its build log where the API can carry it; returns the API's
	 * status.  Nothing is stored: the next run without the setting
	 * compiles. */
	int (*refuse)(void *call, const char *why);
};

struct jc_once {
	struct jc_cache *cache;
	struct jc_key key;
	char hex[2 * JC_KEY_BYTES + 1]; /* filled by jc_compile_once */
	const char *what;               /* how the request came, for log lines */
	const struct jc_once_ops *ops;
	void *call;
	struct jc_request *request; /* jc_compile_once()'s while it runs; for a store
				       after it (JC_BUILT_LATER), the one compile()
				       took over; NULL: a store of its own */
};

/* A stored native binary the driver loads only by recompiling it is no hit:
 * Intel's driver rebuilds a module or program from the IR its binary
 * carries when the binary does not fit the device or driver (another
 * stepping of the GPU, say), taking the time of a compile, and says so in
 * the build log (NEO's CompilerWarnings::recompiledFromIr).  load() reads
 * that log, with JC_NO_RECOMPILED_WARNING taken out of the options it loads
 * with (an application's way to silence the warning; NEO takes it out of
 * the options before IGC sees them), and rejects the entry:
 *
 *   char *own = jc_keep_recompiled_warning(options, &failed);  // NULL: as is
 *   ...load with own ? own : options...
 *   if (jc_recompiled_from_ir(log, log_size)) ...JC_LOAD_REJECTED...
 */
#define JC_RECOMPILED_FROM_IR "[-Wrecompiled-from-ir]"
#define JC_NO_RECOMPILED_WARNING "-Wno-recompiled-from-ir"

int jc_recompiled_from_ir(const char *log, size_t size);
/* A copy of options without JC_NO_RECOMPILED_WARNING, malloc'd; NULL if
 * they do not have it, or (with *failed set) if out of memory. */
char *jc_keep_recompiled_warning(const char *options, int *failed);

/* The JIT monitor for a compile the shim would hand to the driver uncached
 * (a request it cannot key; OpenCL's separate compile and link steps it
 * cannot key): with the strict setting at warn, one warning naming the
 * program, `what` and `why`, and 0; at error, one error line and 1: the
 * caller fails the request as a build that does not compile (no pack
 * could answer it, and the JIT at run time is what the setting exists to
 * catch); off, 0. */
int jc_strict_passed(const char *what, const char *why);

/* 1 if the request was answered from the cache; 0 after compile(), whose
 * status is in *status. */
int jc_compile_once(struct jc_once *once, int *status);

/* Export what was compiled and store it under once's key, with the
 * compile's times: jc_compile_once() records the compiling thread's CPU
 * time (at most its wall time: what a hit saves the machine, not what a
 * busy machine made it last) and the wall time (what the caller waited). */
void jc_once_store(const struct jc_once *once, uint64_t cpu_ns, uint64_t wall_ns);

#endif
