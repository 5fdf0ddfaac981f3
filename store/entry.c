// SPDX-License-Identifier: MIT
#include "store/entry.h"
#include "store/object.h"

#include "store/fsutil.h"
#include "store/hash.h"
#include "config/log.h"

#include <stdlib.h>
#include <string.h>

/* Inlined and static: the library exports none of xxHash's symbols. */
#define XXH_INLINE_ALL
#include <xxhash.h>

#ifdef JC_HAVE_ZSTD
#include <zstd.h>
/* A 1.8 MB native dg2 binary (240 kernels) shrinks to 176 KB at levels 1
 * and 3, 168 KB at 9 and 150 KB at 19, compressing at 560, 330, 155 and
 * 7 MB/s; decompression runs at 1.3-2.5 GB/s whatever the level. */
#define JC_ZSTD_LEVEL 3
#endif

static const char magic[8] = { 'j', 'i', 't', 'c', 'a', 'c', 'h', 'e' };
static const struct jc_signer *signer;

void jc_entry_set_signer(const struct jc_signer *s)
{
	__atomic_store_n(&signer, s, __ATOMIC_RELEASE);
}

uint64_t jc_entry_checksum(const uint8_t raw[JC_ENTRY_HEADER_SIZE], const void *stored,
			   size_t size)
{
	return jc_hash64(stored, size, XXH3_64bits(raw, 56));
}

#define CW_SHIFT 20               /* CPU time's lowest bit */
#define CW_UNIT (1ull << CW_SHIFT)
#define CW_RATIO_SHIFT 10
#define CW_RATIO_MAX 1023          /* in 32nds */
#define CW_CHECK_MASK 1023ull

static uint64_t cw_check(uint64_t high)
{
	return ((high * 0x9e3779b97f4a7c15ull) >> 54 ^ 0x2a5) & CW_CHECK_MASK;
}

uint64_t jc_compile_word(uint64_t cpu_ns, uint64_t wall_ns)
{
	if (cpu_ns == 0)
		return 0;
	if (wall_ns == cpu_ns && (cpu_ns < CW_UNIT ||
				  cw_check((cpu_ns & ~CW_CHECK_MASK) >> CW_RATIO_SHIFT) !=
				  (cpu_ns & CW_CHECK_MASK)))
		return cpu_ns; /* read back as both, exactly */
	uint64_t cpu = cpu_ns >= UINT64_MAX - CW_UNIT ? UINT64_MAX & ~(CW_UNIT - 1)
		     : (cpu_ns + CW_UNIT / 2) & ~(CW_UNIT - 1);
	if (cpu == 0)
		cpu = CW_UNIT;
	double r = (double)wall_ns / (double)cpu * 32.0 + 0.5;
	uint64_t ratio = r >= CW_RATIO_MAX ? CW_RATIO_MAX : (uint64_t)r;
	uint64_t high = cpu | ratio << CW_RATIO_SHIFT;
	return high | cw_check(high >> CW_RATIO_SHIFT);
}

void jc_compile_times(uint64_t word, uint64_t *cpu_ns, uint64_t *wall_ns)
{
	uint64_t high = word & ~CW_CHECK_MASK;
	if (word < CW_UNIT || cw_check(high >> CW_RATIO_SHIFT) != (word & CW_CHECK_MASK)) {
		*cpu_ns = *wall_ns = word; /* an older entry's CPU time */
		return;
	}
	*cpu_ns = word & ~(CW_UNIT - 1);
	uint64_t ratio = (word >> CW_RATIO_SHIFT) & CW_RATIO_MAX;
	*wall_ns = (uint64_t)((double)*cpu_ns * (double)ratio / 32.0);
}

static void put_header(uint8_t raw[JC_ENTRY_HEADER_SIZE], const struct jc_entry_header *h)
{
	memcpy(raw, magic, 8);
	jc_put_le64(raw + 8, (uint64_t)h->flags << 32 | h->version);
	memcpy(raw + 16, h->key.bytes, JC_KEY_BYTES);
	jc_put_le64(raw + 32, h->stored_size);
	jc_put_le64(raw + 40, h->data_size);
	jc_put_le64(raw + 48, h->compile_ns);
	jc_put_le64(raw + 56, h->checksum);
}

/* The zstd frame of data, or NULL where it would not be smaller. */
static void *compress(const void *data, size_t size, size_t *out_size)
{
#ifdef JC_HAVE_ZSTD
	size_t bound = ZSTD_compressBound(size);
	void *buf = malloc(bound);
	if (!buf)
		return NULL;
	size_t n = ZSTD_compress(buf, bound, data, size, JC_ZSTD_LEVEL);
	if (ZSTD_isError(n) || n >= size || size / JC_ENTRY_MAX_RATIO > n) {
		free(buf);
		return NULL;
	}
	*out_size = n;
	return buf;
#else
	(void)data, (void)size, (void)out_size;
	JC_LOG_ONCE(JC_LOG_INFO, "compress=1 but this build has no zstd; storing entries uncompressed");
	return NULL;
#endif
}

void jc_entry_encode(const struct jc_key *key, const void *data, size_t size,
		     uint64_t compile_ns, int compress_it, struct jc_encoded *out)
{
	jc_entry_encode_flags(key, data, size, compile_ns, compress_it, 0, out);
}

void jc_entry_encode_flags(const struct jc_key *key, const void *data, size_t size,
			   uint64_t compile_ns, int compress_it, uint32_t flags,
			   struct jc_encoded *out)
{
	const struct jc_signer *s = __atomic_load_n(&signer, __ATOMIC_ACQUIRE);
	struct jc_entry_header h = {
		.version = JC_ENTRY_VERSION, .flags = flags | (s ? JC_ENTRY_SIGNED : 0),
		.key = *key, .stored_size = size, .data_size = size, .compile_ns = compile_ns,
	};
	out->payload = data;
	out->owned = compress_it && size > 0 ? compress(data, size, &out->payload_size) : NULL;
	if (out->owned) {
		out->payload = out->owned;
		h.stored_size = out->payload_size;
		h.flags |= JC_ENTRY_ZSTD;
	}
	out->payload_size = h.stored_size;
	put_header(out->header, &h);
	h.checksum = jc_entry_checksum(out->header, out->payload, out->payload_size);
	jc_put_le64(out->header + 56, h.checksum);
	out->trailer_size = s ? JC_SIG_TRAILER_SIZE : 0;
	if (s)
		jc_sign(s, out->header, out->payload, out->payload_size, out->trailer);
}

static enum jc_entry_status bad(const char **why, const char *reason)
{
	*why = reason;
	return JC_ENTRY_CORRUPT;
}

int jc_entry_is_recipe(const void *raw, size_t n)
{
	const uint8_t *p = raw;
	return n >= 16 && memcmp(p, magic, 8) == 0 && ((jc_get_le64(p + 8) >> 32) & JC_ENTRY_RECIPE);
}

enum jc_entry_status jc_entry_check_header(const uint8_t raw[JC_ENTRY_HEADER_SIZE],
					   uint64_t file_size, const struct jc_key *key,
					   struct jc_entry_header *h, const char **why)
{
	if (file_size < JC_ENTRY_HEADER_SIZE)
		return bad(why, "shorter than a header");
	if (memcmp(raw, magic, 8) != 0)
		return bad(why, "bad magic");
	uint64_t word = jc_get_le64(raw + 8);
	h->version = (uint32_t)word;
	h->flags = (uint32_t)(word >> 32);
	memcpy(h->key.bytes, raw + 16, JC_KEY_BYTES);
	h->stored_size = jc_get_le64(raw + 32);
	h->data_size = jc_get_le64(raw + 40);
	h->compile_ns = jc_get_le64(raw + 48);
	h->checksum = jc_get_le64(raw + 56);
	if (h->version != JC_ENTRY_VERSION) {
		*why = "another format version";
		return JC_ENTRY_OLD_FORMAT;
	}
	if (h->flags & ~(JC_ENTRY_ZSTD | JC_ENTRY_RECIPE | JC_ENTRY_SIGNED))
		return bad(why, "unknown flags");
	if (memcmp(h->key.bytes, key->bytes, JC_KEY_BYTES) != 0)
		return bad(why, "holds another key");
	uint64_t trailer = h->flags & JC_ENTRY_SIGNED ? JC_SIG_TRAILER_SIZE : 0;
	if (file_size - JC_ENTRY_HEADER_SIZE < trailer ||
	    h->stored_size != file_size - JC_ENTRY_HEADER_SIZE - trailer)
		return bad(why, "size does not match the file");
	if (!(h->flags & JC_ENTRY_ZSTD) && h->data_size != h->stored_size)
		return bad(why, "sizes disagree");
	/* zstd can expand 32768 times (an RLE block: 4 bytes for 128 KiB), but
	 * no writer makes an entry that inflates more than JC_ENTRY_MAX_RATIO:
	 * a larger claim would only make a reader allocate and inflate what
	 * the bytes it was given do not justify. */
	if (h->data_size / JC_ENTRY_MAX_RATIO > h->stored_size || h->data_size > SIZE_MAX - 1)
		return bad(why, "inflates more than 256 times its size (refused uninflated)");
	return JC_ENTRY_OK;
}

uint64_t jc_entry_limit(uint64_t max_size)
{
	return max_size ? max_size : JC_ENTRY_LIMIT_UNCAPPED;
}

enum jc_entry_status jc_entry_check_limit(const struct jc_entry_header *h, uint64_t limit,
					  const char **why)
{
	uint64_t room = limit > JC_ENTRY_HEADER_SIZE ? limit - JC_ENTRY_HEADER_SIZE : 0;
	if (h->stored_size > room || h->data_size > room)
		return bad(why, "larger than max_size allows (refused unread)");
	return JC_ENTRY_OK;
}

enum jc_entry_status jc_accept_header(const uint8_t raw[JC_ENTRY_HEADER_SIZE], uint64_t size,
				      const struct jc_key *key, uint64_t limit,
				      struct jc_entry_header *h, const char **why)
{
	enum jc_entry_status status = jc_entry_check_header(raw, size, key, h, why);
	return status == JC_ENTRY_OK ? jc_entry_check_limit(h, limit, why) : status;
}

/* Replace the zstd frame in *data by its content. */
static enum jc_entry_status decompress(const struct jc_entry_header *h, void **data,
				       const char **why)
{
#ifdef JC_HAVE_ZSTD
	unsigned long long content = ZSTD_getFrameContentSize(*data, h->stored_size);
	if (content == ZSTD_CONTENTSIZE_ERROR || content == ZSTD_CONTENTSIZE_UNKNOWN ||
	    content != h->data_size)
		return bad(why, "compressed frame does not match the header");
	void *out = malloc(h->data_size ? h->data_size : 1);
	if (!out) {
		*why = "out of memory";
		return JC_ENTRY_UNREADABLE;
	}
	size_t n = ZSTD_decompress(out, h->data_size, *data, h->stored_size);
	if (ZSTD_isError(n) || n != h->data_size) {
		free(out);
		return bad(why, "compressed payload does not decompress");
	}
	free(*data);
	*data = out;
	return JC_ENTRY_OK;
#else
	(void)h, (void)data;
	*why = "compressed, and this build has no zstd";
	return JC_ENTRY_UNREADABLE;
#endif
}

enum jc_entry_status jc_entry_finish(const uint8_t raw[JC_ENTRY_HEADER_SIZE],
				     const struct jc_entry_header *h, void *stored,
				     struct jc_entry *out, const char **why)
{
	enum jc_entry_status status = JC_ENTRY_OK;
	if (jc_entry_checksum(raw, stored, h->stored_size) != h->checksum)
		status = bad(why, "checksum mismatch");
	else if (h->flags & JC_ENTRY_ZSTD)
		status = decompress(h, &stored, why);
	if (status != JC_ENTRY_OK) {
		free(stored);
		return status;
	}
	out->data = stored;
	out->size = h->data_size;
	jc_compile_times(h->compile_ns, &out->compile_ns, &out->wall_ns);
	out->map = NULL;
	out->map_size = 0;
	return JC_ENTRY_OK;
}

struct jc_entry_stream {
	const struct jc_trust *trust;
	int check_trust;
	uint8_t raw[JC_ENTRY_HEADER_SIZE];
	struct jc_key key;         /* the key the file should hold */
	uint64_t file_size;        /* the size it is said to have */
	struct jc_entry_header h;  /* once its header is read */
	uint64_t seen;             /* bytes of the file fed so far */
	XXH3_state_t xxh;
	struct jc_trust_stream *signature;
	uint8_t trailer[JC_SIG_TRAILER_SIZE];
	const char *why;           /* set once the file is known bad */
};

struct jc_entry_stream *jc_entry_stream_start(const struct jc_key *key, uint64_t file_size,
					      const struct jc_trust *t, int check_trust)
{
	/* XXH3's state wants its own alignment (64 bytes), more than malloc's. */
	struct jc_entry_stream *s = aligned_alloc(_Alignof(struct jc_entry_stream), sizeof *s);
	if (!s)
		return NULL;
	memset(s, 0, sizeof *s);
	s->trust = t;
	s->check_trust = check_trust;
	s->key = *key;
	s->file_size = file_size;
	return s;
}

void jc_entry_stream_feed(struct jc_entry_stream *s, const void *data, size_t n)
{
	const uint8_t *p = data;
	while (n > 0 && !s->why) {
		uint64_t at = s->seen, payload_end = JC_ENTRY_HEADER_SIZE + s->h.stored_size;
		size_t take;
		if (at < JC_ENTRY_HEADER_SIZE) {
			take = JC_ENTRY_HEADER_SIZE - at < n ? (size_t)(JC_ENTRY_HEADER_SIZE - at) : n;
			memcpy(s->raw + at, p, take);
			if (at + take == JC_ENTRY_HEADER_SIZE) {
				if (jc_entry_check_header(s->raw, s->file_size, &s->key, &s->h, &s->why) !=
				    JC_ENTRY_OK)
					break;
				XXH3_64bits_reset_withSeed(&s->xxh, XXH3_64bits(s->raw, 56));
				if (s->check_trust && (s->h.flags & JC_ENTRY_SIGNED))
					s->signature = jc_trust_stream_start(s->raw);
			}
		} else if (at < payload_end) {
			take = payload_end - at < n ? (size_t)(payload_end - at) : n;
			XXH3_64bits_update(&s->xxh, p, take);
			if (s->signature)
				jc_trust_stream_update(s->signature, p, take);
		} else {
			uint64_t off = at - payload_end;
			uint64_t room = s->h.flags & JC_ENTRY_SIGNED ? sizeof s->trailer : 0;
			take = off < room ? (size_t)(room - off) : 0;
			take = take < n ? take : n;
			if (take == 0) { /* the header said the file is shorter */
				s->why = "longer than its header says";
				break;
			}
			memcpy(s->trailer + off, p, take);
		}
		s->seen += take, p += take, n -= take;
	}
}

enum jc_entry_status jc_entry_stream_end(struct jc_entry_stream *s, const char **why)
{
	if (!s)
		return *why = "out of memory", JC_ENTRY_UNREADABLE;
	enum jc_entry_status status = JC_ENTRY_OK;
	if (s->why)
		status = bad(why, s->why);
	else if (s->seen < JC_ENTRY_HEADER_SIZE || s->seen != s->file_size)
		status = bad(why, "shorter than its header says");
	else if (XXH3_64bits_digest(&s->xxh) != s->h.checksum)
		status = bad(why, "checksum mismatch");
	if (s->check_trust) {
		const char *untrusted;
		int signed_ok = jc_trust_stream_end(s->trust, s->signature,
						    s->h.flags & JC_ENTRY_SIGNED ? s->trailer : NULL,
						    &untrusted) == 0;
		if (status == JC_ENTRY_OK && !signed_ok) {
			*why = untrusted;
			status = JC_ENTRY_UNTRUSTED;
		}
	}
	free(s);
	return status;
}
