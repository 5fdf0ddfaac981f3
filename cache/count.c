/* count.c — this process's counters and the shared ones (see internal.h). */
#include "cache/internal.h"

#include "config/log.h"

#include <errno.h>
#include <string.h>

/* ---- statistics ------------------------------------------------------- */

void jc_count(struct jc_cache *c, const uint64_t delta[JC_NCOUNTERS],
	      uint64_t shared_after[JC_NCOUNTERS])
{
	for (int i = 0; i < JC_NCOUNTERS; i++)
		if (delta[i])
			__atomic_add_fetch(&c->counts[i], delta[i], __ATOMIC_RELAXED);
	if (!c->local) {
		if (shared_after)
			memset(shared_after, 0, sizeof(uint64_t) * JC_NCOUNTERS);
		return;
	}
	if (jc_stats_add(c->dir, delta, shared_after) == 0)
		return;
	if (errno == ENOENT || errno == EBADMSG) { /* removed or damaged: make it anew */
		if (jc_stats_init(c->dir, c->file_mode) == 1)
			jc_resync_all(c);
		if (jc_stats_add(c->dir, delta, shared_after) == 0)
			return;
	}
	JC_LOG_ONCE(JC_LOG_INFO, "cannot update the statistics file in %s (%s); "
		    "counting in this process only", c->dir, strerror(errno));
	if (shared_after)
		memset(shared_after, 0, sizeof(uint64_t) * JC_NCOUNTERS);
}

static void fill_stats(const uint64_t v[JC_NCOUNTERS], struct jc_cache_stats *out)
{
#define X(NAME, field, label) out->field = v[JC_##NAME];
	JC_COUNTERS(X)
#undef X
}

void jc_cache_process_stats(const struct jc_cache *cache, struct jc_cache_stats *out)
{
	uint64_t v[JC_NCOUNTERS];
	for (int i = 0; i < JC_NCOUNTERS; i++)
		v[i] = __atomic_load_n(&cache->counts[i], __ATOMIC_RELAXED);
	memset(out, 0, sizeof *out);
	fill_stats(v, out);
}

int jc_cache_shared_stats(struct jc_cache *cache, struct jc_cache_stats *out)
{
	uint64_t v[JC_NCOUNTERS];
	struct jc_usage u[JC_SUBDIRS];
	memset(out, 0, sizeof *out);
	if (!cache->local || jc_stats_read(cache->dir, v) != 0 || jc_stats_usage_all(cache->dir, u) != 0)
		return -1;
	fill_stats(v, out);
	for (int i = 0; i < JC_SUBDIRS; i++) {
		out->entries += u[i].count;
		out->size += u[i].size;
	}
	return 0;
}
