// SPDX-License-Identifier: MIT
/* Labelled, length-prefixed XXH3-128 (see fingerprint.h). */
#include "key/fingerprint.h"

#include "store/hash.h"
#include "config/hex.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

struct jc_fp {
	XXH3_state_t state;
	int libraries;             /* this is the libraries' own fingerprint */
	size_t tlen;
	uint8_t trace[JC_FP_TRACE_MAX];
};

/* The trace of the last key made on this thread (jc_fp_trace_of). */
static __thread struct {
	struct jc_key key;
	size_t len;
	uint8_t bytes[JC_FP_TRACE_MAX];
} last;

/* The traces of the libraries' fingerprints (memoised by compiler.c, so
 * made once per process): inlined where a key takes their digest. */
#define LIB_TRACES 8
static struct {
	struct jc_key digest;
	size_t len;
	uint8_t bytes[JC_FP_TRACE_MAX];
} lib_traces[LIB_TRACES];
static unsigned lib_next;
static pthread_mutex_t lib_lock = PTHREAD_MUTEX_INITIALIZER;

/* A field of the trace: [label length][label][kind][value length, 2 bytes
 * LE][value]; a field that does not fit is left out and the trace marked
 * cut (a last field of label "!"). */
static void trace_add(struct jc_fp *fp, const char *label, int kind, const void *v, size_t n)
{
	size_t ln = strlen(label);
	if (ln > 255)
		ln = 255;
	if (n > 65535)
		n = 65535;
	size_t need = 1 + ln + 1 + 2 + n;
	if (fp->tlen + need > JC_FP_TRACE_MAX - 8) {
		if (fp->tlen + 6 <= JC_FP_TRACE_MAX && !(fp->tlen >= 6 && fp->trace[fp->tlen - 5] == '!')) {
			uint8_t cut[6] = { 1, '!', JC_FP_TEXT, 0, 0, 0 };
			memcpy(fp->trace + fp->tlen, cut, 5);
			fp->tlen += 5;
		}
		return;
	}
	uint8_t *p = fp->trace + fp->tlen;
	*p++ = (uint8_t)ln;
	memcpy(p, label, ln), p += ln;
	*p++ = (uint8_t)kind;
	*p++ = (uint8_t)(n & 0xff);
	*p++ = (uint8_t)(n >> 8);
	if (n) /* a NULL field has no bytes, and v may be NULL */
		memcpy(p, v, n);
	fp->tlen += need;
}

/* What a field's value is shown as: text (strings, numbers, build-ids in
 * hex, up to JC_FP_TEXT_MAX bytes) or a hash of the bytes. */
static void trace_bytes(struct jc_fp *fp, const char *label, const void *data, size_t size)
{
	if (!strcmp(label, "lib.build-id") && size <= 64) {
		char hex[129];
		jc_hex(data, size, hex);
		trace_add(fp, label, JC_FP_TEXT, hex, 2 * size);
		return;
	}
	uint64_t h = XXH3_64bits(data, size);
	uint8_t v[16];
	memcpy(v, &h, 8);
	uint64_t n = size;
	memcpy(v + 8, &n, 8);
	trace_add(fp, label, JC_FP_HASH, v, 16);
}

static int inline_libraries(struct jc_fp *fp, const void *digest, size_t size)
{
	int done = 0;
	pthread_mutex_lock(&lib_lock);
	for (int i = 0; i < LIB_TRACES; i++)
		if (size == JC_KEY_BYTES && lib_traces[i].len &&
		    memcmp(lib_traces[i].digest.bytes, digest, JC_KEY_BYTES) == 0 &&
		    fp->tlen + lib_traces[i].len <= JC_FP_TRACE_MAX - 8) {
			memcpy(fp->trace + fp->tlen, lib_traces[i].bytes, lib_traces[i].len);
			fp->tlen += lib_traces[i].len;
			done = 1;
			break;
		}
	pthread_mutex_unlock(&lib_lock);
	return done;
}

size_t jc_fp_trace_of(const struct jc_key *key, const uint8_t **bytes)
{
	if (memcmp(&last.key, key, sizeof *key) != 0 || !last.len)
		return 0;
	*bytes = last.bytes;
	return last.len;
}

static void feed(struct jc_fp *fp, const void *data, size_t size)
{
	jc_hash128_update(&fp->state, data, size);
}

static void feed_label(struct jc_fp *fp, const char *label, uint64_t size)
{
	size_t n = strlen(label);
	feed(fp, label, n + 1);
	feed(fp, &size, sizeof size);
}

struct jc_fp *jc_fp_begin(const char *api)
{
	struct jc_fp *fp = aligned_alloc(64, sizeof *fp);
	if (!fp)
		return NULL;
	XXH3_128bits_reset(&fp->state);
	fp->tlen = 0;
	/* the libraries' and a Level Zero device's identity are made once and
	 * enter keys as a digest: their traces are kept to inline */
	fp->libraries = !strcmp(api, "libraries") || !strcmp(api, "ze.device");
	jc_fp_u64(fp, "jitcache.key.version", JC_KEY_VERSION);
	jc_fp_str(fp, "api", api);
	return fp;
}

void jc_fp_bytes(struct jc_fp *fp, const char *label, const void *data, size_t size)
{
	if (!fp)
		return;
	feed_label(fp, label, size);
	if (size)
		feed(fp, data, size);
	if (!strcmp(label, "libraries"))
		inline_libraries(fp, data, size);
	else if (strcmp(label, "device") || !inline_libraries(fp, data, size))
		trace_bytes(fp, label, data, size);
}

void jc_fp_str(struct jc_fp *fp, const char *label, const char *s)
{
	if (!fp)
		return;
	if (!s) {
		feed_label(fp, label, UINT64_MAX); /* NULL differs from "" */
		trace_add(fp, label, JC_FP_NONE, NULL, 0);
		return;
	}
	size_t n = strlen(s);
	feed_label(fp, label, n);
	if (n)
		feed(fp, s, n);
	if (n <= JC_FP_TEXT_MAX)
		trace_add(fp, label, JC_FP_TEXT, s, n);
	else
		trace_bytes(fp, label, s, n);
}

void jc_fp_u64(struct jc_fp *fp, const char *label, uint64_t value)
{
	char text[24];
	feed_label(fp, label, sizeof value);
	feed(fp, &value, sizeof value);
	trace_add(fp, label, JC_FP_TEXT, text, (size_t)snprintf(text, sizeof text, "%llu",
								   (unsigned long long)value));
}

void jc_fp_note_u64(struct jc_fp *fp, const char *label, uint64_t value)
{
	if (!fp || !value)
		return;
	char text[24];
	trace_add(fp, label, JC_FP_TEXT, text, (size_t)snprintf(text, sizeof text, "%016llx",
								   (unsigned long long)value));
}

void jc_fp_end(struct jc_fp *fp, struct jc_key *out)
{
	memset(out, 0, sizeof *out);
	if (!fp)
		return;
	XXH128_hash_t h = XXH3_128bits_digest(&fp->state);
	XXH128_canonical_t c;
	XXH128_canonicalFromHash(&c, h);
	memcpy(out->bytes, c.digest, sizeof out->bytes);
	if (fp->libraries) {
		/* its own fields, less the key version and api */
		size_t skip = 0;
		for (int i = 0; i < 2 && skip < fp->tlen; i++) {
			size_t ln = fp->trace[skip];
			size_t vn = fp->trace[skip + ln + 2] | (size_t)fp->trace[skip + ln + 3] << 8;
			skip += 1 + ln + 1 + 2 + vn;
		}
		pthread_mutex_lock(&lib_lock);
		unsigned i = lib_next++ % LIB_TRACES;
		lib_traces[i].digest = *out;
		lib_traces[i].len = fp->tlen - skip;
		memcpy(lib_traces[i].bytes, fp->trace + skip, fp->tlen - skip);
		pthread_mutex_unlock(&lib_lock);
	}
	last.key = *out;
	last.len = fp->tlen;
	memcpy(last.bytes, fp->trace, fp->tlen);
	free(fp);
}
