// SPDX-License-Identifier: MIT
/*
 * hash.h — XXH3 at the speed of the CPU it runs on.
 *
 * The same values as xxhash.h's XXH3 functions (XXH3's result does not
 * depend on the vector code that computes it), computed with AVX2 where the
 * CPU and the kernel offer it, and with xxhash.h's default code (SSE2 on
 * x86-64) otherwise.  A hit hashes two large inputs: the request (SPIR-V,
 * for its key) and the entry's payload (for its checksum); on 7.5 MB AVX2
 * takes 0.20 ms where SSE2 takes 0.44 ms (this project's 2-core test VM).
 * xxHash is inlined and static: the library exports none of its symbols.
 */
#ifndef JITCACHE_HASH_H
#define JITCACHE_HASH_H

#include <stddef.h>
#include <stdint.h>

/* XXH3_64bits_withSeed(data, size, seed). */
uint64_t jc_hash64(const void *data, size_t size, uint64_t seed);

/* XXH3_128bits_update(state, data, size) on an XXH3_state_t of a file that
 * includes xxhash.h with XXH_INLINE_ALL (passed as void *: its type is
 * that file's). */
void jc_hash128_update(void *state, const void *data, size_t size);

/* 1 when the AVX2 code is the one used. */
int jc_hash_avx2(void);

/* The AVX2 code itself (hash_avx2.c), for hash.c and the tests: call only
 * when jc_hash_avx2() says 1. */
uint64_t jc_hash64_avx2(const void *data, size_t size, uint64_t seed);
void jc_hash128_update_avx2(void *state, const void *data, size_t size);

#endif
