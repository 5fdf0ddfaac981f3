// SPDX-License-Identifier: MIT
/* libFuzzer target: the ini loader must survive any file, reporting
 * problems in one line each and never crashing or reading out of bounds.
 * Lines of any length are fed (the seeds include lines far over inih's 200
 * bytes and over JC_INI_MAX_LINE), and line numbers must stay true: a
 * setting appended after the input is reported on its physical line. */
#include "config/config.h"
#include "config/log.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	if (fd < 0) {
		fd = memfd_create("jitcache-fuzz.ini", 0);
		char path[64];
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
		setenv("JITCACHE_CONFIG", path, 1);
		setenv("JITCACHE_LOG", "off", 1);
		setenv("JITCACHE_SYSTEM_CONFIG", "/dev/null", 1); /* not the host's */
	}
	static const char tail[] = "\n[cache]\nlock_timeout = 7\n";
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size ||
	    pwrite(fd, tail, sizeof tail - 1, (off_t)size) != (ssize_t)sizeof tail - 1)
		return 0;
	struct jc_config cfg;
	jc_config_load(&cfg);
	/* Whatever was read must be a usable configuration. */
	if (cfg.cache_dir[0] == '\0' || cfg.log_level < JC_LOG_OFF || cfg.log_level > JC_LOG_DEBUG)
		abort();
	/* The appended setting is read, from the line after the input's lines. */
	int line = 3;
	for (size_t i = 0; i < size; i++)
		line += data[i] == '\n';
	char want[64];
	snprintf(want, sizeof want, ":%d", line);
	const char *from = strrchr(cfg.lock_timeout_from, ':');
	if (cfg.lock_timeout != 7 || !from || strcmp(from, want) != 0)
		abort();
	return 0;
}
