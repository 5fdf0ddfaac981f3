// SPDX-License-Identifier: MIT
/* Unit tests of signed entries (trust/sign.c, store/entry.c): keys made by
 * jc_keygen sign an encoded entry; a trust list of the public key accepts
 * it and refuses it unsigned, changed, moved to another key, or signed by
 * another key; a trust list that cannot be read refuses everything; an
 * entry file checked as it arrives in pieces is judged the same. */
#include "store/entry.h"
#include "trust/sign.h"
#include "tests/unit/check.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[] = "/tmp/jitcache-sign.XXXXXX";

static const char *path(const char *name)
{
	static char buf[4][256];
	static int n;
	char *p = buf[n++ % 4];
	snprintf(p, 256, "%s/%s", dir, name);
	return p;
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	FILE *devnull = fopen("/dev/null", "w");
	CHECK(jc_keygen(path("a"), "test", devnull) == 0, "keygen writes a key pair");
	CHECK(jc_keygen(path("a"), NULL, devnull) != 0, "keygen never overwrites a key");
	CHECK(jc_keygen(path("b"), NULL, devnull) == 0, "a second key pair");
	struct stat st;
	CHECK(stat(path("a"), &st) == 0 && (st.st_mode & 0777) == 0600, "the private key is 0600");
	struct jc_signer *a = jc_signer_load(path("a")), *b = jc_signer_load(path("b"));
	CHECK(a && b, "the private keys load");
	CHECK(!jc_signer_load(path("a.pub")), "a public key is not a signing key");
	chmod(path("b"), 0644);
	CHECK(!jc_signer_load(path("b")), "a private key others may read is refused");

	struct jc_trust *trust = jc_trust_load(path("a.pub"));
	struct jc_trust *none = jc_trust_load(path("missing.pub"));
	struct jc_key key = { { 1, 2, 3 } }, other = { { 9, 9, 9 } };
	static const char data[] = "native GPU code, or what passes for it";
	const char *why = NULL;

	struct jc_encoded e, u;
	jc_entry_encode(&key, data, sizeof data, 5, 0, &u);
	CHECK(u.trailer_size == 0 && !(u.header[12] & JC_ENTRY_SIGNED), "without a signer: unsigned");
	jc_entry_set_signer(a);
	jc_entry_encode(&key, data, sizeof data, 5, 0, &e);
	jc_entry_set_signer(NULL);
	CHECK(e.trailer_size == JC_SIG_TRAILER_SIZE && (e.header[12] & JC_ENTRY_SIGNED),
	      "with a signer: flagged and a trailer");
	CHECK(jc_trust_verify(trust, e.header, e.payload, e.payload_size, e.trailer, &why) == 0,
	      "a trusted key's signature verifies");
	CHECK(jc_trust_verify(trust, u.header, u.payload, u.payload_size, NULL, &why) != 0 &&
	      !strcmp(why, "not signed"), "unsigned: refused (%s)", why);
	char changed[sizeof data];
	memcpy(changed, data, sizeof data);
	changed[0] ^= 1;
	CHECK(jc_trust_verify(trust, e.header, changed, sizeof changed, e.trailer, &why) != 0,
	      "payload changed: refused (%s)", why);
	uint8_t moved[JC_ENTRY_HEADER_SIZE];
	memcpy(moved, e.header, sizeof moved);
	memcpy(moved + 16, other.bytes, JC_KEY_BYTES);
	CHECK(jc_trust_verify(trust, moved, e.payload, e.payload_size, e.trailer, &why) != 0,
	      "moved to another key: refused (%s)", why);
	struct jc_encoded eb;
	jc_entry_set_signer(b);
	jc_entry_encode(&key, data, sizeof data, 5, 0, &eb);
	jc_entry_set_signer(NULL);
	CHECK(jc_trust_verify(trust, eb.header, eb.payload, eb.payload_size, eb.trailer, &why) != 0 &&
	      !strcmp(why, "signed by a key that is not trusted"), "another key: refused (%s)", why);
	CHECK(none && jc_trust_verify(none, e.header, e.payload, e.payload_size, e.trailer, &why) != 0,
	      "an unreadable trust list refuses a good signature too (%s)", why);
	CHECK(jc_trust_verify(NULL, e.header, e.payload, e.payload_size, e.trailer, &why) != 0,
	      "no trust list at all refuses it too");

	struct jc_entry_header h;
	CHECK(jc_entry_check_header(e.header, JC_ENCODED_SIZE(&e), &key, &h, &why) == JC_ENTRY_OK,
	      "a signed entry's file size includes its trailer");
	CHECK(jc_entry_check_header(e.header, JC_ENCODED_SIZE(&e) - 1, &key, &h, &why) ==
	      JC_ENTRY_CORRUPT, "a signed entry cut short is corrupt");

	/* The same judgements on an entry file fed in pieces (an archive
	 * member), one byte at a time here. */
	struct { const char *what; const struct jc_encoded *enc; const struct jc_trust *t;
		 int check_trust, flip, cut; enum jc_entry_status want; } streams[] = {
		{ "signed, trusted", &e, trust, 1, -1, 0, JC_ENTRY_OK },
		{ "unsigned, no trust list", &u, NULL, 0, -1, 0, JC_ENTRY_OK },
		{ "unsigned, trusted keys", &u, trust, 1, -1, 0, JC_ENTRY_UNTRUSTED },
		{ "another key", &eb, trust, 1, -1, 0, JC_ENTRY_UNTRUSTED },
		{ "signature changed", &e, trust, 1, (int)JC_ENCODED_SIZE(&e) - 1, 0,
		  JC_ENTRY_UNTRUSTED },
		{ "payload changed", &e, trust, 1, JC_ENTRY_HEADER_SIZE, 0, JC_ENTRY_CORRUPT },
		{ "header changed", &u, NULL, 0, 48, 0, JC_ENTRY_CORRUPT },
		{ "cut short", &u, NULL, 0, -1, 1, JC_ENTRY_CORRUPT },
	};
	for (size_t i = 0; i < sizeof streams / sizeof *streams; i++) {
		const struct jc_encoded *x = streams[i].enc;
		size_t n = (size_t)JC_ENCODED_SIZE(x);
		uint8_t *file = malloc(n);
		memcpy(file, x->header, JC_ENTRY_HEADER_SIZE);
		memcpy(file + JC_ENTRY_HEADER_SIZE, x->payload, x->payload_size);
		memcpy(file + JC_ENTRY_HEADER_SIZE + x->payload_size, x->trailer, x->trailer_size);
		if (streams[i].flip >= 0)
			file[streams[i].flip] ^= 1;
		struct jc_entry_stream *es = jc_entry_stream_start(&key, n, streams[i].t,
								   streams[i].check_trust);
		for (size_t at = 0; at + (size_t)streams[i].cut < n; at++)
			jc_entry_stream_feed(es, file + at, 1);
		why = "";
		enum jc_entry_status got = jc_entry_stream_end(es, &why);
		CHECK(got == streams[i].want, "fed in pieces, %s: status %d (%s)", streams[i].what,
		      (int)got, why);
		free(file);
	}
	struct jc_entry_stream *longer = jc_entry_stream_start(&key, JC_ENCODED_SIZE(&u), NULL, 0);
	jc_entry_stream_feed(longer, u.header, JC_ENTRY_HEADER_SIZE);
	jc_entry_stream_feed(longer, u.payload, u.payload_size);
	jc_entry_stream_feed(longer, "x", 1);
	why = "";
	CHECK(jc_entry_stream_end(longer, &why) == JC_ENTRY_CORRUPT &&
	      !strcmp(why, "longer than its header says"), "fed a byte too many: corrupt (%s)", why);

	free(e.owned), free(u.owned), free(eb.owned);
	jc_signer_free(a), jc_signer_free(b);
	jc_trust_free(trust), jc_trust_free(none);
	fclose(devnull);
	for (const char *n = "a\0a.pub\0b\0b.pub\0"; *n; n += strlen(n) + 1)
		unlink(path(n));
	rmdir(dir);
	return check_summary();
}
