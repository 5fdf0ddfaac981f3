// SPDX-License-Identifier: MIT
/* grow.c — an array's room for one more item (grow.h). */
#include "config/grow.h"

#include <stdint.h>
#include <stdlib.h>

void *jc_grow(void *v, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return v;
	size_t more = *cap ? 2 * *cap : 64;
	if (more < *cap || more > SIZE_MAX / size)
		return NULL;
	void *grown = realloc(v, more * size);
	if (grown)
		*cap = more;
	return grown;
}
