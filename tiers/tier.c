// SPDX-License-Identifier: MIT
/* tier.c — the table of the kinds of remote tier (tier.h). */
#include "tiers/tier.h"

/* From config/remote_url.h's list of kinds, one line each. */
static const struct jc_tier_ops *const kinds[JC_REMOTE_KINDS] = {
#define X(NAME, name, ...) [JC_REMOTE_##NAME] = &jc_tier_##name,
	JC_REMOTE_KINDS_LIST(X)
#undef X
};

const struct jc_tier_ops *jc_tier_of(enum jc_remote_kind kind)
{
	return (unsigned)kind < JC_REMOTE_KINDS ? kinds[kind] : NULL;
}
