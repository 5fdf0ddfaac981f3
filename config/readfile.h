// SPDX-License-Identifier: MIT
/*
 * readfile.h — reading a small settings or secrets file whole, safely.
 *
 * Files named by settings (the ini file, the Redis password file) are read
 * inside the host program's first intercepted call, so reading one must
 * never block and never cost more than a small, fixed amount of memory and
 * time, whatever
 * the path names: a FIFO nobody writes, /dev/zero, /dev/urandom, a
 * directory, a file of gigabytes.  Only a regular file is read (opened with
 * O_NONBLOCK, then checked with fstat, so opening a FIFO does not wait for
 * a writer), and only up to `max` bytes; anything else is refused with a
 * short reason.  /dev/null reads as an empty file: "no settings".
 *
 *   size_t len;
 *   const char *why;
 *   char *text = jc_read_small_file(path, 64 * 1024, &len, &why);
 *   if (!text) log("%s: %s", path, why); else { use(text, len); free(text); }
 *
 * Returns a malloc'd copy of the contents, NUL-terminated (len excludes the
 * NUL), or NULL with *why set.  The caller frees it.
 */
#ifndef JITCACHE_READFILE_H
#define JITCACHE_READFILE_H

#include <stddef.h>

char *jc_read_small_file(const char *path, size_t max, size_t *len, const char **why);

#endif
