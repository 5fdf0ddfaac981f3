// SPDX-License-Identifier: MIT
/*
 * explain.h — why a request missed, in one line (`jitcache explain`,
 * JITCACHE_LOG=info): the cause the tiers saw (store/misses.h), and for a
 * key found nowhere, what differs from the nearest earlier recorded request
 * for the same program input, field by field of the two keys' traces
 * (key/fingerprint.h): never seen before; the driver or compiler build
 * (which library, old -> new build-id); the device; build options (old ->
 * new); a specialization constant; an environment variable in the key
 * (name, old -> new); an included file's contents (path); an input that
 * differs only in debug information from an earlier one (the same hash
 * without it: key/spirv.h, key/cl_request.c); or nothing, when the entry
 * of an identical request was evicted or removed, or never stored (a file
 * its key covers changed while the compiler read it: JC_CAUSE_CHANGED).
 */
#ifndef JITCACHE_KEY_EXPLAIN_H
#define JITCACHE_KEY_EXPLAIN_H

#include "store/misses.h"

#include <stddef.h>

/* The cause of miss m, found against the records seen[0..n) (oldest
 * first; m may be among them: only those before it are compared), in
 * out.  Also for a miss not yet recorded (seq 0: every record is
 * earlier).  Returns a short name of the cause ("new", "driver",
 * "device", "options", "spec", "env", "include", "input", "debug", "evicted",
 * "damaged", "rejected", "not_trusted", "unreachable", "changed" (a file
 * the key covers changed while the compiler read it: not stored),
 * "login_refused",
 * "unknown"). */
const char *jc_explain(const struct jc_miss *m, const struct jc_miss *seen, size_t n,
		       char *out, size_t size);

#endif
