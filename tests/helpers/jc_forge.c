// SPDX-License-Identifier: MIT
/*
 * jc_forge — what a party that can write Redis, a layer or an archive, but
 * holds no signing key, can do to a signed entry: change it and make its
 * checksum match again, keeping the signature trailer (trust/sign.h).
 *
 *   jc_forge flip ENTRY        change the first payload byte
 *   jc_forge rekey ENTRY HEX   claim the entry is for another key (32 hex)
 *   jc_forge bomb FILE HEX SIZE
 *                              write a new entry for key HEX: a well-formed
 *                              zstd frame of SIZE zeros (a few KB for a
 *                              GiB), its header and checksum sound, as no
 *                              jitcache writer makes one (cache/entry.h)
 *
 * The file is rewritten in place.  Exit status 0 on success.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#define HEADER 64

static uint64_t get64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static int parse_key(const char *hex, unsigned char key[16])
{
	if (strlen(hex) != 32)
		return -1;
	for (int i = 0; i < 16; i++) {
		unsigned v;
		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return -1;
		key[i] = (unsigned char)v;
	}
	return 0;
}

/* The frame is made in pieces of 1 MiB of zeros: its content size is
 * pledged, so that the frame says it, as jitcache's own frames do. */
static int bomb(const char *path, const char *hex, unsigned long long size)
{
	unsigned char head[HEADER] = "jitcache";
	static char zeros[1 << 20];
	size_t cap = 1 << 20, used = 0;
	unsigned char *frame = malloc(cap);
	ZSTD_CCtx *c = ZSTD_createCCtx();
	if (!frame || !c || parse_key(hex, head + 16) != 0)
		return 2;
	ZSTD_CCtx_setPledgedSrcSize(c, size);
	for (unsigned long long left = size;;) {
		size_t n = left < sizeof zeros ? (size_t)left : sizeof zeros;
		ZSTD_inBuffer in = { zeros, n, 0 };
		ZSTD_EndDirective end = n == left ? ZSTD_e_end : ZSTD_e_continue;
		size_t more;
		do {
			if (cap - used < ZSTD_CStreamOutSize() && !(frame = realloc(frame, cap *= 2)))
				return 1;
			ZSTD_outBuffer out = { frame, cap, used };
			more = ZSTD_compressStream2(c, &out, &in, end);
			if (ZSTD_isError(more))
				return 1;
			used = out.pos;
		} while (end == ZSTD_e_end ? more != 0 : in.pos < in.size);
		left -= n;
		if (end == ZSTD_e_end)
			break;
	}
	put64(head + 8, (uint64_t)1 << 32 | 1); /* version 1, flags: zstd */
	put64(head + 32, used);
	put64(head + 40, size);
	put64(head + 56, XXH3_64bits_withSeed(frame, used, XXH3_64bits(head, 56)));
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(head, 1, HEADER, f) != HEADER || fwrite(frame, 1, used, f) != used ||
	    fclose(f) != 0)
		return 1;
	ZSTD_freeCCtx(c);
	free(frame);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "bomb") == 0)
		return bomb(argv[2], argv[3], strtoull(argv[4], NULL, 0));
	int rekey = argc == 4 && strcmp(argv[1], "rekey") == 0;
	if (!rekey && !(argc == 3 && strcmp(argv[1], "flip") == 0)) {
		fprintf(stderr, "usage: jc_forge flip ENTRY | rekey ENTRY HEX | bomb FILE HEX SIZE\n");
		return 2;
	}
	FILE *f = fopen(argv[2], "rb");
	long n = -1;
	if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) <= HEADER) {
		fprintf(stderr, "jc_forge: %s: not an entry\n", argv[2]);
		return 1;
	}
	unsigned char *e = malloc((size_t)n);
	rewind(f);
	if (!e || fread(e, 1, (size_t)n, f) != (size_t)n || memcmp(e, "jitcache", 8) != 0) {
		fprintf(stderr, "jc_forge: %s: not an entry\n", argv[2]);
		return 1;
	}
	fclose(f);
	uint64_t stored = get64(e + 32);
	if (stored == 0 || HEADER + stored > (uint64_t)n) {
		fprintf(stderr, "jc_forge: %s: no payload to change\n", argv[2]);
		return 1;
	}
	if (rekey) {
		if (strlen(argv[3]) != 32)
			return 2;
		for (int i = 0; i < 16; i++) {
			unsigned v;
			if (sscanf(argv[3] + 2 * i, "%2x", &v) != 1)
				return 2;
			e[16 + i] = (unsigned char)v;
		}
	} else {
		e[HEADER] ^= 0x01;
	}
	put64(e + 56, XXH3_64bits_withSeed(e + HEADER, stored, XXH3_64bits(e, 56)));
	f = fopen(argv[2], "wb");
	if (!f || fwrite(e, 1, (size_t)n, f) != (size_t)n || fclose(f) != 0)
		return 1;
	free(e);
	return 0;
}
