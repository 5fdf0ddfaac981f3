// SPDX-License-Identifier: MIT
/* web.c — the two kinds of web remote as tiers (tier.h): a web server
 * (http://, https://) with WebDAV leases (http_lease.c), and an S3 bucket
 * (s3://) with S3 leases (s3_lease.h); both store through http.c. */
#include "tiers/tier.h"
#include "tiers/http.h"
#include "tiers/s3_lease.h"

#include "config/log.h"

#include <stdio.h>
#include <stdlib.h>

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

/* ---- WebDAV leases -------------------------------------------------------------- */

struct dav {
	struct jc_http_leases *z;
	int trust_required;
};

static void *dav_open(void *t, const struct jc_remote_options *opts)
{
	struct dav *d = calloc(1, sizeof *d);
	if (d && !(d->z = jc_http_leases_open(t, opts->lease, opts->backoff))) {
		free(d);
		d = NULL;
	}
	return d;
}

static void dav_set_keys(void *z, const struct jc_signer *signer, const struct jc_trust *trust,
			 int trust_required)
{
	(void)signer, (void)trust;
	((struct dav *)z)->trust_required = trust_required;
}

static enum jc_remote_wait dav_wait(void *z, const struct jc_key *key, int64_t deadline_ns,
				    struct jc_remote_lease *look, struct jc_remote_lease **lease,
				    struct jc_remote_value *v, uint64_t delta[JC_NCOUNTERS])
{
	struct dav *d = z;
	struct jc_http_lease *l = NULL;
	(void)look; /* web_get takes no lease: always NULL */
	if (d->trust_required) {
		/* a WebDAV lock carries no signature: anyone who may LOCK could
		 * make every miss wait */
		JC_LOG_ONCE(JC_LOG_INFO, "WebDAV compile leases are not signed, and "
			    "trusted_keys waits only for signed ones: compiling without "
			    "waiting for other machines (a Redis remote holds signed leases)");
		*lease = NULL;
		return JC_REMOTE_FREE;
	}
	enum jc_remote_wait w = jc_http_wait(d->z, key, deadline_ns, &l, v, delta);
	*lease = (struct jc_remote_lease *)l; /* given back to dav_release() alone */
	return w;
}

static void dav_release(struct jc_remote_lease *lease)
{
	jc_http_release((struct jc_http_lease *)lease);
}

static void dav_close(void *z)
{
	struct dav *d = z;
	if (d)
		jc_http_leases_close(d->z);
	free(d);
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
	.set_keys = dav_set_keys,
	.wait = dav_wait,
	.release = dav_release,
	.leases_close = dav_close,
};

/* ---- S3 leases ------------------------------------------------------------------ */

static void *s3_open(void *t, const struct jc_remote_options *opts)
{
	return jc_s3_leases_open(t, opts->lease, opts->lease_wait);
}

static void s3_set_keys(void *z, const struct jc_signer *signer, const struct jc_trust *trust,
			int trust_required)
{
	(void)signer, (void)trust;
	jc_s3_leases_set_trust(z, trust_required);
}

static enum jc_remote_wait s3_wait(void *z, const struct jc_key *key, int64_t deadline_ns,
				   struct jc_remote_lease *look, struct jc_remote_lease **lease,
				   struct jc_remote_value *v, uint64_t delta[JC_NCOUNTERS])
{
	(void)look; /* web_get takes no lease: always NULL */
	return jc_s3_lease_wait(z, key, deadline_ns, lease, v, delta);
}

static void s3_close(void *z)
{
	jc_s3_leases_close(z);
}

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
	.set_keys = s3_set_keys,
	.wait = s3_wait,
	.release = jc_s3_lease_release,
	.leases_close = s3_close,
};
