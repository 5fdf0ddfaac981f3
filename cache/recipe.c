// SPDX-License-Identifier: MIT
/* recipe.c — storing an entry's recipe beside it, and walking every recipe
 * (see "Recipes" in cache.h). */
#include "cache/internal.h"

#include "store/object.h"
#include "tiers/layers.h"
#include "config/log.h"

#include <stdlib.h>
#include <string.h>

/* How one directory's recipes are walked. */
struct walk {
	const char *shown;            /* the directory, as said in messages */
	int layer;                    /* 0: the cache directory; n: layer n */
	struct jc_accept accept;      /* a layer's recipes, under trusted_keys,
					 must be signed by a trusted key */
	unsigned *refused;
	jc_recipe_fn fn;
	void *ctx;
};

/* One object of the directory (jc_objects_each): to fn if it is a sound
 * recipe; 0 if it is none or a bad one.  The flags word alone tells:
 * entries are not read past their header. */
static int visit(void *arg, const struct jc_key *key, int fd, uint32_t flags)
{
	const struct walk *w = arg;
	struct jc_entry e;
	const char *why;
	char name[2 * JC_KEY_BYTES + 1];
	if (!(flags & JC_ENTRY_RECIPE))
		return 0;
	memset(&e, 0, sizeof e);
	enum jc_entry_status status = jc_accept_file(fd, key, &w->accept, &e, &why);
	if (status == JC_ENTRY_OK) {
		int rc = w->fn(w->ctx, e.data, e.size, w->layer);
		jc_entry_free(&e);
		return rc;
	}
	if (status == JC_ENTRY_UNTRUSTED) {
		if (w->refused)
			(*w->refused)++;
		jc_key_hex(key, name);
		JC_LOG_ONCE(JC_LOG_WARN, "recipe %s in cache layer %s is refused: %s "
			    "(trusted_keys); it is not replayed", name, w->shown, why);
	}
	return 0;
}

int jc_cache_each_recipe(struct jc_cache *cache, jc_recipe_fn fn, void *ctx,
			 unsigned *refused)
{
	struct walk w = { .accept = { .limit = jc_entry_limit(cache->max_size) },
			  .refused = refused, .fn = fn, .ctx = ctx };
	int rc = cache->store ? jc_store_each_object(cache->store, visit, &w) : 0;
	w.accept.trust = cache->trust;
	w.accept.required = cache->trust_required; /* the cache's own are its own */
	for (int n = 0; rc == 0 && (w.shown = jc_layers_shown(cache->layers, n)); n++) {
		w.layer = n + 1;
		rc = jc_layers_each_object(cache->layers, n, visit, &w);
	}
	return rc;
}

int jc_cache_put_recipe(struct jc_cache *cache, const struct jc_key *entry,
			const void *data, size_t size)
{
	struct jc_key key;
	jc_recipe_key(entry, &key);
	return jc_cache_put_recipe_as(cache, &key, data, size);
}

int jc_cache_put_recipe_as(struct jc_cache *cache, const struct jc_key *key, const void *data,
			   size_t size)
{
	struct jc_encoded e;
	if (!cache->store)
		return -1;
	jc_entry_encode_flags(key, data, size, 0, 1, JC_ENTRY_RECIPE, &e);
	int rc = jc_store_put(cache->store, key, &e, 0); /* not if larger than max_size */
	free(e.owned);
	return rc;
}
