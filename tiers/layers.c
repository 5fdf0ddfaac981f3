// SPDX-License-Identifier: MIT
/* layers.c — read-only cache directories searched after the cache. */
#include "tiers/layers.h"

#include "store/fsutil.h"
#include "store/object.h"
#include "config/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct jc_layer {
	char dir[PATH_MAX - 64]; /* as configured, for messages */
	char at[PATH_MAX - 64];  /* how it is reached (jc_dir_name); room for "/ab/<key>" */
	int fd;                  /* held open */
	dev_t dev;               /* what fd is: checked before each use */
	ino_t ino;
	int number;              /* place in the configured list, from 1 */
	uint64_t limit;          /* largest entry taken (jc_entry_limit) */
};

struct jc_layers {
	int count;
	struct jc_layer layer[];
};

/* Hold dir open if it may serve as a layer (otherwise one line saying why
 * not): from then on it is reached through its descriptor, so a later
 * rename of it or of a parent cannot put another in its place. */
static int hold(struct jc_layer *layer, int shared)
{
	struct stat st;
	if (layer->dir[0] != '/') {
		jc_log(JC_LOG_WARN, "cache layer %s is not an absolute path; skipped", layer->dir);
		return -1;
	}
	layer->fd = jc_dir_open(layer->dir, JC_DIR_LAYER, 0, shared, &st);
	if (layer->fd < 0)
		return -1;
	if (jc_dir_name(layer->fd, &st, layer->dir, layer->at, sizeof layer->at) != 0) {
		close(layer->fd);
		return -1;
	}
	layer->dev = st.st_dev;
	layer->ino = st.st_ino;
	return 0;
}

/* Is the layer's descriptor still the directory held?  A program that
 * closes descriptors it did not open and opens its own may have put one of
 * its files or directories under the same number. */
static int held(const struct jc_layer *layer)
{
	struct stat st;
	if (fstat(layer->fd, &st) == 0 && S_ISDIR(st.st_mode) && st.st_dev == layer->dev &&
	    st.st_ino == layer->ino)
		return 1;
	JC_LOG_ONCE(JC_LOG_WARN, "the descriptor holding cache layer %s was closed or reused by "
		    "the program; the layer is not used", layer->dir);
	return 0;
}

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
		one->number = ++number;
		one->limit = jc_entry_limit(max_size);
		if (len >= sizeof one->dir) {
			jc_log(JC_LOG_WARN, "cache layer path too long (%.*s...); skipped", 64, p);
			continue;
		}
		memcpy(one->dir, p, len);
		one->dir[len] = '\0';
		while (len > 1 && one->dir[len - 1] == '/')
			one->dir[--len] = '\0';
		if (hold(one, shared) == 0)
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
		if (held(&layers->layer[i]))
			close(layers->layer[i].fd);
	free(layers);
}

/* Look key up in one layer: 0 on a hit, -1 on a miss (*bad counts a
 * corrupt entry, which stays: a layer is never changed). */
static int get_one(const struct jc_layer *layer, const struct jc_key *key,
		   const struct jc_layer_trust *trust, struct jc_entry *out, unsigned *bad,
		   unsigned *untrusted)
{
	char path[PATH_MAX], at[PATH_MAX];
	const char *why = "";
	if (!held(layer))
		return -1;
	/* (both fit: dir and at leave room for "/ab/<key>") */
	jc_object_path(layer->dir, key, JC_LAYOUT_SUBDIRS, path, sizeof path);
	jc_object_path(layer->at, key, JC_LAYOUT_SUBDIRS, at, sizeof at);
	int fd = jc_fs_open_file(AT_FDCWD, at, O_RDONLY, 0);
	if (fd < 0) {
		if (errno != ENOENT && errno != ENOTDIR)
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
	if (!layers || n < 0 || n >= layers->count || !held(&layers->layer[n]))
		return 0;
	return jc_objects_each(layers->layer[n].at, fn, ctx);
}

const char *jc_layers_shown(const struct jc_layers *layers, int n)
{
	return layers && n >= 0 && n < layers->count ? layers->layer[n].dir : NULL;
}
