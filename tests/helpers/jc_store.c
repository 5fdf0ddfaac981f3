// SPDX-License-Identifier: MIT
/*
 * jc_store — fills a cache directory through the store itself, for the
 * scripts that test the store without a GPU.
 *
 *   jc_store DIR COUNT SIZE [zeros]   COUNT entries of SIZE bytes each (keys
 *                               0x10..., one per subdirectory), of zeros or
 *                               of a pattern
 *
 * JITCACHE_SHARED=1 opens it as a shared cache, JITCACHE_COMPRESS=1 stores
 * entries zstd-compressed, JITCACHE_SIGNING_KEY=FILE signs them.  Prints the path of each entry stored, one a line.  Exit status 0 if
 * every one was stored.
 */
#include "cache/cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: jc_store DIR COUNT SIZE [zeros]\n");
		return 2;
	}
	const char *shared = getenv("JITCACHE_SHARED"), *compress = getenv("JITCACHE_COMPRESS");
	struct jc_cache_options o = { .dir = argv[1], .lock_timeout = 1,
				      .shared = shared && strcmp(shared, "1") == 0,
				      .compress = compress && strcmp(compress, "1") == 0,
				      .signing_key = getenv("JITCACHE_SIGNING_KEY") };
	struct jc_cache *c = jc_cache_open(&o);
	int count = atoi(argv[2]), rc = c ? 0 : 1;
	size_t size = strtoul(argv[3], NULL, 0);
	unsigned char *buf = calloc(1, size ? size : 1);
	for (size_t i = 0; buf && argc == 4 && i < size; i++)
		buf[i] = (unsigned char)(i * 131 + 7);
	for (int n = 0; c && buf && n < count; n++) {
		struct jc_key k;
		char hex[2 * JC_KEY_BYTES + 1];
		for (int i = 0; i < JC_KEY_BYTES; i++)
			k.bytes[i] = (unsigned char)(0x10 + n + 3 * i);
		jc_key_hex(&k, hex);
		if (jc_cache_put(c, &k, buf, size, 1000000) != 0)
			rc = 1;
		else
			printf("%s/%.2s/%s\n", argv[1], hex, hex);
	}
	free(buf);
	jc_cache_close(c);
	return rc;
}
