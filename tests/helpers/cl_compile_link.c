// SPDX-License-Identifier: MIT
/*
 * cl_compile_link — builds a program as hashcat does, with clCompileProgram
 * then clLinkProgram, and prints what the program can ask of each step.
 *
 *   cl_compile_link [--platform NAME] --source FILE [--source FILE2]
 *                   [--header NAME=FILE]... [--options STR] [--link-options STR]
 *                   [--run KERNEL] [--notify] [--then CMD]... [--chdir DIR]
 *                   [--fsize-before-link BYTES]
 *
 * Each --source is compiled on its own (with every --header embedded
 * under its NAME), then all are linked into one program.  --run KERNEL
 * runs  kernel void KERNEL(global float *out, global const float *in, uint n)
 * over 4096 items.  --notify gives both steps a pfn_notify callback.
 * --then CMD runs CMD (system()) right after the compile of the --source
 * before it (a program that rewrites a header between two compiles);
 * --chdir DIR changes directory after the compiles, before the link;
 * --fsize-before-link BYTES limits the size of the files the process may
 * write from then on (RLIMIT_FSIZE, SIGXFSZ ignored: a longer write fails
 * with EFBIG, as on a full file system).
 * Prints, per source: "compile=ERR status=S type=T options=[O]" and its log
 * between "compile_log<<" and ">>compile_log"; then
 * "link=ERR status=S type=T kernels=N names=[...]" and the link log between
 * "link_log<<" and ">>link_log"; "result=HASH" after --run; "seconds=S"
 * (compile and link).  Exit status 0 only if all succeeded.
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

static char *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		exit(2);
	}
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *data = malloc((size_t)n + 1);
	if (!data || fread(data, 1, (size_t)n, f) != (size_t)n)
		exit(2);
	data[n] = '\0';
	fclose(f);
	*size = (size_t)n;
	return data;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static cl_device_id pick_device(const char *want)
{
	cl_platform_id platforms[16];
	cl_uint n = 0;
	clGetPlatformIDs(16, platforms, &n);
	for (cl_uint i = 0; i < n; i++) {
		char name[256] = "";
		cl_device_id device;
		clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
		if ((!want || strstr(name, want)) &&
		    clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_ALL, 1, &device, NULL) == CL_SUCCESS)
			return device;
	}
	fprintf(stderr, "cl_compile_link: no platform matching '%s'\n", want ? want : "");
	exit(2);
}

static cl_program source_program(cl_context context, const char *path)
{
	size_t size;
	char *text = slurp(path, &size);
	const char *s = text;
	cl_int err;
	cl_program p = clCreateProgramWithSource(context, 1, &s, &size, &err);
	free(text);
	if (!p) {
		printf("create=%d\n", err);
		exit(1);
	}
	return p;
}

/* What a program says of its last compile or link, as "WHAT=ERR ...". */
static void describe(const char *what, cl_int err, cl_program p, cl_device_id dev)
{
	cl_build_status status = 99;
	cl_program_binary_type type = 99;
	char options[1024] = "";
	clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_STATUS, sizeof status, &status, NULL);
	clGetProgramBuildInfo(p, dev, CL_PROGRAM_BINARY_TYPE, sizeof type, &type, NULL);
	clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_OPTIONS, sizeof options, options, NULL);
	printf("%s=%d status=%d type=%d options=[%s]", what, err, (int)status, (int)type, options);
	size_t size = 0;
	char *log = NULL;
	if (clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) == CL_SUCCESS &&
	    (log = calloc(1, size + 1)))
		clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, size, log, NULL);
	printf("\n%s_log<<%s>>%s_log\n", what, log ? log : "", what);
	free(log);
}

static uint64_t fnv1a(const void *data, size_t size)
{
	const unsigned char *p = data;
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < size; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

static int run(cl_context context, cl_device_id device, cl_program program, const char *name)
{
	enum { N = 4096 };
	static float in[N], out[N];
	for (int i = 0; i < N; i++)
		in[i] = (float)i * 0.37f - 100.0f;
	cl_int err;
	cl_command_queue q = clCreateCommandQueueWithProperties(context, device, NULL, &err);
	cl_kernel k = clCreateKernel(program, name, &err);
	if (!k) {
		printf("create_kernel=%d\n", err);
		return -1;
	}
	cl_mem a = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof in, in,
				  &err);
	cl_mem b = clCreateBuffer(context, CL_MEM_WRITE_ONLY, sizeof out, NULL, &err);
	cl_uint n = N;
	size_t global = N;
	clSetKernelArg(k, 0, sizeof b, &b);
	clSetKernelArg(k, 1, sizeof a, &a);
	clSetKernelArg(k, 2, sizeof n, &n);
	err = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL);
	if (err == CL_SUCCESS)
		err = clEnqueueReadBuffer(q, b, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL);
	printf("run=%d result=%016llx\n", err, (unsigned long long)fnv1a(out, sizeof out));
	clReleaseMemObject(a);
	clReleaseMemObject(b);
	clReleaseKernel(k);
	clReleaseCommandQueue(q);
	return err == CL_SUCCESS ? 0 : -1;
}

static int notified;

static void CL_CALLBACK on_done(cl_program program, void *user_data)
{
	(void)program;
	if (user_data == &notified)
		notified++;
}

int main(int argc, char **argv)
{
	const char *platform = NULL, *options = NULL, *link_options = NULL, *kernel = NULL;
	const char *sources[8], *header_names[8], *header_files[8], *then[8] = { 0 };
	const char *chdir_to = NULL;
	long fsize = -1;
	int nsources = 0, nheaders = 0, notify = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--notify")) {
			notify = 1;
			continue;
		}
		if (!v) {
			fprintf(stderr, "cl_compile_link: %s needs a value\n", a);
			return 2;
		}
		i++;
		if (!strcmp(a, "--platform"))
			platform = v;
		else if (!strcmp(a, "--source") && nsources < 8)
			sources[nsources++] = v;
		else if (!strcmp(a, "--header") && nheaders < 8 && strchr(v, '=')) {
			char *copy = strdup(v), *eq = strchr(copy, '=');
			*eq = '\0';
			header_names[nheaders] = copy;
			header_files[nheaders++] = eq + 1;
		} else if (!strcmp(a, "--options"))
			options = v;
		else if (!strcmp(a, "--link-options"))
			link_options = v;
		else if (!strcmp(a, "--run"))
			kernel = v;
		else if (!strcmp(a, "--then") && nsources > 0)
			then[nsources - 1] = v;
		else if (!strcmp(a, "--chdir"))
			chdir_to = v;
		else if (!strcmp(a, "--fsize-before-link"))
			fsize = atol(v);
		else {
			fprintf(stderr, "cl_compile_link: unknown argument %s\n", a);
			return 2;
		}
	}
	if (!nsources) {
		fprintf(stderr, "cl_compile_link: no --source\n");
		return 2;
	}
	cl_device_id dev = pick_device(platform);
	cl_int err;
	cl_context context = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
	cl_program headers[8], objects[8];
	for (int i = 0; i < nheaders; i++)
		headers[i] = source_program(context, header_files[i]);
	int ok = 1;
	double start = now();
	for (int i = 0; i < nsources; i++) {
		objects[i] = source_program(context, sources[i]);
		err = clCompileProgram(objects[i], 1, &dev, options, (cl_uint)nheaders,
				       nheaders ? headers : NULL, nheaders ? header_names : NULL,
				       notify ? on_done : NULL, notify ? &notified : NULL);
		describe("compile", err, objects[i], dev);
		ok &= err == CL_SUCCESS;
		if (then[i] && system(then[i]) != 0)
			return fprintf(stderr, "cl_compile_link: --then %s failed\n", then[i]), 2;
	}
	if (chdir_to && chdir(chdir_to) != 0)
		return perror(chdir_to), 2;
	if (fsize >= 0) {
		struct rlimit rl = { (rlim_t)fsize, (rlim_t)fsize };
		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
			return perror("setrlimit"), 2;
	}
	for (int i = 0; i < nheaders; i++)
		clReleaseProgram(headers[i]);
	cl_program linked = NULL;
	if (ok) {
		linked = clLinkProgram(context, 1, &dev, link_options, (cl_uint)nsources, objects,
				       notify ? on_done : NULL, notify ? &notified : NULL, &err);
		double seconds = now() - start;
		if (linked)
			describe("link", err, linked, dev);
		else
			printf("link=%d\n", err);
		ok &= err == CL_SUCCESS;
		cl_uint nk = 0;
		char names[1024] = "";
		if (linked) {
			size_t count = 0;
			clGetProgramInfo(linked, CL_PROGRAM_NUM_KERNELS, sizeof count, &count, NULL);
			nk = (cl_uint)count;
			clGetProgramInfo(linked, CL_PROGRAM_KERNEL_NAMES, sizeof names, names, NULL);
		}
		printf("kernels=%u names=[%s] seconds=%.3f\n", nk, names, seconds);
	}
	if (notify)
		printf("notified=%d\n", notified);
	for (int i = 0; i < nsources; i++)
		clReleaseProgram(objects[i]);
	if (ok && kernel && run(context, dev, linked, kernel) != 0)
		ok = 0;
	if (linked)
		clReleaseProgram(linked);
	clReleaseContext(context);
	return ok ? 0 : 1;
}
