// SPDX-License-Identifier: MIT
/*
 * ini_write.h — changes one setting of an ini file, as `jitcache set` (and
 * ccache -o) do, keeping everything else of the file as it was.
 *
 *   const char *why;
 *   if (jc_ini_set("/home/me/.config/jitcache/jitcache.ini", "cache",
 *                  "max_size", "20G", &why) != 0)
 *           fprintf(stderr, "jitcache: %s\n", why);
 *
 * The first "name = value" line of [section] is replaced in place (its
 * comment after " ;" too: it described the old value), later lines of the
 * same name in that section are removed (inih would let the last one win);
 * where the section lacks the name, the line goes after the section's last
 * setting; where the file lacks the section, "[section]" and the line are
 * added at the end.  Comments, blank lines and every other line are kept
 * byte for byte.  A missing file is created (with its directory, 0700),
 * mode 0644; an existing file keeps its mode, and a symbolic link is
 * followed to the file it names.
 *
 * The new file is written beside the old one and renamed over it
 * (config/tempfile.h), so a reader sees the old file or the new one, never half of either.
 * The file is read as the settings are (config/readfile.h: a regular file
 * of at most 64 KiB).  Returns 0, or -1 with *why a line to show (naming
 * the file); nothing is changed then.  The value must fit on one ini line:
 * no newline, no " ;" (which would start a comment), no spaces at its
 * ends — the caller checks it with jc_ini_value_ok().
 */
#ifndef JITCACHE_INI_WRITE_H
#define JITCACHE_INI_WRITE_H

int jc_ini_set(const char *path, const char *section, const char *name, const char *value,
	       const char **why);

/* 1 if value reads back the same from an ini line (see above); else 0 with
 * *why the reason. */
int jc_ini_value_ok(const char *value, const char **why);

#endif
