// SPDX-License-Identifier: MIT
/*
 * capture.h — what a process that loads jitcache fixes at start: the
 * environment the settings are read from (jc_config_capture() below says
 * what and why).
 *
 * The preloaded library (shim/preload.c) captures into its own copy at
 * start, without the rest of jitcache; the library it loads on the first
 * intercepted call (the core) reads the settings from that copy, handed to
 * it with jc_config_use_start_env().  Nothing here reads a file.
 */
#ifndef JITCACHE_CAPTURE_H
#define JITCACHE_CAPTURE_H

/* What runs at start in every process that preloads jitcache goes beside
 * the constructors (GCC's .text.startup, laid out together by the
 * linker), so that it faults in one page of code, not one per file. */
#define JC_AT_START __attribute__((section(".text.startup")))

/* The variables settings are read from, as they were at start.  Small
 * enough to lie in the preloaded library's one data page (every page of
 * it is a page fault in every process: shim/preload.c): the variables'
 * text goes to `small` when it fits, as it does unless JITCACHE_* values
 * are long, else to one allocation made at start and kept. */
struct jc_start_env {
	int taken; /* 0: not captured (read with getenv() when needed) */
	int n;
	const char *var[40]; /* "NAME=value", in small or on the heap */
	char small[1024];
};

/* jc_config_capture() is what a process that loads jitcache does at start,
 * and all it does then (the settings are read on the first intercepted
 * call): each path variable that holds a relative path (and a relative
 * JITCACHE_CONFIG or JITCACHE_SYSTEM_CONFIG) is set to the absolute one in
 * the environment, so that this process and the children it starts from
 * another directory use the same cache; "~/x" is left as it is, for each
 * process's own HOME; then the variables settings are read from
 * (JITCACHE_*, HOME, XDG_CACHE_HOME, XDG_CONFIG_HOME) are copied, and
 * jc_config_load() reads those copies, whenever it runs.  No file is opened and nothing but getcwd() (only for
 * a relative path) is asked of the system.  Call it only where no other
 * thread can read the environment (a constructor). */
void jc_config_capture(void);

/* Makes each relative path of the settings' variables absolute in the
 * environment, then copies the variables into *out.  Call it only where no
 * other thread can read the environment (a constructor). */
void jc_config_capture_into(struct jc_start_env *out);

/* The copy jc_config_load() reads from from now on (NULL: getenv()). */
void jc_config_use_start_env(const struct jc_start_env *env);

/* The value of name in the copy in use, else getenv(name). */
const char *jc_config_start_getenv(const char *name);

#endif
