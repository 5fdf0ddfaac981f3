// SPDX-License-Identifier: MIT
/*
 * store.h — the room of the local on-disk store (store/): what an entry is
 * and how it is named, the entry files, their layout in the cache
 * directory, eviction under the size cap, the statistics file and the
 * counters.  It owns the files of one cache directory and nothing else: it
 * knows no GPU, no tier and no setting.  It calls only trust/ (entries are
 * signed and verified as they are written and read) and config/ (log
 * lines); every room above it (cache/, tiers/, key/, the shim) may call it.
 * The files are listed, with the order in which they call each other, in
 * store/internal.h; the cache as a whole is opened and used through
 * cache/cache.h.
 */
#ifndef JITCACHE_STORE_H
#define JITCACHE_STORE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JC_KEY_BYTES 16

struct jc_key {
	uint8_t bytes[JC_KEY_BYTES];
};

/* Lower-case hex of the key, NUL-terminated. */
void jc_key_hex(const struct jc_key *key, char out[2 * JC_KEY_BYTES + 1]);

/* One cache: the store's directory and what the rooms above it hang on it
 * (cache/cache.h opens it). */
struct jc_cache;

struct jc_entry {
	void *data;
	size_t size;
	uint64_t compile_ns; /* what compiling this cost when it was stored */
	uint64_t wall_ns;    /* its wall time (entry.h: compile_ns if unknown) */
	int layer;           /* 0: from the cache directory; n: from the n-th
				read-only layer (tiers/layers.h) */
	int remote;          /* not 0: the slot (JC_TIERS) of the remote tier that
				answered it (then kept locally) */
	void *map;           /* non-NULL: data lies in this read-only mapping of
				the entry file (map_size bytes), not on the heap */
	size_t map_size;
};
void jc_entry_free(struct jc_entry *entry);

/* Statistics.  The per-process counts are this process's; the shared ones
 * are kept in the cache directory across processes.
 *
 * Every counter is one line of JC_COUNTERS: X(NAME, field, label).  It makes
 * the field of struct jc_cache_stats, the counter JC_NAME of the statistics
 * file (store/stats.h, in this order: add new ones at the end), its key in
 * `jitcache stats --json` and its line (label) in `jitcache stats`. */
#define JC_COUNTERS(X)                                                          \
	X(HITS,           hits,           "hits")                               \
	X(MISSES,         misses,         "misses")                             \
	X(STORES,         stores,         "stores")                             \
	X(EVICTIONS,      evictions,      "evictions")                          \
	X(CORRUPT,        corrupt,        "corrupt entries")                    \
	X(STORE_FAILURES, store_failures, "store failures")                     \
	/* payload bytes written by stores (compressed) */                      \
	X(BYTES_STORED,   bytes_stored,   "bytes stored")                       \
	/* compile time of the entries that hit */                              \
	X(SAVED_NS,       saved_ns,       "compile time saved")                 \
	/* of the hits, those served by a read-only layer (layers.h) */         \
	X(LAYER_HITS,     layer_hits,     "from layers")                        \
	/* every remote tier together (Redis, HTTP, S3: remote.h; "remote"     \
	 * always means all of them, "redis" the Redis tier): lookups they      \
	 * answered (also counted in hits) and first lookups they could not    \
	 * answer; failed exchanges;                                            \
	 * values that failed verification; values written; bytes read and     \
	 * written */                                                           \
	X(REMOTE_HITS,    remote_hits,    "remote hits")                        \
	X(REMOTE_MISSES,  remote_misses,  "remote misses")                      \
	X(REMOTE_ERRORS,  remote_errors,  "remote errors")                      \
	X(REMOTE_CORRUPT, remote_corrupt, "remote bad values")                  \
	X(REMOTE_STORES,  remote_stores,  "remote stores")                      \
	X(REMOTE_BYTES_IN,  remote_bytes_in,  "remote bytes in")                \
	X(REMOTE_BYTES_OUT, remote_bytes_out, "remote bytes out")             \
	/* of the hits, failure records: a build that failed, answered with    \
	 * the driver's error and log without compiling */                      \
	X(FAILED_HITS,    failed_hits,    "failed builds replayed")            \
	/* requests passed straight to the driver, by reason (jc_pass) */      \
	X(PASSED_NATIVE,  passed_native,  "passed through: native or binaries") \
	X(PASSED_COMPILE_LINK, passed_compile_link, "passed through: compile/link") \
	X(PASSED_NOT_KEYABLE, passed_not_keyable, "passed through: not keyable") \
	/* entries from Redis, layers or archives refused: not signed by a     \
	 * trusted key (trusted_keys, sign.h) */                               \
	X(UNTRUSTED,      untrusted,      "unsigned or untrusted entries refused") \
	/* the compile wall time of the entries that hit: what the user would  \
	 * have waited (saved_ns is the compiler's CPU time; an entry stored   \
	 * before wall times were kept counts its CPU time here too) */        \
	X(SAVED_WALL_NS,  saved_wall_ns,  "compile wall time saved")          \
	/* of the misses, by cause (they add up to the misses counted since    \
	 * these were: see jc_cache_stats.since): found nowhere; an entry found \
	 * damaged (local, a layer or Redis); refused by the driver; refused   \
	 * as unsigned or untrusted; a tier that could not be asked (Redis     \
	 * unreachable or backing off) */                                       \
	X(MISS_NOT_FOUND, miss_not_found, "misses: found nowhere")            \
	X(MISS_CORRUPT,   miss_corrupt,   "misses: entry damaged")            \
	X(MISS_REJECTED,  miss_rejected,  "misses: refused by the driver")    \
	X(MISS_UNTRUSTED, miss_untrusted, "misses: entry untrusted")          \
	X(MISS_UNREACHABLE, miss_unreachable, "misses: a tier unreachable")   \
	/* of the misses, compiles that failed (the program got the error) */  \
	X(BUILD_FAILURES, build_failures, "builds failed")                     \
	/* remote writes dropped: the queue was full, or still held writes at  \
	 * the end of the process after exit_wait (each is in the local store) */ \
	X(REMOTE_DROPPED, remote_dropped, "remote writes dropped")          \
	/* wall time the program waited for remote lookups (answers, misses,   \
	 * failures and timeouts alike): what the remotes cost, to set against \
	 * the compile wall time their hits saved */                          \
	X(REMOTE_WAIT_NS, remote_wait_ns, "remote lookup time")

/* The tiers a hit can come from, each one line: X(NAME, name, slot, n);
 * name is the tier's in `jitcache stats`, its --json and its --prometheus.
 * Each tier has n hit counters (one per instance: the layers are
 * several) at slots slot..slot+n-1 of the tier region of the statistics
 * file (JC_TIER_HITS(slot)), apart from JC_COUNTERS so that a tier added
 * later (one line, the next free slot: X(HTTP, http, 11, 1)) moves
 * no counter.  Slots once given are never reused.  A hit on layer n (1..)
 * counts in the layer tier's slot n-1; layers past the last slot count in
 * the last. */
#define JC_LAYER_SLOTS 8
#define JC_TIERS(X)                             \
	X(LOCAL, local, 0,  1)                  \
	X(REDIS, redis, 1,  1)                  \
	X(LAYER, layer, 2,  JC_LAYER_SLOTS)     \
	X(HTTP,  http,  11, 1)                  \
	X(S3,    s3,    12, 1)
#define JC_TIER_SLOTS 64 /* room for tiers to come */

struct jc_cache_stats {
#define X(NAME, field, label) uint64_t field;
	JC_COUNTERS(X)
#undef X
	/* hits by tier: tier_hits[slot] (JC_TIERS) */
	uint64_t tier_hits[JC_TIER_SLOTS];
	/* current contents (shared stats only): entries (compiled results and
	 * failure records), recipes beside them, and the bytes of both */
	uint64_t entries, recipes, size;
	/* shared stats only: when the counters started (wall ns since 1970:
	 * the statistics file was made, or `jitcache stats --zero`), 0 if
	 * unknown (a file made by a jitcache that did not record it) */
	int64_t since_ns;
};
void jc_cache_process_stats(const struct jc_cache *cache, struct jc_cache_stats *out);
/* Count a hit (already counted as one) that answered with a failure record. */
void jc_cache_count_failure_hit(struct jc_cache *cache);
/* Count a request the caller passed to the compiler without asking the
 * cache: a load of code already compiled (native input, a program created
 * from binaries), a separate compile or link step, or an input it cannot
 * key.  These wait with the hits (above) on their way to the shared file. */
enum jc_pass { JC_PASS_NATIVE, JC_PASS_COMPILE_LINK, JC_PASS_NOT_KEYABLE };
void jc_cache_count_pass(struct jc_cache *cache, enum jc_pass why);
int jc_cache_shared_stats(struct jc_cache *cache, struct jc_cache_stats *out);

/* Every count reaches the shared file as it happens (count.c), so a
 * process killed by a signal loses none of them, unless the file's lock
 * was busy: such counts wait for the next one, and for this, which waits
 * 50 ms at most for the lock (the library calls it at exit).  NULL is fine. */
void jc_cache_flush(struct jc_cache *cache);
/* Set every shared counter to 0 and the start (since_ns) to now
 * (`jitcache stats --zero`).  0 or -1. */
int jc_cache_zero_stats(struct jc_cache *cache);
/* Count, in this process and the shared file, one build that failed. */
void jc_cache_count_build_failure(struct jc_cache *cache);

/* The hit rate, misses by cause, hits by tier, stores and time saved of s
 * as the members of a JSON object, each preceded by ", " (the schema of
 * docs/configuration.md, "stats --json"): "hit_rate", "hits_by_tier",
 * "misses_by_cause", "stores_by_tier", "saved_s". */
void jc_stats_json_parts(FILE *out, const struct jc_cache_stats *s);
/* The same figures in Prometheus' text exposition format, each sample
 * labelled with the cache directory dir (stats --prometheus). */
void jc_stats_prometheus(FILE *out, const struct jc_cache_stats *s, const char *dir,
			 uint64_t max_size);
/* Append one JSON line (stats_log) with this process's counts to file:
 * its time, program, pid, cache directory and jc_stats_json_parts().  One
 * write(2) with O_APPEND: lines of processes ending together do not mix.
 * 0, or -1 (said once at info). */
int jc_cache_stats_log(const struct jc_cache *cache, const char *file);

/* Management, for the `jitcache` command. */
int jc_cache_clear(struct jc_cache *cache);                  /* remove every entry */
/* Evict least recently used entries down to max_size bytes (0: no cap, as
 * the setting: nothing is evicted; jc_cache_clear empties), or those last
 * used (or stored) before used_before_ns (wall ns since 1970). */
int jc_cache_trim(struct jc_cache *cache, uint64_t max_size);
int jc_cache_trim_unused(struct jc_cache *cache, int64_t used_before_ns);
/* Check every entry, remove bad ones; write a line for each bad one, each
 * entry or subdirectory that could not be checked (a symlink in place of a
 * subdirectory, an unreadable file) and a summary to out (if not NULL).
 * Returns the number of problems: bad entries (removed or, in a read-only
 * cache, left in place) and what could not be checked; 0 means every entry
 * was checked and sound, -1 that there is no cache directory to check.
 * trim, clear and verify visit every subdirectory; they also recount the
 * usage records and remove leftover temporary files. */
long jc_cache_verify(struct jc_cache *cache, FILE *out);

#endif
