// SPDX-License-Identifier: MIT
/*
 * fingerprint.h — a cache key built field by field: everything that decides
 * a compiler's output, hashed with XXH3-128.
 *
 *   struct jc_fp *fp = jc_fp_begin("ze.module");   // NULL only if out of memory
 *   jc_fp_bytes(fp, "spirv", il, il_size);
 *   jc_fp_str(fp, "flags", build_flags);           // NULL and "" differ
 *   jc_fp_u64(fp, "device.id", props.deviceId);
 *   jc_fp_environment(fp);                         // key/compiler.h
 *   jc_fp_libraries(fp, ze_compiler_libs);         // key/compiler.h
 *   jc_fp_end(fp, &key);                           // frees fp
 *
 * Every field is hashed with its label and length, so two different
 * requests cannot produce the same byte stream.  The cache format version is
 * part of every key: bumping JC_KEY_VERSION invalidates all entries.
 * All jc_fp_* functions accept a NULL fp and do nothing (jc_fp_end() then
 * writes a zero key); none fails otherwise.
 */
#ifndef JITCACHE_KEY_FINGERPRINT_H
#define JITCACHE_KEY_FINGERPRINT_H

#include <stddef.h>
#include <stdint.h>

#include "cache/cache.h"

#define JC_KEY_VERSION 2

struct jc_fp;

struct jc_fp *jc_fp_begin(const char *api);
void jc_fp_bytes(struct jc_fp *fp, const char *label, const void *data, size_t size);
void jc_fp_str(struct jc_fp *fp, const char *label, const char *s);
void jc_fp_u64(struct jc_fp *fp, const char *label, uint64_t value);
void jc_fp_end(struct jc_fp *fp, struct jc_key *out);
/* A fact for the trace alone (`jitcache explain`), not in the key: e.g. a
 * hash of the input without its debug information. */
void jc_fp_note_u64(struct jc_fp *fp, const char *label, uint64_t value);

/* The trace of a key: every field that went into it, in order, with its
 * label and value (text for strings, numbers and build-ids, a hash and
 * size for other bytes); the fields of the compiler libraries' identity are
 * inlined where the key takes it.  `jitcache explain` compares two traces
 * to name what changed between two requests.  jc_fp_trace_of() gives the
 * trace of the last key made on this thread, if it is key's (else 0). */
#define JC_FP_TRACE_MAX 1920
#define JC_FP_TEXT_MAX 160
enum { JC_FP_TEXT = 1, JC_FP_HASH = 2, JC_FP_NONE = 3 };
size_t jc_fp_trace_of(const struct jc_key *key, const uint8_t **bytes);

#endif
