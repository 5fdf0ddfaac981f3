// SPDX-License-Identifier: MIT
/*
 * jc_http_tool — the HTTP(S) and S3 tiers' client (tiers/http.h) called
 * directly, for tests/integration/http_tier.sh and s3_tier.sh.
 *
 *   jc_http_tool [-l subdirs|flat|bazel] [-a AUTH_FILE] [-c CA_FILE]
 *                [-t TIMEOUT] [-T CONNECT_TIMEOUT] [-b BACKOFF] [-m LIMIT]
 *                [-d STATE_DIR] URL COMMAND...
 *
 *   put SEED SIZE     store an encoded entry of SIZE bytes under SEED's key
 *   putraw SEED FILE  store FILE's bytes as they are under SEED's key
 *   get SEED [SIZE]   look SEED's key up and check the value as an entry
 *                     (and, with SIZE, that its data is put's data)
 *   bench SEED N      N lookups: the median and p99 in microseconds
 *   threads N         a thread puts N entries while this one gets them
 *   fork SEED         a get here, one in a fork()ed child, one here again
 *   lease SEED HOLD LEASE  wait (60 s at most) for SEED's WebDAV compile lease
 *                     (leases of LEASE seconds); if it is ours, hold it HOLD
 *                     seconds (renewed), put SEED's entry and release it.
 *                     Prints "lease OUTCOME SECONDS" (leased, ready, free,
 *                     timeout, failed; the seconds the wait took)
 *   maps              open only: is libcurl mapped before and after?
 *   path SEED         print the key's hex digits
 *   sign METHOD PATH  (URL http://HOST:PORT) S3 headers signing that request
 *   lease SEED HOLD LEASE  (s3://) wait (60 s at most) for SEED's S3 compile lease
 *                     (tiers/s3_lease.h; LEASE seconds, lease_wait too), hold it
 *                     HOLD seconds (renewed meanwhile), release it: prints
 *                     "lease WAIT-RESULT" and, held, "held FROM_MS TO_MS"
 *
 * Prints one line per command ("put 0", "get 1 ok", "get 1 corrupt WHY",
 * "get 0", "get -1") and then the counters it added
 * ("errors=N corrupt=N in=N out=N stores=N").  Exit status 0 unless the
 * arguments or the open are wrong (2).
 */
#include "tiers/http.h"
#include "tiers/s3_lease.h"
#include "config/clock.h"
#include "tiers/sigv4.h"
#include "store/entry.h"
#include "config/log.h"
#include "config/clock.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

static struct jc_key key_of(const char *seed)
{
	struct jc_key k;
	XXH128_hash_t hash = XXH3_128bits(seed, strlen(seed));
	memcpy(k.bytes, &hash.low64, 8);
	memcpy(k.bytes + 8, &hash.high64, 8);
	return k;
}

static void *data_of(const char *seed, size_t size)
{
	unsigned char *d = malloc(size ? size : 1);
	uint64_t x = XXH3_64bits(seed, strlen(seed));
	for (size_t i = 0; i < size; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		d[i] = (unsigned char)(x >> 56);
	}
	return d;
}

static int maps_has_curl(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[1024];
	int found = 0;
	while (f && fgets(line, sizeof line, f))
		found |= strstr(line, "libcurl") != NULL;
	if (f)
		fclose(f);
	return found;
}

static int64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static void get(struct jc_http *h, const char *seed, long size, uint64_t *delta)
{
	struct jc_key k = key_of(seed);
	struct jc_remote_value v;
	struct jc_entry_header eh;
	const char *why = "";
	int rc = jc_http_get(h, &k, &v, delta);
	if (rc != 1) {
		printf("get %d\n", rc);
		return;
	}
	if (jc_remote_value_check(&k, &v, &eh, &why) != JC_ENTRY_OK) {
		printf("get 1 corrupt %s\n", why);
	} else if (size >= 0) {
		/* put stores plain (uncompressed) data: the payload is it */
		void *d = data_of(seed, (size_t)size);
		int same = eh.stored_size == (uint64_t)size && memcmp(v.payload, d, (size_t)size) == 0;
		printf("get 1 %s\n", same ? "ok" : "corrupt different data");
		free(d);
	} else {
		printf("get 1 ok\n");
	}
	free(v.payload);
}

static void *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long len = -1;
	if (f && fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)len + 1)) && fread(buf, 1, (size_t)len, f) == (size_t)len)
		*n = (size_t)len;
	else
		free(buf), buf = NULL;
	if (f)
		fclose(f);
	return buf;
}

/* threads N: one thread puts N entries while this one gets them (the
 * program thread and the writer thread of the cache); "threads ok" if every
 * get was a sound hit or a miss and every put stored. */
struct writer {
	struct jc_http *h;
	int n, failed;
	uint64_t delta[JC_NCOUNTERS];
};

static int put_seed(struct jc_http *h, const char *seed, size_t size, uint64_t *delta)
{
	struct jc_key k = key_of(seed);
	void *d = data_of(seed, size);
	struct jc_encoded e;
	jc_entry_encode(&k, d, size, 1000, 0, &e);
	size_t n = (size_t)JC_ENCODED_SIZE(&e);
	char *bytes = malloc(n);
	memcpy(bytes, e.header, JC_ENTRY_HEADER_SIZE);
	memcpy(bytes + JC_ENTRY_HEADER_SIZE, e.payload, e.payload_size);
	memcpy(bytes + JC_ENTRY_HEADER_SIZE + e.payload_size, e.trailer, e.trailer_size);
	int rc = jc_http_put(h, &k, bytes, n, delta);
	free(bytes);
	free(e.owned);
	free(d);
	return rc;
}

static void *write_all(void *arg)
{
	struct writer *w = arg;
	char seed[32];
	for (int i = 0; i < w->n; i++) {
		snprintf(seed, sizeof seed, "thread-%d", i);
		w->failed += put_seed(w->h, seed, 4000 + (size_t)i, w->delta) != 0;
	}
	return NULL;
}

static int sound_or_absent(struct jc_http *h, const char *seed, uint64_t *delta)
{
	struct jc_key k = key_of(seed);
	struct jc_remote_value v;
	struct jc_entry_header eh;
	const char *why;
	int rc = jc_http_get(h, &k, &v, delta);
	int ok = rc == 0 || (rc == 1 && jc_remote_value_check(&k, &v, &eh, &why) == JC_ENTRY_OK);
	if (rc == 1)
		free(v.payload);
	return ok;
}

static void threads(struct jc_http *h, int n, uint64_t *delta)
{
	struct writer w = { .h = h, .n = n };
	pthread_t t;
	char seed[32];
	int bad = 0;
	pthread_create(&t, NULL, write_all, &w);
	for (int round = 0; round < 3; round++)
		for (int i = 0; i < n; i++) {
			snprintf(seed, sizeof seed, "thread-%d", i);
			bad += !sound_or_absent(h, seed, delta);
		}
	pthread_join(t, NULL);
	for (int i = 0; i < n; i++) { /* all there now */
		struct jc_remote_value v;
		snprintf(seed, sizeof seed, "thread-%d", i);
		struct jc_key k = key_of(seed);
		bad += jc_http_get(h, &k, &v, delta) != 1;
		free(v.payload);
	}
	printf("threads %s (%d bad gets, %d failed puts)\n", bad || w.failed ? "FAILED" : "ok", bad,
	       w.failed);
}

/* fork SEED: a get in this process (its connection kept), then one in a
 * child, then one here again: each a hit. */
static void forked(struct jc_http *h, const char *seed, uint64_t *delta)
{
	int first = sound_or_absent(h, seed, delta), status = -1;
	pid_t pid = fork();
	if (pid == 0) {
		struct jc_key k = key_of(seed);
		struct jc_remote_value v;
		uint64_t d[JC_NCOUNTERS] = { 0 };
		_exit(jc_http_get(h, &k, &v, d) == 1 ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	int again = sound_or_absent(h, seed, delta);
	printf("fork parent=%d child=%d parent-again=%d\n", first, status == 0, again);
}

static void lease(struct jc_http *h, const char *seed, double hold, double seconds,
		  uint64_t *delta)
{
	static const char *const names[] = {
		[JC_REMOTE_LEASED] = "leased", [JC_REMOTE_READY] = "ready",
		[JC_REMOTE_FREE] = "free", [JC_REMOTE_TIMEOUT] = "timeout",
		[JC_REMOTE_FAILED] = "failed",
	};
	struct jc_leases *z = jc_http_leases_open(h, seconds, 0, seconds);
	struct jc_lease *l = NULL;
	struct jc_key k = key_of(seed);
	int64_t t = now_us();
	struct jc_remote_value v;
	enum jc_remote_wait w = jc_lease_wait(z, &k, jc_wall_ns() + 60 * (int64_t)1000000000, NULL,
					      &l, &v, delta);
	free(v.payload);
	printf("lease %s %.2f\n", names[w], (double)(now_us() - t) / 1e6);
	fflush(stdout);
	if (l) {
		struct timespec ts = { (time_t)hold, (long)((hold - (double)(time_t)hold) * 1e9) };
		nanosleep(&ts, NULL);
		put_seed(h, seed, 1000, delta);
		jc_lease_release(l);
	}
	jc_http_leases_close(z);
}

static int usage(void)
{
	fprintf(stderr, "usage: jc_http_tool [-l LAYOUT] [-a AUTH] [-c CA] [-t S] [-T S] [-b S] "
		"[-m LIMIT] [-d DIR] URL put|putraw|get|bench|maps|path ...\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct jc_http_options o = { .timeout = 5, .connect_timeout = 2, .backoff = 0,
				     .limit = JC_ENTRY_LIMIT_UNCAPPED };
	static struct jc_remote_spec spec[JC_REMOTES_MAX];
	enum jc_remote_layout layout = JC_LAYOUT_SUBDIRS;
	const char *auth_file = "", *ca_file = "", *url;
	const char *dir = NULL;
	int opt;
	jc_log_set_level(JC_LOG_INFO);
	while ((opt = getopt(argc, argv, "l:a:c:t:T:b:m:d:")) != -1) {
		switch (opt) {
		case 'l':
			layout = strcmp(optarg, "flat") == 0    ? JC_LAYOUT_FLAT
			       : strcmp(optarg, "bazel") == 0 ? JC_LAYOUT_BAZEL
							      : JC_LAYOUT_SUBDIRS;
			break;
		case 'a': auth_file = optarg; break;
		case 'c': ca_file = optarg; break;
		case 't': o.timeout = atof(optarg); break;
		case 'T': o.connect_timeout = atof(optarg); break;
		case 'b': o.backoff = atof(optarg); break;
		case 'm': o.limit = strtoull(optarg, NULL, 10); break;
		case 'd': dir = optarg; break;
		default: return usage();
		}
	}
	if (argc - optind < 2)
		return usage();
	url = argv[optind];
	char **cmd = argv + optind + 1;
	if (strcmp(cmd[0], "path") == 0 && cmd[1]) {
		char hex[2 * JC_KEY_BYTES + 1];
		struct jc_key k = key_of(cmd[1]);
		jc_key_hex(&k, hex);
		printf("%s\n", hex);
		return 0;
	}
	if (strcmp(cmd[0], "sign") == 0 && cmd[1] && cmd[2]) {
		/* S3 headers for METHOD PATH (no body) at URL's authority: for
		 * curl -H @FILE, to make a bucket */
		struct jc_sigv4_creds c;
		struct jc_sigv4_headers sh;
		const char *why = "", *host = strstr(url, "://");
		char authority[256];
		if (!host || jc_sigv4_load(&c, &why) != 0) {
			fprintf(stderr, "jc_http_tool: %s\n", why);
			return 2;
		}
		snprintf(authority, sizeof authority, "%.*s", (int)strcspn(host + 3, "/"), host + 3);
		jc_sigv4_sign(&c, cmd[1], authority, cmd[2], JC_SIGV4_EMPTY_SHA256, time(NULL), &sh);
		for (int i = 0; i < sh.n; i++)
			printf("%s\n", sh.line[i]);
		return 0;
	}
	int before = maps_has_curl();
	/* the URL parsed as the settings parse it (config/remote_url.h) */
	const char *why = "";
	int nspec = 0;
	struct jc_http *h = NULL;
	if (jc_remote_list_parse(url, spec, &nspec, &why) != 0 || nspec != 1) {
		char shown[JC_REMOTE_URL_MAX];
		jc_remote_url_redact(url, shown, sizeof shown);
		jc_log(JC_LOG_WARN, "remote URL %s is not valid (%s); remote tier disabled", shown,
		       why);
	} else {
		spec[0].layout = layout;
		snprintf(spec[0].auth_file, sizeof spec[0].auth_file, "%s", auth_file);
		snprintf(spec[0].ca_file, sizeof spec[0].ca_file, "%s", ca_file);
		o.spec = &spec[0];
		h = jc_http_open(&o, dir);
	}
	if (strcmp(cmd[0], "maps") == 0) {
		int opened = maps_has_curl();
		jc_http_load();
		printf("before=%d opened=%d after=%d\n", before, opened, maps_has_curl());
		jc_http_close(h);
		return 0;
	}
	if (!h) {
		printf("open failed\n");
		return 2;
	}
	uint64_t delta[JC_NCOUNTERS] = { 0 };
	if (strcmp(cmd[0], "put") == 0 && cmd[1] && cmd[2]) {
		printf("put %d\n", put_seed(h, cmd[1], strtoull(cmd[2], NULL, 10), delta));
	} else if (strcmp(cmd[0], "putraw") == 0 && cmd[1] && cmd[2]) {
		struct jc_key k = key_of(cmd[1]);
		size_t n = 0;
		void *bytes = slurp(cmd[2], &n);
		if (!bytes)
			return usage();
		printf("put %d\n", jc_http_put(h, &k, bytes, n, delta));
		free(bytes);
	} else if (strcmp(cmd[0], "get") == 0 && cmd[1]) {
		get(h, cmd[1], cmd[2] ? atol(cmd[2]) : -1, delta);
	} else if (strcmp(cmd[0], "bench") == 0 && cmd[1] && cmd[2]) {
		int n = atoi(cmd[2]), hits = 0;
		int64_t *us = calloc((size_t)(n > 0 ? n : 1), sizeof *us);
		struct jc_key k = key_of(cmd[1]);
		for (int i = 0; i < n; i++) {
			struct jc_remote_value v;
			int64_t t = now_us();
			hits += jc_http_get(h, &k, &v, delta) == 1;
			us[i] = now_us() - t;
			free(v.payload);
		}
		qsort(us, (size_t)n, sizeof *us, cmp64);
		printf("bench hits=%d/%d median_us=%lld p99_us=%lld\n", hits, n,
		       (long long)us[n / 2], (long long)us[n * 99 / 100]);
		free(us);
	} else if (strcmp(cmd[0], "threads") == 0 && cmd[1]) {
		threads(h, atoi(cmd[1]), delta);
	} else if (strcmp(cmd[0], "fork") == 0 && cmd[1]) {
		forked(h, cmd[1], delta);
	} else if (strcmp(cmd[0], "lease") == 0 && cmd[1] && cmd[2] && cmd[3]) {
		if (!jc_http_is_s3(h)) {
			lease(h, cmd[1], atof(cmd[2]), atof(cmd[3]), delta);
		} else {
			static const char *const names[] = {
				[JC_REMOTE_LEASED] = "LEASED", [JC_REMOTE_READY] = "READY",
				[JC_REMOTE_FREE] = "FREE", [JC_REMOTE_TIMEOUT] = "TIMEOUT",
				[JC_REMOTE_FAILED] = "FAILED",
			};
			struct jc_leases *s = jc_s3_leases_open(h, atof(cmd[3]), atof(cmd[3]));
			struct jc_lease *l = NULL;
			struct jc_key k = key_of(cmd[1]);
			int64_t deadline = jc_wall_ns() + 60 * (int64_t)1000000000;
			struct jc_remote_value v = { 0 };
			enum jc_remote_wait w = s ? jc_lease_wait(s, &k, deadline, NULL, &l, &v, delta)
						  : JC_REMOTE_FAILED;
			free(v.payload);
			printf("lease %s\n", names[w]);
			if (l) {
				long long from = (long long)(jc_wall_ns() / 1000000);
				struct timespec hold = { (time_t)atof(cmd[2]),
							 (long)((atof(cmd[2]) - (time_t)atof(cmd[2])) * 1e9) };
				nanosleep(&hold, NULL);
				printf("held %lld %lld\n", from, (long long)(jc_wall_ns() / 1000000));
				jc_lease_release(l);
			}
			jc_s3_leases_close(s);
		}
	} else {
		jc_http_close(h);
		return usage();
	}
	printf("errors=%llu corrupt=%llu in=%llu out=%llu stores=%llu\n",
	       (unsigned long long)delta[JC_REMOTE_ERRORS],
	       (unsigned long long)delta[JC_REMOTE_CORRUPT],
	       (unsigned long long)delta[JC_REMOTE_BYTES_IN],
	       (unsigned long long)delta[JC_REMOTE_BYTES_OUT],
	       (unsigned long long)delta[JC_REMOTE_STORES]);
	jc_http_close(h);
	return 0;
}
