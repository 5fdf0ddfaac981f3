// SPDX-License-Identifier: MIT
/*
 * misses.h — the record of recent misses (`jitcache explain`): one file,
 * DIR/misses, a ring of the last JC_MISS_RING misses of every process
 * using the cache directory.
 *
 *   page 0    magic "jcmisses" + version, then the number of records
 *             ever written (little-endian uint64): the next goes to slot
 *             that number modulo JC_MISS_RING
 *   then      JC_MISS_RING records of JC_MISS_RECORD bytes (two a page)
 *
 * A record: its number + 1 (0: empty slot), when (ns since 1970), pid,
 * cause, flags, the trace's length, the key, the program's short name,
 * then the trace of the key (key/fingerprint.h).  The file is made whole
 * (a temporary file linked into place) and then changed in place under an
 * open-file-description lock on page 0, each record with one pwrite that
 * never crosses a page: as the statistics file (stats.h), a process killed
 * at any moment leaves whole records.  It is bounded: 260 KiB.
 */
#ifndef JITCACHE_MISSES_H
#define JITCACHE_MISSES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "store/store.h"

#define JC_MISS_RING 128
#define JC_MISS_RECORD 2048
#define JC_MISS_TRACE_MAX (JC_MISS_RECORD - 64)

/* Why it missed, as the tiers saw it. */
enum jc_miss_cause {
	JC_CAUSE_NOT_FOUND = 1, JC_CAUSE_CORRUPT, JC_CAUSE_REJECTED, JC_CAUSE_UNTRUSTED,
	JC_CAUSE_UNREACHABLE,
	JC_CAUSE_CHANGED, /* a file the key covers changed during the compile: not stored */
	JC_CAUSE_LOGIN_REFUSED, /* a tier refused jitcache's login */
};
#define JC_MISS_BUILD_FAILED 1u /* flags: the compile that followed failed */

struct jc_miss {
	uint64_t seq;      /* its number, from 1 */
	int64_t when_ns;
	uint32_t pid;
	uint8_t cause, flags;
	struct jc_key key;
	char program[24];
	size_t trace_len;
	uint8_t trace[JC_MISS_TRACE_MAX];
};

/* Append m (its seq is set) to DIR/misses, making the file if needed
 * (mode, less the umask).  0 or -1. */
int jc_misses_add(const char *dir, mode_t mode, struct jc_miss *m);
/* Every record in the file, oldest first: *out (malloc'd) and *n.  0, or
 * -1 when there is no file or it is not one. */
int jc_misses_read(const char *dir, struct jc_miss **out, size_t *n);

#endif
