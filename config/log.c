// SPDX-License-Identifier: MIT
#include "config/log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int current_level = JC_LOG_WARN;

static const char *const level_names[] = {
	[JC_LOG_OFF] = "off",     [JC_LOG_ERROR] = "error", [JC_LOG_WARN] = "warn",
	[JC_LOG_INFO] = "info",   [JC_LOG_DEBUG] = "debug",
};

void jc_log_set_level(enum jc_log_level level)
{
	__atomic_store_n(&current_level, (int)level, __ATOMIC_RELAXED);
}

enum jc_log_level jc_log_get_level(void)
{
	return (enum jc_log_level)__atomic_load_n(&current_level, __ATOMIC_RELAXED);
}

int jc_log_enabled(enum jc_log_level level)
{
	return level != JC_LOG_OFF && (int)level <= (int)jc_log_get_level();
}

int jc_log_parse_level(const char *name)
{
	for (size_t i = 0; i < sizeof level_names / sizeof level_names[0]; i++)
		if (strcasecmp(name, level_names[i]) == 0)
			return (int)i;
	if (strcasecmp(name, "warning") == 0)
		return JC_LOG_WARN;
	return -1;
}

const char *jc_log_level_name(enum jc_log_level level)
{
	return (unsigned)level < sizeof level_names / sizeof level_names[0]
		? level_names[level] : "?";
}

int jc_log_first(int *said)
{
	return !__atomic_exchange_n(said, 1, __ATOMIC_RELAXED);
}

void jc_log(enum jc_log_level level, const char *fmt, ...)
{
	if (!jc_log_enabled(level))
		return;
	int saved_errno = errno;
	char line[512];
	int n = snprintf(line, sizeof line, "jitcache: ");
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
	va_end(ap);
	size_t len = strlen(line);
	line[len++] = '\n';
	/* One write(2) so lines from several threads or processes do not mix. */
	ssize_t w = write(STDERR_FILENO, line, len);
	(void)w;
	errno = saved_errno;
}
