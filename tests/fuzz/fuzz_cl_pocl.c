// SPDX-License-Identifier: MIT
/* libFuzzer target: the PoCL binary reader (shim/cl/cl_pocl_binary.c,
 * compiled in) must survive any binary a cache entry may hold, reading only
 * inside it: what it accepts has its program.bc inside the input, and at
 * most as many files as the input has bytes. */
#include "shim/cl/cl_pocl_binary.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1);
	memcpy(copy, data, size);
	struct jc_pocl_binary b;
	if (jc_pocl_parse(copy, size, &b) == 0 &&
	    ((b.program_bc && (b.program_bc < copy ||
			       b.program_bc + b.program_bc_size > copy + size)) ||
	     b.files > size || strlen(b.dir) >= sizeof b.dir))
		abort();
	free(copy);
	return 0;
}
