// SPDX-License-Identifier: MIT
/* web.c — the two kinds of web remote as tiers (tier.h): a web server
 * (http://, https://) with WebDAV leases (http_lease.c), and an S3 bucket
 * (s3://) with S3 leases (s3_lease.h), both kinds of the lease engine
 * (lease.h); both store through http.c. */
#include "tiers/tier.h"
#include "tiers/http.h"
#include "tiers/s3_lease.h"
#include "tiers/lease.h"

#include <stdio.h>

static void *web_open(const struct jc_tier_open *o)
{
	struct jc_http_options ho = {
		.spec = o->spec,
		.connect_timeout = o->opts->connect_timeout,
		.timeout = o->opts->timeout,
		.backoff = o->opts->backoff,
		.limit = o->limit,
	};
	return jc_http_open(&ho, o->state_dir);
}

static void web_load(void)
{
	jc_http_load(); /* said why if not */
}

/* look and lease (tier.h): a web server's or bucket's leases are taken
 * and released by requests of their own (http.h, s3_lease.h). */
static int web_get(void *t, const struct jc_key *key, struct jc_remote_value *v,
		   struct jc_remote_lease **look, uint64_t delta[JC_NCOUNTERS])
{
	(void)look;
	return jc_http_get(t, key, v, delta);
}

static int web_put(void *t, const struct jc_key *key, const void *bytes, size_t n,
		   struct jc_remote_lease **lease, uint64_t delta[JC_NCOUNTERS])
{
	(void)lease;
	return jc_http_put(t, key, bytes, n, delta);
}

static void web_describe(void *t, char *out, size_t size)
{
	snprintf(out, size, "%s %s", jc_http_is_s3(t) ? "s3" : "http", jc_http_url(t));
}

static void web_close(void *t)
{
	jc_http_close(t);
}

/* ---- leases: the engine's (lease.h), over each kind's primitives -------------- */

static void *dav_open(void *t, const struct jc_remote_options *opts)
{
	return jc_http_leases_open(t, opts->lease, opts->backoff, opts->lease_wait);
}

static void *s3_open(void *t, const struct jc_remote_options *opts)
{
	return jc_s3_leases_open(t, opts->lease, opts->lease_wait);
}

static void dav_close(void *z)
{
	jc_http_leases_close(z);
}

static void s3_close(void *z)
{
	jc_s3_leases_close(z);
}

const struct jc_tier_ops jc_tier_http = {
	.name = "http",
	.slot = JC_SLOT_HTTP,
	.min_connect_timeout = JC_WEB_CONNECT_TIMEOUT,
	.min_timeout = JC_WEB_TIMEOUT,
	.load = web_load,
	.open = web_open,
	.get = web_get,
	.put = web_put,
	.describe = web_describe,
	.close = web_close,
	.lease_order = 3,
	.leases_open = dav_open,
	.set_keys = jc_leases_tier_set_keys,
	.wait = jc_leases_tier_wait,
	.release = jc_leases_tier_release,
	.leases_close = dav_close,
};

const struct jc_tier_ops jc_tier_s3 = {
	.name = "s3",
	.slot = JC_SLOT_S3,
	.min_connect_timeout = JC_WEB_CONNECT_TIMEOUT,
	.min_timeout = JC_WEB_TIMEOUT,
	.load = web_load,
	.open = web_open,
	.get = web_get,
	.put = web_put,
	.describe = web_describe,
	.close = web_close,
	.lease_order = 2,
	.leases_open = s3_open,
	.set_keys = jc_leases_tier_set_keys,
	.wait = jc_leases_tier_wait,
	.release = jc_leases_tier_release,
	.leases_close = s3_close,
};
