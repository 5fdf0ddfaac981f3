// SPDX-License-Identifier: MIT
/*
 * entry.h — the format of one cache entry file, and its validation.
 *
 * An entry file is a 64-byte header followed by the stored payload.  All
 * header fields are little-endian:
 *
 *   offset  size  field
 *        0     8  magic "jitcache"
 *        8     4  format version (JC_ENTRY_VERSION)
 *       12     4  flags (JC_ENTRY_ZSTD: payload is one zstd frame;
 *                 JC_ENTRY_RECIPE: the payload is the recipe of another
 *                 entry, cache/recipe.h)
 *       16    16  the entry's full key
 *       32     8  stored size: payload bytes after the header
 *       40     8  data size: payload bytes once decompressed
 *       48     8  compile time that a hit saves: the compile word below
 *       56     8  checksum: XXH3-64 of the payload, seeded with the
 *                 XXH3-64 of header bytes 0..55
 *
 * The compile word.  Entries once held the compiler's CPU time in
 * nanoseconds there; they now hold its wall time too (what the user
 * waited), in the same 8 bytes, so that every jitcache reads every entry
 * and no format version changes:
 *
 *   bits 63..20  CPU time in ns, rounded to a multiple of 2^20 ns (1.05 ms;
 *                a nonzero time is at least that): what a jitcache that
 *                knows nothing of the rest reads, within half a millisecond
 *   bits 19..10  wall time / CPU time, in 32nds (0 to 31.97, saturating)
 *   bits  9..0   a check of bits 63..10 (jc_compile_word)
 *
 * A word whose check does not match, or below 2^20, is an older entry's
 * plain CPU time: its wall time is not known and is taken as its CPU time.
 * (An older word matches the check by chance once in 1024 entries: its
 * wall time is then misread, off by at most 32 times its CPU time.)
 *
 * With JC_ENTRY_SIGNED, the payload is followed by a signature trailer of
 * JC_SIG_TRAILER_SIZE bytes (trust/sign.h); the file is that much longer.
 *
 * Reading an entry is two steps, so that a reader can check the header
 * before it allocates anything: jc_entry_check_header() against the key
 * asked for and the file's size, then jc_entry_finish() on the payload,
 * which checks the checksum and decompresses.  Both return a status: OK, or
 * what the caller should do with a bad file, with a short reason in *why.
 * jc_entry_stream_*() check a file that arrives in pieces, without
 * holding it.  The writer calls jc_entry_encode().  Nothing here does I/O
 * but jc_read_entry*(), which read an entry from a file already open.
 */
#ifndef JITCACHE_ENTRY_H
#define JITCACHE_ENTRY_H

#include "store/store.h"
#include "trust/sign.h"

#include <stdint.h>

#define JC_ENTRY_HEADER_SIZE 64
#define JC_ENTRY_VERSION 1
#define JC_ENTRY_ZSTD 1u
#define JC_ENTRY_RECIPE 2u
#define JC_ENTRY_SIGNED 4u /* a signature trailer follows the payload (sign.h) */

enum jc_entry_status {
	JC_ENTRY_OK = 0,
	JC_ENTRY_CORRUPT,    /* damaged: remove it and count it as corrupt */
	JC_ENTRY_OLD_FORMAT, /* another format version: remove it, not corrupt */
	JC_ENTRY_UNREADABLE, /* fine, but not here and now (no memory, no zstd) */
	JC_ENTRY_UNTRUSTED,  /* not signed by a trusted key (sign.h): not used,
				not removed, counted */
};

struct jc_entry_header {
	uint32_t version, flags;
	struct jc_key key;
	uint64_t stored_size, data_size, compile_ns, checksum;
};

/* A payload ready to be written after its header, then its signature
 * trailer (trailer_size 0: unsigned); free with free(owned). */
struct jc_encoded {
	uint8_t header[JC_ENTRY_HEADER_SIZE];
	const void *payload;
	size_t payload_size;
	void *owned;
	uint8_t trailer[JC_SIG_TRAILER_SIZE];
	size_t trailer_size;
};
/* The bytes of the entry file: header, payload, trailer. */
#define JC_ENCODED_SIZE(e) ((uint64_t)JC_ENTRY_HEADER_SIZE + (e)->payload_size + (e)->trailer_size)

/* Sign every entry encoded from now on with s (NULL: stop signing); the
 * caller keeps s alive meanwhile.  Process-wide: one node, one key. */
struct jc_signer;
void jc_entry_set_signer(const struct jc_signer *s);

/* The compile word of a compile that took cpu_ns of the compiler's CPU
 * and wall_ns of the caller's wall time, and the times read back from one
 * (wall_ns == cpu_ns for a word of an older entry). */
uint64_t jc_compile_word(uint64_t cpu_ns, uint64_t wall_ns);
void jc_compile_times(uint64_t word, uint64_t *cpu_ns, uint64_t *wall_ns);

/* Build the header (and compressed payload, if compress and it helps);
 * compile_ns is the compile word (jc_compile_word, or a plain time).
 * jc_entry_encode_flags() adds flags beyond JC_ENTRY_ZSTD (JC_ENTRY_RECIPE). */
void jc_entry_encode(const struct jc_key *key, const void *data, size_t size,
		     uint64_t compile_ns, int compress, struct jc_encoded *out);
void jc_entry_encode_flags(const struct jc_key *key, const void *data, size_t size,
			   uint64_t compile_ns, int compress, uint32_t flags,
			   struct jc_encoded *out);

/* Decode and check a header read from a file of file_size bytes that should
 * hold key.  Fills *h. */
enum jc_entry_status jc_entry_check_header(const uint8_t raw[JC_ENTRY_HEADER_SIZE],
					   uint64_t file_size, const struct jc_key *key,
					   struct jc_entry_header *h, const char **why);

/* Do the first n bytes of an entry file say it is a recipe (the magic and
 * JC_ENTRY_RECIPE; nothing else is checked)?  What stats and listings count
 * apart; a read still checks the whole entry. */
int jc_entry_is_recipe(const void *raw, size_t n);

/* The largest entry file (header and payload, stored or decompressed) a
 * reader takes: the cache's max_size, since no larger entry can be stored
 * under it, or JC_ENTRY_LIMIT_UNCAPPED without a cap.  Entries come from
 * files, layers, Redis and archives that others may write: anything larger
 * is refused from its header, before it is read, mapped or inflated. */
#define JC_ENTRY_LIMIT_UNCAPPED (4ull << 30)
/* How much a compressed payload may inflate: a reader takes at most this
 * many times the bytes it was given (a 32 KB value that claims 1 GiB is
 * refused from its header, unread and uninflated), and a writer stores
 * plain what would compress better (GPU binaries, logs and recipes compress
 * 3-20 times; only long runs of one byte go beyond). */
#define JC_ENTRY_MAX_RATIO 256
uint64_t jc_entry_limit(uint64_t max_size);

/* CORRUPT (with *why) if the header describes an entry larger than limit,
 * stored or decompressed; OK otherwise. */
enum jc_entry_status jc_entry_check_limit(const struct jc_entry_header *h, uint64_t limit,
					  const char **why);

/* Check the payload against the header's checksum and hand out the data.
 * Takes ownership of stored (a malloc'd block of h->stored_size bytes): on
 * OK it becomes or is replaced by out->data, otherwise it is freed. */
enum jc_entry_status jc_entry_finish(const uint8_t raw[JC_ENTRY_HEADER_SIZE],
				     const struct jc_entry_header *h, void *stored,
				     struct jc_entry *out, const char **why);

uint64_t jc_entry_checksum(const uint8_t raw[JC_ENTRY_HEADER_SIZE],
			   const void *stored, size_t size);

/* Checking an entry file that arrives in pieces (an archive member)
 * without holding it: start with the key it should hold and its size, feed
 * every byte of the file in order, and end: OK when the header is sound,
 * the size and checksum agree and, with check_trust, the trust list t
 * (sign.h) accepts its signature (UNTRUSTED otherwise); CORRUPT with *why
 * else.  End also frees the stream; a NULL stream (no memory) ends
 * UNREADABLE. */
struct jc_entry_stream;
struct jc_entry_stream *jc_entry_stream_start(const struct jc_key *key, uint64_t file_size,
					      const struct jc_trust *t, int check_trust);
void jc_entry_stream_feed(struct jc_entry_stream *s, const void *data, size_t n);
enum jc_entry_status jc_entry_stream_end(struct jc_entry_stream *s, const char **why);

/* ---- reading an entry file (defined in layout.c) ---- */

/* Read, validate and hand out the entry for key from its open file fd.  On a
 * bad file, returns its status with a reason in *why.  A file whose header
 * claims more than limit bytes (jc_entry_limit) is refused unread. */
enum jc_entry_status jc_read_entry(int fd, const struct jc_key *key, uint64_t limit,
				   struct jc_entry *out, const char **why);
/* The same for an entry that must be signed by a key of trust (sign.h;
 * NULL: none could be loaded): else JC_ENTRY_UNTRUSTED with *why.  The
 * signature is checked before anything is decompressed. */
struct jc_trust;
enum jc_entry_status jc_read_entry_trusted(int fd, const struct jc_key *key, uint64_t limit,
					   const struct jc_trust *trust, struct jc_entry *out,
					   const char **why);

/* Is file name of the directory dfd (AT_FDCWD: name is a path) an entry
 * file flagged as a recipe?  0 when not, or when it cannot be read. */
int jc_file_is_recipe(int dfd, const char *name);

#endif
