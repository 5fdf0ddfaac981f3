// SPDX-License-Identifier: MIT
/*
 * jc_lookup — asks the cache for keys the way the shim does on a miss, with
 * every setting from the environment and ini file (jc_config_load): the
 * cache directory, then the layers, then the remote tier; on a miss, the
 * compile-once lock (and remote lease wait), the second look, and nothing
 * stored.  For the scripts that test the store without a GPU.
 *
 *   jc_lookup KEYHEX...    one line per key: "KEYHEX hit|miss SECONDS"
 *
 * With JC_LOOKUP_AFTER=FILE it opens the cache first, then waits (20 s at
 * most) for FILE to exist before it looks: a program that runs on while
 * someone changes the file system around its cache.  With
 * JC_LOOKUP_HOLD=SECONDS it holds the compile-once lock (and remote lease)
 * of a miss that long, as a compile would.  With JC_LOOKUP_STORE=SIZE a miss
 * then stores SIZE bytes under the key, as a compile would.
 *
 * Exit status 0 (a miss is an answer, not an error); 2 on bad usage.
 */
#include "cache/cache.h"
#include "config/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int parse_key(const char *hex, struct jc_key *k)
{
	if (strlen(hex) != 2 * JC_KEY_BYTES)
		return -1;
	for (int i = 0; i < JC_KEY_BYTES; i++) {
		unsigned v;
		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return -1;
		k->bytes[i] = (unsigned char)v;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct jc_config cfg;
	jc_config_load(&cfg);
	struct jc_cache_options o = {
		.dir = cfg.cache_dir, .max_size = cfg.max_size, .shared = cfg.shared,
		.lock_timeout = cfg.lock_timeout, .compress = cfg.compress, .layers = cfg.layers,
		.remote = { .url = cfg.remote_url, .password_file = cfg.remote_password_file,
			    .read_only = cfg.remote_read_only,
			    .connect_timeout = cfg.remote_connect_timeout,
			    .timeout = cfg.remote_timeout, .backoff = cfg.remote_backoff,
			    .lease = cfg.remote_lease, .lease_wait = cfg.remote_lease_wait,
			    .compress = cfg.remote_compress, .exit_wait = cfg.remote_exit_wait },
		.signing_key = cfg.signing_key, .trusted_keys = cfg.trusted_keys,
		.trusted_keys_invalid = jc_config_refused(cfg.trusted_keys_from),
	};
	struct jc_cache *c = jc_cache_open(&o);
	const char *after = getenv("JC_LOOKUP_AFTER");
	for (int i = 0; after && *after && i < 2000 && access(after, F_OK) != 0; i++)
		usleep(10000);
	for (int i = 1; i < argc; i++) {
		struct jc_key k;
		struct jc_entry e;
		if (parse_key(argv[i], &k) != 0) {
			fprintf(stderr, "jc_lookup: %s is not a key\n", argv[i]);
			return 2;
		}
		double t0 = now_s();
		struct jc_request q;
		jc_request_begin(&q, c, &k);
		int hit = c && jc_request_look(&q, &e) == 0;
		if (c && !hit) {
			jc_request_lock(&q);
			hit = jc_request_recheck(&q, &e) == 0;
			const char *hold = getenv("JC_LOOKUP_HOLD");
			const char *store = getenv("JC_LOOKUP_STORE");
			if (!hit && hold && *hold)
				usleep((useconds_t)(atof(hold) * 1e6));
			if (!hit && store && *store) {
				size_t size = strtoul(store, NULL, 0);
				void *data = calloc(1, size ? size : 1);
				if (data)
					jc_request_put(&q, data, size, 1000000);
				free(data);
			}
		}
		if (c)
			jc_request_end(&q);
		if (hit)
			jc_entry_free(&e);
		printf("%s %s %.3f\n", argv[i], hit ? "hit" : "miss", now_s() - t0);
	}
	jc_cache_close(c);
	return 0;
}
