// SPDX-License-Identifier: MIT
/*
 * hex.h — bytes as lowercase hexadecimal digits, and back: cache keys in
 * file names, SHA-256 sums and signatures in requests, build-ids in traces.
 *
 *   char name[2 * 16 + 1];
 *   jc_hex(key, 16, name);                     // "3f2a...", NUL-terminated
 *   if (jc_unhex(name, 16, key) != 0) ...      // not 32 hex digits
 *
 * Only lowercase digits are read back: every name jitcache writes is
 * lowercase, and a name in capitals is someone else's file.
 */
#ifndef JITCACHE_HEX_H
#define JITCACHE_HEX_H

#include <stddef.h>

/* n bytes into 2n digits and a NUL (out holds 2n + 1 bytes). */
void jc_hex(const void *bytes, size_t n, char *out);

/* The 2n digits at s into n bytes.  0, or -1 if one of them is not a
 * lowercase hex digit (out then partly written).  What follows the digits
 * is the caller's to check. */
int jc_unhex(const char *s, size_t n, void *out);

#endif
