// SPDX-License-Identifier: MIT
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
 * For local and layer, what a hit costs beyond reading the entry's bytes
 * (issue 37) follows on the same line.  Right after each timed lookup, the
 * entry is looked up OWN_TRIES more times, and its file read whole as the
 * floor for any store of files, in two ways, as many times: with
 * read() into a buffer (open, fstat, read, close), and mapped with each
 * page faulted in (open, fstat, mmap, a read per page, munmap, close: the
 * lookup maps large entries).  What is left is the lookup's own: the path,
 * the header, the checksum over every byte, the counters.  Then the shared
 * counters are added to once, as a hit does (jc_stats_add).  Per key,
 * own = the fastest lookup - the fastest floor (the best of each, so that
 * a page fault or a preemption on a busy machine falls on neither side).
 * Each as p50/p99 over the keys, in ms:
 *   read_p50_ms read_p99_ms map_p50_ms map_p99_ms own_p50_ms own_p99_ms
 *   count_p50_ms count_p99_ms own_read_p50_ms
 * (own includes the hit's count; the count's time is one more add beside it;
 * own_read is the hit beyond the read() floor alone, which copies every
 * byte: what the hit adds to a reader that looks at each byte once, as the
 * driver's load of the binary does, where own is against a floor that
 * touches one byte a page).
 * With put, the stores themselves are timed, as a program that compiled
 * waits for them (the local store, and queueing for the remotes), and then
 * the wait for the remote writes still queued, as the program's end waits
 * for them: "put n=N size=SIZE p50_ms=X p99_ms=Y flush_ms=Z".
 */
#include "cache/cache.h"
#include "config/config.h"
#include "store/stats.h"
#include "bench/timing.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double quantile(const double *sorted, int n, double q)
{
	int i = (int)(q * (n - 1) + 0.5);
	return sorted[i < n ? i : n - 1];
}

#define OWN_TRIES 3

/* Read the entry file of key under dir (the store's layout: DIR/XX/KEYHEX,
 * store/layout.c) whole, as a store of files must at least: its seconds,
 * or -1. */
static double read_entry_file(const char *dir, const struct jc_key *key, unsigned char **buf,
			      size_t *cap)
{
	char hex[2 * JC_KEY_BYTES + 1], path[4096];
	jc_key_hex(key, hex);
	snprintf(path, sizeof path, "%s/%.2s/%s", dir, hex, hex);
	double t0 = now();
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if ((size_t)st.st_size > *cap) {
		free(*buf);
		*cap = (size_t)st.st_size;
		*buf = malloc(*cap);
	}
	size_t got = 0;
	ssize_t r = 1;
	while (*buf && got < (size_t)st.st_size && (r = read(fd, *buf + got, *cap - got)) > 0)
		got += (size_t)r;
	close(fd);
	return got == (size_t)st.st_size ? now() - t0 : -1;
}

/* Map the entry file of key under dir and fault in its pages: its
 * seconds, or -1.  *sink keeps the reads from being optimised away. */
static double map_entry_file(const char *dir, const struct jc_key *key, uint64_t *sink)
{
	char hex[2 * JC_KEY_BYTES + 1], path[4096];
	jc_key_hex(key, hex);
	snprintf(path, sizeof path, "%s/%.2s/%s", dir, hex, hex);
	double t0 = now();
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || st.st_size < 8) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	size_t len = (size_t)st.st_size;
	void *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -1;
	const volatile uint8_t *p = map;
	uint64_t sum = 0;
	for (size_t i = 0; i < len; i += 4096) /* each page faulted in, nothing more */
		sum += p[i];
	munmap(map, len);
	*sink += sum;
	return now() - t0;
}

/* Print the hit's cost beyond reading its bytes (see the top). */
static void print_own(double *rd, double *mp, double *own, double *cnt, double *ownr, int n)
{
	sort_times(ownr, n);
	sort_times(rd, n);
	sort_times(mp, n);
	sort_times(own, n);
	sort_times(cnt, n);
	printf(" read_p50_ms=%.4f read_p99_ms=%.4f map_p50_ms=%.4f map_p99_ms=%.4f"
	       " own_p50_ms=%.4f own_p99_ms=%.4f count_p50_ms=%.4f count_p99_ms=%.4f",
	       quantile(rd, n, 0.5), quantile(rd, n, 0.99), quantile(mp, n, 0.5), quantile(mp, n, 0.99),
	       quantile(own, n, 0.5), quantile(own, n, 0.99), quantile(cnt, n, 0.5),
	       quantile(cnt, n, 0.99));
	printf(" own_read_p50_ms=%.4f", quantile(ownr, n, 0.5));
}

static struct jc_cache *open_cache(const struct jc_config *cfg, const char *dir,
				   const char *layers, int with_remote)
{
	struct jc_cache_options o =
		jc_cache_options_from_config(cfg, with_remote ? JC_OPTIONS_REMOTE : JC_OPTIONS_LOCAL);
	o.dir = dir;
	o.layers = layers;
	if (with_remote)
		o.remote.exit_wait = 60; /* every write timed reaches the remote */
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
	int hits = 0, own_ok = !remote;
	double first = 0, *rd = calloc((size_t)n, sizeof *rd), *mp = calloc((size_t)n, sizeof *mp),
	       *own = calloc((size_t)n, sizeof *own), *cnt = calloc((size_t)n, sizeof *cnt),
	       *ownr = calloc((size_t)n, sizeof *ownr);
	uint64_t sink = 0;
	unsigned char *buf = NULL;
	size_t cap = 0;
	uint64_t one_hit[JC_NCOUNTERS] = {[JC_HITS] = 1};
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
		if (!own_ok || !rd || !mp || !own || !cnt || !ownr)
			continue;
		double best = t[i];
		rd[i] = mp[i] = 1e9;
		for (int k = 0; k < OWN_TRIES; k++) {
			double g0 = now();
			int got = jc_cache_get(r, &keys[i], &e) == 0;
			double g = (now() - g0) * 1e3;
			best = g < best ? g : best;
			if (got)
				jc_entry_free(&e);
			own_ok &= got;
			double rr = read_entry_file(argv[2], &keys[i], &buf, &cap) * 1e3;
			double mm = map_entry_file(argv[2], &keys[i], &sink) * 1e3;
			own_ok &= rr >= 0 && mm >= 0;
			rd[i] = rr < rd[i] ? rr : rd[i];
			mp[i] = mm < mp[i] ? mm : mp[i];
		}
		own[i] = best - (mp[i] < rd[i] ? mp[i] : rd[i]);
		ownr[i] = best - rd[i];
		double c0 = now();
		own_ok &= jc_stats_add(argv[2], one_hit, NULL, 1) == 0;
		cnt[i] = (now() - c0) * 1e3;
	}
	sort_times(t, n);
	printf("%s n=%d size=%zu p50_ms=%.3f p99_ms=%.3f first_ms=%.3f hits=%d", mode, n, size,
	       quantile(t, n, 0.5), quantile(t, n, 0.99), first, hits);
	if (own_ok && rd && mp && own && cnt && ownr && r)
		print_own(rd, mp, own, cnt, ownr, n);
	printf(sink == 42 ? " \n" : "\n");
	free(rd);
	free(mp);
	free(own);
	free(cnt);
	free(ownr);
	free(buf);
	if (r && r != w)
		jc_cache_close(r);
	jc_cache_close(w);
	free(keys);
	free(data);
	free(t);
	return hits == n ? 0 : 1;
}
