// SPDX-License-Identifier: MIT
/*
 * settings.h — the table of jitcache's settings: one line of JC_SETTINGS
 * per setting, its ini section and name, its kind, its default, the
 * environment variable that overrides it and its help.  The settings'
 * struct, defaults, ini handler, environment overrides, show and help
 * (config.h) are generated from it, and so is what a process captures at
 * start (capture.h), which needs the table but none of the settings' code:
 * both include this, and neither the other's header.
 */
#ifndef JITCACHE_SETTINGS_H
#define JITCACHE_SETTINGS_H

#include <limits.h>
#include <stdint.h>

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
	  "compile leases (Redis, S3, WebDAV), are signed with it")                      \
	X(trust, trusted_keys, FILES, trusted_keys, "",     "JITCACHE_TRUSTED_KEYS",       \
	  "public key files FILE[:FILE...]: entries from Redis, layers and imports are " \
	  "used, and compile leases (Redis, S3, WebDAV) waited for, only if signed by "  \
	  "one of them "                                                                 \
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

#endif
