// SPDX-License-Identifier: MIT
#include "trust/sign.h"

#include "config/log.h"
#include "config/readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PUBLIC_TAG "jitcache-ed25519"
#define SECRET_TAG "jitcache-ed25519-secret"
#define KEY_FILE_MAX 4096
#define TRUST_MAX 64 /* keys in one trust list */
static const char domain[] = "jitcache-entry-signature-v1";

struct jc_signer {
	unsigned char sk[crypto_sign_SECRETKEYBYTES];
	uint8_t id[8];
};

struct jc_trust {
	size_t n; /* 0: nothing could be read: every entry is refused */
	struct {
		unsigned char pk[crypto_sign_PUBLICKEYBYTES];
		uint8_t id[8];
	} keys[TRUST_MAX];
};

static int ready(void)
{
	if (sodium_init() < 0) {
		JC_LOG_ONCE(JC_LOG_ERROR, "libsodium cannot start: entries are neither signed "
			    "nor accepted from a trust list");
		return -1;
	}
	return 0;
}

static void key_id(const unsigned char pk[crypto_sign_PUBLICKEYBYTES], uint8_t id[8])
{
	crypto_generichash(id, 8, pk, crypto_sign_PUBLICKEYBYTES, NULL, 0);
}

/* The base64 after "TAG " on the file's first line, decoded into out
 * (exactly size bytes): 0, or -1 with *why. */
static int parse_key(const char *text, const char *tag, unsigned char *out, size_t size,
		     const char **why)
{
	size_t tl = strlen(tag), len = 0;
	if (strncmp(text, tag, tl) != 0 || text[tl] != ' ') {
		*why = "not a jitcache key file (see jitcache keygen)";
		return -1;
	}
	const char *b64 = text + tl + 1, *end = b64;
	while (*end && *end != ' ' && *end != '\n' && *end != '\r')
		end++;
	if (sodium_base642bin(out, size, b64, (size_t)(end - b64), NULL, &len, NULL,
			      sodium_base64_VARIANT_ORIGINAL) != 0 || len != size) {
		*why = "the key is not valid base64 of the right length";
		return -1;
	}
	return 0;
}

struct jc_signer *jc_signer_load(const char *path)
{
	size_t len;
	const char *why = NULL;
	struct stat st;
	struct jc_signer *s = NULL;
	if (!path || !*path || ready() != 0)
		return NULL;
	char *text = jc_read_small_file(path, KEY_FILE_MAX, &len, &why);
	if (text && stat(path, &st) == 0 && (st.st_uid != geteuid() || (st.st_mode & 077)))
		why = "readable by others or not the user's own (chmod 600 it)";
	else if (text && (s = calloc(1, sizeof *s)) &&
		 parse_key(text, SECRET_TAG, s->sk, sizeof s->sk, &why) == 0)
		key_id(s->sk + crypto_sign_SEEDBYTES, s->id);
	else if (text && !s)
		why = "out of memory";
	if (text)
		sodium_memzero(text, len);
	free(text);
	if (why) {
		jc_log(JC_LOG_ERROR, "signing key %s: %s; entries are stored unsigned", path, why);
		if (s)
			sodium_memzero(s, sizeof *s);
		free(s);
		return NULL;
	}
	return s;
}

void jc_signer_free(struct jc_signer *s)
{
	if (s)
		sodium_memzero(s, sizeof *s);
	free(s);
}

/* Every signed message begins with what it is, a line: entries with the
 * domain, notes with theirs. */
static void begin(crypto_sign_state *st, const char *what)
{
	crypto_sign_init(st);
	crypto_sign_update(st, (const unsigned char *)what, strlen(what));
	crypto_sign_update(st, (const unsigned char *)"\n", 1);
}

/* An entry's message: the domain, the header, the payload. */
static void message(crypto_sign_state *st, const uint8_t *header, const void *stored,
		    size_t size)
{
	begin(st, domain);
	crypto_sign_update(st, header, 64);
	crypto_sign_update(st, stored, size);
}

/* The key id and signature of the message in st. */
static void sign_final(const struct jc_signer *s, crypto_sign_state *st,
		       uint8_t out[JC_SIG_TRAILER_SIZE])
{
	memcpy(out, s->id, 8);
	crypto_sign_final_create(st, out + 8, NULL, s->sk);
}

/* 0 if the key sig names is trusted and its signature of the message in st
 * verifies; -1 with *why otherwise. */
static int verify_final(const struct jc_trust *t, crypto_sign_state *st,
			const uint8_t sig[JC_SIG_TRAILER_SIZE], const char **why)
{
	for (size_t i = 0; i < t->n; i++) {
		if (memcmp(t->keys[i].id, sig, 8) != 0)
			continue;
		if (crypto_sign_final_verify(st, sig + 8, t->keys[i].pk) == 0)
			return 0;
		*why = "the signature does not verify";
		return -1;
	}
	*why = t->n ? "signed by a key that is not trusted" : "no trusted key could be read";
	return -1;
}

void jc_sign(const struct jc_signer *s, const uint8_t *header, const void *stored,
	     size_t stored_size, uint8_t trailer[JC_SIG_TRAILER_SIZE])
{
	crypto_sign_state st;
	message(&st, header, stored, stored_size);
	sign_final(s, &st, trailer);
}

/* Whether one stat()ed file or directory may hold a trust anchor: its
 * owner this user or root, and nobody else able to write it, except in a
 * sticky directory (/tmp), where others cannot replace what is ours. */
static const char *unsafe(const struct stat *st, int dir)
{
	if (st->st_uid != geteuid() && st->st_uid != 0)
		return dir ? "is in a directory of another user" : "belongs to another user";
	if ((st->st_mode & 022) && !(dir && (st->st_mode & S_ISVTX)))
		return dir ? "is in a directory writable by group or others (not sticky)"
			   : "is writable by group or others (chmod go-w it)";
	return NULL;
}

/* A public key file is trusted as far as whoever can change it: the file
 * and every directory above it (symlinks resolved) are checked as ssh
 * checks authorized_keys.  NULL, or why not; the real path in real. */
static const char *anchor_unsafe(const char *path, char real[PATH_MAX])
{
	struct stat st;
	if (!realpath(path, real))
		return NULL; /* reading it says why */
	if (stat(real, &st) != 0)
		return NULL;
	const char *why = unsafe(&st, 0);
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s", real);
	for (char *slash; !why && (slash = strrchr(dir, '/'));) {
		slash[slash == dir] = '\0'; /* "/a/b" -> "/a", "/a" -> "/" */
		if (stat(dir, &st) != 0)
			return "cannot check a directory above it";
		why = unsafe(&st, 1);
		if (slash == dir)
			break;
	}
	return why;
}

struct jc_trust *jc_trust_load(const char *paths)
{
	if (!paths || !*paths)
		return NULL;
	struct jc_trust *t = calloc(1, sizeof *t);
	if (!t) {
		jc_log(JC_LOG_ERROR, "trusted keys: out of memory; no entry from Redis, layers "
			    "or archives is accepted");
		return NULL; /* callers treat a failed load of a list as refusing all */
	}
	if (ready() != 0)
		return t;
	const char *p = paths;
	while (*p) {
		const char *colon = strchr(p, ':');
		size_t n = colon ? (size_t)(colon - p) : strlen(p), len;
		char path[4096];
		const char *why = NULL;
		if (n > 0 && n < sizeof path) {
			memcpy(path, p, n);
			path[n] = '\0';
			char real[PATH_MAX];
			real[0] = '\0';
			why = anchor_unsafe(path, real);
			char *text = why ? NULL : jc_read_small_file(real[0] ? real : path,
								     KEY_FILE_MAX, &len, &why);
			if (text && t->n == TRUST_MAX)
				why = "more keys than a trust list holds (64)";
			else if (text && parse_key(text, PUBLIC_TAG, t->keys[t->n].pk,
						   crypto_sign_PUBLICKEYBYTES, &why) == 0)
				key_id(t->keys[t->n].pk, t->keys[t->n].id), t->n++;
			free(text);
			if (why)
				jc_log(JC_LOG_ERROR, "trusted key %s: %s; ignored", path, why);
		}
		p += n + (colon != NULL);
	}
	if (t->n == 0)
		jc_log(JC_LOG_ERROR, "no trusted key could be read from '%s': no entry from "
		       "Redis, layers or archives is accepted", paths);
	return t;
}

void jc_trust_free(struct jc_trust *t)
{
	free(t);
}

struct jc_trust_stream {
	crypto_sign_state st;
};

struct jc_trust_stream *jc_trust_stream_start(const uint8_t *header)
{
	struct jc_trust_stream *v = malloc(sizeof *v);
	if (v)
		message(&v->st, header, NULL, 0);
	return v;
}

void jc_trust_stream_update(struct jc_trust_stream *v, const void *stored, size_t n)
{
	crypto_sign_update(&v->st, stored, n);
}

int jc_trust_stream_end(const struct jc_trust *t, struct jc_trust_stream *v,
			const uint8_t *trailer, const char **why)
{
	int rc = -1;
	if (!t)
		*why = "no trust list could be made";
	else if (!trailer)
		*why = "not signed";
	else if (!v)
		*why = "out of memory";
	else
		rc = verify_final(t, &v->st, trailer, why);
	free(v);
	return rc;
}

int jc_trust_verify(const struct jc_trust *t, const uint8_t *header, const void *stored,
		    size_t stored_size, const uint8_t *trailer, const char **why)
{
	struct jc_trust_stream *v = t && trailer ? jc_trust_stream_start(header) : NULL;
	if (v)
		jc_trust_stream_update(v, stored, stored_size);
	return jc_trust_stream_end(t, v, trailer, why);
}

void jc_sign_note(const struct jc_signer *s, const char *what, const void *msg, size_t n,
		  uint8_t out[JC_SIG_TRAILER_SIZE])
{
	crypto_sign_state st;
	begin(&st, what);
	crypto_sign_update(&st, msg, n);
	sign_final(s, &st, out);
}

int jc_trust_verify_note(const struct jc_trust *t, const char *what, const void *msg,
			 size_t n, const uint8_t sig[JC_SIG_TRAILER_SIZE], const char **why)
{
	if (!t) {
		*why = "no trust list could be made";
		return -1;
	}
	crypto_sign_state st;
	begin(&st, what);
	crypto_sign_update(&st, msg, n);
	return verify_final(t, &st, sig, why);
}

int jc_keygen(const char *prefix, const char *comment, FILE *out)
{
	unsigned char pk[crypto_sign_PUBLICKEYBYTES], sk[crypto_sign_SECRETKEYBYTES];
	char pk64[sodium_base64_ENCODED_LEN(sizeof pk, sodium_base64_VARIANT_ORIGINAL)];
	char sk64[sodium_base64_ENCODED_LEN(sizeof sk, sodium_base64_VARIANT_ORIGINAL)];
	char pub[4096];
	if (sodium_init() < 0) {
		fprintf(stderr, "jitcache: keygen: libsodium cannot start\n");
		return -1;
	}
	if (snprintf(pub, sizeof pub, "%s.pub", prefix) >= (int)sizeof pub) {
		fprintf(stderr, "jitcache: keygen: %s: name too long\n", prefix);
		return -1;
	}
	crypto_sign_keypair(pk, sk);
	sodium_bin2base64(pk64, sizeof pk64, pk, sizeof pk, sodium_base64_VARIANT_ORIGINAL);
	sodium_bin2base64(sk64, sizeof sk64, sk, sizeof sk, sodium_base64_VARIANT_ORIGINAL);
	sodium_memzero(sk, sizeof sk);
	int fd = open(prefix, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	int bad = !f || fprintf(f, "%s %s\n", SECRET_TAG, sk64) < 0;
	bad |= f ? fclose(f) != 0 : 0;
	if (!f && fd >= 0)
		close(fd);
	sodium_memzero(sk64, sizeof sk64);
	if (bad) {
		fprintf(stderr, "jitcache: keygen: cannot write %s (%s)\n", prefix,
			errno == EEXIST ? "it exists: not overwritten" : strerror(errno));
		return -1;
	}
	fd = open(pub, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	bad = !f || fprintf(f, "%s %s%s%s\n", PUBLIC_TAG, pk64, comment ? " " : "",
			    comment ? comment : "") < 0;
	bad |= f ? fclose(f) != 0 : 0;
	if (!f && fd >= 0)
		close(fd);
	if (bad) {
		fprintf(stderr, "jitcache: keygen: cannot write %s (%s)\n", pub,
			errno == EEXIST ? "it exists: not overwritten" : strerror(errno));
		unlink(prefix);
		return -1;
	}
	fprintf(out, "%s %s%s%s\n", PUBLIC_TAG, pk64, comment ? " " : "", comment ? comment : "");
	return 0;
}
