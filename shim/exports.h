// SPDX-License-Identifier: MIT
/*
 * exports.h — the one list of what libjitcache.so exports: the API entry
 * points it interposes, each defined in shim/ with JC_EXPORT (shim.h).  The
 * dl and exec ones are the preloaded library's own; each ze and cl one is
 * there a trampoline to the core's wrapper of that name (shim/preload.h),
 * whose table (shim/core.c) comes from this list too.
 *
 * From this list come the linker's version script (mk/build.mk makes
 * build/exports.map from it with the C preprocessor, so that nothing else
 * leaves the library), the preloaded library's trampolines and slots
 * (shim/preload.c) and the dlsym door's table of OpenCL wrappers
 * (shim/cl/cl_door.c).  tests/integration/exports.sh checks the built library
 * and the JC_EXPORT definitions against it.
 *
 *   X(api, name)    api: dl (the preloaded library's own: dlsym itself, and
 *                   jitcache_preloaded, which finds the one jitcache that
 *                   works in a process: shim/preload.c), ze (Level Zero),
 *                   cl (OpenCL, returning cl_int), clp (OpenCL,
 *                   returning a pointer: a program, a kernel, a function),
 *                   exec (the exec functions, shim/exec.c)
 *
 * cl or clp decides what an export answers when neither the core nor a
 * driver has it (shim/preload.c): CL_INVALID_OPERATION or NULL.  A wrong
 * tag does not build: shim/cl/cl_door.c checks each against the function's
 * type in <CL/cl.h>.
 */
#ifndef JITCACHE_EXPORTS_H
#define JITCACHE_EXPORTS_H

#define JC_EXPORTS(X)                                                             \
	X(dl, dlsym)                                                              \
	X(dl, jitcache_preloaded)                                                 \
	X(ze, zeModuleCreate)                                                     \
	X(ze, zeGetModuleProcAddrTable)                                           \
	X(clp, clCreateProgramWithSource)                                         \
	X(clp, clCreateProgramWithIL)                                             \
	X(cl, clBuildProgram)                                                     \
	X(cl, clCompileProgram)                                                   \
	X(clp, clLinkProgram)                                                     \
	X(clp, clGetExtensionFunctionAddress)                                     \
	X(clp, clGetExtensionFunctionAddressForPlatform)                          \
	X(clp, clCreateKernel)                                                    \
	X(cl, clCreateKernelsInProgram)                                           \
	X(clp, clCreateProgramWithBinary)                                         \
	X(cl, clGetProgramInfo)                                                   \
	X(cl, clGetProgramBuildInfo)                                              \
	X(cl, clRetainProgram)                                                    \
	X(cl, clReleaseProgram)                                                   \
	X(cl, clGetKernelInfo)                                                    \
	X(cl, clRetainKernel)                                                     \
	X(cl, clReleaseKernel)                                                    \
	X(clp, clCloneKernel)                                                     \
	X(cl, clSetProgramSpecializationConstant)                                 \
	X(exec, execve)                                                           \
	X(exec, execv)                                                            \
	X(exec, execvp)                                                           \
	X(exec, execvpe)                                                          \
	X(exec, execl)                                                            \
	X(exec, execlp)                                                           \
	X(exec, execle)                                                           \
	X(exec, fexecve)                                                          \
	X(exec, execveat)

#endif
