// SPDX-License-Identifier: MIT
/* libFuzzer target: decoding a recipe (key/recipe.c) must survive any
 * bytes (a recipe may come from an imported archive or a layer), read only
 * inside them, and hand out only fields that lie inside them or in memory
 * it owns: every byte of every decoded field is read here, under ASan. */
#include "key/recipe.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned touch(const void *p, size_t n)
{
	unsigned sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += ((const uint8_t *)p)[i];
	return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1);
	struct jc_recipe r;
	volatile unsigned sum = 0;
	memcpy(copy, data, size);
	jc_recipe_request_hash(copy, size);
	if (jc_recipe_decode(copy, size, &r) == 0) {
		for (uint32_t i = 0; i < r.ze_count; i++) {
			sum += touch(r.ze[i].spirv, r.ze[i].size);
			if (r.ze[i].flags)
				sum += (unsigned)strlen(r.ze[i].flags);
			for (uint32_t k = 0; k < r.ze[i].n_constants; k++)
				sum += r.ze[i].constant_ids[k] + (r.ze[i].constant_values[k] != NULL);
		}
		sum += touch(r.cl_text, r.cl_size);
		if (r.cl_options)
			sum += (unsigned)strlen(r.cl_options);
		for (size_t k = 0; k < r.cl_n_specs; k++)
			sum += touch(r.cl_specs[k].value, r.cl_specs[k].size);
		for (size_t k = 0; k < r.cl_n_files; k++)
			sum += (unsigned)strlen(r.cl_files[k].path) +
			       touch(r.cl_files[k].data, r.cl_files[k].size);
		sum += (unsigned)strlen(r.device.name);
		jc_recipe_free(&r);
	}
	free(copy);
	return 0;
}
