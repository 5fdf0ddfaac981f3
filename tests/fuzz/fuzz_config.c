/* libFuzzer target: the ini loader must survive any file, reporting
 * problems in one line each and never crashing or reading out of bounds. */
#include "config/config.h"
#include "config/log.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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
	}
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		return 0;
	struct jc_config cfg;
	jc_config_load(&cfg);
	/* Whatever was read must be a usable configuration. */
	if (cfg.cache_dir[0] == '\0' || cfg.log_level < JC_LOG_OFF || cfg.log_level > JC_LOG_DEBUG)
		abort();
	return 0;
}
