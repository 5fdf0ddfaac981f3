// SPDX-License-Identifier: MIT
/*
 * config.h — jitcache's settings, from one table.
 *
 * Every setting is one line of JC_SETTINGS below: its ini section and name,
 * its kind, its default and the environment variable that overrides it.  That
 * one list generates the struct, the defaults, the ini handler, the
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

/* X(section, name, kind, field, default, env, help) */
#define JC_SETTINGS(X)                                                              \
	X(cache, dir,          PATH,  cache_dir,    "",     "JITCACHE_DIR",                \
	  "cache directory (default $XDG_CACHE_HOME/jitcache or ~/.cache/jitcache)")     \
	X(cache, max_size,     SIZE,  max_size,     "4G",   "JITCACHE_MAX_SIZE",           \
	  "size cap; least recently used entries are evicted (K/M/G/T suffixes; "      \
	  "0: no cap)")                                                                  \
	X(cache, disable,      BOOL,  disable,      "0",    "JITCACHE_DISABLE",            \
	  "1 turns jitcache off: every call goes straight to the driver")              \
	X(cache, shared,       BOOL,  shared,       "0",    "JITCACHE_SHARED",             \
	  "1 accepts a cache directory owned or writable by others (see docs/trust.md)")       \
	X(cache, lock_timeout, SECS,  lock_timeout, "120",  "JITCACHE_LOCK_TIMEOUT",       \
	  "seconds to wait for another process compiling the same entry")              \
	X(cache, compress,     BOOL,  compress,     "0",    "JITCACHE_COMPRESS",           \
	  "1 stores entries zstd-compressed: ~10x smaller, ~1 ms slower hits")          \
	X(cache, layers,       PATHS, layers,       "",     "JITCACHE_LAYERS",             \
	  "read-only cache directories DIR[:DIR...] searched after the cache")           \
	X(cache, recipes,      BOOL,  recipes,      "1",    "JITCACHE_RECIPES",            \
	  "1 keeps, with each entry, the request it was compiled from (compressed), "    \
	  "so that `jitcache warm` can compile it again after a driver change")          \
	X(remote, url,         URL,   remote_url,   "",     "JITCACHE_REMOTE",             \
	  "remote tiers shared by many machines, asked in order, separated by spaces: " \
	  "redis://[[USER]:PASSWORD@]HOST[:PORT][/DB], redis+unix:///PATH[?db=N], "      \
	  "http(s)://HOST[:PORT]/PATH, s3://BUCKET[/PREFIX] or file:///PATH (a shared "  \
	  "directory), each followed by "                                                 \
	  "|read-only, |layout=subdirs|flat|bazel, |auth-file=/PATH, |ca-file=/PATH, "  \
	  "|connect-timeout=SECS, |timeout=SECS; "                                        \
	  "empty or off: none")                                                          \
	X(remote, password_file, PATH, remote_password_file, "", "JITCACHE_REMOTE_PASSWORD_FILE", \
	  "file whose first line is the Redis password (not in the URL or environment)") \
	X(remote, read_only,   BOOL,  remote_read_only, "0", "JITCACHE_REMOTE_READ_ONLY",  \
	  "1 uses the remotes' entries but never writes to them")                       \
	X(remote, exit_wait,   SECS,  remote_exit_wait, "2", "JITCACHE_REMOTE_EXIT_WAIT",  \
	  "seconds the end of a process waits for its remote writes still queued "     \
	  "(they never hold the program up before); the rest are dropped, each is "     \
	  "in the local store")                                                          \
	X(remote, connect_timeout, SECS, remote_connect_timeout, "0.2", "JITCACHE_REMOTE_CONNECT_TIMEOUT", \
	  "seconds to wait for a connection (a web or S3 remote: at least 2)")         \
	X(remote, timeout,     SECS,  remote_timeout, "0.5", "JITCACHE_REMOTE_TIMEOUT",    \
	  "seconds to wait for each answer of a remote (a web or S3 remote: at least 10)") \
	X(remote, backoff,     SECS,  remote_backoff, "30",  "JITCACHE_REMOTE_BACKOFF",    \
	  "seconds the remote is left alone after a failure")                           \
	X(remote, lease,       SECS,  remote_lease,   "10",  "JITCACHE_REMOTE_LEASE",      \
	  "seconds a machine's claim to compile a kernel lasts unless renewed")         \
	X(remote, lease_wait,  SECS,  remote_lease_wait, "10", "JITCACHE_REMOTE_LEASE_WAIT", \
	  "seconds a node without trusted_keys waits for another machine's compile "   \
	  "lease without seeing it renewed before taking it over (a renewed lease is " \
	  "waited for up to lock_timeout; keep it above a third of lease)")            \
	X(remote, compress,    BOOL,  remote_compress, "1",  "JITCACHE_REMOTE_COMPRESS",   \
	  "1 sends values zstd-compressed: ~7x less traffic and Redis memory; 0 sends " \
	  "them as the entry files")                                                     \
	X(trust, signing_key,  PATH,  signing_key,  "",     "JITCACHE_SIGNING_KEY",        \
	  "private key file (jitcache keygen): every entry this node stores, and its " \
	  "compile leases in Redis, are signed with it")                                 \
	X(trust, trusted_keys, FILES, trusted_keys, "",     "JITCACHE_TRUSTED_KEYS",       \
	  "public key files FILE[:FILE...]: entries from Redis, layers and imports are " \
	  "used, and Redis compile leases waited for, only if signed by one of them "    \
	  "(a list naming no file, or no key that can be read safely: none is)")        \
	X(log,   level,        LEVEL, log_level,    "warn", "JITCACHE_LOG",                \
	  "error, warn, info (adds a summary line at exit), debug or off")               \
	X(log,   strict,       LEVEL, strict,       "off",  "JITCACHE_STRICT",             \
	  "the JIT monitor: warn says each compile that missed in one line (program, "  \
	  "API, key, cause); error also fails it as the driver fails a build, with a "  \
	  "build log saying why (a hit passes either way); off: neither")               \
	X(log,   stats_log,    PATH,  stats_log,    "",     "JITCACHE_STATS_LOG",          \
	  "file each process appends one JSON line to at exit: program, pid, hits by "  \
	  "tier, misses by cause, stores, seconds saved (CPU and wall)")

/* Storage type of each kind. */
#define JC_TYPE_PATH  char
#define JC_DIM_PATH   [PATH_MAX]
#define JC_TYPE_PATHS char
#define JC_DIM_PATHS  [PATH_MAX]
#define JC_TYPE_FILES char
#define JC_DIM_FILES  [PATH_MAX]
#define JC_TYPE_SIZE  uint64_t
#define JC_DIM_SIZE
#define JC_TYPE_BOOL  int
#define JC_DIM_BOOL
#define JC_TYPE_SECS  double
#define JC_DIM_SECS
#define JC_TYPE_LEVEL int
#define JC_DIM_LEVEL
#define JC_TYPE_URL   char
#define JC_DIM_URL    [4096] /* JC_REMOTE_LIST_MAX */

/* Kinds whose empty value in the environment means something (no remote;
 * for a list of key files, a list naming none: refused, so that what it
 * guards fails closed); for the others an empty variable is ignored. */
#define JC_EMPTY_OK_PATH  0
#define JC_EMPTY_OK_PATHS 0
#define JC_EMPTY_OK_FILES 1
#define JC_EMPTY_OK_SIZE  0
#define JC_EMPTY_OK_BOOL  0
#define JC_EMPTY_OK_SECS  0
#define JC_EMPTY_OK_LEVEL 0
#define JC_EMPTY_OK_URL   1

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
 * an ini file against the file's directory.
 *
 * jc_config_capture() is what a process that loads jitcache does at start,
 * and all it does then (the settings are read on the first intercepted
 * call): each path variable that holds a relative path (and a relative
 * JITCACHE_CONFIG or JITCACHE_SYSTEM_CONFIG) is set to the absolute one in the environment, so that
 * this process and the children it starts from another directory use the
 * same cache; "~/x" is left as it is, for each process's own HOME; then the
 * variables settings are read from (JITCACHE_*, HOME, XDG_CACHE_HOME,
 * XDG_CONFIG_HOME) are copied, and jc_config_load() reads those copies,
 * whenever it runs.  No file is opened and nothing but getcwd() (only for
 * a relative path) is asked of the system.  Call it only where no other
 * thread can read the environment (a constructor). */
void jc_config_capture(void);

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
