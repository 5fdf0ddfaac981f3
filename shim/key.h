/*
 * key.h — the fingerprint of one compilation: everything that decides the
 * compiler's output, hashed into a cache key with XXH3-128.
 *
 *   struct jc_fp *fp = jc_fp_begin("ze.module");   // NULL only if out of memory
 *   jc_fp_bytes(fp, "spirv", il, il_size);
 *   jc_fp_str(fp, "flags", build_flags);           // NULL and "" differ
 *   jc_fp_u64(fp, "device.id", props.deviceId);
 *   jc_fp_environment(fp);                         // IGC_*, NEO debug keys, ...
 *   jc_fp_libraries(fp, ze_compiler_libs);         // driver + compiler builds
 *   jc_fp_end(fp, &key);                           // frees fp
 *
 * Every field is hashed with its label and length, so two different
 * requests cannot produce the same byte stream.  The cache format version is
 * part of every key: bumping JC_KEY_VERSION invalidates all entries.
 * All jc_fp_* functions accept a NULL fp and do nothing.
 */
#ifndef JITCACHE_KEY_H
#define JITCACHE_KEY_H

#include <stddef.h>
#include <stdint.h>

#include "cache/cache.h"

#define JC_KEY_VERSION 1

struct jc_fp;

struct jc_fp *jc_fp_begin(const char *api);
void jc_fp_bytes(struct jc_fp *fp, const char *label, const void *data, size_t size);
void jc_fp_str(struct jc_fp *fp, const char *label, const char *s);
void jc_fp_u64(struct jc_fp *fp, const char *label, uint64_t value);
void jc_fp_end(struct jc_fp *fp, struct jc_key *out);

/* The environment variables that change what GPU compilers produce: IGC_*,
 * NEO's debug keys (when NEOReadDebugKeys is set, every CamelCase variable),
 * POCL_* (except cache/debug switches) and CUDA_/__NV JIT switches.  Sorted,
 * so the order of the environment does not matter. */
void jc_fp_environment(struct jc_fp *fp);

/* The identity of driver and compiler libraries, given by file name
 * ("libigc.so.1").  A library is found where the process has it loaded,
 * else in the directory of the first library of the list that is loaded (a
 * driver loads its compiler only on first use; the key must not depend on
 * whether it has yet).  Its identity is its GNU build-id, or size + mtime +
 * inode when it has none; one found nowhere is hashed as absent.  Memoized
 * per process and per list. */
void jc_fp_libraries(struct jc_fp *fp, const char *const *names);

#endif
