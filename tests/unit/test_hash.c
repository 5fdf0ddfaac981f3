// SPDX-License-Identifier: MIT
/*
 * test_hash — store/hash.c gives xxhash.h's XXH3 values whichever vector
 * code computes them: the dispatched functions and, where the CPU has
 * AVX2, the AVX2 code itself, against XXH3 as xxhash.h builds it, for
 * every size up to 1 KB (XXH3 has separate paths up to 16, 128 and 240
 * bytes, and per stripe and block after that) and a few large ones, fed
 * whole and in pieces.  Inputs are allocated at their exact size, so that
 * AddressSanitizer catches a read past the end.
 */
#include <stdlib.h>
#include <string.h>

#include "store/hash.h"
#include "tests/unit/cache_util.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

static unsigned char *input(size_t size, unsigned seed)
{
	unsigned char *p = malloc(size ? size : 1);
	fill(p, size, seed);
	return p;
}

/* XXH3-128 of p fed in pieces of 1, 2, 3, ... bytes through update. */
static XXH128_hash_t pieces(const unsigned char *p, size_t size,
			    void (*update)(void *, const void *, size_t))
{
	XXH3_state_t *s = XXH3_createState();
	XXH3_128bits_reset(s);
	for (size_t at = 0, n = 1; at < size; at += n, n = n % 997 + 1)
		update(s, p + at, n < size - at ? n : size - at);
	XXH128_hash_t h = XXH3_128bits_digest(s);
	XXH3_freeState(s);
	return h;
}

static void reference_update(void *s, const void *p, size_t n)
{
	XXH3_128bits_update(s, p, n);
}

static int same_for(size_t size, int avx2)
{
	unsigned char *p = input(size, (unsigned)size);
	uint64_t seed = size * 31 + 7, want = XXH3_64bits_withSeed(p, size, seed);
	int ok = jc_hash64(p, size, seed) == want &&
		 (!avx2 || jc_hash64_avx2(p, size, seed) == want);
	XXH128_hash_t w = pieces(p, size, reference_update);
	ok = ok && XXH128_isEqual(pieces(p, size, jc_hash128_update), w);
	ok = ok && (!avx2 || XXH128_isEqual(pieces(p, size, jc_hash128_update_avx2), w));
	free(p);
	return ok;
}

int main(void)
{
	int avx2 = jc_hash_avx2();
#if defined(__x86_64__)
	__builtin_cpu_init();
	CHECK(avx2 == (__builtin_cpu_supports("avx2") != 0),
	      "the AVX2 code is used exactly when the CPU has AVX2 (here: %s)",
	      avx2 ? "yes" : "no");
#else
	CHECK(avx2 == 0, "no AVX2 code off x86-64");
#endif
	int small = 1;
	for (size_t size = 0; size <= 1024; size++)
		small = small && same_for(size, avx2);
	CHECK(small, "XXH3-64 and streamed XXH3-128 agree with xxhash.h for 0..1024 bytes%s",
	      avx2 ? " (dispatched and AVX2)" : "");
	static const size_t large[] = { 4096 + 7, 65536, (1u << 20) + 13, 3u << 20 };
	for (unsigned i = 0; i < sizeof large / sizeof *large; i++)
		CHECK(same_for(large[i], avx2), "... and for %zu bytes", large[i]);
	return check_summary();
}
