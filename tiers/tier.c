// SPDX-License-Identifier: MIT
/* tier.c — the table of the kinds of remote tier (tier.h). */
#include "tiers/tier.h"

/* One line per kind (docs/design.md, "Adding a tier"); its schemes are in
 * config/remote_url.c. */
static const struct jc_tier_ops *const kinds[JC_REMOTE_KINDS] = {
	[JC_REMOTE_REDIS] = &jc_tier_redis,
	[JC_REMOTE_HTTP] = &jc_tier_http,
	[JC_REMOTE_S3] = &jc_tier_s3,
};

const struct jc_tier_ops *jc_tier_of(enum jc_remote_kind kind)
{
	return (unsigned)kind < JC_REMOTE_KINDS ? kinds[kind] : NULL;
}
