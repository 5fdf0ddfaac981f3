// SPDX-License-Identifier: MIT
/* The per-process state behind shim.h: settings, the cache, the recursion
 * guard and the exit summary. */
#include "shim/shim.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

/* Which jitcache a process runs (the preloaded library has the same line). */
/* retain: kept by the linker's --gc-sections too, though nothing reads it. */
#if defined(__has_attribute) && __has_attribute(retain)
__attribute__((used, retain)) static const char version[] = "jitcache " JC_VERSION;
#else
__attribute__((used)) static const char version[] = "jitcache " JC_VERSION;
#endif

static struct jc_config config;
static struct jc_cache *cache;
static pthread_once_t config_once = PTHREAD_ONCE_INIT, cache_once = PTHREAD_ONCE_INIT;
static __thread int inside;

static void config_init(void)
{
	jc_config_load(&config);
	if (config.disable)
		jc_log(JC_LOG_INFO, "disabled by configuration (%s)", config.disable_from);
}

static void cache_init(void)
{
	pthread_once(&config_once, config_init);
	if (config.disable)
		return;
	struct jc_cache_options opts =
		jc_cache_options_from_config(&config, JC_OPTIONS_LAYERS | JC_OPTIONS_REMOTE);
	struct jc_cache *c = jc_cache_open(&opts);
	/* jc_cache_open() said why if it failed; every call now passes through. */
	__atomic_store_n(&cache, c, __ATOMIC_RELEASE);
}

/* Idle is free: nothing here runs at load.  This is the core
 * (shim/preload.h), loaded on the first intercepted call; what must be
 * fixed at start was captured then by the preloaded library
 * (shim/preload.c) and is read from its copy (config/capture.h). */

const struct jc_config *jc_runtime_config(void)
{
	pthread_once(&config_once, config_init);
	return &config;
}

struct jc_cache *jc_runtime_cache(void)
{
	pthread_once(&cache_once, cache_init);
	return cache;
}

int jc_enter(void)
{
	if (inside)
		return 0;
	inside = 1;
	return 1;
}

void jc_leave(void)
{
	inside = 0;
}

/* At exit: with stats_log, this process's counts are appended to it; and
 * one summary line is printed, only when asked for (JITCACHE_LOG=info).
 * Every count reached the shared statistics as it happened (a process
 * killed by a signal loses none).  This frees and cleans nothing, so it is
 * safe however the host exits. */
__attribute__((destructor)) static void runtime_at_exit(void)
{
	struct jc_cache *c = __atomic_load_n(&cache, __ATOMIC_ACQUIRE);
	if (!c)
		return;
	jc_cache_flush(c); /* counts a busy lock kept back (count.c) */
	struct jc_cache_stats s;
	jc_cache_process_stats(c, &s);
	if (config.stats_log[0] && s.hits + s.misses + s.stores)
		jc_cache_stats_log(c, config.stats_log);
	uint64_t passed = s.passed_native + s.passed_compile_link + s.passed_not_keyable;
	if (!jc_log_enabled(JC_LOG_INFO) || s.hits + s.misses + s.stores + passed == 0)
		return;
	/* Every store is made before the call that compiled returns: none is
	 * pending when the program ends.  Where they went, and those that
	 * failed, are said too.  Compiling avoided: what the program would
	 * have waited for the compiles its hits replaced (wall), and their
	 * compiler's CPU time; then, apart, what it did wait for other
	 * processes' compiles of the same (its hit after such a wait saved
	 * the compile, not that wait: issue 45). */
	char remote[64] = "", failed[64] = "", through[160] = "", waited[80] = "";
	if (s.lock_wait_ns >= 5000000)
		snprintf(waited, sizeof waited, "; waited %.2f s for other processes' compiles",
			 (double)s.lock_wait_ns / 1e9);
	if (s.remote_stores)
		snprintf(remote, sizeof remote, ", %llu also to the remote tier",
			 (unsigned long long)s.remote_stores);
	if (s.store_failures)
		snprintf(failed, sizeof failed, ", %llu failed", (unsigned long long)s.store_failures);
	if (passed) /* builds jitcache saw but did not cache, by why */
		snprintf(through, sizeof through,
			 "; %llu passed through: %llu native or from binaries, %llu compile/link, "
			 "%llu not keyable", (unsigned long long)passed,
			 (unsigned long long)s.passed_native,
			 (unsigned long long)s.passed_compile_link,
			 (unsigned long long)s.passed_not_keyable);
	jc_log(JC_LOG_INFO,
	       "%llu hits, %llu misses, %llu stores%s%s; compiling avoided: %.2f s (%.2f s of "
	       "CPU)%s%s (cache %s)",
	       (unsigned long long)s.hits, (unsigned long long)s.misses,
	       (unsigned long long)s.stores, remote, failed, (double)s.saved_wall_ns / 1e9,
	       (double)s.saved_ns / 1e9, waited, through, jc_cache_dir(c));
}
