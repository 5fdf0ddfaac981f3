/*
 * jc_forge — what a party that can write Redis, a layer or an archive, but
 * holds no signing key, can do to a signed entry: change it and make its
 * checksum match again, keeping the signature trailer (cache/sign.h).
 *
 *   jc_forge flip ENTRY        change the first payload byte
 *   jc_forge rekey ENTRY HEX   claim the entry is for another key (32 hex)
 *
 * The file is rewritten in place.  Exit status 0 on success.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int main(int argc, char **argv)
{
	int rekey = argc == 4 && strcmp(argv[1], "rekey") == 0;
	if (!rekey && !(argc == 3 && strcmp(argv[1], "flip") == 0)) {
		fprintf(stderr, "usage: jc_forge flip ENTRY | rekey ENTRY HEX\n");
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
