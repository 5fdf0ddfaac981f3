// SPDX-License-Identifier: MIT
/*
 * ze_spec_module.h — a hand-assembled SPIR-V kernel with specialization
 * constants, which OpenCL C cannot declare:
 *
 *   kernel spec_kernel(global uint *out, global ulong *out64)
 *     out[0] = SpecId 7 (uint, default 5); out[1] = SpecId 8 (bool, default
 *     true) ? 1 : 0; out64[0] = SpecId 9 (ulong, default 9)
 *
 * Used by ze_spec_spirv (writes it to a file for the integration tests) and
 * by the unit test of key/spirv.c.
 */
#ifndef JITCACHE_TEST_ZE_SPEC_MODULE_H
#define JITCACHE_TEST_ZE_SPEC_MODULE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define SPEC_OP(length, opcode) (((uint32_t)(length) << 16) | (opcode))

/* Ids of the module. */
enum {
	S_VOID = 1, S_BOOL, S_UINT, S_ULONG, S_PUINT, S_PULONG, S_FNTYPE,
	S_SC7, S_SC8, S_SC9, S_C0, S_C1, S_FN, S_OUT, S_OUT64, S_LABEL, S_SEL, S_P1,
	S_BOUND
};

/* Writes the module to words (room for 128) and returns its word count. */
static size_t spec_module(uint32_t *words)
{
	static const uint32_t module[] = {
		0x07230203, 0x00010000, 0, S_BOUND, 0,
		SPEC_OP(2, 17), 4,             /* OpCapability Addresses */
		SPEC_OP(2, 17), 6,             /* OpCapability Kernel */
		SPEC_OP(2, 17), 11,            /* OpCapability Int64 */
		SPEC_OP(3, 14), 2, 2,          /* OpMemoryModel Physical64 OpenCL */
		SPEC_OP(6, 15), 6, S_FN,       /* OpEntryPoint Kernel "spec_kernel" */
		0x63657073, 0x72656b5f, 0x006c656e,
		SPEC_OP(4, 71), S_SC7, 1, 7,   /* OpDecorate SpecId */
		SPEC_OP(4, 71), S_SC8, 1, 8,
		SPEC_OP(4, 71), S_SC9, 1, 9,
		SPEC_OP(2, 19), S_VOID,        /* OpTypeVoid */
		SPEC_OP(2, 20), S_BOOL,        /* OpTypeBool */
		SPEC_OP(4, 21), S_UINT, 32, 0, /* OpTypeInt */
		SPEC_OP(4, 21), S_ULONG, 64, 0,
		SPEC_OP(4, 32), S_PUINT, 5, S_UINT, /* OpTypePointer CrossWorkgroup */
		SPEC_OP(4, 32), S_PULONG, 5, S_ULONG,
		SPEC_OP(5, 33), S_FNTYPE, S_VOID, S_PUINT, S_PULONG, /* OpTypeFunction */
		SPEC_OP(4, 50), S_UINT, S_SC7, 5,       /* OpSpecConstant */
		SPEC_OP(3, 48), S_BOOL, S_SC8,          /* OpSpecConstantTrue */
		SPEC_OP(5, 50), S_ULONG, S_SC9, 9, 0,
		SPEC_OP(4, 43), S_UINT, S_C0, 0,        /* OpConstant */
		SPEC_OP(4, 43), S_UINT, S_C1, 1,
		SPEC_OP(5, 54), S_VOID, S_FN, 0, S_FNTYPE, /* OpFunction */
		SPEC_OP(3, 55), S_PUINT, S_OUT,         /* OpFunctionParameter */
		SPEC_OP(3, 55), S_PULONG, S_OUT64,
		SPEC_OP(2, 248), S_LABEL,               /* OpLabel */
		SPEC_OP(5, 62), S_OUT, S_SC7, 2, 4,     /* OpStore ... Aligned 4 */
		SPEC_OP(6, 169), S_UINT, S_SEL, S_SC8, S_C1, S_C0, /* OpSelect */
		SPEC_OP(5, 70), S_PUINT, S_P1, S_OUT, S_C1, /* OpInBoundsPtrAccessChain */
		SPEC_OP(5, 62), S_P1, S_SEL, 2, 4,
		SPEC_OP(5, 62), S_OUT64, S_SC9, 2, 8,
		SPEC_OP(1, 253),                        /* OpReturn */
		SPEC_OP(1, 56),                         /* OpFunctionEnd */
	};
	memcpy(words, module, sizeof module);
	return sizeof module / sizeof *module;
}

#endif
