// SPDX-License-Identifier: MIT
/*
 * cl_cache_tool — damages an OpenCL cache entry the way a driver update or
 * a bad binary would, through the cache's own API, so that the entry stays
 * valid for the store (format, key, checksum) and only the driver can tell.
 *
 *   cl_cache_tool DIR garble KEYHEX   flip every byte of each stored binary
 *   cl_cache_tool DIR show KEYHEX     print the entry's devices and sizes
 *   cl_cache_tool DIR replace KEYHEX FILE
 *                                     each stored binary becomes FILE's bytes
 *                                     (e.g. ocloc's for another stepping)
 *
 * Links the cache (build/libjccore.a) and reads the payload exactly as the
 * shim does, by including its source.
 */
#include "cache/cache.h"
#include "shim/cl/cl_payload.c"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_key(const char *hex, struct jc_key *key)
{
	if (strlen(hex) != 2 * JC_KEY_BYTES)
		return -1;
	for (int i = 0; i < JC_KEY_BYTES; i++) {
		unsigned byte;
		if (sscanf(hex + 2 * i, "%2x", &byte) != 1)
			return -1;
		key->bytes[i] = (uint8_t)byte;
	}
	return 0;
}

/* FILE's bytes (malloc'd), or NULL. */
static unsigned char *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	long n = -1;
	unsigned char *data = NULL;
	if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (data = malloc((size_t)n)) && fread(data, 1, (size_t)n, f) != (size_t)n) {
		free(data);
		data = NULL;
	}
	if (f)
		fclose(f);
	*size = n > 0 ? (size_t)n : 0;
	return data;
}

/* Garble each binary (file NULL), or make each FILE's bytes. */
static int garble(struct jc_cache *cache, const struct jc_key *key, struct jc_cl_payload *p,
		  uint64_t compile_ns, const char *file)
{
	unsigned char **copies = calloc(p->ndev, sizeof *copies);
	for (cl_uint i = 0; i < p->ndev; i++) {
		if (file) {
			copies[i] = read_file(file, &p->binary_sizes[i]);
			if (!copies[i]) {
				fprintf(stderr, "cl_cache_tool: cannot read %s\n", file);
				return 1;
			}
		} else {
			copies[i] = malloc(p->binary_sizes[i]);
			for (size_t j = 0; j < p->binary_sizes[i]; j++)
				copies[i][j] = (unsigned char)(p->binaries[i][j] ^ 0xa5);
		}
		p->binaries[i] = copies[i];
	}
	void *bytes;
	size_t size;
	int rc = jc_cl_payload_encode(p, &bytes, &size) == 0 &&
			 jc_cache_put(cache, key, bytes, size, compile_ns) == 0
		 ? 0 : 1;
	for (cl_uint i = 0; i < p->ndev; i++)
		free(copies[i]);
	free(copies);
	free(bytes);
	return rc;
}

int main(int argc, char **argv)
{
	struct jc_key key;
	int replace = argc == 5 && strcmp(argv[2], "replace") == 0;
	if ((argc != 4 && !replace) || parse_key(argv[3], &key) != 0) {
		fprintf(stderr, "usage: cl_cache_tool DIR garble|show KEYHEX | replace KEYHEX FILE\n");
		return 2;
	}
	struct jc_cache_options opts = { .dir = argv[1], .lock_timeout = 10 };
	struct jc_cache *cache = jc_cache_open(&opts);
	struct jc_entry e;
	struct jc_cl_payload p;
	if (!cache || jc_cache_get(cache, &key, &e) != 0) {
		fprintf(stderr, "cl_cache_tool: no entry %s\n", argv[3]);
		return 1;
	}
	if (jc_cl_payload_decode(e.data, e.size, &p) != 0) {
		fprintf(stderr, "cl_cache_tool: entry %s is not an OpenCL payload\n", argv[3]);
		return 1;
	}
	int rc = 0;
	if (strcmp(argv[2], "show") == 0)
		for (cl_uint i = 0; i < p.ndev; i++)
			printf("device %u: binary %zu bytes, log %zu bytes\n", i,
			       p.binary_sizes[i], p.log_sizes[i]);
	else
		rc = garble(cache, &key, &p, e.compile_ns, replace ? argv[4] : NULL);
	jc_cl_payload_free(&p);
	jc_entry_free(&e);
	jc_cache_close(cache);
	return rc;
}
