// SPDX-License-Identifier: MIT
/*
 * cl_threads — builds OpenCL programs from source on many threads at once:
 * thread i builds program i % PROGRAMS (each a different source) on one
 * shared context, then creates its kernel.
 *
 *   cl_threads [--platform NAME] [--threads N] [--programs P] [--binary]
 *
 * --binary: each program is first built once from source, and the threads
 * create theirs with clCreateProgramWithBinary from its binary (what a
 * cache outside the driver does on a hit), without jitcache's help.
 * Prints "threads=N ok=K" and exits 0 only if every thread's build and
 * kernel creation succeeded.
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cl_context context;
static cl_device_id device;
static int programs = 3;
static unsigned char *binaries[64];
static size_t binary_sizes[64];

static void source_of(int i, char *src, size_t size)
{
	snprintf(src, size, "kernel void k%d(global float *a) { a[get_global_id(0)] *= %d.5f; }\n",
		 i % programs, i % programs + 1);
}

/* binaries[j]: program j built from source once. */
static int make_binaries(void)
{
	for (int j = 0; j < programs; j++) {
		char src[256];
		source_of(j, src, sizeof src);
		const char *s = src;
		cl_int err;
		cl_program p = clCreateProgramWithSource(context, 1, &s, NULL, &err);
		if (!p || clBuildProgram(p, 1, &device, "", NULL, NULL) != CL_SUCCESS)
			return -1;
		clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(size_t), &binary_sizes[j], NULL);
		binaries[j] = malloc(binary_sizes[j]);
		clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(unsigned char *), &binaries[j], NULL);
		clReleaseProgram(p);
	}
	return 0;
}

static void *build_one(void *arg)
{
	int i = (int)(long)arg;
	char src[256];
	source_of(i, src, sizeof src);
	const char *s = src;
	cl_int err;
	int j = i % programs;
	const unsigned char *bin = binaries[j];
	cl_program p = bin ? clCreateProgramWithBinary(context, 1, &device, &binary_sizes[j], &bin,
						       NULL, &err)
				   : clCreateProgramWithSource(context, 1, &s, NULL, &err);
	if (!p)
		return (void *)1;
	err = clBuildProgram(p, 1, &device, "", NULL, NULL);
	if (err != CL_SUCCESS) {
		fprintf(stderr, "thread %d: clBuildProgram %d\n", i, err);
		clReleaseProgram(p);
		return (void *)1;
	}
	char name[16];
	snprintf(name, sizeof name, "k%d", i % programs);
	cl_kernel k = clCreateKernel(p, name, &err);
	if (!k) {
		fprintf(stderr, "thread %d: clCreateKernel %d\n", i, err);
		clReleaseProgram(p);
		return (void *)1;
	}
	clReleaseKernel(k);
	clReleaseProgram(p);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *want = NULL;
	int threads = 8, binary = 0;
	for (int i = 1; i < argc; i += 2) {
		if (strcmp(argv[i], "--binary") == 0)
			binary = 1, i--;
		else if (i + 1 >= argc)
			return fprintf(stderr, "cl_threads: %s needs a value\n", argv[i]), 2;
		else if (strcmp(argv[i], "--platform") == 0)
			want = argv[i + 1];
		else if (strcmp(argv[i], "--threads") == 0)
			threads = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--programs") == 0)
			programs = atoi(argv[i + 1]);
	}
	if (threads < 1 || threads > 256 || programs < 1 || programs > 64)
		return fprintf(stderr, "cl_threads: bad arguments\n"), 2;
	cl_platform_id platforms[16];
	cl_uint n = 0;
	clGetPlatformIDs(16, platforms, &n);
	cl_platform_id platform = NULL;
	for (cl_uint i = 0; i < n && !platform; i++) {
		char name[256] = "";
		clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
		if (!want || strstr(name, want))
			platform = platforms[i];
	}
	if (!platform || clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL) != CL_SUCCESS)
		return fprintf(stderr, "cl_threads: no device\n"), 2;
	cl_int err;
	context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
	if (!context)
		return fprintf(stderr, "cl_threads: clCreateContext %d\n", err), 2;
	if (binary && make_binaries() != 0)
		return fprintf(stderr, "cl_threads: building the binaries failed\n"), 1;
	pthread_t t[256];
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, build_one, (void *)(long)i);
	int ok = 0;
	for (int i = 0; i < threads; i++) {
		void *r;
		pthread_join(t[i], &r);
		ok += r == NULL;
	}
	printf("threads=%d ok=%d\n", threads, ok);
	clReleaseContext(context);
	return ok == threads ? 0 : 1;
}
