// SPDX-License-Identifier: MIT
/*
 * cl_unload — a program that loads its OpenCL stack itself, builds, and
 * unloads it again, twice (a runtime that reloads its GPU stack): it
 * dlopen()s libOpenCL.so.1, looks every function up on the handle (the
 * dlsym door), builds one kernel on the first CPU or GPU device, releases
 * everything and dlclose()s the loader.  Not linked to OpenCL.
 *   cl_unload
 * Prints per round "round N: build R" and "round N: libOpenCL.so
 * mapped|unmapped" (whether /proc/self/maps still lists the loader after
 * dlclose).  Exit status 0 if every build succeeded.
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

typedef cl_int (*get_platforms_t)(cl_uint, cl_platform_id *, cl_uint *);
typedef cl_int (*get_devices_t)(cl_platform_id, cl_device_type, cl_uint, cl_device_id *,
				cl_uint *);
typedef cl_context (*create_context_t)(const cl_context_properties *, cl_uint,
				       const cl_device_id *, void *, void *, cl_int *);
typedef cl_program (*with_source_t)(cl_context, cl_uint, const char **, const size_t *,
				    cl_int *);
typedef cl_int (*build_t)(cl_program, cl_uint, const cl_device_id *, const char *, void *,
			  void *);
typedef cl_int (*release_program_t)(cl_program);
typedef cl_int (*release_context_t)(cl_context);

static int mapped(const char *name)
{
	char line[4096];
	int found = 0;
	FILE *maps = fopen("/proc/self/maps", "r");
	while (maps && fgets(line, sizeof line, maps))
		found |= strstr(line, name) != NULL;
	if (maps)
		fclose(maps);
	return found;
}

static int round_trip(int n)
{
	void *lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return fprintf(stderr, "%s\n", dlerror()), 1;
#define FIND(type, name) type name = (type)dlsym(lib, #name)
	FIND(get_platforms_t, clGetPlatformIDs);
	FIND(get_devices_t, clGetDeviceIDs);
	FIND(create_context_t, clCreateContext);
	FIND(with_source_t, clCreateProgramWithSource);
	FIND(build_t, clBuildProgram);
	FIND(release_program_t, clReleaseProgram);
	FIND(release_context_t, clReleaseContext);
#undef FIND
	cl_platform_id p[8];
	cl_uint np = 0;
	cl_device_id d = NULL;
	cl_int err = CL_DEVICE_NOT_FOUND;
	if (clGetPlatformIDs(8, p, &np) != CL_SUCCESS)
		np = 0;
	for (cl_uint i = 0; i < np && err != CL_SUCCESS; i++)
		err = clGetDeviceIDs(p[i], CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU, 1, &d, NULL);
	cl_context c = err == CL_SUCCESS ? clCreateContext(NULL, 1, &d, NULL, NULL, &err) : NULL;
	const char *src = "kernel void k(global int *x) { x[get_global_id(0)] = 7; }";
	cl_program prog = c ? clCreateProgramWithSource(c, 1, &src, NULL, &err) : NULL;
	if (prog)
		err = clBuildProgram(prog, 1, &d, "", NULL, NULL);
	printf("round %d: build %d\n", n, (int)err);
	if (prog)
		clReleaseProgram(prog);
	if (c)
		clReleaseContext(c);
	dlclose(lib);
	printf("round %d: libOpenCL.so %s\n", n, mapped("libOpenCL.so") ? "mapped" : "unmapped");
	return err != CL_SUCCESS;
}

int main(void)
{
	int bad = 0;
	for (int n = 1; n <= 2; n++)
		bad |= round_trip(n);
	return bad;
}
