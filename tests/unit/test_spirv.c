// SPDX-License-Identifier: MIT
/*
 * test_spirv — the SPIR-V scan that sizes specialization constants
 * (key/spirv.c).  Every module is copied into a buffer of
 * exactly its size, so that AddressSanitizer catches any read past it.
 */
#include <stdlib.h>
#include <string.h>

#include "key/spirv.h"
#include "tests/helpers/ze_spec_module.h"
#include "tests/unit/check.h"

static uint32_t module[128];
static size_t words;

/* jc_spirv_spec_sizes on a private copy of the first `bytes` bytes of m. */
static int sizes_of(const void *m, size_t bytes, uint32_t n, const uint32_t *ids, uint32_t *sizes)
{
	void *copy = malloc(bytes ? bytes : 1);
	memcpy(copy, m, bytes);
	int r = jc_spirv_spec_sizes(copy, bytes, n, ids, sizes);
	free(copy);
	return r;
}

static void test_sizes(void)
{
	const uint32_t ids[] = { 9, 7, 8, 7 };
	uint32_t sizes[4];
	CHECK(sizes_of(module, 4 * words, 4, ids, sizes) == 0, "the spec module scans");
	CHECK(sizes[0] == 8 && sizes[1] == 4 && sizes[2] == 1 && sizes[3] == 4,
	      "ulong 8, uint 4, bool 1, a repeated id again 4 (%u %u %u %u)",
	      sizes[0], sizes[1], sizes[2], sizes[3]);
	const uint32_t unknown[] = { 7, 42 };
	CHECK(sizes_of(module, 4 * words, 2, unknown, sizes) == -1, "an undeclared SpecId fails");
	CHECK(sizes_of(module, 4 * words, 0, NULL, NULL) == 0, "no constants: fine");
}

static void test_byte_order(void)
{
	uint32_t swapped[128];
	for (size_t i = 0; i < words; i++)
		swapped[i] = __builtin_bswap32(module[i]);
	const uint32_t ids[] = { 7, 8, 9 };
	uint32_t sizes[3] = { 0 };
	CHECK(sizes_of(swapped, 4 * words, 3, ids, sizes) == 0 && sizes[0] == 4 &&
	      sizes[1] == 1 && sizes[2] == 8, "a big-endian module scans alike");
}

static void test_bad_modules(void)
{
	const uint32_t ids[] = { 7 };
	uint32_t sizes[1];
	CHECK(jc_spirv_spec_sizes(NULL, 100, 1, ids, sizes) == -1, "NULL module");
	CHECK(sizes_of(module, 4 * words - 2, 1, ids, sizes) == -1, "size not a multiple of 4");
	CHECK(sizes_of(module, 16, 1, ids, sizes) == -1, "shorter than the header");
	uint32_t bad[128];
	memcpy(bad, module, 4 * words);
	bad[0] = 0x12345678;
	CHECK(sizes_of(bad, 4 * words, 1, ids, sizes) == -1, "wrong magic");
	memcpy(bad, module, 4 * words);
	bad[5] = SPEC_OP(0, 17); /* the first instruction has no length */
	CHECK(sizes_of(bad, 4 * words, 1, ids, sizes) == -1, "zero word count");
	memcpy(bad, module, 4 * words);
	bad[5] = SPEC_OP(0xffff, 17);
	CHECK(sizes_of(bad, 4 * words, 1, ids, sizes) == -1, "instruction longer than the module");
	CHECK(sizes_of(module, 4 * words, 1u << 30, ids, sizes) == -1,
	      "more constants than the module could declare: refused before reading ids");
	/* Every truncation: fails or succeeds, never reads past the end. */
	int crashed_not = 1;
	for (size_t bytes = 0; bytes <= 4 * words; bytes++) {
		int r = sizes_of(module, bytes, 1, ids, sizes);
		crashed_not &= r == 0 || r == -1;
	}
	CHECK(crashed_not, "every truncation of the module is handled");
}

static void test_odd_types(void)
{
	/* Make the uint 12 bits wide: no byte size, so not cacheable. */
	uint32_t odd[128];
	memcpy(odd, module, 4 * words);
	for (size_t i = 5; i < words; i += odd[i] >> 16)
		if ((odd[i] & 0xffff) == 21 && odd[i + 1] == S_UINT)
			odd[i + 2] = 12;
	const uint32_t ids[] = { 7 };
	uint32_t sizes[1];
	CHECK(sizes_of(odd, 4 * words, 1, ids, sizes) == -1, "a 12-bit integer has no byte size");
}

static void test_random_damage(void)
{
	/* Random words in random places: whatever the result, no stray read
	 * (AddressSanitizer watches the exact-size copies). */
	srand(1);
	const uint32_t ids[] = { 7, 8, 9 };
	uint32_t sizes[3], bad[128];
	int handled = 1;
	for (int round = 0; round < 20000; round++) {
		memcpy(bad, module, 4 * words);
		for (int k = 0; k < 1 + round % 4; k++)
			bad[5 + (size_t)rand() % (words - 5)] = (uint32_t)rand() * 2654435761u;
		int r = sizes_of(bad, 4 * words, 3, ids, sizes);
		handled &= r == 0 || r == -1;
		if (r == 0)
			handled &= sizes[0] && sizes[0] <= 8 && sizes[1] && sizes[2];
	}
	CHECK(handled, "20000 randomly damaged modules are handled");
}

/* The hash without debug information: OpName, OpString, OpLine, OpSource,
 * a NonSemantic set's import and instructions and the id bound change
 * nothing; an instruction that is code does. */
static void test_semantic_hash(void)
{
	/* header; OpCapability Addresses; [debug]; OpTypeInt %2 32 0 */
	uint32_t plain[] = { 0x07230203, 0x00010000, 0, 3, 0, (2u << 16) | 17, 4,
			     (4u << 16) | 21, 2, 32, 0 };
	uint32_t debug[] = { 0x07230203, 0x00010000, 0, 9, 0, (2u << 16) | 17, 4,
			     (4u << 16) | 7, 5, 0x61, 0x62,              /* OpString %5 "a" */
			     (3u << 16) | 3, 3, 200,                   /* OpSource OpenCL_C 200 */
			     (3u << 16) | 5, 2, 0x746e69,              /* OpName %2 "int" */
			     (6u << 16) | 11, 6, 0x536e6f4e, 0x6e616d65, 0x2e636974, 0,/* OpExtInstImport %6 "NonSemantic." */
			     (5u << 16) | 12, 7, 8, 6, 1,              /* OpExtInst %7 = %6 1 */
			     (4u << 16) | 8, 5, 10, 1,                 /* OpLine %5 10 1 */
			     (4u << 16) | 21, 2, 32, 0 };
	uint32_t other[] = { 0x07230203, 0x00010000, 0, 3, 0, (2u << 16) | 17, 4,
			     (4u << 16) | 21, 2, 64, 0 };
	uint64_t a = jc_spirv_semantic_hash(plain, sizeof plain);
	CHECK(a != 0, "semantic hash of a module");
	CHECK(jc_spirv_semantic_hash(debug, sizeof debug) == a,
	      "debug instructions and the id bound change nothing");
	CHECK(jc_spirv_semantic_hash(other, sizeof other) != a, "another type: another hash");
	CHECK(jc_spirv_semantic_hash("not spirv", 9) == 0, "not SPIR-V: 0");
}

int main(void)
{
	words = spec_module(module);
	test_sizes();
	test_byte_order();
	test_bad_modules();
	test_odd_types();
	test_semantic_hash();
	test_random_damage();
	return check_summary();
}
