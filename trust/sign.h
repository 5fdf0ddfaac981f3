// SPDX-License-Identifier: MIT
/*
 * sign.h — signed entries: who may choose the code a reader runs.
 *
 * Without keys, whoever can write the Redis database, a layer or an archive
 * chooses the native code every reader of it runs: checksums find damage,
 * not forgery.  With keys, a node holding the private key (the signing key,
 * made by `jitcache keygen`) signs every entry it writes; a node given the
 * matching public keys (trusted keys) accepts from Redis, layers and
 * `jitcache import` only entries whose signature one of them verifies.  The
 * user's own cache directory stays trusted by its owner and mode (cache.h).
 *
 * A signed entry has JC_ENTRY_SIGNED in its header's flags and, after its
 * payload, a trailer of JC_SIG_TRAILER_SIZE bytes: the signing key's id (8
 * bytes: BLAKE2b-64 of its public key) and an Ed25519 signature (64 bytes,
 * libsodium's Ed25519ph) of "jitcache-entry-signature-v1\n", the 64-byte
 * header and the stored payload.  The header holds the full key, the sizes
 * and the checksum: a signature covers one key's one content, and cannot be
 * moved to another key or another payload.
 *
 * Files: a public key is one line "jitcache-ed25519 BASE64 [COMMENT]"; a
 * private key one line "jitcache-ed25519-secret BASE64", in a regular file
 * of its owner's that nobody else may read (checked).  Both are read like
 * the password file: regular files only, without blocking, bounded.
 *
 *   struct jc_signer *s = jc_signer_load(path);   // NULL: said why in one line
 *   jc_sign(s, header, stored, stored_size, trailer);
 *   struct jc_trust *t = jc_trust_load("a.pub:b.pub");   // never NULL for a list
 *   jc_trust_verify(t, header, stored, stored_size, trailer_or_NULL, &why) == 0
 *
 * A trust list that cannot be read is not dropped: it refuses every entry
 * (fail closed), having said why once.  Thread-safe after loading.
 */
#ifndef JITCACHE_SIGN_H
#define JITCACHE_SIGN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JC_SIG_TRAILER_SIZE 72

struct jc_signer;
struct jc_trust;

struct jc_signer *jc_signer_load(const char *path);
void jc_signer_free(struct jc_signer *s);
/* Sign one entry: header is its 64-byte header (JC_ENTRY_SIGNED set). */
void jc_sign(const struct jc_signer *s, const uint8_t *header, const void *stored,
	     size_t stored_size, uint8_t trailer[JC_SIG_TRAILER_SIZE]);

/* paths: "FILE[:FILE...]"; NULL or "" gives NULL (no trust list: every
 * entry accepted, signed or not). */
struct jc_trust *jc_trust_load(const char *paths);
void jc_trust_free(struct jc_trust *t);
/* 0 if the trailer (NULL: the entry is unsigned) holds a signature of this
 * header and payload by a trusted key; -1 with *why otherwise. */
int jc_trust_verify(const struct jc_trust *t, const uint8_t *header, const void *stored,
		    size_t stored_size, const uint8_t *trailer, const char **why);
/* The same for a payload that arrives in pieces: start with the header,
 * update with every payload byte in order, end with the trailer (NULL:
 * unsigned), which also frees the stream (NULL from start: out of memory). */
/* Short messages other than entries (compile leases, remote.h): a key id
 * and signature, 72 bytes as in a trailer, of a domain line and msg. */
void jc_sign_note(const struct jc_signer *s, const char *domain, const void *msg, size_t n,
		  uint8_t out[JC_SIG_TRAILER_SIZE]);
int jc_trust_verify_note(const struct jc_trust *t, const char *domain, const void *msg,
			 size_t n, const uint8_t sig[JC_SIG_TRAILER_SIZE], const char **why);
struct jc_trust_stream;
struct jc_trust_stream *jc_trust_stream_start(const uint8_t *header);
void jc_trust_stream_update(struct jc_trust_stream *v, const void *stored, size_t n);
int jc_trust_stream_end(const struct jc_trust *t, struct jc_trust_stream *v,
			const uint8_t *trailer, const char **why);

/* `jitcache keygen`: write PREFIX (the private key, 0600, never over an
 * existing file) and PREFIX.pub, and print the public key line on out.
 * 0 on success; -1 after one line on stderr. */
int jc_keygen(const char *prefix, const char *comment, FILE *out);

#endif
