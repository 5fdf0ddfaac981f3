// SPDX-License-Identifier: MIT
/*
 * admin.h — what the commands of jitcache-admin (the `jitcache` command's
 * everything but `run`) share.
 *
 * A command is one line of the table in jitcache-admin.c: its name, what
 * it needs opened first (nothing, the settings, or the cache too), its
 * function, its usage and its one-line summary.  The function gets argv[0]
 * = its own name and its arguments after it (as getopt_long wants), and
 * returns the exit status: 0 done, 1 failed (the cache could not be used,
 * bad entries found), 2 bad usage.  `jitcache CMD --help` (or -h) is answered from the
 * usage before the function is called.
 *
 * Messages: every line on stderr starts "jitcache: " (then the command's
 * name where it helps), one line per problem.  Usage lines are written as
 * `jitcache help --all` lists them: "       jitcache CMD ARGS", the
 * explanation from column 39; `jitcache --help` shows the table's one-line
 * summary of each command instead.
 */
#ifndef JITCACHE_BIN_ADMIN_H
#define JITCACHE_BIN_ADMIN_H

#include "cache/cache.h"
#include "config/config.h"

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

enum { JC_EXIT_OK = 0, JC_EXIT_FAILED = 1, JC_EXIT_USAGE = 2 };

/* "jitcache: CMD: WHY (see jitcache CMD --help)"; returns JC_EXIT_USAGE. */
int jc_admin_usage_error(const char *cmd, const char *why);

/* After getopt_long() returned opt, '?' (unknown) or ':' (a value
 * missing), for argv: one line naming the option, and for an unknown one
 * the closest of longopts ("did you mean --json?"); returns JC_EXIT_USAGE.
 * The caller sets opterr = 0 and starts optstring with ':'. */
int jc_admin_bad_option(const char *cmd, int opt, char **argv, const struct option *longopts);

/* The closest of n words to word, if near enough to be a typo; else NULL. */
const char *jc_admin_closest(const char *word, const char *const *words, size_t n);

/* "1 entry" / "3 entries": n and the word that fits it, into buf. */
const char *jc_admin_count(uint64_t n, const char *one, const char *many, char buf[64]);

/* A date as every command shows one: "2026-11-27 04:52:32" (local time). */
const char *jc_admin_date(int64_t ns, char buf[32]);

/* Why this user's programs cannot write the cache directory dir (or make
 * it, in its nearest existing parent): "Permission denied", "Read-only
 * file system", ...; NULL if they can (bin/stats.c). */
const char *jc_admin_dir_unwritable(const char *dir);

/* `jitcache stats` (bin/stats.c). */
int jc_stats_main(const struct jc_config *cfg, struct jc_cache *c, int argc, char **argv);
void jc_stats_usage(FILE *out);

#endif
