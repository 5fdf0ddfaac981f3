// SPDX-License-Identifier: MIT
/*
 * object.h — the one contract for a stored object: what it is called, and
 * when its bytes are accepted.  Everything that names, reads or walks
 * entry files goes through it, wherever they lie: the cache directory
 * (store.h), a read-only layer (tiers/layers.h), a file:// or http(s)://
 * remote, an archive member (cache/transfer.c).  So the layout is written
 * once, and a value from any of them is judged by the same rule.
 *
 * Names.  The object of a key is, relative to a base (a cache directory, a
 * layer, a remote's PATH), in the layout given (the remote setting's
 * layout=, config/remote_url.h):
 *
 *   JC_LAYOUT_SUBDIRS   ab/<32 hex digits>   (the cache directory's own)
 *   JC_LAYOUT_FLAT      <32 hex digits>
 *   JC_LAYOUT_BAZEL     ac/<64 hex digits>   (ccache's: the key's hex twice)
 *
 *   char path[PATH_MAX];
 *   if (jc_object_path(base, &key, JC_LAYOUT_SUBDIRS, path, sizeof path) == 0) open(path...);
 *
 * Acceptance.  Bytes are accepted as the object of a key when their header
 * holds that key, a known format, sizes that agree with the bytes there
 * are and stay within the reader's limit (jc_entry_limit: a larger object
 * is refused from its 64-byte header, unread), the payload's checksum
 * matches and, when the trust settings require it (trusted_keys), it is
 * signed by a trusted key.  jc_accept_header() is the first step, for a
 * reader that has the header alone (a stream, a remote's first bytes);
 * jc_accept_file() the whole rule, for an object in an open file.
 *
 *   struct jc_accept a = { .limit = jc_entry_limit(max_size), .trust = t, .required = 1 };
 *   if (jc_accept_file(fd, &key, &a, &e, &why) == JC_ENTRY_OK) use(e);
 *
 * Walking.  jc_objects_each() visits every object of a directory laid out
 * as the cache directory is (read-only: a layer's or the cache's own,
 * through jc_store_each_object()), with its kind (the header's flags:
 * JC_ENTRY_RECIPE marks a recipe), nothing else read.
 *
 * Nothing here holds state; every function is safe from several threads.
 */
#ifndef JITCACHE_STORE_OBJECT_H
#define JITCACHE_STORE_OBJECT_H

#include "store/entry.h"
#include "config/remote_url.h"

#include <stddef.h>
#include <stdint.h>

/* ---- names ---- */

#define JC_OBJECT_SUB_MAX 8                        /* "ab", "ac" or "" */
#define JC_OBJECT_NAME_MAX (4 * JC_KEY_BYTES + 1)  /* the longest: bazel's */

/* Where layout puts the object of key: its directory below the base (sub;
 * "" for the base itself) and its file name there. */
void jc_object_name(const struct jc_key *key, enum jc_remote_layout layout,
		    char sub[JC_OBJECT_SUB_MAX], char name[JC_OBJECT_NAME_MAX]);
/* "base/sub/name" (or "base/name" where sub is ""): 0, or -1 when it does
 * not fit in cap bytes (out then holds nothing usable). */
int jc_object_path(const char *base, const struct jc_key *key, enum jc_remote_layout layout,
		   char *out, size_t cap);
/* The key of a name relative to a base in the cache directory's layout
 * ("ab/<32 hex>", after any "./"): 0, or -1 if it names no object (a
 * subdirectory that does not match the key's first byte included). */
int jc_object_key(const char *relative, struct jc_key *key);
/* Is name (a base name, or a path whose last part is) one of the cache
 * directory's own files that are not objects: the statistics, the locks,
 * the misses, a temporary or old lock file?  An archive of a whole cache
 * directory holds them; an import passes them over without a word. */
int jc_object_is_bookkeeping(const char *name);

/* ---- acceptance ---- */

/* What a reader accepts: objects no larger than limit (jc_entry_limit),
 * and with required set, only those signed by a key of trust (sign.h;
 * NULL: none could be read, so nothing signed is accepted either). */
struct jc_accept {
	uint64_t limit;
	const struct jc_trust *trust;
	int required;
};

/* The header raw of an object of size bytes that should hold key: its
 * format and key, and that it is within limit.  *h filled; OK, or the
 * status with *why. */
enum jc_entry_status jc_accept_header(const uint8_t raw[JC_ENTRY_HEADER_SIZE], uint64_t size,
				      const struct jc_key *key, uint64_t limit,
				      struct jc_entry_header *h, const char **why);
/* The object in the open file fd, read, checked by the whole rule and
 * handed out in *out (jc_entry_free()); or its status with *why
 * (UNTRUSTED: sound but not signed as a required).  (layout.c) */
enum jc_entry_status jc_accept_file(int fd, const struct jc_key *key, const struct jc_accept *a,
				    struct jc_entry *out, const char **why);

/* ---- walking ---- */

/* Called with each object's key, its file opened read-only (fd, closed by
 * the walk after the call) and the flags word of its header (0 when the
 * file is too short to have one).  A nonzero return ends the walk. */
/* typedef int jc_object_fn(void *ctx, const struct jc_key *key, int fd, uint32_t flags);
 * (declared in store.h, for jc_store_each_object) */
/* Every object of the directory base (reached as named: pass a held
 * directory's /proc/self/fd name), subdirectory by subdirectory; never
 * through a symbolic link.  A subdirectory that cannot be read is passed
 * over.  0, or what fn ended the walk with. */
int jc_objects_each(const char *base, jc_object_fn *fn, void *ctx);

#endif
