// SPDX-License-Identifier: MIT
/*
 * cl_consistency — everything an application can observe of a program it
 * built, printed as a transcript, so that a run without jitcache, a run
 * that fills the cache and a run answered from it can be compared.
 *
 *   cl_consistency --platform NAME [--run]
 *   cl_consistency --platform NAME --threads N
 *
 * Transcript lines:
 *   "= ..."   must be identical in all runs (with and without jitcache);
 *   "~ ..."   must be identical between runs that build the same way from
 *             the same cache entry (binaries, the exact build log: a fresh
 *             compile may differ there, e.g. PoCL names temporary files);
 *   "FAIL ..." a property that must hold in any run; the exit status is
 *             then 1.
 * --run also runs kernels and prints a hash of their results (PoCL; the
 * simulated Intel GPU does not execute kernels).
 * --threads N instead has N threads build the same program at once, three
 * times each, and check their kernel's results (PoCL).
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char source[] =
	"#warning consistency-test-warning\n"
	"kernel void k_add(global int *out, int x) { out[get_global_id(0)] = x + VAL; }\n"
	"kernel void k_mul(global int *out, int x) { out[get_global_id(0)] = x * VAL; }\n";

static int failures;
static cl_context context;
static cl_device_id device;
static cl_command_queue queue;
static int run_kernels;

#define CHECK(cond, ...)                                   \
	do {                                               \
		if (!(cond)) {                             \
			printf("FAIL " __VA_ARGS__);       \
			printf("  [%s]\n", #cond);         \
			__atomic_add_fetch(&failures, 1,   \
					   __ATOMIC_RELAXED); \
		}                                          \
	} while (0)

static uint64_t fnv1a(const void *data, size_t size)
{
	const unsigned char *p = data;
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < size; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

static cl_uint program_refs(cl_program p)
{
	cl_uint n = 0;
	CHECK(clGetProgramInfo(p, CL_PROGRAM_REFERENCE_COUNT, sizeof n, &n, NULL) == CL_SUCCESS,
	      "reference count query\n");
	return n;
}

static char *program_str(cl_program p, cl_program_info param)
{
	size_t size = 0;
	CHECK(clGetProgramInfo(p, param, 0, NULL, &size) == CL_SUCCESS, "size of info %#x\n",
	      (unsigned)param);
	char *s = calloc(1, size + 1);
	clGetProgramInfo(p, param, size, s, NULL);
	return s;
}

static char *build_str(cl_program p, cl_program_build_info param)
{
	size_t size = 0;
	CHECK(clGetProgramBuildInfo(p, device, param, 0, NULL, &size) == CL_SUCCESS,
	      "size of build info %#x\n", (unsigned)param);
	char *s = calloc(1, size + 2);
	/* a too small buffer must be refused, as the driver does */
	if (size > 1)
		CHECK(clGetProgramBuildInfo(p, device, param, size - 1, s, NULL) == CL_INVALID_VALUE,
		      "short buffer for build info %#x\n", (unsigned)param);
	clGetProgramBuildInfo(p, device, param, size, s, NULL);
	return s;
}

/* PoCL's build log names a temporary file: tempfile_XXXXXX.cl */
static void print_log(const char *log)
{
	printf("~ log: ");
	for (const char *c = log; *c; c++)
		putchar(*c == '\n' ? '|' : *c);
	printf("\n= log: ");
	for (const char *c = log; *c; c++) {
		if (strncmp(c, "tempfile_", 9) == 0 && strlen(c) > 15) {
			fputs("tempfile_*", stdout);
			c += 14;
		} else {
			putchar(*c == '\n' ? '|' : *c);
		}
	}
	printf("\n");
}

static void describe_build(const char *what, cl_program p)
{
	cl_build_status status;
	cl_program_binary_type type;
	clGetProgramBuildInfo(p, device, CL_PROGRAM_BUILD_STATUS, sizeof status, &status, NULL);
	clGetProgramBuildInfo(p, device, CL_PROGRAM_BINARY_TYPE, sizeof type, &type, NULL);
	char *options = build_str(p, CL_PROGRAM_BUILD_OPTIONS);
	char *log = build_str(p, CL_PROGRAM_BUILD_LOG);
	printf("= %s: status %d, binary type %u, options '%s'\n", what, status, (unsigned)type,
	       options);
	print_log(log);
	free(options);
	free(log);
}

static void describe_program(const char *what, cl_program p)
{
	cl_uint ndev = 0;
	size_t nkernels = 0, binary_size = 0;
	cl_device_id dev = NULL;
	cl_context ctx = NULL;
	clGetProgramInfo(p, CL_PROGRAM_NUM_DEVICES, sizeof ndev, &ndev, NULL);
	clGetProgramInfo(p, CL_PROGRAM_DEVICES, sizeof dev, &dev, NULL);
	clGetProgramInfo(p, CL_PROGRAM_CONTEXT, sizeof ctx, &ctx, NULL);
	CHECK(ndev == 1 && dev == device && ctx == context, "%s: devices or context\n", what);
	char *src = program_str(p, CL_PROGRAM_SOURCE);
	CHECK(strcmp(src, source) == 0, "%s: CL_PROGRAM_SOURCE is not the source given\n", what);
	CHECK(clGetProgramInfo(p, CL_PROGRAM_NUM_KERNELS, sizeof nkernels, &nkernels, NULL) ==
		      CL_SUCCESS, "%s: number of kernels\n", what);
	char *names = program_str(p, CL_PROGRAM_KERNEL_NAMES);
	printf("= %s: %zu kernels '%s', %u refs\n", what, nkernels, names, program_refs(p));
	clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof binary_size, &binary_size, NULL);
	unsigned char *binary = malloc(binary_size + 1);
	CHECK(binary_size > 0 && clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof binary, &binary,
						  NULL) == CL_SUCCESS,
	      "%s: binaries\n", what);
	/* PoCL with its kernel cache off names the program's temporary
	 * directory in its binary (_UNCACHED_XXXXXX): every build, and every
	 * load of a binary under jitcache, gets its own. */
	for (unsigned char *at = binary; binary_size > 0 &&
	     (at = memmem(at, binary_size - (size_t)(at - binary), "_UNCACHED_", 10)) &&
	     (size_t)(at - binary) + 16 <= binary_size;)
		at = (unsigned char *)memset(at + 10, 'X', 6) + 6;
	printf("~ %s: binary %zu bytes, hash %016llx\n", what, binary_size,
	       (unsigned long long)fnv1a(binary, binary_size));
	free(binary);
	free(src);
	free(names);
}

static void run(const char *what, cl_kernel k, int x)
{
	if (!run_kernels)
		return;
	int out[64];
	cl_int err;
	cl_mem buf = clCreateBuffer(context, CL_MEM_WRITE_ONLY, sizeof out, NULL, &err);
	clSetKernelArg(k, 0, sizeof buf, &buf);
	clSetKernelArg(k, 1, sizeof x, &x);
	size_t global = 64;
	err = clEnqueueNDRangeKernel(queue, k, 1, NULL, &global, NULL, 0, NULL, NULL);
	if (err == CL_SUCCESS)
		err = clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL);
	CHECK(err == CL_SUCCESS, "%s: running the kernel\n", what);
	printf("= %s: out[0] %d, out[63] %d\n", what, out[0], out[63]);
	clReleaseMemObject(buf);
}

static void describe_kernel(const char *what, cl_kernel k, cl_program expected)
{
	cl_program p = NULL;
	cl_context ctx = NULL;
	cl_uint nargs = 0;
	char name[64] = "";
	size_t size = 0;
	CHECK(clGetKernelInfo(k, CL_KERNEL_PROGRAM, sizeof p, &p, &size) == CL_SUCCESS &&
		      size == sizeof p, "%s: CL_KERNEL_PROGRAM query\n", what);
	CHECK(p == expected, "%s: CL_KERNEL_PROGRAM is not the application's program\n", what);
	clGetKernelInfo(k, CL_KERNEL_CONTEXT, sizeof ctx, &ctx, NULL);
	clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL);
	clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL);
	CHECK(ctx == context, "%s: kernel context\n", what);
	printf("= %s: kernel '%s', %u args\n", what, name, nargs);
}

static cl_program create(void)
{
	const char *s = source;
	cl_int err;
	cl_program p = clCreateProgramWithSource(context, 1, &s, NULL, &err);
	CHECK(p && err == CL_SUCCESS, "clCreateProgramWithSource\n");
	return p;
}

/* Build, kernels, reference counts, a refused and an accepted rebuild. */
static void sync_build(void)
{
	cl_program p = create();
	cl_int err = clBuildProgram(p, 1, &device, "-DVAL=3", NULL, NULL);
	printf("= build -DVAL=3: %d\n", err);
	describe_program("after build", p);
	describe_build("after build", p);
	cl_kernel add = clCreateKernel(p, "k_add", &err);
	CHECK(add && err == CL_SUCCESS, "clCreateKernel\n");
	describe_kernel("k_add", add, p);
	run("k_add VAL=3", add, 10);
	printf("= refs with one kernel: %u\n", program_refs(p));
	cl_uint n = 0;
	CHECK(clCreateKernelsInProgram(p, 0, NULL, &n) == CL_SUCCESS, "count kernels\n");
	cl_kernel all[8];
	CHECK(n == 2 && clCreateKernelsInProgram(p, n, all, NULL) == CL_SUCCESS,
	      "clCreateKernelsInProgram\n");
	for (cl_uint i = 0; i < n && i < 8; i++)
		describe_kernel("from clCreateKernelsInProgram", all[i], p);
	printf("= refs with three kernels: %u\n", program_refs(p));
	CHECK(clRetainProgram(p) == CL_SUCCESS, "clRetainProgram\n");
	printf("= refs after retain: %u\n", program_refs(p));
	CHECK(clReleaseProgram(p) == CL_SUCCESS, "clReleaseProgram\n");
	printf("= refs after release: %u\n", program_refs(p));
	printf("= rebuild with kernels attached: %d\n",
	       clBuildProgram(p, 1, &device, "-DVAL=4", NULL, NULL));
	clReleaseKernel(add);
	for (cl_uint i = 0; i < n && i < 8; i++)
		clReleaseKernel(all[i]);
	printf("= refs without kernels: %u\n", program_refs(p));
	err = clBuildProgram(p, 0, NULL, "-DVAL=5", NULL, NULL);
	printf("= rebuild -DVAL=5: %d\n", err);
	describe_program("after rebuild", p);
	describe_build("after rebuild", p);
	cl_kernel mul = clCreateKernel(p, "k_mul", &err);
	describe_kernel("k_mul", mul, p);
	run("k_mul VAL=5", mul, 10);
	clReleaseKernel(mul);
	CHECK(clReleaseProgram(p) == CL_SUCCESS, "last clReleaseProgram\n");
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static cl_program notified;
static int user_data_token;

static void CL_CALLBACK on_built(cl_program p, void *user_data)
{
	CHECK(user_data == &user_data_token, "pfn_notify user_data\n");
	pthread_mutex_lock(&lock);
	notified = p;
	pthread_cond_signal(&cond);
	pthread_mutex_unlock(&lock);
}

/* A build with pfn_notify; then the kernel outlives the application's
 * last reference to its program. */
static void async_build(void)
{
	cl_program p = create();
	cl_int err = clBuildProgram(p, 1, &device, "-DVAL=7", on_built, &user_data_token);
	pthread_mutex_lock(&lock);
	while (!notified)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	printf("= async build -DVAL=7: %d\n", err);
	CHECK(notified == p, "pfn_notify was not called with the application's program\n");
	describe_program("after async build", p);
	describe_build("after async build", p);
	cl_kernel k = clCreateKernel(p, "k_add", &err);
	CHECK(clReleaseProgram(p) == CL_SUCCESS, "release before the kernel\n");
	describe_kernel("kernel outliving its program", k, p);
	printf("= refs held by the kernel alone: %u\n", program_refs(p));
	run("k_add VAL=7", k, 10);
	CHECK(clRetainProgram(p) == CL_SUCCESS, "retain through the kernel's program\n");
	printf("= refs after retain through the kernel: %u\n", program_refs(p));
	clReleaseKernel(k);
	printf("= refs after the kernel's release: %u\n", program_refs(p));
	CHECK(clReleaseProgram(p) == CL_SUCCESS, "final release\n");
}

/* Kernels the application holds after it let go of their program: a
 * retained one, released once, and a clone, each of which must keep the
 * program a valid answer to CL_KERNEL_PROGRAM until its own last release. */
static void held_kernels(void)
{
	cl_program p = create();
	cl_int err = clBuildProgram(p, 1, &device, "-DVAL=6", NULL, NULL);
	printf("= build -DVAL=6: %d\n", err);
	cl_kernel first = clCreateKernel(p, "k_add", &err);
	cl_kernel kept = clCreateKernel(p, "k_mul", &err);
	CHECK(first && kept && clRetainKernel(kept) == CL_SUCCESS, "two kernels, one retained\n");
	cl_kernel clone = clCloneKernel(first, &err);
	CHECK(clone && err == CL_SUCCESS, "clCloneKernel\n");
	CHECK(clReleaseProgram(p) == CL_SUCCESS, "release the program before its kernels\n");
	clReleaseKernel(first);
	CHECK(clReleaseKernel(kept) == CL_SUCCESS, "the first of two releases\n");
	describe_kernel("a clone outliving its original", clone, p);
	run("the clone, VAL=6", clone, 10);
	clReleaseKernel(clone);
	describe_kernel("a retained kernel outliving a clone", kept, p);
	run("the retained kernel, VAL=6", kept, 10);
	printf("= refs held by the retained kernel alone: %u\n", program_refs(p));
	CHECK(clReleaseKernel(kept) == CL_SUCCESS, "the second release\n");
}

/* The application lets go of a kernel and its program while a command of
 * the kernel still waits on a user event: the driver keeps the kernel
 * until the command is done, and the context goes once it is (checked in
 * main).  Runs kernels: PoCL only. */
static void pending_kernel(void)
{
	if (!run_kernels)
		return;
	cl_program p = create();
	cl_int err = clBuildProgram(p, 1, &device, "-DVAL=8", NULL, NULL);
	cl_kernel k = clCreateKernel(p, "k_mul", &err);
	int out[64] = { 0 }, x = 11;
	cl_mem buf = clCreateBuffer(context, CL_MEM_WRITE_ONLY, sizeof out, NULL, &err);
	cl_event gate = clCreateUserEvent(context, &err);
	clSetKernelArg(k, 0, sizeof buf, &buf);
	clSetKernelArg(k, 1, sizeof x, &x);
	size_t global = 64;
	err = clEnqueueNDRangeKernel(queue, k, 1, NULL, &global, NULL, 1, &gate, NULL);
	CHECK(err == CL_SUCCESS, "a command waiting on a user event\n");
	cl_uint refs = 0;
	clGetKernelInfo(k, CL_KERNEL_REFERENCE_COUNT, sizeof refs, &refs, NULL);
	printf("= kernel refs with its command waiting: %u\n", refs);
	CHECK(clReleaseKernel(k) == CL_SUCCESS && clReleaseProgram(p) == CL_SUCCESS,
	      "release the kernel and its program while the command waits\n");
	clSetUserEventStatus(gate, CL_COMPLETE);
	err = clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL);
	CHECK(err == CL_SUCCESS && out[0] == 88 && out[63] == 88,
	      "the released kernel's command gave %d\n", out[0]);
	printf("= released kernel, VAL=8: out[0] %d, out[63] %d\n", out[0], out[63]);
	clReleaseMemObject(buf);
	clReleaseEvent(gate);
}

/* One thread: build, run and release the same program three times. */
static void *builder(void *arg)
{
	for (int round = 0; round < 3; round++) {
		cl_program p = create();
		cl_int err = clBuildProgram(p, 1, &device, "-DVAL=9", NULL, NULL);
		cl_kernel k = clCreateKernel(p, "k_mul", &err);
		CHECK(k && err == CL_SUCCESS, "thread %ld: build and kernel\n", (long)(intptr_t)arg);
		int out[64] = { 0 }, x = 11;
		cl_mem buf = clCreateBuffer(context, CL_MEM_WRITE_ONLY, sizeof out, NULL, &err);
		clSetKernelArg(k, 0, sizeof buf, &buf);
		clSetKernelArg(k, 1, sizeof x, &x);
		size_t global = 64;
		cl_command_queue q = clCreateCommandQueueWithProperties(context, device, NULL, &err);
		err = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL);
		if (err == CL_SUCCESS)
			err = clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL);
		CHECK(err == CL_SUCCESS && out[0] == 99 && out[63] == 99,
		      "thread %ld: k_mul(11) with VAL=9 gave %d\n", (long)(intptr_t)arg, out[0]);
		clReleaseMemObject(buf);
		clReleaseCommandQueue(q);
		clReleaseKernel(k);
		clReleaseProgram(p);
	}
	return NULL;
}

static void threaded_builds(int n)
{
	pthread_t threads[64];
	for (int i = 0; i < n && i < 64; i++)
		pthread_create(&threads[i], NULL, builder, (void *)(intptr_t)i);
	for (int i = 0; i < n && i < 64; i++)
		pthread_join(threads[i], NULL);
	printf("= %d threads built and ran their programs\n", n);
}

static _Atomic int context_gone;

static void CL_CALLBACK on_context_gone(cl_context c, void *user_data)
{
	context_gone = 1;
}

/* Waits up to 5 s for the context's destructor callback: a driver may
 * drop its last internal reference (PoCL: a finished command's event,
 * freed by its worker thread after a blocking read has returned) a moment
 * after the application's release. A leak never ends. */
static int context_destroyed(void)
{
	for (int ms = 0; ms < 5000; ms++) {
		if (context_gone) {
			if (ms)
				fprintf(stderr, "cl_consistency: the context went %d ms after its release\n", ms);
			return 1;
		}
		struct timespec pause = { 0, 1000000 };
		nanosleep(&pause, NULL);
	}
	return context_gone;
}

static void open_device(const char *want)
{
	cl_platform_id platforms[16];
	cl_uint n = 0;
	clGetPlatformIDs(16, platforms, &n);
	for (cl_uint i = 0; i < n && !device; i++) {
		char name[256] = "";
		clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
		if (strstr(name, want))
			clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_ALL, 1, &device, NULL);
	}
	if (!device) {
		fprintf(stderr, "cl_consistency: no platform matching '%s'\n", want);
		exit(2);
	}
	context = clCreateContext(NULL, 1, &device, NULL, NULL, NULL);
	queue = clCreateCommandQueueWithProperties(context, device, NULL, NULL);
	clSetContextDestructorCallback(context, on_context_gone, NULL);
}

int main(int argc, char **argv)
{
	const char *want = "";
	int threads = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--run") == 0)
			run_kernels = 1;
		else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
			threads = atoi(argv[++i]);
		else if (strcmp(argv[i], "--platform") == 0 && i + 1 < argc)
			want = argv[++i];
	}
	open_device(want);
	if (threads) {
		threaded_builds(threads);
	} else {
		sync_build();
		async_build();
		held_kernels();
		pending_kernel();
	}
	clReleaseCommandQueue(queue);
	clReleaseContext(context);
	/* The context goes only once every program and kernel made in it has:
	 * a shadow program jitcache failed to release would keep it. */
	CHECK(context_destroyed(), "the context outlived its release: a program or kernel leaked\n");
	printf("%s\n", failures ? "consistency: FAILED" : "consistency: ok");
	return failures ? 1 : 0;
}
