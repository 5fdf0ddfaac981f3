// SPDX-License-Identifier: MIT
/*
 * Micro-figures: key computation throughput and store/load time by entry
 * size.  Prints one line per measurement:
 *   hash  SIZE  GB/s
 *   store SIZE  put_ms_median get_ms_median (compress=0|1)
 *   layer SIZE  local_get_ms_median layer_get_ms_median (compress=0|1)
 * The layer line compares a get that hits the cache directory with one that
 * misses there and hits a read-only layer (CACHE_DIR itself, seen as a
 * layer from the empty cache directory CACHE_DIR.empty), interleaved.
 * Usage: micro CACHE_DIR [--compress]
 */
#include "cache/cache.h"
#include "key/fingerprint.h"
#include "bench/timing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double median(double *v, int n)
{
	sort_times(v, n);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Realistic-ish payload: compressible like GPU binaries, not all zeros. */
static void fill(unsigned char *p, size_t n)
{
	uint32_t x = 12345;
	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		p[i] = (i % 16 < 10) ? (unsigned char)(x >> 24) : (unsigned char)(i & 0x0f);
	}
}

static void bench_hash(const unsigned char *buf, size_t size)
{
	double best = 1e9;
	for (int rep = 0; rep < 5; rep++) {
		struct jc_key key;
		double t0 = now();
		struct jc_fp *fp = jc_fp_begin("bench");
		jc_fp_bytes(fp, "input", buf, size);
		jc_fp_end(fp, &key);
		double t = now() - t0;
		if (t < best)
			best = t;
	}
	printf("hash  %10zu  %.2f GB/s\n", size, (double)size / best / 1e9);
}

static void bench_store(struct jc_cache *cache, const unsigned char *buf, size_t size, int compress)
{
	enum { N = 9 };
	double put[N], get[N];
	for (int i = 0; i < N; i++) {
		struct jc_key key;
		memset(&key, 0, sizeof key);
		memcpy(key.bytes, &size, sizeof size);
		key.bytes[15] = (uint8_t)i;
		key.bytes[14] = (uint8_t)compress;
		double t0 = now();
		if (jc_cache_put(cache, &key, buf, size, 1000000) != 0) {
			printf("store %10zu  put failed\n", size);
			return;
		}
		put[i] = now() - t0;
		struct jc_entry e;
		t0 = now();
		int rc = jc_cache_get(cache, &key, &e);
		get[i] = now() - t0;
		if (rc != 0 || e.size != size || memcmp(e.data, buf, size) != 0) {
			printf("store %10zu  get failed\n", size);
			return;
		}
		jc_entry_free(&e);
	}
	printf("store %10zu  put %.3f ms  get %.3f ms  (compress=%d)\n", size,
	       median(put, N) * 1e3, median(get, N) * 1e3, compress);
}

/* The store of bench_store() left key (size, i, compress) in cache; get it
 * from there and, through layered (empty, with cache as its layer), from the
 * layer, taking turns. */
static void bench_layer(struct jc_cache *cache, struct jc_cache *layered, size_t size, int compress)
{
	enum { N = 31 };
	double local[N], layer[N];
	struct jc_key key;
	memset(&key, 0, sizeof key);
	memcpy(key.bytes, &size, sizeof size);
	key.bytes[14] = (uint8_t)compress;
	for (int i = 0; i < N; i++) {
		for (int turn = 0; turn < 2; turn++) {
			struct jc_cache *c = (turn + i) % 2 ? layered : cache;
			struct jc_entry e;
			double t0 = now();
			int rc = jc_cache_get(c, &key, &e);
			double t = now() - t0;
			if (rc != 0 || e.size != size || (c == layered) != (e.layer == 1)) {
				printf("layer %10zu  get failed\n", size);
				return;
			}
			jc_entry_free(&e);
			(c == layered ? layer : local)[i] = t;
		}
	}
	printf("layer %10zu  local %.3f ms  layer %.3f ms  (compress=%d)\n", size,
	       median(local, N) * 1e3, median(layer, N) * 1e3, compress);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: micro CACHE_DIR [--compress]\n");
		return 2;
	}
	int compress = argc > 2 && strcmp(argv[2], "--compress") == 0;
	size_t max = 32u << 20;
	unsigned char *buf = malloc(max);
	if (!buf)
		return 1;
	fill(buf, max);
	static const size_t hash_sizes[] = { 4096, 1u << 20, 32u << 20 };
	for (size_t i = 0; i < sizeof hash_sizes / sizeof *hash_sizes; i++)
		bench_hash(buf, hash_sizes[i]);
	struct jc_cache_options opts = { .dir = argv[1], .max_size = 1ull << 32,
					 .lock_timeout = 10, .compress = compress };
	struct jc_cache *cache = jc_cache_open(&opts);
	if (!cache)
		return 1;
	static const size_t sizes[] = { 4096, 65536, 1u << 20, 8u << 20, 32u << 20 };
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
		bench_store(cache, buf, sizes[i], compress);
	char empty[4096];
	snprintf(empty, sizeof empty, "%s.empty", argv[1]);
	struct jc_cache_options lopts = { .dir = empty, .lock_timeout = 10, .layers = argv[1] };
	struct jc_cache *layered = jc_cache_open(&lopts);
	for (size_t i = 0; layered && i < sizeof sizes / sizeof *sizes; i++)
		bench_layer(cache, layered, sizes[i], compress);
	jc_cache_close(layered);
	jc_cache_close(cache);
	free(buf);
	return 0;
}
