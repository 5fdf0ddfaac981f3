// SPDX-License-Identifier: MIT
/*
 * cl_answers — everything a program can ask of OpenCL programs it built,
 * printed one answer a line, so that two runs (without jitcache, on a
 * miss, on a hit) can be compared with diff.  A standalone program: it
 * needs only an OpenCL loader and a platform.
 *
 *   cl_answers [--platform NAME] [--device N] [--skip CASE[,CASE]]
 *
 * It builds, on the first device of the first platform whose name contains
 * NAME:
 *   attrs    (and noinfo, without arg info) kernels with reqd_work_group_size, work_group_size_hint,
 *            vec_type_hint, arguments of every address space and several
 *            qualifiers (-cl-kernel-arg-info), and a #warning in the log;
 *   empty    a program with no kernel at all;
 *   globals  program-scope variables (-cl-std=CL2.0; an error is an
 *            answer too);
 *   linked   two sources compiled with clCompileProgram (one with an
 *            embedded header) and linked with clLinkProgram;
 * then prints for each program its build answers (status, options, log,
 * binary type, kernel count and names, global variable size) and for each
 * kernel (in name order) its name, argument count, attributes, each
 * argument's qualifiers, type and name, and its work-group answers.
 * Lines are "PROGRAM.WHAT=VALUE"; a query that fails prints "err:CODE".
 * Exit status 0 if the platform was found.
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char attrs_src[] =
	"#warning cl_answers: a warning in the build log\n"
	"typedef struct { int a; float b; } pair;\n"
	"kernel __attribute__((reqd_work_group_size(8, 1, 1)))\n"
	"void fixed(global float *restrict out, global const float *in, uint n)\n"
	"{ size_t i = get_global_id(0); if (i < n) out[i] = in[i] * 2.0f; }\n"
	"kernel __attribute__((vec_type_hint(float4))) __attribute__((work_group_size_hint(16, 1, 1)))\n"
	"void hinted(global float4 *v, constant float *c, local int *scratch, const pair p)\n"
	"{ scratch[get_local_id(0)] = p.a; barrier(CLK_LOCAL_MEM_FENCE);\n"
	"  v[get_global_id(0)] *= c[0] + (float)scratch[0] + p.b; }\n"
	"kernel void plain(global volatile int *counter, read_only image2d_t img, sampler_t s)\n"
	"{ atomic_inc(counter); (void)read_imagef(img, s, (int2)(0, 0)); }\n";

static const char empty_src[] = "float not_a_kernel(float x) { return x + 1.0f; }\n";

static const char globals_src[] =
	"global int counter = 3;\n"
	"global float table[16] = { 1.0f, 2.0f };\n"
	"kernel void bump(global int *out) { out[0] = counter++ + (int)table[1]; }\n";

static const char linked_a[] =
	"#include \"shared.h\"\n"
	"float twice(float x);\n"
	"kernel __attribute__((reqd_work_group_size(4, 1, 1)))\n"
	"void use_twice(global float *out) { out[get_global_id(0)] = twice(SHARED_VALUE); }\n";
static const char linked_b[] = "float twice(float x) { return 2.0f * x; }\n";
static const char linked_h[] = "#define SHARED_VALUE 21.0f\n";

static cl_device_id dev;

static void put_err(const char *prog, const char *what, cl_int err)
{
	printf("%s.%s=err:%d\n", prog, what, (int)err);
}

/* A string answer; sizes come from the driver. */
typedef cl_int (*info_fn)(void *obj, cl_uint param, size_t size, void *value, size_t *ret);

static cl_int CL_API_CALL build_info(void *p, cl_uint param, size_t size, void *value, size_t *ret)
{
	return clGetProgramBuildInfo(p, dev, param, size, value, ret);
}
static cl_int CL_API_CALL program_info(void *p, cl_uint param, size_t size, void *value, size_t *ret)
{
	return clGetProgramInfo(p, param, size, value, ret);
}
static cl_int CL_API_CALL kernel_info(void *k, cl_uint param, size_t size, void *value, size_t *ret)
{
	return clGetKernelInfo(k, param, size, value, ret);
}

static char *string_of(info_fn fn, void *obj, cl_uint param, cl_int *err)
{
	size_t size = 0;
	char *s = NULL;
	if ((*err = fn(obj, param, 0, NULL, &size)) != CL_SUCCESS)
		return NULL;
	if (!(s = calloc(1, size + 1)))
		exit(3);
	if ((*err = fn(obj, param, size, s, NULL)) != CL_SUCCESS) {
		free(s);
		return NULL;
	}
	return s;
}

static void put_string(const char *prog, const char *what, info_fn fn, void *obj, cl_uint param)
{
	cl_int err;
	char *s = string_of(fn, obj, param, &err);
	if (!s) {
		put_err(prog, what, err);
		return;
	}
	/* multi-line answers (logs) on one line each, with their line breaks shown */
	printf("%s.%s=", prog, what);
	for (const char *c = s; *c; c++)
		if (*c == '\n')
			fputs("\\n", stdout);
		else
			putchar(*c);
	putchar('\n');
	free(s);
}

static void put_number(const char *prog, const char *what, info_fn fn, void *obj, cl_uint param,
		       size_t width)
{
	uint64_t v = 0;
	cl_int err = fn(obj, param, width, &v, NULL);
	if (err != CL_SUCCESS)
		put_err(prog, what, err);
	else
		printf("%s.%s=%llu\n", prog, what, (unsigned long long)v);
}

static int by_name(const void *a, const void *b)
{
	char na[256] = "", nb[256] = "";
	clGetKernelInfo(*(cl_kernel const *)a, CL_KERNEL_FUNCTION_NAME, sizeof na, na, NULL);
	clGetKernelInfo(*(cl_kernel const *)b, CL_KERNEL_FUNCTION_NAME, sizeof nb, nb, NULL);
	return strcmp(na, nb);
}

static void put_args(const char *label, cl_kernel k, cl_uint nargs)
{
	for (cl_uint a = 0; a < nargs; a++) {
		char what[64];
		uint64_t v = 0;
		cl_int err;
		snprintf(what, sizeof what, "arg%u.address", a);
		err = clGetKernelArgInfo(k, a, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof v, &v, NULL);
		err ? put_err(label, what, err) : (void)printf("%s.%s=%#llx\n", label, what, (unsigned long long)v);
		snprintf(what, sizeof what, "arg%u.access", a);
		v = 0;
		err = clGetKernelArgInfo(k, a, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof v, &v, NULL);
		err ? put_err(label, what, err) : (void)printf("%s.%s=%#llx\n", label, what, (unsigned long long)v);
		snprintf(what, sizeof what, "arg%u.type_qualifier", a);
		v = 0;
		err = clGetKernelArgInfo(k, a, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof v, &v, NULL);
		err ? put_err(label, what, err) : (void)printf("%s.%s=%#llx\n", label, what, (unsigned long long)v);
		char s[256] = "";
		snprintf(what, sizeof what, "arg%u.type", a);
		err = clGetKernelArgInfo(k, a, CL_KERNEL_ARG_TYPE_NAME, sizeof s, s, NULL);
		err ? put_err(label, what, err) : (void)printf("%s.%s=%s\n", label, what, s);
		snprintf(what, sizeof what, "arg%u.name", a);
		s[0] = '\0';
		err = clGetKernelArgInfo(k, a, CL_KERNEL_ARG_NAME, sizeof s, s, NULL);
		err ? put_err(label, what, err) : (void)printf("%s.%s=%s\n", label, what, s);
	}
}

static void put_work_group(const char *label, cl_kernel k)
{
	size_t v = 0, three[3] = { 0 };
	cl_ulong mem = 0;
	cl_int err = clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof v, &v, NULL);
	err ? put_err(label, "work_group_size", err) : (void)printf("%s.work_group_size=%zu\n", label, v);
	err = clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof three, three,
				       NULL);
	err ? put_err(label, "compile_work_group_size", err)
	    : (void)printf("%s.compile_work_group_size=%zu,%zu,%zu\n", label, three[0], three[1],
			   three[2]);
	err = clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
				       sizeof v, &v, NULL);
	err ? put_err(label, "preferred_multiple", err)
	    : (void)printf("%s.preferred_multiple=%zu\n", label, v);
	err = clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof mem, &mem, NULL);
	err ? put_err(label, "local_mem", err)
	    : (void)printf("%s.local_mem=%llu\n", label, (unsigned long long)mem);
	err = clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof mem, &mem, NULL);
	err ? put_err(label, "private_mem", err)
	    : (void)printf("%s.private_mem=%llu\n", label, (unsigned long long)mem);
}

static void put_kernels(const char *prog, cl_program p)
{
	cl_uint n = 0;
	cl_int err = clCreateKernelsInProgram(p, 0, NULL, &n);
	printf("%s.kernels_in_program=%s%d/%u\n", prog, err ? "err:" : "", (int)err, n);
	if (err || !n)
		return;
	cl_kernel *k = calloc(n, sizeof *k);
	if (!k || clCreateKernelsInProgram(p, n, k, NULL) != CL_SUCCESS)
		return;
	qsort(k, n, sizeof *k, by_name);
	for (cl_uint i = 0; i < n; i++) {
		char name[128] = "", label[256];
		clGetKernelInfo(k[i], CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL);
		snprintf(label, sizeof label, "%s.kernel.%s", prog, name);
		cl_uint nargs = 0;
		put_number(label, "num_args", kernel_info, k[i], CL_KERNEL_NUM_ARGS, sizeof(cl_uint));
		clGetKernelInfo(k[i], CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL);
		put_string(label, "attributes", kernel_info, k[i], CL_KERNEL_ATTRIBUTES);
		put_args(label, k[i], nargs);
		put_work_group(label, k[i]);
		clReleaseKernel(k[i]);
	}
	free(k);
}

static void put_program(const char *prog, cl_program p, cl_int build_err)
{
	printf("%s.build=%d\n", prog, (int)build_err);
	put_number(prog, "status", build_info, p, CL_PROGRAM_BUILD_STATUS, sizeof(cl_build_status));
	put_string(prog, "options", build_info, p, CL_PROGRAM_BUILD_OPTIONS);
	put_string(prog, "log", build_info, p, CL_PROGRAM_BUILD_LOG);
	put_number(prog, "binary_type", build_info, p, CL_PROGRAM_BINARY_TYPE,
		   sizeof(cl_program_binary_type));
	put_number(prog, "global_variable_total_size", build_info, p,
		   CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE, sizeof(size_t));
	put_number(prog, "num_kernels", program_info, p, CL_PROGRAM_NUM_KERNELS, sizeof(size_t));
	put_string(prog, "kernel_names", program_info, p, CL_PROGRAM_KERNEL_NAMES);
	put_number(prog, "num_devices", program_info, p, CL_PROGRAM_NUM_DEVICES, sizeof(cl_uint));
	put_kernels(prog, p);
}

static cl_program from_source(cl_context ctx, const char *src)
{
	cl_int err;
	cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
	if (!p) {
		printf("create=err:%d\n", (int)err);
		exit(1);
	}
	return p;
}

static void built(cl_context ctx, const char *prog, const char *src, const char *options)
{
	cl_program p = from_source(ctx, src);
	cl_int err = clBuildProgram(p, 1, &dev, options, NULL, NULL);
	put_program(prog, p, err);
	clReleaseProgram(p);
}

static void linked(cl_context ctx)
{
	cl_program a = from_source(ctx, linked_a), b = from_source(ctx, linked_b),
		   h = from_source(ctx, linked_h);
	const char *name = "shared.h";
	cl_int err = clCompileProgram(a, 1, &dev, "-cl-kernel-arg-info", 1, &h, &name, NULL, NULL);
	put_program("linked.compile_a", a, err);
	err = clCompileProgram(b, 1, &dev, "-cl-kernel-arg-info", 0, NULL, NULL, NULL, NULL);
	printf("linked.compile_b=%d\n", (int)err);
	cl_program inputs[2] = { a, b };
	cl_program l = clLinkProgram(ctx, 1, &dev, NULL, 2, inputs, NULL, NULL, &err);
	if (l) {
		put_program("linked", l, err);
		clReleaseProgram(l);
	} else {
		printf("linked.build=%d\n", (int)err);
	}
	clReleaseProgram(a);
	clReleaseProgram(b);
	clReleaseProgram(h);
}

int main(int argc, char **argv)
{
	const char *want = NULL, *skip = "";
	int index = 0;
	for (int i = 1; i + 1 < argc; i += 2)
		if (!strcmp(argv[i], "--platform"))
			want = argv[i + 1];
		else if (!strcmp(argv[i], "--device"))
			index = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--skip")) /* CASE[,CASE]: a driver that crashes on one */
			skip = argv[i + 1];
	cl_platform_id platforms[16];
	cl_uint n = 0;
	clGetPlatformIDs(16, platforms, &n);
	cl_uint i = 0;
	char name[256] = "";
	for (; i < n; i++) {
		clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
		if (!want || strstr(name, want))
			break;
	}
	cl_device_id devices[16];
	cl_uint ndev = 0;
	if (i == n || clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_ALL, 16, devices, &ndev) != CL_SUCCESS ||
	    index < 0 || (cl_uint)index >= ndev) {
		fprintf(stderr, "cl_answers: no platform matching '%s'\n", want ? want : "");
		return 2;
	}
	dev = devices[index];
	char dname[256] = "";
	clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof dname, dname, NULL);
	printf("platform=%s\ndevice=%s\n", name, dname);
	cl_int err;
	cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
	if (!ctx) {
		printf("context=err:%d\n", (int)err);
		return 1;
	}
#define WANTED(c) (!strstr(skip, c) && printf("case=%s\n", c) > 0 && fflush(stdout) == 0)
	if (WANTED("attrs"))
		built(ctx, "attrs", attrs_src, "-cl-kernel-arg-info");
	if (WANTED("noinfo"))
		built(ctx, "attrs_noinfo", attrs_src, NULL);
	if (WANTED("empty"))
		built(ctx, "empty", empty_src, NULL);
	if (WANTED("globals"))
		built(ctx, "globals", globals_src, "-cl-std=CL2.0 -cl-kernel-arg-info");
	if (WANTED("linked"))
		linked(ctx);
	clReleaseContext(ctx);
	return 0;
}
