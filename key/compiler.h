// SPDX-License-Identifier: MIT
/*
 * compiler.h — what identifies the compiler of a request, beyond its input:
 * the builds of the driver and compiler libraries, and the environment
 * variables those compilers read.
 *
 *   static const char *const libs[] = { "libigc.so.1", "libze_intel_gpu.so.1", NULL };
 *   jc_fp_libraries(fp, libs);   // memoized per process and per list
 *   jc_fp_environment(fp);       // this process's environ
 *
 * jc_fp_libraries(): each library, given by file name, is identified by its
 * GNU build-id, read from its image in memory when the process has it
 * loaded (dl_iterate_phdr, as Mesa does), else from its file, found in the
 * directory of the first library of the list that is loaded: a driver
 * dlopens its compiler on first use (NEO loads IGC lazily for OpenCL), and
 * the key must not depend on whether it has yet.  Both ways give the same
 * bytes.  A library without a build-id is identified by its file's size,
 * mtime and inode; one found nowhere is hashed as absent.  The list is
 * identified by its address: pass a static array.
 *
 * jc_fp_environment(): the variables that change what a compiler emits,
 * sorted, so that the order of the environment does not matter:
 *   - IGC_* (except its dump switch), POCL_* (except its cache and debug
 *     switches), CUDA_* and __NV* JIT switches (except CUDA_CACHE_*);
 *   - the Intel driver's own: NEO_FP64_EMULATION, ZET_ENABLE_PROGRAM_DEBUGGING,
 *     ZET_ENABLE_PROGRAM_INSTRUMENTATION, ONEAPI_PVC_SEND_WAR_WA, CM_FE_DIR;
 *   - NEO's debug keys (CamelCase, bare or after NEO_, NEO_L0_, NEO_OCL_,
 *     NEO_OCLOC_): OverrideDefaultFP64Settings always (release builds read
 *     it), every other one when NEOReadDebugKeys is set, except those that
 *     simulate a GPU or set the identity it reports (which the key hashes as
 *     the driver reports it) and those that only log: see simulation_keys in
 *     compiler.c.
 * jc_fp_environment_of() does the same for a given NULL-terminated array
 * (for tests).  Both accept a NULL fp.
 */
#ifndef JITCACHE_KEY_COMPILER_H
#define JITCACHE_KEY_COMPILER_H

#include "key/fingerprint.h"

void jc_fp_libraries(struct jc_fp *fp, const char *const *names);
void jc_fp_environment(struct jc_fp *fp);
void jc_fp_environment_of(struct jc_fp *fp, const char *const *env);

/* The stepping Intel's driver is told to simulate (its debug key
 * OverrideRevision, in any of NEO's forms, read only with NEOReadDebugKeys
 * as the driver reads it) into fp as "device.revision", or NULL.  For a
 * device whose driver reports no IP version (Debian 12's 22.43): there the
 * stepping is visible nowhere else, and IGC's code depends on it (measured:
 * DG2 revisions 0, 4 and 8 give three binaries).  The other simulation keys
 * stay out of the key: the identity they set is the one the driver reports. */
void jc_fp_neo_revision_override(struct jc_fp *fp);

#endif
