// SPDX-License-Identifier: MIT
/* cache.c — opening a cache; a lookup across the tiers (the local store,
 * the read-only layers, the remotes) and a store to each. */
#include "cache/internal.h"
#include "config/clock.h"

#include "store/misses.h"
#include "tiers/layers.h"
#include "config/log.h"
#include "config/remote_url.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- opening ---------------------------------------------------------- */

/* The cache directory cannot be used (said why): with usable layers, they
 * still serve hits, as in a container whose file system is read-only;
 * nothing is stored, locked or counted outside this process. */
static struct jc_cache *layers_only(struct jc_cache *c)
{
	if (!c->layers) {
		free(c);
		return NULL;
	}
	jc_log(JC_LOG_WARN, "the read-only cache layers still serve hits; nothing is stored "
	       "(set JITCACHE_DIR to a writable directory)");
	return c;
}

/* What the remote tiers' writer thread did, counted as it happens. */
static void count_remote(void *ctx, const uint64_t delta[JC_NCOUNTERS])
{
	jc_cache_count(ctx, delta, NULL);
}

struct jc_cache *jc_cache_open(const struct jc_cache_options *opts)
{
	struct jc_cache *c = calloc(1, sizeof *c);
	if (!c) {
		jc_log(JC_LOG_WARN, "out of memory opening the cache; caching disabled");
		return NULL;
	}
	c->counts_pid = getpid();
	if (opts && opts->trusted_keys_invalid) {
		c->trust_required = 1; /* fail closed */
		jc_log(JC_LOG_ERROR, "trusted_keys has an invalid value: no entry from Redis, "
		       "layers or archives is accepted");
	} else if (opts && opts->trusted_keys && *opts->trusted_keys) {
		c->trust_required = 1;
		c->trust = jc_trust_load(opts->trusted_keys);
	}
	if (opts && opts->signing_key && *opts->signing_key &&
	    (c->signer = jc_signer_load(opts->signing_key)))
		jc_entry_set_signer(c->signer);
	if (opts) {
		struct jc_store_options so = { .dir = opts->dir, .max_size = opts->max_size,
					       .shared = opts->shared, .counted = jc_cache_counted,
					       .counted_ctx = c };
		c->store = jc_store_open(&so);
		c->layers = jc_layers_open(opts->layers, opts->shared, opts->max_size);
	}
	if (!c->store)
		return layers_only(c);
	c->max_size = opts->max_size;
	c->lock_timeout = opts->lock_timeout;
	c->compress = opts->compress;
	/* said why if it failed.  The back-off files are reached by the
	 * directory's configured path: they hold only a time, and a path made
	 * from a descriptor number now could lead, later, into a directory the
	 * program put under that number (issue 35). */
	c->remote = jc_remote_open(&opts->remote, jc_store_dir(c->store),
				   jc_entry_limit(c->max_size), count_remote, c);
	jc_remote_set_keys(c->remote, c->signer, c->trust, c->trust_required);
	return c;
}

int jc_cache_flush_remote(struct jc_cache *cache, double seconds)
{
	return cache ? jc_remote_flush(cache->remote, seconds) : 0;
}

void jc_cache_close(struct jc_cache *cache)
{
	if (cache) {
		jc_cache_flush(cache);
		jc_layers_close(cache->layers);
		jc_remote_close(cache->remote);
		jc_store_close(cache->store);
		if (cache->signer)
			jc_entry_set_signer(NULL);
		jc_signer_free(cache->signer);
		jc_trust_free(cache->trust);
	}
	free(cache);
}

const char *jc_cache_dir(const struct jc_cache *cache)
{
	return cache->store ? jc_store_dir(cache->store) : "none: read-only layers only";
}

/* ---- reading ---------------------------------------------------------- */

/* Look in the cache directory: 0 on a valid entry (*out filled), -1 on a
 * miss; *corrupt is set when a bad entry was found (and removed). */
static int local_lookup(struct jc_cache *cache, const struct jc_key *key, struct jc_entry *out,
			int *corrupt)
{
	if (!cache->store) {
		memset(out, 0, sizeof *out);
		return -1;
	}
	int rc = jc_store_get(cache->store, key, out);
	if (rc == -2)
		*corrupt = 1;
	return rc == 0 ? 0 : -1;
}

/* Keep a value the remote answered in the directory: as it came, unless it
 * is compressed and this cache stores entries plain (then every later hit
 * would pay for decompressing).  stored is the value's payload as read,
 * before jc_entry_finish() decoded it into *e. */
static void keep_locally(struct jc_cache *c, const struct jc_key *key,
			 const struct jc_remote_value *v, const void *stored,
			 const uint8_t *trailer, const struct jc_entry_header *h,
			 const struct jc_entry *e)
{
	struct jc_encoded enc = { .payload = stored, .payload_size = h->stored_size };
	memcpy(enc.header, v->header, JC_ENTRY_HEADER_SIZE);
	if (trailer) {
		memcpy(enc.trailer, trailer, JC_SIG_TRAILER_SIZE);
		enc.trailer_size = JC_SIG_TRAILER_SIZE;
	}
	if ((h->flags & JC_ENTRY_ZSTD) && !c->compress)
		jc_entry_encode(key, e->data, e->size, h->compile_ns, 0, &enc);
	jc_store_put(c->store, key, &enc, 0); /* not if larger than max_size */
	free(enc.owned);
}

/* Why a lookup missed, as far as the tiers can tell (jc_miss_cause). */
struct miss_seen {
	int corrupt, untrusted, unreachable, refused; /* refused: a login (remote.h) */
};

/* The remotes are used only with the cache directory: a process that has
 * decided it cannot use its directory (said why) neither asks nor writes
 * them, nor keeps their back-off and statistics anywhere else. */
static int remote_usable(struct jc_cache *c)
{
	return c->remote && c->store && jc_store_usable(c->store);
}

/* Ask the i-th remote tier: 0 and *out filled on a valid value, which is
 * then also kept in the directory (and in the writable remotes before it);
 * -1 otherwise.  Counts into delta (a miss in one remote is counted by the
 * caller, once for all). */
static int remote_lookup_one(struct jc_cache *c, int i, const struct jc_key *key,
			     struct jc_entry *out, uint64_t count_miss,
			     struct jc_remote_request *q, int leasing,
			     uint64_t delta[JC_NCOUNTERS], struct miss_seen *seen)
{
	struct jc_remote_value v;
	struct jc_entry_header h;
	const char *why = "";
	uint64_t asked = (uint64_t)jc_mono_ns();
	int got = q ? jc_remote_ask(q, i, leasing, &v, delta)
		    : jc_remote_get(c->remote, i, key, &v, delta);
	delta[JC_REMOTE_WAIT_NS] += (uint64_t)jc_mono_ns() - asked;
	if (got <= 0) {
		seen->unreachable |= got < 0;
		seen->refused |= got == JC_REMOTE_REFUSED;
		return -1;
	}
	enum jc_entry_status status = jc_remote_value_check(key, &v, &h, &why);
	if (status == JC_ENTRY_OK) /* before inflating: a small frame may claim gigabytes */
		status = jc_entry_check_limit(&h, jc_entry_limit(c->max_size), &why);
	uint8_t trailer[JC_SIG_TRAILER_SIZE];
	int is_signed = status == JC_ENTRY_OK && (h.flags & JC_ENTRY_SIGNED);
	if (is_signed) /* the value's size was checked: the trailer follows the payload */
		memcpy(trailer, (uint8_t *)v.payload + h.stored_size, sizeof trailer);
	if (status == JC_ENTRY_OK && c->trust_required &&
	    jc_trust_verify(c->trust, v.header, v.payload, h.stored_size,
			    is_signed ? trailer : NULL, &why) != 0) {
		char hex[2 * JC_KEY_BYTES + 1];
		jc_key_hex(key, hex);
		JC_LOG_ONCE(JC_LOG_WARN, "the remote's value for %s is refused: %s (trusted_keys); "
			    "compiling here", hex, why);
		if (jc_log_enabled(JC_LOG_DEBUG)) {
			char from[JC_REMOTE_URL_MAX + 16];
			jc_remote_describe(c->remote, i, from, sizeof from);
			jc_log(JC_LOG_DEBUG, "remote value %s from %s refused: %s", hex, from, why);
		}
		free(v.payload);
		delta[JC_UNTRUSTED] += count_miss;
		seen->untrusted = 1;
		return -1;
	}
	/* A compressed payload is decoded in place: keep the bytes as read. */
	void *stored = (h.flags & JC_ENTRY_ZSTD) && c->compress && status == JC_ENTRY_OK
		? malloc(h.stored_size ? h.stored_size : 1) : NULL;
	if (stored)
		memcpy(stored, v.payload, h.stored_size);
	/* and the whole value as read, for the remotes asked before this one */
	struct jc_remote_write *back = status == JC_ENTRY_OK
		? jc_remote_backfill_write(c->remote, i, key, &v) : NULL;
	if (status == JC_ENTRY_OK)
		status = jc_entry_finish(v.header, &h, v.payload, out, &why);
	else
		free(v.payload);
	if (status != JC_ENTRY_OK) {
		char hex[2 * JC_KEY_BYTES + 1];
		jc_key_hex(key, hex);
		JC_LOG_ONCE(JC_LOG_WARN, "the remote's value for %s is not a valid entry (%s); "
			    "compiling here, and the store replaces it", hex, why);
		/* Once per request: the recheck after the lock reads it again. */
		delta[JC_REMOTE_CORRUPT] += count_miss;
		seen->corrupt = 1;
		free(stored);
		jc_remote_backfill(c->remote, back, NULL, 0);
		return -1;
	}
	keep_locally(c, key, &v, stored ? stored : out->data, is_signed ? trailer : NULL, &h, out);
	jc_remote_backfill(c->remote, back, q, 1);
	free(stored);
	delta[JC_REMOTE_HITS]++;
	out->remote = jc_remote_slot(c->remote, i);
	return 0;
}

/* Ask the remote tiers in order: 0 and *out filled on the first valid value;
 * -1 otherwise.  Counts into delta.  q: the compile request (NULL: none);
 * leasing: its first look, whose miss takes the lease (or sees who holds
 * it) in the same command; a hit after that (a later remote) releases it. */
static int remote_lookup(struct jc_cache *c, const struct jc_key *key, struct jc_entry *out,
			 uint64_t count_miss, struct jc_remote_request *q, int leasing,
			 uint64_t delta[JC_NCOUNTERS], struct miss_seen *seen)
{
	if (!remote_usable(c))
		return -1;
	for (int i = 0; i < jc_remote_tiers(c->remote); i++)
		if (remote_lookup_one(c, i, key, out, count_miss, q, leasing, delta, seen) == 0) {
			if (leasing)
				jc_remote_drop_look(q);
			return 0;
		}
	delta[JC_REMOTE_MISSES] += c->remote ? count_miss : 0;
	return -1;
}

/* Ask the read-only layers (on the first lookup only: they do not change
 * while we wait for a lock): 0 and *out filled on a hit.  Counts into delta
 * (bad entries met in a layer count as corrupt; the layer is left alone). */
static int layer_lookup(struct jc_cache *c, const struct jc_key *key, struct jc_entry *out,
			uint64_t count_miss, uint64_t delta[JC_NCOUNTERS], struct miss_seen *seen)
{
	unsigned bad = 0, untrusted = 0;
	struct jc_layer_trust trust = { c->trust_required, c->trust };
	if (!count_miss || !c->layers)
		return -1;
	int rc = jc_layers_get(c->layers, key, &trust, out, &bad, &untrusted);
	delta[JC_CORRUPT] += bad;
	delta[JC_UNTRUSTED] += untrusted;
	delta[JC_LAYER_HITS] += rc == 0;
	seen->corrupt |= bad > 0;
	seen->untrusted |= untrusted > 0;
	return rc;
}

/* The tier counter of a hit on e. */
static int tier_counter(const struct jc_entry *e)
{
	if (e->remote)
		return JC_TIER_HITS(e->remote);
	if (e->layer > 0)
		return JC_TIER_HITS(JC_SLOT_LAYER +
				    (e->layer <= JC_LAYER_SLOTS ? e->layer : JC_LAYER_SLOTS) - 1);
	return JC_TIER_HITS(JC_SLOT_LOCAL);
}

/* A lookup: the directory, then the read-only layers, then the remote tier.
 * For a recheck (count_miss 0) the first lookup already counted a miss: a
 * miss is not counted again, and a hit takes that miss back, and its cause
 * (q's; NULL: not found), so that each request counts exactly one hit or
 * one miss.  q: the compile request, whose first look (leasing) may take
 * the remote lease. */
static int lookup(struct jc_cache *cache, const struct jc_key *key, struct jc_entry *out,
		  uint64_t count_miss, struct jc_request *q, int leasing)
{
	uint64_t delta[JC_NCOUNTERS] = { 0 };
	struct miss_seen seen = { 0 };
	int rc = local_lookup(cache, key, out, &seen.corrupt);
	delta[JC_CORRUPT] += (uint64_t)seen.corrupt;
	if (rc != 0)
		rc = layer_lookup(cache, key, out, count_miss, delta, &seen);
	if (rc != 0)
		rc = remote_lookup(cache, key, out, count_miss, q ? q->remote : NULL, leasing,
				   delta, &seen);
	if (rc == 0) {
		delta[JC_HITS] = 1;
		delta[tier_counter(out)] = 1;
		delta[JC_SAVED_NS] = out->compile_ns;
		delta[JC_SAVED_WALL_NS] = out->wall_ns;
		if (!count_miss) { /* take back the miss of the first lookup, and its cause */
			delta[JC_MISSES] = (uint64_t)-1; /* modulo 2^64 */
			delta[q && q->miss ? q->miss : JC_MISS_NOT_FOUND] += (uint64_t)-1;
			if (q)
				q->miss = 0;
		}
	} else if (count_miss) {
		int cause = seen.corrupt ? JC_MISS_CORRUPT : seen.untrusted ? JC_MISS_UNTRUSTED
			  : seen.refused ? JC_MISS_LOGIN_REFUSED
			  : seen.unreachable ? JC_MISS_UNREACHABLE : JC_MISS_NOT_FOUND;
		delta[JC_MISSES] = 1;
		delta[cause] = 1;
		if (q)
			q->miss = cause;
	}
	jc_cache_count(cache, delta, NULL);
	return rc;
}

int jc_cache_get(struct jc_cache *cache, const struct jc_key *key, struct jc_entry *out)
{
	return lookup(cache, key, out, 1, NULL, 0);
}

int jc_cache_recheck(struct jc_cache *cache, const struct jc_key *key, struct jc_entry *out)
{
	return lookup(cache, key, out, 0, NULL, 0);
}

/* ---- a compile request ------------------------------------------------ */

void jc_request_begin(struct jc_request *q, struct jc_cache *cache, const struct jc_key *key)
{
	*q = (struct jc_request){ .cache = cache, .key = *key };
}

/* The request's first lookup; leasing: it may take the remote lease. */
static int first_look(struct jc_request *q, struct jc_entry *out, int leasing)
{
	uint64_t start = (uint64_t)jc_mono_ns();
	if (!q->remote && remote_usable(q->cache)) /* NULL (out of memory): as without */
		q->remote = jc_remote_request(q->cache->remote, &q->key);
	int rc = lookup(q->cache, &q->key, out, 1, q, leasing);
	q->look_ns = (uint64_t)jc_mono_ns() - start;
	return rc;
}

int jc_request_get(struct jc_request *q, struct jc_entry *out)
{
	return first_look(q, out, 1);
}

int jc_request_look(struct jc_request *q, struct jc_entry *out)
{
	return first_look(q, out, 0);
}

void jc_request_lock(struct jc_request *q)
{
	uint64_t start = (uint64_t)jc_mono_ns();
	if (!q->lock)
		q->lock = jc_cache_lock_for(q->cache, &q->key, q->remote);
	q->lock_ns = (uint64_t)jc_mono_ns() - start;
}

int jc_request_recheck(struct jc_request *q, struct jc_entry *out)
{
	return lookup(q->cache, &q->key, out, 0, q, 0);
}

void jc_request_reject(struct jc_request *q, const struct jc_entry *entry)
{
	jc_cache_reject(q->cache, &q->key, entry);
	q->miss = JC_MISS_REJECTED;
}

void jc_request_end(struct jc_request *q)
{
	jc_cache_unlock(q->lock); /* its lease let go, unless the put did */
	jc_remote_request_end(q->remote);
	q->lock = NULL;
	q->remote = NULL;
}

void jc_cache_drop(struct jc_cache *cache, const struct jc_key *key)
{
	if (cache->store && jc_store_remove(cache->store, key) == 0)
		jc_cache_count(cache, (uint64_t[JC_NCOUNTERS]){ [JC_CORRUPT] = 1 }, NULL);
}

extern char *program_invocation_short_name;

/* The miss counters and the causes a miss record names, one pair a line. */
#define JC_MISS_CAUSES(X)                               \
	X(JC_MISS_NOT_FOUND,     JC_CAUSE_NOT_FOUND)     \
	X(JC_MISS_CORRUPT,       JC_CAUSE_CORRUPT)       \
	X(JC_MISS_REJECTED,      JC_CAUSE_REJECTED)      \
	X(JC_MISS_UNTRUSTED,     JC_CAUSE_UNTRUSTED)     \
	X(JC_MISS_UNREACHABLE,   JC_CAUSE_UNREACHABLE)   \
	X(JC_MISS_LOGIN_REFUSED, JC_CAUSE_LOGIN_REFUSED) \
	X(JC_MISS_CHANGED,       JC_CAUSE_CHANGED)

static int counter_of_cause(int cause)
{
#define X(counter, c) if (cause == (c)) return (counter);
	JC_MISS_CAUSES(X)
#undef X
	return JC_MISS_NOT_FOUND;
}

int jc_request_cause(const struct jc_request *q)
{
	int counter = q->miss ? q->miss : JC_MISS_NOT_FOUND;
#define X(cnt, cause) if (counter == (cnt)) return (cause);
	JC_MISS_CAUSES(X)
#undef X
	return JC_CAUSE_NOT_FOUND;
}

/* A miss record for the store's list (`jitcache explain`). */
static void record_miss(struct jc_cache *cache, const struct jc_key *key, int cause, int failed,
			const void *trace, size_t trace_len)
{
	struct jc_miss *m = cache && cache->store ? calloc(1, sizeof *m) : NULL;
	if (!m)
		return;
	m->when_ns = jc_wall_ns();
	m->pid = (uint32_t)getpid();
	m->cause = (uint8_t)cause;
	m->flags = failed ? JC_MISS_BUILD_FAILED : 0;
	m->key = *key;
	snprintf(m->program, sizeof m->program, "%s",
		 program_invocation_short_name ? program_invocation_short_name : "");
	if (trace && trace_len <= JC_MISS_TRACE_MAX) {
		memcpy(m->trace, trace, trace_len);
		m->trace_len = trace_len;
	}
	jc_store_note_miss(cache->store, m);
	free(m);
}

void jc_cache_note_miss(struct jc_cache *cache, const struct jc_key *key, int cause,
			const void *trace, size_t trace_len, int failed)
{
	record_miss(cache, key, cause, failed, trace, trace_len);
}

void jc_cache_note_changed(struct jc_cache *cache, const struct jc_key *key, int cause,
			   const void *trace, size_t trace_len)
{
	if (!cache)
		return;
	uint64_t delta[JC_NCOUNTERS] = { 0 };
	delta[counter_of_cause(cause)] = (uint64_t)-1; /* modulo 2^64: takes one back */
	delta[JC_MISS_CHANGED] = 1;
	jc_cache_count(cache, delta, NULL);
	record_miss(cache, key, JC_CAUSE_CHANGED, 0, trace, trace_len);
}

int jc_cache_misses(struct jc_cache *cache, struct jc_miss **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (!cache->store)
		return -1;
	return jc_store_misses(cache->store, out, n);
}

void jc_cache_hit_compiled(struct jc_cache *cache, const struct jc_entry *entry)
{
	uint64_t delta[JC_NCOUNTERS] = { [JC_SAVED_NS] = -entry->compile_ns,
					 [JC_SAVED_WALL_NS] = -entry->wall_ns };
	if (cache)
		jc_cache_count(cache, delta, NULL);
}

void jc_cache_credit(struct jc_cache *cache, uint64_t cpu_ns, uint64_t wall_ns)
{
	uint64_t delta[JC_NCOUNTERS] = { [JC_SAVED_NS] = cpu_ns, [JC_SAVED_WALL_NS] = wall_ns };
	if (cache)
		jc_cache_count(cache, delta, NULL);
}

void jc_cache_reject(struct jc_cache *cache, const struct jc_key *key,
		     const struct jc_entry *entry)
{
	/* Counters are added modulo 2^64, so adding -n takes n back. */
	uint64_t delta[JC_NCOUNTERS] = { [JC_HITS] = (uint64_t)-1, [JC_MISSES] = 1,
					 [JC_MISS_REJECTED] = 1,
					 [JC_LAYER_HITS] = entry->layer ? (uint64_t)-1 : 0,
					 [JC_REMOTE_HITS] = entry->remote ? (uint64_t)-1 : 0,
					 [JC_SAVED_NS] = -entry->compile_ns,
					 [JC_SAVED_WALL_NS] = -entry->wall_ns };
	delta[tier_counter(entry)] = (uint64_t)-1;
	jc_cache_count(cache, delta, NULL);
	if (!entry->layer)
		jc_cache_drop(cache, key);
	else
		JC_LOG_ONCE(JC_LOG_WARN, "the driver refused an entry of cache layer %d; the layer "
			    "is left unchanged (rebuild it for this driver and device)", entry->layer);
}

/* ---- storing ---------------------------------------------------------- */

/* Write the entry to the remote tier too, encoded as the remote wants. */
static void remote_put(struct jc_cache *c, const struct jc_key *key, const void *data,
		       size_t size, uint64_t compile_ns, const struct jc_encoded *local,
		       struct jc_remote_request *q)
{
	uint64_t delta[JC_NCOUNTERS] = { 0 };
	struct jc_encoded other = { .owned = NULL };
	const struct jc_encoded *e = local;
	if (!remote_usable(c) || jc_remote_read_only(c->remote))
		return;
	if (!jc_remote_compress(c->remote) != !c->compress) {
		jc_entry_encode(key, data, size, compile_ns, jc_remote_compress(c->remote), &other);
		e = &other;
	}
	jc_remote_put(c->remote, key, e, q, delta);
	free(other.owned);
	jc_cache_count(c, delta, NULL);
}

/* jc_cache_put(), of request q's value (NULL: none). */
static int put(struct jc_cache *cache, const struct jc_key *key, const void *data, size_t size,
	       uint64_t compile_ns, struct jc_remote_request *q)
{
	struct jc_encoded e;
	jc_entry_encode(key, data, size, compile_ns, cache->compress, &e);
	uint64_t file_size = JC_ENCODED_SIZE(&e);
	int rc = -1;
	if (!cache->store) {
		/* layers only, said when opened: nothing is stored */
	} else if (cache->max_size && file_size > cache->max_size)
		JC_LOG_ONCE(JC_LOG_INFO, "an entry of %llu bytes is larger than the cache's "
			    "max_size (%llu bytes); not stored",
			    (unsigned long long)file_size, (unsigned long long)cache->max_size);
	else if ((rc = jc_store_put(cache->store, key, &e, 1)) != 0)
		jc_cache_count(cache, (uint64_t[JC_NCOUNTERS]){ [JC_STORE_FAILURES] = 1 }, NULL);
	remote_put(cache, key, data, size, compile_ns, &e, q);
	free(e.owned);
	return rc;
}

int jc_cache_put(struct jc_cache *cache, const struct jc_key *key,
		 const void *data, size_t size, uint64_t compile_ns)
{
	return put(cache, key, data, size, compile_ns, NULL);
}

int jc_request_put(struct jc_request *q, const void *data, size_t size, uint64_t compile_ns)
{
	return put(q->cache, &q->key, data, size, compile_ns, q->remote);
}

int jc_cache_peek(struct jc_cache *cache, const struct jc_key *key, struct jc_entry *out)
{
	int corrupt = 0;
	return local_lookup(cache, key, out, &corrupt);
}

int jc_cache_replace(struct jc_cache *cache, const struct jc_key *key, const void *data,
		     size_t size, uint64_t compile_ns)
{
	struct jc_encoded e;
	jc_entry_encode(key, data, size, compile_ns, cache->compress, &e);
	int rc = -1;
	if (cache->store && (!cache->max_size || JC_ENCODED_SIZE(&e) <= cache->max_size))
		rc = jc_store_put(cache->store, key, &e, 0);
	free(e.owned);
	return rc;
}
