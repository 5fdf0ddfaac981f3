/* Labelled, length-prefixed XXH3-128 (see fingerprint.h). */
#include "key/fingerprint.h"

#include "store/hash.h"

#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

struct jc_fp {
	XXH3_state_t state;
};

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
}

void jc_fp_str(struct jc_fp *fp, const char *label, const char *s)
{
	if (!fp)
		return;
	if (!s) {
		feed_label(fp, label, UINT64_MAX); /* NULL differs from "" */
		return;
	}
	jc_fp_bytes(fp, label, s, strlen(s));
}

void jc_fp_u64(struct jc_fp *fp, const char *label, uint64_t value)
{
	jc_fp_bytes(fp, label, &value, sizeof value);
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
	free(fp);
}
