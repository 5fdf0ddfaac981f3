// SPDX-License-Identifier: MIT
/*
 * core_file.h — which file the preloaded library loads as its core
 * (shim/preload.h), and whether it may.
 *
 * The core is looked for beside the preloaded library's real file: the
 * file the kernel mapped (its path in /proc/self/maps: absolute, every
 * symlink resolved), not beside the name the loader was given, which may
 * be a symlink (the workaround for a path with a space) in a directory
 * others can write (/tmp).  Without /proc, the loader's name with its
 * symlinks resolved (realpath).
 *
 * And it is loaded only if nobody but root and the preloaded library's
 * owner could have put it there, as sshd's StrictModes asks of
 * ~/.ssh: the core's real file (its soname link resolved) and every
 * directory above it, and above the preloaded library's real file, must
 * be owned by root or by the owner of the preloaded library, and be
 * writable by neither group nor others (a directory with the sticky bit,
 * as /tmp, may be: others cannot rename or remove what is not theirs
 * there).  A core refused is said in one line, and every call passes
 * through.
 *
 * All of it is done on the first intercepted call, never at load: idle is
 * free (shim/preload.c).
 *
 *   char path[PATH_MAX], why[PATH_MAX + 256];
 *   const char *names[2] = { "libx-core.so.1", "libx-core.so" };
 *   if (jc_core_file(address_in_this_library, name_from_loader, names, path,
 *                    why, sizeof why) == 0)
 *           dlopen(path, ...);
 *   else ...why: the core's path and what is wrong with it...
 */
#ifndef JITCACHE_CONFIG_CORE_FILE_H
#define JITCACHE_CONFIG_CORE_FILE_H

#include <stddef.h>

/* The core's real path (PATH_MAX bytes) for the preloaded library that
 * holds `self` (which the loader named `loaded_as`, made absolute; may be
 * NULL): names[0] (the soname, JC_CORE_FILE) beside its real file, else
 * names[1] (the plain name, JC_CORE_NAME: the wheel has no soname links).
 * 0, or -1 and why (one line) if there is none, or none that may be
 * loaded.  (In config/, not shim/: the shim does no file I/O.) */
int jc_core_file(const void *self, const char *loaded_as, const char *const names[2], char *path,
		 char *why, size_t why_size);

#endif
