// SPDX-License-Identifier: MIT
/* recipe.c — where an entry's recipe lives, and walking every recipe
 * (see "Recipes" in cache.h). */
#include "cache/cache.h"
#include "store/internal.h"

#include "store/fsutil.h"
#include "store/hash.h"
#include "tiers/layers.h"
#include "config/hex.h"
#include "config/log.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Same first byte, so the same subdirectory as the entry; the rest a hash
 * of the entry's key, which no request's key is made of. */
void jc_recipe_key(const struct jc_key *entry, struct jc_key *recipe)
{
	uint64_t a = jc_hash64(entry->bytes, JC_KEY_BYTES, 0x7265636970653a31ull); /* "recipe:1" */
	uint64_t b = jc_hash64(entry->bytes, JC_KEY_BYTES, a);
	recipe->bytes[0] = entry->bytes[0];
	memcpy(recipe->bytes + 1, &a, 8);
	memcpy(recipe->bytes + 9, &b, 7);
}

static int key_from_hex(const char *s, struct jc_key *key)
{
	return jc_unhex(s, JC_KEY_BYTES, key->bytes) == 0 && s[2 * JC_KEY_BYTES] == '\0' ? 0 : -1;
}

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
	if (key_from_hex(name, &key) != 0)
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
	struct walk w = { .dir = cache->dir, .shown = cache->dir, .limit = jc_entry_limit(cache->max_size),
			  .trust = cache->trust, .required = cache->trust_required,
			  .refused = refused, .fn = fn, .ctx = ctx };
	int rc = cache->local ? walk_dir(&w) : 0;
	for (int n = 0; rc == 0 && (w.dir = jc_layers_dir(cache->layers, n)); n++) {
		w.shown = jc_layers_shown(cache->layers, n);
		w.layer = n + 1;
		rc = walk_dir(&w);
	}
	return rc;
}
