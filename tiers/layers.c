// SPDX-License-Identifier: MIT
/* layers.c — read-only cache directories searched after the cache: each a
 * store opened read-only (store.h), its objects accepted by the rule of
 * store/object.h with the layers' trust settings. */
#include "tiers/layers.h"

#include "store/fsutil.h"
#include "store/object.h"
#include "config/log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A layer is a store opened read-only (store.h): held open as the cache
 * directory is, never written. */
struct jc_layer {
	struct jc_store *store;
	int number;              /* place in the configured list, from 1 */
	uint64_t limit;          /* largest entry taken (jc_entry_limit) */
};

struct jc_layers {
	int count;
	struct jc_layer layer[];
};

struct jc_layers *jc_layers_open(const char *list, int shared, uint64_t max_size)
{
	if (!list || !*list)
		return NULL;
	int most = 1;
	for (const char *p = list; *p; p++)
		most += *p == ':';
	struct jc_layers *l = calloc(1, sizeof *l + sizeof l->layer[0] * (size_t)most);
	if (!l) {
		jc_log(JC_LOG_WARN, "out of memory opening cache layers; layers not used");
		return NULL;
	}
	int number = 0;
	for (const char *p = list; *p; p += strcspn(p, ":"), p += *p == ':') {
		size_t len = strcspn(p, ":");
		if (len == 0)
			continue;
		struct jc_layer *one = &l->layer[l->count];
		char dir[PATH_MAX - 64];
		one->number = ++number;
		one->limit = jc_entry_limit(max_size);
		if (len >= sizeof dir) {
			jc_log(JC_LOG_WARN, "cache layer path too long (%.*s...); skipped", 64, p);
			continue;
		}
		memcpy(dir, p, len);
		dir[len] = '\0';
		if (dir[0] != '/')
			jc_log(JC_LOG_WARN, "cache layer %s is not an absolute path; skipped", dir);
		else if ((one->store = jc_store_open_read_only(dir, shared, max_size)))
			l->count++;
	}
	if (l->count == 0) {
		free(l);
		return NULL;
	}
	return l;
}

void jc_layers_close(struct jc_layers *layers)
{
	for (int i = 0; layers && i < layers->count; i++)
		jc_store_close(layers->layer[i].store);
	free(layers);
}

/* Look key up in one layer: 0 on a hit, -1 on a miss (*bad counts a
 * corrupt entry, which stays: a layer is never changed). */
static int get_one(const struct jc_layer *layer, const struct jc_key *key,
		   const struct jc_layer_trust *trust, struct jc_entry *out, unsigned *bad,
		   unsigned *untrusted)
{
	char path[PATH_MAX];
	const char *why = "";
	int fd = jc_store_open_object(layer->store, key);
	/* (it fits: a layer's path leaves room for "/ab/<key>") */
	jc_object_path(jc_store_dir(layer->store), key, JC_LAYOUT_SUBDIRS, path, sizeof path);
	if (fd < 0) {
		if (errno != ENOENT && errno != ENOTDIR && errno != EBADF) /* EBADF: said */
			JC_LOG_ONCE(JC_LOG_WARN, "cannot open cache layer entry %s (%s); "
				    "treating it as a miss", path, jc_fs_strerror(errno));
		return -1;
	}
	struct jc_accept accept = { .limit = layer->limit, .trust = trust ? trust->keys : NULL,
				    .required = trust && trust->required };
	enum jc_entry_status status = jc_accept_file(fd, key, &accept, out, &why);
	close(fd);
	if (status == JC_ENTRY_OK) {
		out->layer = layer->number;
		return 0;
	}
	if (status == JC_ENTRY_UNTRUSTED) {
		(*untrusted)++;
		JC_LOG_ONCE(JC_LOG_WARN, "cache layer entry %s is refused: %s (trusted_keys); "
			    "treating it as a miss", path, why);
		jc_log(JC_LOG_DEBUG, "cache layer entry %s refused: %s", path, why);
	} else if (status == JC_ENTRY_CORRUPT) {
		(*bad)++;
		JC_LOG_ONCE(JC_LOG_WARN, "cache layer entry %s is corrupt (%s); ignored "
			    "(layers are never changed: rebuild the layer)", path, why);
	} else {
		JC_LOG_ONCE(JC_LOG_INFO, "cannot use cache layer entry %s (%s); treating it "
			    "as a miss", path, why);
	}
	return -1;
}

int jc_layers_get(const struct jc_layers *layers, const struct jc_key *key,
		  const struct jc_layer_trust *trust, struct jc_entry *out, unsigned *bad,
		  unsigned *untrusted)
{
	memset(out, 0, sizeof *out);
	for (int i = 0; layers && i < layers->count; i++)
		if (get_one(&layers->layer[i], key, trust, out, bad, untrusted) == 0)
			return 0;
	return -1;
}

int jc_layers_each_object(const struct jc_layers *layers, int n, jc_object_fn *fn, void *ctx)
{
	if (!layers || n < 0 || n >= layers->count)
		return 0;
	return jc_store_each_object(layers->layer[n].store, fn, ctx);
}

const char *jc_layers_shown(const struct jc_layers *layers, int n)
{
	return layers && n >= 0 && n < layers->count ? jc_store_dir(layers->layer[n].store) : NULL;
}
