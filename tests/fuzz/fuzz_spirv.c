// SPDX-License-Identifier: MIT
/* libFuzzer target: the SPIR-V scan that sizes specialization constants
 * (key/spirv.c) must survive any module and any ids, reading only inside
 * the module, and may only answer sizes a scalar can have.  The first byte
 * says how many ids (0-7) the next 4-byte words are; the rest is the
 * module, copied to a buffer of exactly its size.  A size is whole bytes of
 * a scalar of at most 64 bits.  The hash without debug information
 * (jc_spirv_semantic_hash) must survive the same modules. */
#include "key/spirv.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint32_t n = data[0] % 8, ids[8], sizes[8];
	data++, size--;
	if (size < 4 * (size_t)n)
		return 0;
	memcpy(ids, data, 4 * (size_t)n);
	data += 4 * (size_t)n, size -= 4 * (size_t)n;
	uint8_t *module = malloc(size ? size : 1);
	memcpy(module, data, size);
	if (jc_spirv_spec_sizes(module, size, n, ids, sizes) == 0)
		for (uint32_t i = 0; i < n; i++)
			if (sizes[i] < 1 || sizes[i] > 8)
				abort();
	(void)jc_spirv_semantic_hash(module, size);
	free(module);
	return 0;
}
