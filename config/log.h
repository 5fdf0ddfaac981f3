// SPDX-License-Identifier: MIT
/*
 * log.h — one-line messages from jitcache to stderr.
 *
 * jitcache lives inside other people's processes, so it speaks rarely and
 * briefly: every message is one line starting with "jitcache: ", saying what
 * went wrong and what jitcache did about it.  The level comes from the
 * settings (JITCACHE_LOG / [log] level); until they are read it is "warn".
 *
 *   jc_log(JC_LOG_WARN, "cannot create %s (%s); caching disabled", dir, err);
 *   JC_LOG_ONCE(JC_LOG_WARN, "...");   // a problem that could repeat per call
 *   if (jc_log_first(&told[kind])) jc_log(...);  // once per flag of the caller's
 *
 * Logging never fails and never allocates; messages longer than a line
 * (512 bytes) are cut.
 */
#ifndef JITCACHE_LOG_H
#define JITCACHE_LOG_H

enum jc_log_level {
	JC_LOG_OFF = 0,
	JC_LOG_ERROR,
	JC_LOG_WARN,
	JC_LOG_INFO,
	JC_LOG_DEBUG,
};

/* Current threshold; messages above it are dropped. */
void jc_log_set_level(enum jc_log_level level);
enum jc_log_level jc_log_get_level(void);
int jc_log_enabled(enum jc_log_level level);

/* "error" / "warn" / "info" / "debug" / "off" -> level; -1 if unknown. */
int jc_log_parse_level(const char *name);
const char *jc_log_level_name(enum jc_log_level level);

void jc_log(enum jc_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Said once: 1 the first time it is asked about *said (which it sets), 0
 * ever after; of several threads at once, one is first.  The one way a
 * problem is said once: per call site (JC_LOG_ONCE), or per flag of the
 * caller's (a remote's told[kind]: once per remote and kind of problem). */
int jc_log_first(int *said);

/* Log a message at most once per call site for the life of the process. */
#define JC_LOG_ONCE(level, ...)                                              \
	do {                                                                 \
		static int jc_once_;                                         \
		if (jc_log_first(&jc_once_))                                 \
			jc_log((level), __VA_ARGS__);                        \
	} while (0)

#endif
