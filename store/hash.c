// SPDX-License-Identifier: MIT
/* XXH3 with the vector code the CPU runs best (see hash.h). */
#include "store/hash.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

int jc_hash_avx2(void)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	/* The same answer in every thread: a race only computes it twice. */
	static int avx2 = -1;
	int known = __atomic_load_n(&avx2, __ATOMIC_RELAXED);
	if (known < 0) {
		__builtin_cpu_init();
		known = __builtin_cpu_supports("avx2") ? 1 : 0; /* CPU and kernel (XCR0) */
		__atomic_store_n(&avx2, known, __ATOMIC_RELAXED);
	}
	return known;
#else
	return 0;
#endif
}

uint64_t jc_hash64(const void *data, size_t size, uint64_t seed)
{
	if (jc_hash_avx2())
		return jc_hash64_avx2(data, size, seed);
	return XXH3_64bits_withSeed(data, size, seed);
}

void jc_hash128_update(void *state, const void *data, size_t size)
{
	if (jc_hash_avx2())
		jc_hash128_update_avx2(state, data, size);
	else
		XXH3_128bits_update(state, data, size);
}
