// SPDX-License-Identifier: MIT
/* libFuzzer target: the OpenCL payload decoder (shim/cl_payload.c, compiled
 * in) must survive any entry, reading only inside it, and accept exactly
 * the payloads its encoder writes: whatever decodes encodes back to the
 * same bytes, and every decoded binary and log lies inside the input. */
#include "shim/cl/cl_payload.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1);
	memcpy(copy, data, size);
	struct jc_cl_payload p;
	if (jc_cl_payload_decode(copy, size, &p) == 0) {
		for (cl_uint i = 0; i < p.ndev; i++)
			if (p.binaries[i] < copy || p.binaries[i] + p.binary_sizes[i] > copy + size ||
			    (const uint8_t *)p.logs[i] < copy ||
			    (const uint8_t *)p.logs[i] + p.log_sizes[i] > copy + size)
				abort();
		void *again;
		size_t again_size;
		if (jc_cl_payload_encode(&p, &again, &again_size) != 0 || again_size != size ||
		    memcmp(again, copy, size) != 0)
			abort();
		free(again);
		jc_cl_payload_free(&p);
	}
	free(copy);
	return 0;
}
