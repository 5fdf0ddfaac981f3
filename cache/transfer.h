// SPDX-License-Identifier: MIT
/*
 * transfer.h — whole caches into one archive file and back (tiers/archive.h
 * says what the file is).
 *
 * jc_cache_export() writes every valid entry of a cache (or those used since
 * a time) as members named "ab/<32 hex digits>", each the entry file byte
 * for byte, so that unpacking the archive (`tar --zstd -xf FILE -C DIR`)
 * makes DIR a cache directory or a read-only layer (tiers/layers.h).  The
 * archive is written to a temporary file beside FILE and renamed into place.
 * jc_cache_import() checks every member as a cache read checks an entry
 * (name, key, sizes, checksum, compressed frame) and stores the good ones
 * as jc_cache_put() does, so the size cap, eviction and statistics hold; a
 * bad member is refused with one line naming it, and the others still go in.
 *
 *   struct jc_transfer t;
 *   rc = jc_cache_export(cache, "/x/cache.tar.zst", since_ns, stderr, &t);
 *   rc = jc_cache_import(cache, "/x/cache.tar.zst", stderr, &t);
 *
 * Both return 0 when all went well, 1 when some entries or members were
 * skipped or refused (each said in one line on `msgs`), -1 when the file
 * could not be written or read at all (said on msgs too).  t holds counts.
 */
#ifndef JITCACHE_TRANSFER_H
#define JITCACHE_TRANSFER_H

#include <stdint.h>
#include <stdio.h>

struct jc_cache;

struct jc_transfer {
	uint64_t entries, recipes; /* entries and recipes (cache.h) exported or imported */
	uint64_t bytes;            /* the files' bytes of both */
	uint64_t archive_bytes;    /* size of the archive file */
	uint64_t present, present_recipes; /* import: entries and recipes already
					      in the cache, left alone */
	uint64_t refused;          /* export: bad entries skipped; import: members refused */
	uint64_t evicted;          /* import: entry files evicted to stay under max_size */
	uint64_t evicted_recipes;  /* of them, recipes */
};

int jc_cache_export(struct jc_cache *cache, const char *path, int64_t since_ns,
		    FILE *msgs, struct jc_transfer *t);
int jc_cache_import(struct jc_cache *cache, const char *path, FILE *msgs,
		    struct jc_transfer *t);

#endif
