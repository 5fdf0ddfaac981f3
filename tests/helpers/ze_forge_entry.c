/*
 * ze_forge_entry ENTRY — damages the payload of a cache entry (its first 256
 * bytes) and writes a checksum that matches the damage, so that the store
 * accepts the entry and the driver is the one to reject it.  Follows the
 * entry format of cache/entry.h; refuses compressed entries.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#define HEADER 64

int main(int argc, char **argv)
{
	FILE *f = argc == 2 ? fopen(argv[1], "r+b") : NULL;
	long size = -1;
	if (!f || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) <= HEADER + 256) {
		fprintf(stderr, "usage: ze_forge_entry ENTRY (an uncompressed entry)\n");
		return 2;
	}
	unsigned char *entry = malloc((size_t)size);
	rewind(f);
	if (!entry || fread(entry, 1, (size_t)size, f) != (size_t)size ||
	    memcmp(entry, "jitcache", 8) != 0 || entry[12] != 0) {
		fprintf(stderr, "ze_forge_entry: %s is not an uncompressed entry\n", argv[1]);
		return 1;
	}
	memset(entry + HEADER, 0x5a, 256);
	XXH64_hash_t sum = XXH3_64bits_withSeed(entry + HEADER, (size_t)size - HEADER,
						XXH3_64bits(entry, 56));
	for (int i = 0; i < 8; i++) /* little-endian, at offset 56 */
		entry[56 + i] = (unsigned char)(sum >> (8 * i));
	rewind(f);
	if (fwrite(entry, 1, (size_t)size, f) != (size_t)size || fclose(f) != 0)
		return 1;
	free(entry);
	return 0;
}
