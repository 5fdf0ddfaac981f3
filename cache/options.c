// SPDX-License-Identifier: MIT
/* options.c — jc_cache_options_from_config() (cache.h): the one place that
 * turns settings into a cache's options. */
#include "cache/cache.h"

#include "config/config.h"

struct jc_cache_options jc_cache_options_from_config(const struct jc_config *cfg, int tiers)
{
	struct jc_cache_options o = {
		.dir = cfg->cache_dir,
		.max_size = cfg->max_size,
		.shared = cfg->shared,
		.lock_timeout = cfg->lock_timeout,
		.compress = cfg->compress,
		.layers = tiers & JC_OPTIONS_LAYERS ? cfg->layers : NULL,
		.signing_key = cfg->signing_key,
		.trusted_keys = cfg->trusted_keys,
		.trusted_keys_invalid = jc_config_refused(cfg->trusted_keys_from),
	};
	if (tiers & JC_OPTIONS_REMOTE)
		o.remote = (struct jc_remote_options){
			.url = cfg->remote_url,
			.password_file = cfg->remote_password_file,
			.read_only = cfg->remote_read_only,
			.connect_timeout = cfg->remote_connect_timeout,
			.timeout = cfg->remote_timeout,
			.backoff = cfg->remote_backoff,
			.lease = cfg->remote_lease,
			.lease_wait = cfg->remote_lease_wait,
			.compress = cfg->remote_compress,
			.exit_wait = cfg->remote_exit_wait,
		};
	return o;
}
