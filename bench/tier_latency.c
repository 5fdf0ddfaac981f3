/*
 * tier_latency — the time of one hit, by tier: what jc_cache_get() costs a
 * program when the entry is in the local store, a read-only layer, or only
 * in a remote tier (Redis, a web server, S3), every setting from the
 * environment and ini file (jc_config_load), as the shim reads them.
 *
 *   tier_latency MODE WRITER_DIR READER_DIR N SIZE
 *   tier_latency put WRITER_DIR - N SIZE
 *
 * It stores N entries of SIZE bytes (random keys) through a cache on
 * WRITER_DIR, with the configured remotes, and waits until its remote
 * writes are done.  Then it looks each up once, timed:
 *   local   from the writer's own directory
 *   layer   from an empty READER_DIR with WRITER_DIR as its layer
 *   remote  from an empty READER_DIR with the same remotes: each lookup
 *           misses locally and is answered by the first remote (and then
 *           kept locally, so each key is asked once)
 * and prints one line: "MODE n=N size=SIZE p50_ms=X p99_ms=Y first_ms=Z hits=H";
 * first_ms is the first lookup's: for a remote, it opens the remote (and
 * loads its client library), what a process pays once.
 * With put, the stores themselves are timed, as a program that compiled
 * waits for them (the local store, and queueing for the remotes), and then
 * the wait for the remote writes still queued, as the program's end waits
 * for them: "put n=N size=SIZE p50_ms=X p99_ms=Y flush_ms=Z".
 */
#include "cache/cache.h"
#include "config/config.h"
#include "bench/timing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

static double quantile(const double *sorted, int n, double q)
{
	int i = (int)(q * (n - 1) + 0.5);
	return sorted[i < n ? i : n - 1];
}

static struct jc_cache *open_cache(const struct jc_config *cfg, const char *dir,
				   const char *layers, int with_remote)
{
	struct jc_cache_options o = {
		.dir = dir, .max_size = cfg->max_size, .lock_timeout = cfg->lock_timeout,
		.compress = cfg->compress, .layers = layers,
		.signing_key = cfg->signing_key, .trusted_keys = cfg->trusted_keys,
	};
	if (with_remote)
		o.remote = (struct jc_remote_options){
			.url = cfg->remote_url, .password_file = cfg->remote_password_file,
			.connect_timeout = cfg->remote_connect_timeout,
			.timeout = cfg->remote_timeout, .backoff = cfg->remote_backoff,
			.lease = cfg->remote_lease, .lease_wait = cfg->remote_lease_wait,
			.compress = cfg->remote_compress, .exit_wait = 60,
		};
	return jc_cache_open(&o);
}

int main(int argc, char **argv)
{
	static struct jc_config cfg;
	if (argc != 6) {
		fprintf(stderr, "usage: tier_latency local|layer|remote WRITER_DIR READER_DIR N SIZE\n");
		return 2;
	}
	const char *mode = argv[1];
	int n = atoi(argv[4]);
	size_t size = (size_t)strtoull(argv[5], NULL, 10);
	if (n < 1 || !size || (strcmp(mode, "local") && strcmp(mode, "layer") &&
				strcmp(mode, "remote") && strcmp(mode, "put"))) {
		fprintf(stderr, "tier_latency: bad arguments\n");
		return 2;
	}
	jc_config_load(&cfg);
	int remote = strcmp(mode, "remote") == 0 || strcmp(mode, "put") == 0;
	struct jc_cache *w = open_cache(&cfg, argv[2], "", remote);
	struct jc_key *keys = calloc((size_t)n, sizeof *keys);
	unsigned char *data = malloc(size);
	double *t = calloc((size_t)n, sizeof *t);
	if (!w || !keys || !data || !t) {
		fprintf(stderr, "tier_latency: cannot open the cache\n");
		return 1;
	}
	for (int i = 0; i < n; i++) {
		if (getrandom(&keys[i], sizeof keys[i], 0) != sizeof keys[i])
			return 1;
		for (size_t b = 0; b < size; b++) /* compressible like code, not zeros */
			data[b] = (unsigned char)(b % 16 < 10 ? (b * 131 + (size_t)i) >> 3 : b & 15);
		double p0 = now();
		jc_cache_put(w, &keys[i], data, size, 1000000);
		t[i] = (now() - p0) * 1e3;
	}
	double f0 = now();
	if (jc_cache_flush_remote(w, 120) != 0)
		fprintf(stderr, "tier_latency: remote writes not done after 120 s\n");
	if (strcmp(mode, "put") == 0) {
		double flush = (now() - f0) * 1e3;
		sort_times(t, n);
		printf("put n=%d size=%zu p50_ms=%.3f p99_ms=%.3f flush_ms=%.3f\n", n, size,
		       quantile(t, n, 0.5), quantile(t, n, 0.99), flush);
		jc_cache_close(w);
		return 0;
	}
	struct jc_cache *r = strcmp(mode, "local") == 0 ? w
		: open_cache(&cfg, argv[3], strcmp(mode, "layer") == 0 ? argv[2] : "", remote);
	int hits = 0;
	double first = 0;
	for (int i = 0; r && i < n; i++) {
		struct jc_entry e;
		double t0 = now();
		int rc = jc_cache_get(r, &keys[i], &e);
		t[i] = (now() - t0) * 1e3;
		if (i == 0)
			first = t[i];
		if (rc == 0) {
			hits += e.size == size;
			jc_entry_free(&e);
		}
	}
	sort_times(t, n);
	printf("%s n=%d size=%zu p50_ms=%.3f p99_ms=%.3f first_ms=%.3f hits=%d\n", mode, n, size,
	       quantile(t, n, 0.5), quantile(t, n, 0.99), first, hits);
	if (r && r != w)
		jc_cache_close(r);
	jc_cache_close(w);
	free(keys);
	free(data);
	free(t);
	return hits == n ? 0 : 1;
}
