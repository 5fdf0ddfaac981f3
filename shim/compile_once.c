// SPDX-License-Identifier: MIT
/* The shared miss path (see compile_once.h). */
#include "shim/compile_once.h"
#include "config/clock.h"

#include "shim/shim.h"
#include "key/explain.h"
#include "key/fingerprint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char *program_invocation_short_name;

typedef int (*lookup_fn)(struct jc_request *, struct jc_entry *);

/* 1 if the request was answered from the entry that lookup found. */
static int try_hit(const struct jc_once *o, lookup_fn lookup)
{
	struct jc_entry e;
	if (lookup(o->request, &e) != 0)
		return 0;
	enum jc_load r = o->ops->load(o->call, &e);
	if (r == JC_LOAD_REJECTED)
		jc_request_reject(o->request, &e);
	jc_entry_free(&e);
	return r == JC_LOADED;
}

/* What the entry was compiled from, beside it, for `jitcache warm`. */
static void store_recipe(const struct jc_once *o)
{
	void *bytes = NULL;
	size_t size = 0;
	if (!o->ops->recipe || !jc_runtime_config()->recipes)
		return;
	if (o->ops->recipe(o->call, &bytes, &size) == 0 &&
	    jc_cache_put_recipe(o->cache, &o->key, bytes, size) != 0)
		jc_log(JC_LOG_DEBUG, "%s: the recipe of %s (%zu bytes) was not stored", o->what,
		       o->hex, size);
	free(bytes);
}

/* The compile times an entry records, what a hit saves: the compiling
 * thread's CPU time, never more than the wall time (wall time alone
 * overstated the compiler's work on a busy machine: a 1.0 s saving
 * recorded as 1.3-2.2 s; a compiler that also works on other threads is
 * undercounted, so the figure is a lower bound), and the wall time, what
 * the caller waited (issue 27). */
static uint64_t compile_time(uint64_t wall_ns, uint64_t cpu_ns)
{
	return cpu_ns && cpu_ns < wall_ns ? cpu_ns : wall_ns;
}

void jc_once_store(const struct jc_once *o, uint64_t cpu_ns, uint64_t wall_ns)
{
	void *bytes = NULL;
	size_t size = 0;
	uint64_t start = jc_mono_ns();
	uint64_t word = jc_compile_word(cpu_ns, wall_ns);
	if (o->ops->export(o->call, &bytes, &size) == 0 &&
	    (o->request ? jc_request_put(o->request, bytes, size, word)
			: jc_cache_put(o->cache, &o->key, bytes, size, word)) == 0) {
		o->ops->stored(o->call, size, cpu_ns, jc_mono_ns() - start);
		store_recipe(o);
	}
	free(bytes);
}

/* A miss that is final: recorded for `jitcache explain` (unless refused),
 * its cause said in one line with JITCACHE_STRICT (the JIT monitor: a
 * warning, or the error that fails it) or JITCACHE_LOG=info, and left in
 * why (size bytes).  The trace is the key's, taken before the compile
 * (which may make another key on this thread: cl.c checks its key again). */
static void note_miss(const struct jc_once *o, int cause, const uint8_t *trace, size_t len,
		      int failed, int changed, int strict, char *why, size_t size)
{
	snprintf(why, size, "cause unknown (out of memory)");
	if (strict || jc_log_enabled(JC_LOG_INFO)) {
		struct jc_miss *m = calloc(1, sizeof *m), *seen = NULL;
		size_t n = 0;
		if (m) {
			m->cause = (uint8_t)cause;
			m->flags = failed ? JC_MISS_BUILD_FAILED : 0;
			m->key = o->key;
			if (len <= sizeof m->trace) {
				memcpy(m->trace, trace, len);
				m->trace_len = len;
			}
			jc_cache_misses(o->cache, &seen, &n);
			jc_explain(m, seen, n, why, size);
			free(seen);
			free(m);
		}
	}
	if (strict == JC_LOG_ERROR)
		jc_log(JC_LOG_ERROR, "JITCACHE_STRICT=error refused a compile: %s[%d] %s %s "
		       "missed: %s", program_invocation_short_name, (int)getpid(), o->what,
		       o->hex, why);
	else if (strict)
		jc_log(JC_LOG_WARN, "JIT at run time: %s[%d] %s %s missed: %s",
		       program_invocation_short_name, (int)getpid(), o->what, o->hex, why);
	else
		jc_log(JC_LOG_INFO, "%s %s: miss: %s", o->what, o->hex, why);
	/* A refused miss is not recorded: nothing was compiled or stored, and
	 * the next miss of the same request would be explained as an entry
	 * evicted.  Its line above is its record. */
	if (changed) {
		jc_log(JC_LOG_DEBUG, "%s %s: a file the key covers changed while it compiled: "
		       "not stored", o->what, o->hex);
		jc_cache_note_changed(o->cache, &o->key, cause, trace, len);
	} else if (strict != JC_LOG_ERROR) {
		jc_cache_note_miss(o->cache, &o->key, cause, trace, len, failed);
	}
}

int jc_strict_passed(const char *what, const char *why)
{
	int strict = jc_runtime_config()->strict;
	if (strict == JC_LOG_ERROR)
		jc_log(JC_LOG_ERROR, "JITCACHE_STRICT=error refused a compile: %s[%d] %s not "
		       "cached (%s)", program_invocation_short_name, (int)getpid(), what, why);
	else if (strict)
		jc_log(JC_LOG_WARN, "JIT at run time: %s[%d] %s not cached (%s)",
		       program_invocation_short_name, (int)getpid(), what, why);
	return strict == JC_LOG_ERROR;
}

/* After the lock: the miss is final, and compiled here (or refused). */
static int compile_missed(struct jc_once *o, int *status)
{
	int strict = jc_runtime_config()->strict, cause = jc_request_cause(o->request);
	char why[600];
	const uint8_t *at = NULL;
	size_t len = jc_fp_trace_of(&o->key, &at);
	uint8_t *trace = len ? malloc(len) : NULL; /* on the heap: the host's stack may be small */
	if (trace)
		memcpy(trace, at, len);
	else
		len = 0;
	if (strict == JC_LOG_ERROR) {
		note_miss(o, cause, trace, len, 0, 0, strict, why, sizeof why);
		free(trace);
		*status = o->ops->refuse(o->call, why);
		jc_request_end(o->request);
		return 0;
	}
	enum jc_built built = JC_BUILT_FAILED;
	uint64_t start = jc_mono_ns(), cpu_start = jc_thread_cpu_ns();
	*status = o->ops->compile(o->call, o->request, &built);
	if (built == JC_BUILT_LATER) { /* compile() took the request over: not ours now */
		note_miss(o, cause, trace, len, 0, 0, strict, why, sizeof why);
		free(trace);
		return 0;
	}
	note_miss(o, cause, trace, len, *status != 0, built == JC_BUILT_CHANGED, strict, why, sizeof why);
	free(trace);
	if (*status != 0) /* 0: ZE_RESULT_SUCCESS, CL_SUCCESS */
		jc_cache_count_build_failure(o->cache);
	if (built == JC_BUILT_NOW) {
		uint64_t wall = jc_mono_ns() - start;
		jc_once_store(o, compile_time(wall, jc_thread_cpu_ns() - cpu_start), wall);
	}
	jc_request_end(o->request);
	return 0;
}

int jc_compile_once(struct jc_once *o, int *status)
{
	struct jc_request q;
	jc_key_hex(&o->key, o->hex);
	jc_request_begin(&q, o->cache, &o->key);
	o->request = &q;
	int hit = try_hit(o, jc_request_get);
	if (!hit) {
		jc_request_lock(&q);
		hit = try_hit(o, jc_request_recheck);
		if (hit)
			jc_log(JC_LOG_DEBUG, "%s: %s was compiled by another thread or process "
			       "meanwhile", o->what, o->hex);
	}
	if (hit)
		jc_request_end(&q);
	else
		hit = compile_missed(o, status);
	o->request = NULL;
	return hit;
}

int jc_recompiled_from_ir(const char *log, size_t size)
{
	return log && memmem(log, size, JC_RECOMPILED_FROM_IR, strlen(JC_RECOMPILED_FROM_IR));
}

char *jc_keep_recompiled_warning(const char *options, int *failed)
{
	*failed = 0;
	if (!options || !strstr(options, JC_NO_RECOMPILED_WARNING))
		return NULL;
	char *own = strdup(options);
	if (!own) {
		*failed = 1;
		return NULL;
	}
	for (char *p = own; (p = strstr(p, JC_NO_RECOMPILED_WARNING));)
		memset(p, ' ', strlen(JC_NO_RECOMPILED_WARNING));
	return own;
}
