// SPDX-License-Identifier: MIT
/*
 * cl_api.h — the OpenCL functions jitcache calls, and the shared pieces of
 * the OpenCL path (shim/cl*.c).
 *
 * jitcache interposes the ICD loader's exports (libOpenCL.so.1) and calls
 * the loader's own functions, found in a table filled from
 * dlsym(RTLD_NEXT), from libOpenCL.so.1 where it is loaded only locally
 * (Python extension modules, dlopen'ed runtimes), or from the object that
 * called the entry point and its dependencies (a loader a wheel vendors
 * under another name).  The table is filled lazily and retried until
 * found, because libOpenCL may be loaded after jitcache starts.
 *
 *   const struct jc_cl_real *cl = jc_cl_entry();  // in an exported entry point
 *   if (!cl) return CL_INVALID_OPERATION;         // NULL: no loader found
 *   cl->real_clBuildProgram(...);    // never the export clBuildProgram
 *
 * Everywhere else (called once an entry point found the table) jc_cl_real().
 *
 * The files:
 *   cl_real.c         this table, the dlsym door for cl* names, helpers
 *   cl.c              program creation and builds: the cache question
 *   cl_link.c         separate compile and link, cached as a pair
 *   cl_build.h        what cl.c and cl_link.c share
 *   cl_handles.c      entry points that take a program: the handle map's users
 *   cl_program_map.c  application handle -> what jitcache knows of it
 *   cl_device.c       a device as the key sees it, asked of the driver
 *   cl_payload.c      the bytes of one cache entry
 *   cl_pocl.c         PoCL's work-group code added to its entries (cl_pocl.h)
 *   cl_pocl_binary.c  PoCL's binary format and program directory
 * The program's input and the build's key are key/cl_request.h's.
 */
#ifndef JITCACHE_CL_API_H
#define JITCACHE_CL_API_H

#define CL_TARGET_OPENCL_VERSION 300
/* jitcache wraps entry points that newer headers mark deprecated. */
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_2_2_APIS
#include <CL/cl.h>

/* Intel's device queries (cl_ext_intel.h names them only in newer headers). */
#define JC_CL_DEVICE_IP_VERSION_INTEL 0x4250
#define JC_CL_DEVICE_ID_INTEL 0x4251

typedef void(CL_CALLBACK *jc_cl_notify_fn)(cl_program, void *);

/* X(name, return type, parameters, required): `required` functions must be
 * present for jitcache to do anything; the others are OpenCL 2.x additions
 * that an older loader may lack. */
#define JC_CL_FUNCTIONS(X)                                                        \
	X(clCreateProgramWithSource, cl_program,                                  \
	  (cl_context, cl_uint, const char **, const size_t *, cl_int *), 1)      \
	X(clCreateProgramWithBinary, cl_program,                                  \
	  (cl_context, cl_uint, const cl_device_id *, const size_t *,             \
	   const unsigned char **, cl_int *, cl_int *), 1)                        \
	X(clBuildProgram, cl_int,                                                 \
	  (cl_program, cl_uint, const cl_device_id *, const char *,              \
	   jc_cl_notify_fn, void *), 1)                                           \
	X(clCompileProgram, cl_int,                                               \
	  (cl_program, cl_uint, const cl_device_id *, const char *, cl_uint,     \
	   const cl_program *, const char **, jc_cl_notify_fn, void *), 1)        \
	X(clLinkProgram, cl_program,                                              \
	  (cl_context, cl_uint, const cl_device_id *, const char *, cl_uint,     \
	   const cl_program *, jc_cl_notify_fn, void *, cl_int *), 1)             \
	X(clRetainProgram, cl_int, (cl_program), 1)                               \
	X(clReleaseProgram, cl_int, (cl_program), 1)                              \
	X(clGetProgramInfo, cl_int,                                               \
	  (cl_program, cl_program_info, size_t, void *, size_t *), 1)             \
	X(clGetProgramBuildInfo, cl_int,                                          \
	  (cl_program, cl_device_id, cl_program_build_info, size_t, void *,      \
	   size_t *), 1)                                                          \
	X(clCreateKernel, cl_kernel, (cl_program, const char *, cl_int *), 1)     \
	X(clCreateKernelsInProgram, cl_int,                                       \
	  (cl_program, cl_uint, cl_kernel *, cl_uint *), 1)                       \
	X(clGetKernelInfo, cl_int,                                                \
	  (cl_kernel, cl_kernel_info, size_t, void *, size_t *), 1)               \
	X(clRetainKernel, cl_int, (cl_kernel), 1)                                 \
	X(clReleaseKernel, cl_int, (cl_kernel), 1)                                \
	X(clGetContextInfo, cl_int,                                               \
	  (cl_context, cl_context_info, size_t, void *, size_t *), 1)             \
	X(clGetDeviceInfo, cl_int,                                                \
	  (cl_device_id, cl_device_info, size_t, void *, size_t *), 1)            \
	X(clGetPlatformInfo, cl_int,                                              \
	  (cl_platform_id, cl_platform_info, size_t, void *, size_t *), 1)        \
	X(clGetExtensionFunctionAddress, void *, (const char *), 1)               \
	X(clGetExtensionFunctionAddressForPlatform, void *,                      \
	  (cl_platform_id, const char *), 1)                                      \
	X(clCreateProgramWithIL, cl_program,                                      \
	  (cl_context, const void *, size_t, cl_int *), 0)                        \
	X(clSetProgramSpecializationConstant, cl_int,                             \
	  (cl_program, cl_uint, size_t, const void *), 0)                         \
	X(clCloneKernel, cl_kernel, (cl_kernel, cl_int *), 0)

struct jc_cl_real {
#define X(name, ret, params, required) ret(CL_API_CALL *real_##name) params;
	JC_CL_FUNCTIONS(X)
#undef X
};

/* The loader's functions, or NULL while a required one is not found.
 * `caller` is an address in the application's object that called jitcache
 * (NULL: unknown); its dependencies are searched last. */
const struct jc_cl_real *jc_cl_real_for(const void *caller);
const struct jc_cl_real *jc_cl_real(void);

/* For exported entry points only: the table, looked up also beside the
 * entry point's caller (its return address). */
#define jc_cl_entry() jc_cl_real_for(__builtin_return_address(0))

/* Fill the table's missing entries from the library containing `symbol`
 * (an address inside a loader the application looked up with dlsym). */
void jc_cl_real_from(const void *symbol);

/* The one way the OpenCL path answers clGet*Info: copy `size` bytes of
 * `src` following the API's rules on param_value_size and the returned size. */
cl_int jc_cl_answer(const void *src, size_t size, size_t value_size, void *value,
		    size_t *size_ret);

/* Called around the application's callbacks: the application's own calls
 * from inside them must be treated as calls from the application. */
void jc_cl_call_notify(jc_cl_notify_fn fn, cl_program program, void *user_data);

#endif
