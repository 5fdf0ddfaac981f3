// SPDX-License-Identifier: MIT
/*
 * cl_payload.h — the bytes jitcache stores for one OpenCL build.
 *
 * Layout (integers in this machine's byte order; the cache is per machine):
 *   u32 magic "JCCL", u32 format version, u32 device count N, u32 status,
 *   N x { u64 binary size, u64 build log size },
 *   the N binaries, then the N build logs, back to back.
 * Devices are in the program's CL_PROGRAM_DEVICES order; a build log is kept
 * exactly as the driver returned it (with its terminating NUL).
 * A build that succeeded is version 1, status 0, every binary non-empty.  A
 * build that failed (a failure record) is version 2: status is the error
 * clBuildProgram returned (CL_BUILD_PROGRAM_FAILURE), every binary empty,
 * the logs the driver's.  A jitcache that reads only version 1 drops it.
 * A build that succeeded with its kernels' attributes recorded is version
 * 3: version 1, then
 *   u32 kernel count K, K x { u64 name size, u64 attributes size },
 *   the K names, then the K attribute strings (each with its NUL),
 * each kernel's CL_KERNEL_ATTRIBUTES as the driver answered after the
 * build: a driver that loses them when it loads a binary (PoCL) is answered
 * from here on a hit.
 *
 *   struct jc_cl_payload p = { .ndev = n, .binaries = b, .binary_sizes = bs,
 *                              .logs = l, .log_sizes = ls };
 *   void *bytes; size_t size;
 *   if (jc_cl_payload_encode(&p, &bytes, &size) == 0) { store; free(bytes); }
 *
 *   if (jc_cl_payload_decode(bytes, size, &p) == 0) { use p; jc_cl_payload_free(&p); }
 *
 * Both return -1 on failure (out of memory; for decode also a payload that
 * is not exactly one well-formed record).  A decoded payload points into
 * `bytes`; jc_cl_payload_free() frees only its arrays.
 */
#ifndef JITCACHE_CL_PAYLOAD_H
#define JITCACHE_CL_PAYLOAD_H

#include <stddef.h>

#include "shim/cl/cl_api.h"

#define JC_CL_PAYLOAD_MAGIC 0x4c43434au /* "JCCL" */
#define JC_CL_PAYLOAD_VERSION 1u
#define JC_CL_PAYLOAD_VERSION_FAILED 2u
#define JC_CL_PAYLOAD_VERSION_KERNELS 3u
#define JC_CL_PAYLOAD_MAX_KERNELS 65536u
#define JC_CL_PAYLOAD_MAX_DEVICES 256u

struct jc_cl_payload {
	cl_uint ndev;
	const unsigned char **binaries;
	size_t *binary_sizes;
	const char **logs;
	size_t *log_sizes;
	cl_int status; /* 0: built; else the failed build's error (no binaries) */
	int kernels_known; /* version 3: the kernels below were recorded */
	cl_uint nkernels;
	const char **kernel_names;
	size_t *name_sizes;
	const char **attributes;
	size_t *attribute_sizes;
};

/* Decode allocates the kernels' arrays too; encode reads them when
 * kernels_known (a payload built without them is version 1). */
int jc_cl_payload_encode(const struct jc_cl_payload *p, void **out, size_t *size);
int jc_cl_payload_decode(const void *bytes, size_t size, struct jc_cl_payload *p);
void jc_cl_payload_free(struct jc_cl_payload *p);

#endif
