// SPDX-License-Identifier: MIT
/*
 * ze_spec_spirv OUT.spv — writes the SPIR-V kernel of ze_spec_module.h, which
 * has specialization constants 7 (uint), 8 (bool) and 9 (ulong).
 */
#include <stdio.h>

#include "ze_spec_module.h"

int main(int argc, char **argv)
{
	uint32_t words[128];
	size_t n = spec_module(words);
	FILE *f = argc == 2 ? fopen(argv[1], "wb") : NULL;
	if (!f || fwrite(words, sizeof *words, n, f) != n || fclose(f) != 0) {
		fprintf(stderr, "usage: ze_spec_spirv OUT.spv\n");
		return 1;
	}
	return 0;
}
