// SPDX-License-Identifier: MIT
/* recipe.c — storing an entry's recipe beside it, and walking every recipe
 * (see "Recipes" in cache.h). */
#include "cache/internal.h"

#include "store/fsutil.h"
#include "store/hash.h"
#include "tiers/layers.h"
#include "config/log.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* How one directory's recipes are walked. */
struct walk {
	const char *dir;              /* how its files are reached */
	const char *shown;            /* as said in messages */
	int layer;                    /* 0: the cache directory; n: layer n */
	uint64_t limit;
	const struct jc_trust *trust; /* with required: a layer's recipes must be
					 signed by one of these keys */
	int required;
	unsigned *refused;
	jc_recipe_fn fn;
	void *ctx;
};

/* The recipe in file `name` of the open subdirectory, to fn; 0 if it is
 * none or a bad one. */
static int visit(const struct walk *w, int dfd, const char *name)
{
	struct jc_key key;
	struct jc_entry e;
	uint8_t raw[JC_ENTRY_HEADER_SIZE];
	const char *why;
	if (jc_key_from_hex(name, &key) != 0)
		return 0;
	int fd = jc_fs_open_file(dfd, name, O_RDONLY, 0);
	if (fd < 0)
		return 0;
	/* The flags word alone tells: entries are not read past their header. */
	int recipe = pread(fd, raw, sizeof raw, 0) == (ssize_t)sizeof raw &&
		     (raw[12] & JC_ENTRY_RECIPE);
	int rc = 0;
	memset(&e, 0, sizeof e);
	enum jc_entry_status status = JC_ENTRY_CORRUPT;
	if (recipe)
		status = w->layer && w->required
				 ? jc_read_entry_trusted(fd, &key, w->limit, w->trust, &e, &why)
				 : jc_read_entry(fd, &key, w->limit, &e, &why);
	if (status == JC_ENTRY_OK) {
		rc = w->fn(w->ctx, e.data, e.size, w->layer);
		jc_entry_free(&e);
	} else if (status == JC_ENTRY_UNTRUSTED) {
		if (w->refused)
			(*w->refused)++;
		JC_LOG_ONCE(JC_LOG_WARN, "recipe %s in cache layer %s is refused: %s "
			    "(trusted_keys); it is not replayed", name, w->shown, why);
	}
	close(fd);
	return rc;
}

static int walk_dir(const struct walk *w)
{
	int rc = 0;
	for (int sub = 0; sub < JC_SUBDIRS && rc == 0; sub++) {
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s/%02x", w->dir, sub);
		int dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
		if (!d) {
			if (dfd >= 0)
				close(dfd);
			continue;
		}
		struct dirent *de;
		while (rc == 0 && (de = readdir(d)))
			rc = visit(w, dfd, de->d_name);
		closedir(d);
	}
	return rc;
}

int jc_cache_each_recipe(struct jc_cache *cache, jc_recipe_fn fn, void *ctx,
			 unsigned *refused)
{
	struct walk w = { .limit = jc_entry_limit(cache->max_size), .trust = cache->trust,
			  .required = cache->trust_required, .refused = refused, .fn = fn,
			  .ctx = ctx };
	w.dir = w.shown = cache->store ? jc_store_path(cache->store) : NULL;
	int rc = w.dir ? walk_dir(&w) : 0;
	for (int n = 0; rc == 0 && (w.dir = jc_layers_dir(cache->layers, n)); n++) {
		w.shown = jc_layers_shown(cache->layers, n);
		w.layer = n + 1;
		rc = walk_dir(&w);
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
