// SPDX-License-Identifier: MIT
/* XXH3 compiled for AVX2 (see hash.h): only called when the CPU has it. */
#include "store/hash.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* This file alone is compiled for AVX2, whatever the build's flags. */
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC target("avx2")
#endif
#include <immintrin.h> /* xxhash.h includes it only when built with -mavx2 */
#define XXH_VECTOR XXH_AVX2
#define XXH_INLINE_ALL
#include <xxhash.h>

uint64_t jc_hash64_avx2(const void *data, size_t size, uint64_t seed)
{
	return XXH3_64bits_withSeed(data, size, seed);
}

void jc_hash128_update_avx2(void *state, const void *data, size_t size)
{
	XXH3_128bits_update(state, data, size);
}
#if defined(__clang__)
#pragma clang attribute pop
#endif

#else /* no AVX2 here: jc_hash_avx2() is 0 and these are never called */
uint64_t jc_hash64_avx2(const void *data, size_t size, uint64_t seed)
{
	(void)data, (void)size, (void)seed;
	return 0;
}

void jc_hash128_update_avx2(void *state, const void *data, size_t size)
{
	(void)state, (void)data, (void)size;
}
#endif
