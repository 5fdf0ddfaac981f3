// SPDX-License-Identifier: MIT
/* A fixed table of handle -> key under one mutex (see memo.h). */
#include "key/memo.h"

static struct jc_memo_slot *find(struct jc_memo *memo, const void *handle)
{
	for (unsigned i = 0; i < memo->used; i++)
		if (memo->slots[i].handle == handle)
			return &memo->slots[i];
	return NULL;
}

int jc_memo_get(struct jc_memo *memo, const void *handle, struct jc_key *out)
{
	pthread_mutex_lock(&memo->lock);
	struct jc_memo_slot *s = find(memo, handle);
	if (s)
		*out = s->value;
	pthread_mutex_unlock(&memo->lock);
	return s ? 0 : -1;
}

void jc_memo_put(struct jc_memo *memo, const void *handle, const struct jc_key *value)
{
	pthread_mutex_lock(&memo->lock);
	if (!find(memo, handle) && memo->used < memo->cap)
		memo->slots[memo->used++] = (struct jc_memo_slot){ handle, *value };
	pthread_mutex_unlock(&memo->lock);
}
