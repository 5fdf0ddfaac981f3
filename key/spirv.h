// SPDX-License-Identifier: MIT
/*
 * spirv.h — the one fact jitcache needs from a SPIR-V module: how many bytes
 * each specialization constant's value has.
 *
 * Level Zero passes spec constants as (SpecId, pointer to value) pairs
 * without sizes; the size is that of the SPIR-V type of the OpSpecConstant*
 * decorated with the SpecId (bool: 1, intN/floatN: N / 8).  Hashing the values
 * for the cache key needs it, and reading more would touch memory the
 * application never promised.
 *
 *   uint32_t sizes[n];
 *   if (jc_spirv_spec_sizes(module, module_size, n, ids, sizes) != 0)
 *       ... not cacheable: pass the call through ...
 *
 * Returns 0 with sizes[i] filled for every ids[i], or -1 when the module is
 * not well-formed SPIR-V, or any id is not a scalar spec constant in it.  It
 * reads only inside [module, module + size), whatever the bytes say.
 */
#ifndef JITCACHE_KEY_SPIRV_H
#define JITCACHE_KEY_SPIRV_H

#include <stddef.h>
#include <stdint.h>

int jc_spirv_spec_sizes(const void *module, size_t size, uint32_t count,
			const uint32_t *spec_ids, uint32_t *sizes);

/* A hash of the module without its debug information, for `jitcache
 * explain` only (never in a key): the instructions that change no code are
 * left out (OpSource*, OpName, OpMemberName, OpString, OpLine, OpNoLine,
 * OpModuleProcessed, the imports of the NonSemantic.* and DebugInfo
 * extended instruction sets with every OpExtInst of theirs, and
 * SPV_KHR_non_semantic_info), and so is the header's id bound, which they
 * raise.  Two modules with the same hash and other bytes differ only in
 * debug information.  0 if the bytes are not SPIR-V. */
uint64_t jc_spirv_semantic_hash(const void *module, size_t size);

#endif
