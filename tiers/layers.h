// SPDX-License-Identifier: MIT
/*
 * layers.h — read-only cache directories searched after the cache itself.
 *
 * A layer is a directory laid out like a cache directory (DIR/ab/<key>), for
 * example one baked into a container image under /opt: a copy of a warm
 * cache (`cp -a`), or an archive from `jitcache export` unpacked there.
 * jc_cache_open() opens the layers named in its options, and a lookup that
 * misses in the cache directory asks them, in the order given; the first
 * valid entry is the hit.  Lookup order overall: the cache directory, then
 * the layers, then any remote tier.
 *
 * Each layer is a store opened read-only (store.h's
 * jc_store_open_read_only, as Mesa's read-only caches and ccache's
 * read-only secondaries), whose objects are accepted by the one rule of
 * store/object.h.  A layer is never written: no locks, no recency, no
 * statistics (the hit is counted in the cache directory's), no removal of
 * a bad entry.  So a layer
 * may sit on a read-only file system.  Every entry read from a layer is
 * validated like any other (key, sizes, checksum); a bad one is a miss and
 * is left where it is, with one log line.  A hit is served from the layer
 * itself, not copied into the cache directory: it costs what a local hit
 * costs (bench/layers.sh measures both side by side).
 *
 * Trust: whoever can write a layer chooses the GPU code this user's
 * programs run.  jc_layers_open() keeps a layer only if it is a directory
 * owned by root or by this user and not writable by group or others (the
 * rule of the cache directory, with root added: an image's /opt is root's),
 * unless `shared` is set, which trusts shared layers as it trusts a shared
 * cache directory.  A missing, relative or untrusted layer is skipped with
 * one log line.  As for the cache directory, the path is used as given,
 * symlinks included, checked on the opened directory and then held open
 * (reached only through its descriptor, so a later rename of it or of a
 * parent cannot swap it), and entries are never opened through a symlink.
 *
 *   struct jc_layers *l = jc_layers_open("/opt/a:/opt/b", shared, max_size); // NULL: none
 *   unsigned bad = 0;
 *   if (jc_layers_get(l, &key, &e, &bad) == 0) { use(e); jc_entry_free(&e); }
 *   jc_layers_close(l);
 *
 * Errors never stop anything: an unusable layer or entry is a miss.  The
 * caller owns what it passes in; a hit hands over e.data (jc_entry_free()).
 * jc_layers_get() is safe to call from several threads at once.
 */
#ifndef JITCACHE_LAYERS_H
#define JITCACHE_LAYERS_H

#include "store/store.h"

struct jc_layers;

/* The trusted layers of the ':'-separated list, or NULL if none (an empty
 * list included).  An entry larger than the cache's max_size allows
 * (jc_entry_limit) is refused from its header, unread. */
struct jc_layers *jc_layers_open(const char *list, int shared, uint64_t max_size);
void jc_layers_close(struct jc_layers *layers);

/* What layer entries must be signed with (sign.h): with required set, only
 * entries signed by a key of keys (NULL: none could be read) are used. */
struct jc_trust;
struct jc_layer_trust {
	int required;
	const struct jc_trust *keys;
};

/* 0 and *out filled (out->layer = the layer's place in the list, from 1) on
 * a valid entry; -1 on a miss.  *bad is increased by the number of corrupt
 * entries met on the way, *untrusted by those refused for want of a trusted
 * signature (all are left in place).  trust may be NULL: none required. */
int jc_layers_get(const struct jc_layers *layers, const struct jc_key *key,
		  const struct jc_layer_trust *trust, struct jc_entry *out, unsigned *bad,
		  unsigned *untrusted);

/* Every object of the n-th layer (from 0) with its kind, as
 * jc_objects_each() (store/object.h) walks it, through the held directory:
 * 0 (also past the last layer, or when its descriptor was lost), or what
 * fn ended the walk with. */
int jc_layers_each_object(const struct jc_layers *layers, int n, jc_object_fn *fn, void *ctx);
/* The n-th layer as configured, for messages, or NULL past the last. */
const char *jc_layers_shown(const struct jc_layers *layers, int n);

#endif
