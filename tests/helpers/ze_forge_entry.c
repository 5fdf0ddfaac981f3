// SPDX-License-Identifier: MIT
/*
 * ze_forge_entry — makes cache entries that the store accepts, so that the
 * driver is the one to judge their payload.  Follows the entry format of
 * cache/entry.h; refuses compressed entries.
 *
 *   ze_forge_entry ENTRY          damage the payload (its first 256 bytes)
 *   ze_forge_entry ENTRY DONOR    replace ENTRY's payload with DONOR's (e.g.
 *                                 a binary compiled for another GPU), keeping
 *                                 ENTRY's key
 *   ze_forge_entry ENTRY -b FILE  replace ENTRY's payload with FILE's bytes
 *                                 (e.g. ocloc's binary for another stepping)
 *
 * Either way the checksum is rewritten to match.  Exit status 0 on success.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#define HEADER 64

/* The whole uncompressed entry file at path (malloc'd), its size in *size. */
static unsigned char *read_entry(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	long n = -1;
	if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) <= HEADER + 256) {
		fprintf(stderr, "ze_forge_entry: %s: not an entry\n", path);
		if (f)
			fclose(f);
		return NULL;
	}
	unsigned char *entry = malloc((size_t)n);
	rewind(f);
	if (!entry || fread(entry, 1, (size_t)n, f) != (size_t)n ||
	    memcmp(entry, "jitcache", 8) != 0 || entry[12] != 0) {
		fprintf(stderr, "ze_forge_entry: %s is not an uncompressed entry\n", path);
		free(entry);
		fclose(f);
		return NULL;
	}
	fclose(f);
	*size = (size_t)n;
	return entry;
}

/* The whole of a plain file, after HEADER bytes of room (malloc'd). */
static unsigned char *read_raw(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	long n = -1;
	unsigned char *data = NULL;
	if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0) {
		rewind(f);
		data = malloc(HEADER + (size_t)n);
		if (data && fread(data + HEADER, 1, (size_t)n, f) != (size_t)n) {
			free(data);
			data = NULL;
		}
	}
	if (f)
		fclose(f);
	if (!data)
		fprintf(stderr, "ze_forge_entry: cannot read %s\n", path);
	*size = HEADER + (size_t)(n > 0 ? n : 0);
	return data;
}

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++) /* little-endian */
		p[i] = (unsigned char)(v >> (8 * i));
}

int main(int argc, char **argv)
{
	int raw = argc == 4 && strcmp(argv[2], "-b") == 0;
	if (argc != 2 && argc != 3 && !raw) {
		fprintf(stderr, "usage: ze_forge_entry ENTRY [DONOR | -b FILE]\n");
		return 2;
	}
	size_t size = 0, donor_size = 0;
	unsigned char *entry = read_entry(argv[1], &size);
	unsigned char *donor = raw	     ? read_raw(argv[3], &donor_size)
			       : argc == 3 ? read_entry(argv[2], &donor_size)
					   : NULL;
	if (!entry || (argc > 2 && !donor))
		return 1;
	if (donor) {
		size_t payload = donor_size - HEADER;
		unsigned char *grown = realloc(entry, HEADER + payload);
		if (!grown)
			return 1;
		entry = grown;
		memcpy(entry + HEADER, donor + HEADER, payload);
		put64(entry + 32, payload); /* stored size */
		put64(entry + 40, payload); /* data size */
		size = HEADER + payload;
	} else {
		memset(entry + HEADER, 0x5a, 256);
	}
	put64(entry + 56, XXH3_64bits_withSeed(entry + HEADER, size - HEADER, XXH3_64bits(entry, 56)));
	FILE *f = fopen(argv[1], "wb");
	if (!f || fwrite(entry, 1, size, f) != size || fclose(f) != 0)
		return 1;
	free(entry);
	free(donor);
	return 0;
}
