/*
 * cl_binary.h — what of a driver's program binary a hit needs.
 *
 * Intel's OpenCL driver before zebin (NEO 22.x, Debian 12) hands out an ELF
 * of its own (type 0xff04, "OpenCL executable") holding the program's
 * SPIR-V or LLVM IR beside the "Intel(R) OpenCL Device Binary" section, the
 * native code (patch tokens, magic "CTNI").  Its own cache keeps only that
 * section, and clCreateProgramWithBinary takes it alone: it is all a hit
 * needs, half the entry or less.  Without the IR, a device binary the driver
 * cannot use is refused (CL_INVALID_BINARY: a miss, the entry replaced)
 * rather than silently recompiled.  Other binaries (zebin, PoCL's, PTX) are
 * kept whole: the 2026 driver's own cache stores its zebin whole too.
 *
 *   size_t n;
 *   const unsigned char *code = jc_cl_binary_needed(bin, size, &n);
 *   store n bytes of code (a part of bin, or bin itself)
 */
#ifndef JITCACHE_CL_BINARY_H
#define JITCACHE_CL_BINARY_H

#include <stddef.h>

const unsigned char *jc_cl_binary_needed(const unsigned char *bin, size_t size, size_t *needed);

#endif
