// SPDX-License-Identifier: MIT
/* transfer.c — jc_cache_export() and jc_cache_import() (cache/transfer.h):
 * whole caches into one archive and back, every entry checked on the way. */
#include "cache/internal.h"

#include "store/object.h"
#include "tiers/archive.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Check an entry file's bytes as a cache read does (an entry larger than
 * limit included): 0, or -1 with *why.  With out, hand over the entry's
 * data (jc_entry_free()). */
static int check_entry(const uint8_t *file, uint64_t size, const struct jc_key *key,
		       uint64_t limit, struct jc_entry *out, const char **why)
{
	struct jc_entry_header h;
	struct jc_entry e;
	if (jc_accept_header(file, size, key, limit, &h, why) != JC_ENTRY_OK)
		return -1;
	void *stored = malloc(h.stored_size ? h.stored_size : 1);
	if (!stored)
		return *why = "out of memory", -1;
	memcpy(stored, file + JC_ENTRY_HEADER_SIZE, h.stored_size);
	if (jc_entry_finish(file, &h, stored, &e, why) != JC_ENTRY_OK)
		return -1;
	if (out)
		*out = e;
	else
		jc_entry_free(&e);
	return 0;
}

/* The same for an archive member, whose buffer (header and payload) it
 * takes over instead of copying the payload: *data is NULL afterwards.
 * With trusted keys configured the member must be signed by one of them
 * (-2 otherwise), unless verified says it was already (as it streamed).
 * A signed member is also handed out as it came, in
 * *signed_as (owned: free it), so that its signature is kept. */
static int check_member(struct jc_cache *c, void **data, uint64_t size, int verified,
			const struct jc_key *key, struct jc_entry *out,
			struct jc_encoded *signed_as, const char **why)
{
	uint8_t raw[JC_ENTRY_HEADER_SIZE], trailer[JC_SIG_TRAILER_SIZE];
	struct jc_entry_header h;
	if (jc_accept_header(*data, size, key, jc_entry_limit(c->max_size), &h, why) != JC_ENTRY_OK)
		return -1;
	uint8_t *stored = *data;
	int is_signed = (h.flags & JC_ENTRY_SIGNED) != 0;
	*data = NULL;
	memcpy(raw, stored, JC_ENTRY_HEADER_SIZE);
	if (is_signed)
		memcpy(trailer, stored + JC_ENTRY_HEADER_SIZE + h.stored_size, sizeof trailer);
	memmove(stored, stored + JC_ENTRY_HEADER_SIZE, h.stored_size);
	if (c->trust_required && !verified &&
	    jc_trust_verify(c->trust, raw, stored, h.stored_size, is_signed ? trailer : NULL,
			    why) != 0) {
		free(stored);
		return -2;
	}
	memset(signed_as, 0, sizeof *signed_as);
	if (is_signed) {
		signed_as->owned = malloc(h.stored_size ? h.stored_size : 1);
		if (!signed_as->owned) {
			free(stored);
			return *why = "out of memory", -1;
		}
		memcpy(signed_as->owned, stored, h.stored_size);
		memcpy(signed_as->header, raw, sizeof raw);
		memcpy(signed_as->trailer, trailer, sizeof trailer);
		signed_as->payload = signed_as->owned;
		signed_as->payload_size = h.stored_size;
		signed_as->trailer_size = sizeof trailer;
	}
	if (jc_entry_finish(raw, &h, stored, out, why) == JC_ENTRY_OK)
		return 0;
	free(signed_as->owned);
	signed_as->owned = NULL;
	return -1;
}

/* ---- export ----------------------------------------------------------------- */

/* How an export goes: the archive, where to say what was skipped, counts. */
struct export {
	struct jc_store *store;
	struct jc_archive_writer *w;
	FILE *msgs;
	struct jc_transfer *t;
	int sub_done; /* the subdirectory last added as a directory member, or -1 */
};

/* Archive one entry file (jc_store_each_file): -1 if the archive failed. */
static int export_file(void *arg, const struct jc_key *key, const void *data, uint64_t size,
		       int64_t mtime_s, const char *why)
{
	struct export *x = arg;
	char name[JC_OBJECT_NAME_MAX], subname[JC_OBJECT_SUB_MAX], member[300];
	int sub = key->bytes[0], rc = 0;
	if (data && check_entry(data, size, key, UINT64_MAX, NULL, &why) != 0)
		data = NULL;
	if (!data) {
		jc_object_path(jc_store_dir(x->store), key, JC_LAYOUT_SUBDIRS, member, sizeof member);
		fprintf(x->msgs, "skipped a bad entry %s (%s); `jitcache verify` removes it\n",
			member, why);
		x->t->refused++;
		return 0;
	}
	/* Members are named as in a cache directory, so that an archive
	 * unpacked is one (a layer). */
	jc_object_name(key, JC_LAYOUT_SUBDIRS, subname, name);
	jc_object_path(subname, key, JC_LAYOUT_FLAT, member, sizeof member);
	if (x->sub_done != sub) {
		x->sub_done = sub;
		rc = jc_archive_add(x->w, subname, 0, NULL, 0, 1);
	}
	if (rc == 0)
		rc = jc_archive_add(x->w, member, mtime_s, data, (size_t)size, 0);
	if (jc_entry_is_recipe(data, (size_t)size))
		x->t->recipes++;
	else
		x->t->entries++;
	x->t->bytes += size;
	return rc;
}

int jc_cache_export(struct jc_cache *cache, const char *path, int64_t since_ns,
		    FILE *msgs, struct jc_transfer *t)
{
	memset(t, 0, sizeof *t);
	if (!cache->store || !jc_store_usable(cache->store))
		return -1;
	struct jc_archive_writer *w = jc_archive_create(path, msgs);
	if (!w)
		return -1;
	struct export x = { .store = cache->store, .w = w, .msgs = msgs, .t = t, .sub_done = -1 };
	if (jc_store_each_file(cache->store, since_ns, export_file, &x) != 0) {
		jc_archive_abandon(w);
		return -1;
	}
	t->archive_bytes = jc_archive_written(w);
	if (jc_archive_commit(w) != 0)
		return -1;
	struct stat st;
	if (stat(path, &st) == 0)
		t->archive_bytes = (uint64_t)st.st_size;
	return t->refused ? 1 : 0;
}

/* ---- import ----------------------------------------------------------------- */

/* Members are not held while they arrive: each goes to a spool file (an
 * unnamed file in the cache directory, where it would be stored anyway)
 * and is checked on the way, checksum and signature; only a member that
 * passes is read back into memory to be stored.  A forged member then
 * costs its reading time and some disk for a moment, never its size in
 * memory. */
struct spool {
	struct jc_cache *c;
	int fd;
	struct jc_entry_stream *stream; /* the member arriving now */
};

static const char *spool_sink(void *arg, const char *name, const void *data, size_t n)
{
	struct spool *sp = arg;
	if (!data) { /* a member begins */
		struct jc_key key;
		jc_entry_stream_end(sp->stream, &(const char *){ NULL });
		if (jc_object_key(name, &key) != 0)
			return "not a cache entry";
		sp->stream = jc_entry_stream_start(&key, n, sp->c->trust, sp->c->trust_required);
		if (!sp->stream || ftruncate(sp->fd, 0) != 0 || lseek(sp->fd, 0, SEEK_SET) != 0)
			return "out of memory or disk for its temporary copy";
		return NULL;
	}
	jc_entry_stream_feed(sp->stream, data, n);
	for (const char *p = data; n > 0;) {
		ssize_t w = write(sp->fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return "could not be written to its temporary copy";
		p += w, n -= (size_t)w;
	}
	return NULL;
}

/* The member just sunk: checked, then read back into m->data (0), or -1
 * with *why, or -2 when not signed by a trusted key. */
static int spool_take(struct spool *sp, struct jc_archive_member *m, const char **why)
{
	enum jc_entry_status status = jc_entry_stream_end(sp->stream, why);
	sp->stream = NULL;
	if (status != JC_ENTRY_OK)
		return status == JC_ENTRY_UNTRUSTED ? -2 : -1;
	if (!(m->data = malloc(m->size ? m->size : 1)))
		return *why = "out of memory", -1;
	for (uint64_t at = 0; at < m->size;) { /* pread(2) moves 2 GiB at most */
		ssize_t got = pread(sp->fd, (char *)m->data + at, (size_t)(m->size - at), (off_t)at);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			jc_archive_member_free(m);
			return *why = "could not be read back from its temporary copy", -1;
		}
		at += (uint64_t)got;
	}
	return 0;
}

/* One member: 1 imported (*bytes: the entry file stored), 2 already
 * present, 0 passed over, -1 refused (*why).  Takes over m->data. */
static int import_member(struct jc_cache *c, struct spool *sp, struct jc_archive_member *m,
			 uint64_t *bytes, int *recipe, const char **why)
{
	struct jc_key key;
	struct jc_entry e;
	int spooled = m->sunk ? spool_take(sp, m, why) : 0;
	if (spooled == -2)
		jc_cache_count(c, (uint64_t[JC_NCOUNTERS]){ [JC_UNTRUSTED] = 1 }, NULL);
	if (spooled != 0)
		return -1;
	if (!m->data)
		return m->why && !jc_object_is_bookkeeping(m->name) ? (*why = m->why, -1) : 0;
	if (jc_object_key(m->name, &key) != 0)
		return jc_object_is_bookkeeping(m->name) ? 0 : (*why = "not a cache entry", -1);
	/* A recipe stays one (cache.h): its flag, read before the check takes
	 * the member's bytes over. */
	*recipe = jc_entry_is_recipe(m->data, (size_t)m->size);
	struct jc_encoded signed_as;
	/* A member that came through the spool was verified as it streamed
	 * (spool_take): its signature is not checked a second time. */
	int checked = check_member(c, &m->data, m->size, m->sunk, &key, &e, &signed_as, why);
	if (checked == -2)
		jc_cache_count(c, (uint64_t[JC_NCOUNTERS]){ [JC_UNTRUSTED] = 1 }, NULL);
	if (checked != 0)
		return -1;
	int rc = 2;
	if (!jc_store_has(c->store, &key) && signed_as.owned) /* kept as signed */
		rc = jc_store_put(c->store, &key, &signed_as, 0) == 0
			? 1 : (*why = "could not be stored (see above)", -1);
	else if (!jc_store_has(c->store, &key))
		rc = (*recipe ? jc_cache_put_recipe_as(c, &key, e.data, e.size)
			      : jc_cache_put(c, &key, e.data, e.size, jc_compile_word(e.compile_ns, e.wall_ns))) == 0
			? 1 : (*why = "could not be stored (see above)", -1);
	free(signed_as.owned);
	if (rc == 1)
		*bytes = jc_store_file_size(c->store, &key);
	jc_entry_free(&e);
	return rc;
}

/* Judge a member from its first bytes, before it is kept in memory: a
 * bookkeeping file or anything but a sound entry header of an allowed size
 * is read past (import_member says why). */
static const char *member_check(void *arg, const char *name, const void *head, size_t n,
				uint64_t size)
{
	struct jc_cache *c = arg;
	struct jc_key key;
	struct jc_entry_header h;
	const char *why = NULL;
	if (jc_object_is_bookkeeping(name))
		return "bookkeeping";
	if (jc_object_key(name, &key) != 0)
		return "not a cache entry";
	if (n < JC_ENTRY_HEADER_SIZE)
		return size < JC_ENTRY_HEADER_SIZE ? "shorter than a header" : NULL;
	if (jc_accept_header(head, size, &key, jc_entry_limit(c->max_size), &h, &why) != JC_ENTRY_OK)
		return why;
	return NULL;
}

int jc_cache_import(struct jc_cache *cache, const char *path, FILE *msgs,
		    struct jc_transfer *t)
{
	struct jc_cache_stats before, after;
	memset(t, 0, sizeof *t);
	if (!cache->store || !jc_store_usable(cache->store))
		return -1;
	FILE *f = fopen(path, "rbe");
	if (!f) {
		fprintf(msgs, "cannot read %s: %s\n", path, strerror(errno));
		return -1;
	}
	struct jc_archive_reader *r = jc_archive_open(f, jc_entry_limit(cache->max_size));
	if (!r) {
		fclose(f);
		fprintf(msgs, "cannot read %s: out of memory\n", path);
		return -1;
	}
	struct spool sp = { .c = cache, .fd = jc_store_spool(cache->store) };
	jc_archive_set_check(r, member_check, cache);
	if (sp.fd >= 0)
		jc_archive_set_sink(r, spool_sink, &sp);
	jc_cache_shared_stats(cache, &before);
	struct jc_archive_member m;
	int rc;
	while ((rc = jc_archive_next(r, &m)) > 0) {
		const char *why = "";
		uint64_t bytes = 0;
		int recipe = 0;
		int got = import_member(cache, &sp, &m, &bytes, &recipe, &why);
		if (got < 0) {
			fprintf(msgs, "%s: member %s: %s; refused\n", path, m.name, why);
			t->refused++;
		} else if (got == 1) {
			t->entries += (uint64_t)!recipe;
			t->recipes += (uint64_t)recipe;
			t->bytes += bytes;
		} else if (got == 2) {
			t->present += (uint64_t)!recipe;
			t->present_recipes += (uint64_t)recipe;
		}
		jc_archive_member_free(&m);
	}
	if (rc < 0)
		fprintf(msgs, "%s: %s\n", path, jc_archive_error(r));
	if (jc_cache_shared_stats(cache, &after) == 0) {
		/* Of the files evicted meanwhile, the recipes: those that are gone. */
		t->evicted = jc_sub_sat(after.evictions, before.evictions);
		t->evicted_recipes = jc_sub_sat(before.recipes + t->recipes, after.recipes);
		if (t->evicted_recipes > t->evicted)
			t->evicted_recipes = t->evicted;
	}
	struct stat st;
	if (fstat(fileno(f), &st) == 0)
		t->archive_bytes = (uint64_t)st.st_size;
	jc_archive_close(r);
	jc_entry_stream_end(sp.stream, &(const char *){ NULL }); /* a member cut short */
	if (sp.fd >= 0)
		close(sp.fd);
	fclose(f);
	if (rc < 0 && t->entries + t->recipes + t->present + t->present_recipes == 0 &&
	    t->refused == 0)
		return -1;
	return rc < 0 || t->refused ? 1 : 0;
}
