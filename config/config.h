// SPDX-License-Identifier: MIT
/*
 * config.h — jitcache's settings, from one table.
 *
 * Every setting is one line of JC_SETTINGS (config/settings.h): its ini
 * section and name, its kind, its default and the environment variable that
 * overrides it.  That one list generates the struct, the defaults, the ini handler, the
 * environment overrides and jc_config_show().
 *
 * Precedence, lowest first, each overriding the one before: built-in
 * default; the system file (/etc/jitcache.ini, or $JITCACHE_SYSTEM_CONFIG);
 * the user's ($XDG_CONFIG_HOME/jitcache/jitcache.ini, else
 * ~/.config/jitcache/jitcache.ini); $JITCACHE_CONFIG; the environment.  A
 * file that is not there is skipped quietly, unless a variable named it.
 *
 * Errors never stop anything: a bad file, line or value is reported in one
 * line naming the file, line and problem (an unknown name with the closest
 * setting), and that setting keeps its previous value; cfg->problems counts
 * them.  jc_config_load() also sets the log level.  It reads at most three
 * small files and the environment, and keeps nothing open.
 *
 *   struct jc_config cfg;
 *   jc_config_load(&cfg);          // reads files and environment
 *   ... cfg.cache_dir, cfg.max_size ...
 */
#ifndef JITCACHE_CONFIG_H
#define JITCACHE_CONFIG_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#include "config/settings.h"

/* The ini files, in the order they are read; what became of each. */
enum { JC_CONFIG_SYSTEM, JC_CONFIG_USER, JC_CONFIG_EXPLICIT, JC_CONFIG_FILES };
enum { JC_FILE_ABSENT, JC_FILE_READ, JC_FILE_UNREADABLE, JC_FILE_SAME };

struct jc_config {
#define X(sec, name, kind, field, def, env, help) JC_TYPE_##kind field JC_DIM_##kind;
	JC_SETTINGS(X)
#undef X
	/* Where each value came from: "default", "FILE:LINE" or "env NAME". */
#define X(sec, name, kind, field, def, env, help) char field##_from[PATH_MAX + 16];
	JC_SETTINGS(X)
#undef X
	/* The ini files: files[JC_CONFIG_SYSTEM], [JC_CONFIG_USER], [JC_CONFIG_EXPLICIT]. */
	struct jc_config_file {
		char path[PATH_MAX]; /* absolute; "" : none named ($JITCACHE_CONFIG unset) */
		int state;           /* JC_FILE_READ, _ABSENT, _UNREADABLE or _SAME (the
					same file as an earlier one, not read again) */
	} files[JC_CONFIG_FILES];
	int problems; /* bad files, lines, names and values said while reading */
};
/* Fill *cfg from defaults, the ini files and the environment (see above). */
void jc_config_load(struct jc_config *cfg);

/* One setting of the table, for commands that name settings (`jitcache set`). */
struct jc_setting {
	const char *section, *name, *env, *def, *help;
};

/* The setting called name: "max_size" (where only one section has it) or
 * "cache.max_size".  Returns it, or NULL with *closest the nearest known
 * setting (NULL if none is near) and *why "unknown" or "ambiguous" (then
 * *closest is one of those that match). */
const struct jc_setting *jc_config_find(const char *name, const struct jc_setting **closest,
					const char **why);

/* Check value for setting s as an ini file would take it, relative paths
 * against the current directory.  Returns 0 with the text to write in text
 * (paths made absolute; others as given), or -1 with *why. */
int jc_config_check(const struct jc_setting *s, const char *value, char *text, size_t size,
		    const char **why);

/* Edits from a to b (optimal string alignment: a swap of neighbours is
 * one), ignoring case, for "did you mean"; strings over 40 bytes count as
 * far apart. */
int jc_config_distance(const char *a, const char *b);

/* The user's ini file ($XDG_CONFIG_HOME/jitcache/jitcache.ini, else
 * ~/.config/...), into buf; NULL if neither variable is set. */
const char *jc_config_user_file(char *buf, size_t size);

/* Relative paths in settings (and "~/") are resolved when they are read:
 * from the environment against the directory the process started in, from
 * an ini file against the file's directory.  What a process fixes at start
 * so that its children agree (capture.h's jc_config_capture()) is read
 * through jc_config_load() too. */

/* 1 if a value given for the setting whose origin is from was refused (its
 * origin then says "INVALID ..."): settings that guard something, such as
 * trusted_keys, must then fail closed rather than keep their default. */
int jc_config_refused(const char *from);

/* Parse one value of the given kind, as the ini file and env would.
 * Return 0 on success, -1 (with *why set to a short reason) on a bad value. */
int jc_config_parse_size(const char *text, uint64_t *out, const char **why);
int jc_config_parse_bool(const char *text, int *out, const char **why);

/* Print "section.name = value    (from)" for every setting, then the ini
 * files and whether each was read; a password in the remote URL is shown
 * as "***". */
void jc_config_show(const struct jc_config *cfg, FILE *out);

/* Every setting with its environment variable, ini name, default and help,
 * straight from JC_SETTINGS: as text for --help, as the Markdown table of
 * docs/configuration.md, or as the SETTINGS entries of the man page. */
enum { JC_HELP_TEXT, JC_HELP_MARKDOWN, JC_HELP_MAN };
void jc_config_help(FILE *out, int format);

/* Sizes the way settings write them.  jc_config_size_text: exactly, so that it
 * reads back to the same value ("4G", "1536M", else plain bytes "1000").
 * jc_config_size_round: for reports ("4G", "12.3M", "512 bytes").  Both
 * write at most 32 bytes into buf and return it. */
const char *jc_config_size_text(uint64_t bytes, char buf[32]);
const char *jc_config_size_round(uint64_t bytes, char buf[32]);

#endif
