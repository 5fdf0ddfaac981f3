// SPDX-License-Identifier: MIT
/*
 * path_trust.h — whether anyone but root and one user could replace what
 * a path names, as sshd's StrictModes asks of ~/.ssh.
 *
 * A path is trusted when the file it names and every directory above it
 * are owned by root or by `owner`, and none is writable by its group or
 * by others; a group that is the owner's private group (its name, its only
 * member, no other account's: Debian's umask 002, read from /etc/passwd
 * and /etc/group, not NSS) may write, as Debian's sshd allows; a directory
 * with the sticky bit (/tmp) may be, since others
 * cannot rename or remove what is not theirs there (and what it holds has
 * been checked to be root's or the owner's first: the walk goes upward).
 * The path is walked as written, each symbolic link where it sits (its
 * owner counts, its own mode bits mean nothing: Linux ignores them), and
 * again as resolved (realpath), when that differs.
 *
 * Used where a file is about to be run in someone's process: the core the
 * preloaded library loads (config/core_file.h: owner, the preloaded
 * library's), the library `jitcache enable` makes system units preload
 * (bin/enable.c: owner root).
 *
 *   char why[PATH_MAX + 128];
 *   if (jc_path_trusted(lib, 0, NULL, why, sizeof why) != 0)
 *           ...refuse; why is one line: "/opt/x can be written by every user"...
 */
#ifndef JITCACHE_CONFIG_PATH_TRUST_H
#define JITCACHE_CONFIG_PATH_TRUST_H

#include <stddef.h>
#include <sys/types.h>

/* 0 if only root and `owner` could have written what `path` names; else
 * -1 and why (one line, the first link of the path at fault): "P is owned
 * by uid N, neither root nor OWNER_IS (uid M)" (or "P is owned by uid N,
 * not root" when owner_is is NULL: pass NULL with owner 0), "P can be
 * written by every user" / "... by its group", or "P: strerror". */
int jc_path_trusted(const char *path, uid_t owner, const char *owner_is, char *why,
		    size_t size);

#endif
