// SPDX-License-Identifier: MIT
/*
 * memo.h — a small table of keys computed once per process: the identity of
 * a device handle, of a list of compiler libraries, ... keyed by any
 * pointer that stays valid (and means the same thing) for the process's life.
 *
 *   JC_MEMO(devices, 64);                      // a static table of 64 slots
 *   struct jc_key id;
 *   if (jc_memo_get(&devices, handle, &id) != 0) {
 *       if (compute(handle, &id) != 0) return -1;   // outside any lock
 *       jc_memo_put(&devices, handle, &id);
 *   }
 *
 * jc_memo_get() returns 0 with *out filled when the handle is known, -1 if
 * not.  jc_memo_put() records a handle once (a second put of it is ignored,
 * so two threads computing the same identity at once is harmless); when
 * the table is full the value is simply not remembered.  Thread-safe;
 * nothing is ever freed or evicted.
 */
#ifndef JITCACHE_KEY_MEMO_H
#define JITCACHE_KEY_MEMO_H

#include <pthread.h>

#include "cache/cache.h"

struct jc_memo_slot {
	const void *handle;
	struct jc_key value;
};

struct jc_memo {
	pthread_mutex_t lock;
	unsigned used, cap;
	struct jc_memo_slot *slots;
};

#define JC_MEMO(name, n)                                                                   \
	static struct jc_memo_slot name##_slots[n];                                        \
	static struct jc_memo name = { PTHREAD_MUTEX_INITIALIZER, 0, n, name##_slots }

int jc_memo_get(struct jc_memo *memo, const void *handle, struct jc_key *out);
void jc_memo_put(struct jc_memo *memo, const void *handle, const struct jc_key *value);

#endif
