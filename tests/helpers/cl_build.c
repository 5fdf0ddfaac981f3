// SPDX-License-Identifier: MIT
/*
 * cl_build — a plain OpenCL client for the tests: builds one program and
 * optionally runs one of its kernels.
 *
 *   cl_build [--platform NAME] (--source FILE | --il FILE | --il-khr FILE)
 *            [--options STR] [--run KERNEL [--verify]] [--dlopen] [--dlopen-name LIB]
 *            [--async] [--sleep] [--keep] [--many N] [--rewrite-during-build FILE=NEW]
 *            [--program-first] [--twin]
 *
 * --program-first releases the program once --run's kernel has run, before
 * the kernel (pyopencl's order when Python ends): the kernel holds it.
 * --many N then makes N more programs of the same input, alive together,
 * builds each and makes a kernel of each (--run's, else the first), checks
 * that every kernel answers its own program handle and name, and releases
 * them all: prints "many=N ok=M" (M: programs whose answers were right).
 * --keep ends without releasing the program and its context, as many
 * programs do (exit() ends them for the driver).
 * --sleep, as a server does after its warm-up: once built (and run), prints
 * "sleeping" and waits until it is killed, never exiting by itself.
 * --platform picks the first platform whose name contains NAME.
 * --il uses clCreateProgramWithIL; --il-khr the clCreateProgramWithILKHR
 * extension function from clGetExtensionFunctionAddressForPlatform.
 * --dlopen calls OpenCL only through dlopen("libOpenCL.so.1") + dlsym, as
 * runtimes that load OpenCL themselves do; --dlopen-name LIB the same with
 * another name (a loader a wheel ships renamed).  --async builds with a pfn_notify
 * callback and waits for it.  --run KERNEL runs
 *     kernel void KERNEL(global float *out, global const float *in, uint n)
 * over 4096 items and prints a hash of the output's bytes; with --verify
 * the kernel must compute out[i] = in[i] * 2 + 1, which is checked exactly.
 * --release-queued releases the kernel and the program while the kernel's
 * command is still queued (held back by a user event until both are
 * released), as pyopencl's scans do: the driver compiles for it after.
 *
 * --twin (PoCL, its cache off, POCL_CACHE_DIR set; with --run) makes a
 * second program from the built one's binary, which PoCL unpacks into the
 * first one's directory (twin_dir=shared; a new directory made in
 * POCL_CACHE_DIR meanwhile is the second's own: twin_dir=own), and runs
 * --run's kernel of that one; once PoCL has made a directory in the
 * kernel's in the second's directory, for its work-group function
 * (inotify), the first program is released, which removes a shared
 * directory under the compile, as pyopencl's test_can_build_and_run_binary
 * may.
 *
 * --rewrite-during-build FILE=NEW: a thread waits until FILE (a header the
 * program includes) has been read once, closed after a read-only open
 * (jitcache hashing it, as clBuildProgram starts), then puts a copy of NEW
 * in its place (a rename: the compiler opens one or the other whole), and
 * "rewritten=during" or "rewritten=after" says whether that was done
 * before the build ended (clBuildProgram returned, or pfn_notify came).
 *
 * Prints "build=CODE seconds=S", the build log between "log<<" and ">>log",
 * "status=ERR/STATUS options=[OPTIONS] kernel_after_failure=ERR" (the build
 * info, and clCreateKernel's error on a program whose build failed),
 * and "result=HASH" after --run.  Exit status 0 only if all succeeded.
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <dlfcn.h>
#include <poll.h>
#include <sys/inotify.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define FUNCTIONS(X)                                                              \
	X(clGetPlatformIDs) X(clGetPlatformInfo) X(clGetDeviceIDs) X(clCreateContext) \
	X(clCreateProgramWithSource) X(clCreateProgramWithIL) X(clBuildProgram)      \
	X(clGetProgramBuildInfo) X(clGetExtensionFunctionAddressForPlatform)         \
	X(clCreateKernel) X(clCreateBuffer) X(clSetKernelArg)                        \
	X(clCreateCommandQueueWithProperties) X(clEnqueueNDRangeKernel)              \
	X(clEnqueueReadBuffer) X(clFinish) X(clReleaseKernel) X(clReleaseProgram)    \
	X(clReleaseMemObject) X(clReleaseCommandQueue) X(clReleaseContext)          \
	X(clGetProgramInfo) X(clGetKernelInfo) X(clCreateUserEvent)                  \
	X(clSetUserEventStatus) X(clReleaseEvent) X(clCreateProgramWithBinary)      \
	X(clFlush)

static struct {
#define X(name) __typeof__(name) *name;
	FUNCTIONS(X)
#undef X
} cl;

static int load_api(const char *use_dlopen)
{
	void *lib = use_dlopen ? dlopen(use_dlopen, RTLD_NOW | RTLD_LOCAL) : NULL;
	if (use_dlopen && !lib) {
		fprintf(stderr, "cl_build: %s\n", dlerror());
		return -1;
	}
#define X(name) cl.name = lib ? (__typeof__(name) *)dlsym(lib, #name) : name;
	FUNCTIONS(X)
#undef X
	return 0;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

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

static cl_device_id pick_device(const char *want, cl_platform_id *platform_out)
{
	cl_platform_id platforms[16];
	cl_uint n = 0;
	cl.clGetPlatformIDs(16, platforms, &n);
	for (cl_uint i = 0; i < n; i++) {
		char name[256] = "";
		cl.clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
		cl_device_id device;
		if ((!want || strstr(name, want)) &&
		    cl.clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_ALL, 1, &device, NULL) ==
			    CL_SUCCESS) {
			*platform_out = platforms[i];
			return device;
		}
	}
	fprintf(stderr, "cl_build: no platform matching '%s'\n", want ? want : "");
	exit(2);
}

static pthread_mutex_t done_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;
static cl_program notified;

static void CL_CALLBACK on_built(cl_program program, void *user_data)
{
	pthread_mutex_lock(&done_lock);
	notified = program;
	if (user_data != (void *)&notified)
		fprintf(stderr, "cl_build: wrong user_data in pfn_notify\n");
	pthread_cond_signal(&done_cond);
	pthread_mutex_unlock(&done_lock);
}

static uint64_t fnv1a(const void *data, size_t size)
{
	const unsigned char *p = data;
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < size; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

static int verify;

/* out[i] == in[i] * 2 + 1 holds exactly in float, fused or not. */
static int check_affine(const float *in, const float *out, int n)
{
	for (int i = 0; i < n; i++)
		if (out[i] != in[i] * 2.0f + 1.0f) {
			printf("verify=FAIL at %d: %g, expected %g\n", i, out[i], in[i] * 2.0f + 1.0f);
			return -1;
		}
	printf("verify=ok\n");
	return 0;
}

static int program_first; /* --program-first */
static int release_queued; /* --release-queued */
static cl_program twin_of; /* --twin: the program released under the compile */
static int twin_watch = -1; /* inotify on its directory */

/* --twin: once PoCL made a directory in twin_of's (its work-group
 * function's), twin_of is released (at most 60 s of waiting). */
static void release_twin_of(cl_command_queue q)
{
	cl.clFlush(q);
	struct pollfd p = { .fd = twin_watch, .events = POLLIN };
	char ev[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	int seen = poll(&p, 1, 60000) == 1 && read(twin_watch, ev, sizeof ev) > 0;
	cl.clReleaseProgram(twin_of);
	printf("twin_released=%s\n", seen ? "during" : "timeout");
	fflush(stdout); /* before PoCL may abort */
}

static int run(cl_context context, cl_device_id device, cl_program program, const char *name)
{
	enum { N = 4096 };
	static float in[N], out[N];
	for (int i = 0; i < N; i++)
		in[i] = (float)i * 0.37f - 100.0f;
	cl_int err;
	cl_command_queue q = cl.clCreateCommandQueueWithProperties(context, device, NULL, &err);
	cl_kernel k = cl.clCreateKernel(program, name, &err);
	if (!k) {
		printf("create_kernel=%d\n", err);
		return -1;
	}
	cl_mem a = cl.clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof in,
				     in, &err);
	cl_mem b = cl.clCreateBuffer(context, CL_MEM_WRITE_ONLY, sizeof out, NULL, &err);
	cl_uint n = N;
	size_t global = N;
	cl.clSetKernelArg(k, 0, sizeof b, &b);
	cl.clSetKernelArg(k, 1, sizeof a, &a);
	cl.clSetKernelArg(k, 2, sizeof n, &n);
	cl_event gate = release_queued ? cl.clCreateUserEvent(context, &err) : NULL;
	err = cl.clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, gate ? 1 : 0,
					gate ? &gate : NULL, NULL);
	if (twin_of)
		release_twin_of(q);
	if (gate) { /* the command waits for the gate: released while queued */
		cl.clReleaseProgram(program);
		cl.clReleaseKernel(k);
		k = NULL;
		cl.clSetUserEventStatus(gate, CL_COMPLETE);
		cl.clReleaseEvent(gate);
	}
	if (err == CL_SUCCESS)
		err = cl.clEnqueueReadBuffer(q, b, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL);
	printf("run=%d result=%016llx\n", err, (unsigned long long)fnv1a(out, sizeof out));
	if (err == CL_SUCCESS && verify && check_affine(in, out, N) != 0)
		err = CL_INVALID_VALUE;
	cl.clReleaseMemObject(a);
	cl.clReleaseMemObject(b);
	if (program_first && !release_queued)
		cl.clReleaseProgram(program);
	if (k)
		cl.clReleaseKernel(k);
	cl.clReleaseCommandQueue(q);
	return err == CL_SUCCESS ? 0 : -1;
}

typedef cl_program(CL_API_CALL *il_khr_fn)(cl_context, const void *, size_t, cl_int *);

static cl_program create(cl_context context, cl_platform_id platform, const char *kind,
			 const char *path)
{
	size_t size;
	char *data = slurp(path, &size);
	cl_int err = CL_INVALID_VALUE;
	cl_program program = NULL;
	if (strcmp(kind, "--source") == 0) {
		const char *s = data;
		program = cl.clCreateProgramWithSource(context, 1, &s, &size, &err);
	} else if (strcmp(kind, "--il") == 0) {
		program = cl.clCreateProgramWithIL(context, data, size, &err);
	} else {
		il_khr_fn fn = (il_khr_fn)cl.clGetExtensionFunctionAddressForPlatform(
			platform, "clCreateProgramWithILKHR");
		if (fn)
			program = fn(context, data, size, &err);
	}
	free(data);
	if (!program)
		printf("create=%d\n", err);
	return program;
}

/* --twin: the directory the second program unpacked into: a _UNCACHED_
 * directory made in top since the watch `made` began, or DIR as it is. */
static void twin_own_dir(int made, const char *top, char *dir, size_t size)
{
	char ev[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t len = read(made, ev, sizeof ev);
	const char *own = NULL;
	for (ssize_t at = 0; len > 0 && at < len && !own;) {
		const struct inotify_event *e = (const struct inotify_event *)(ev + at);
		if ((e->mask & IN_ISDIR) && e->len && strncmp(e->name, "_UNCACHED_", 10) == 0)
			own = e->name;
		at += (ssize_t)(sizeof *e + e->len);
	}
	if (own)
		snprintf(dir, size, "%s/%s", top, own);
	printf("twin_dir=%s\n", own ? "own" : "shared");
}

/* --twin: a program of program's binary, built, whose kernel NAME is run
 * while program is released (release_twin_of). */
static int run_twin(cl_context context, cl_device_id device, cl_program program,
		    const char *name)
{
	size_t size = 0;
	cl.clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL);
	unsigned char *bin = size > 77 ? malloc(size) : NULL;
	const char *top = getenv("POCL_CACHE_DIR");
	if (!bin || !top ||
	    cl.clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) != CL_SUCCESS)
		return printf("twin=no binary or POCL_CACHE_DIR\n"), -1;
	char dir[4096]; /* PoCL's binary header names the directory at 36 */
	snprintf(dir, sizeof dir, "%s/%.40s", top, (const char *)bin + 36);
	const unsigned char *bins[1] = { bin };
	cl_int err, status;
	int made = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (made < 0 || inotify_add_watch(made, top, IN_CREATE) < 0)
		return printf("twin=no watch on %s\n", top), -1;
	cl_program twin = cl.clCreateProgramWithBinary(context, 1, &device, &size, bins, &status,
						       &err);
	free(bin);
	if (!twin || cl.clBuildProgram(twin, 1, &device, NULL, NULL, NULL) != CL_SUCCESS)
		return printf("twin=not built (%d)\n", err), -1;
	twin_own_dir(made, top, dir, sizeof dir);
	close(made);
	/* PoCL made DIR/NAME at the build: the compile makes DIR/NAME/SIZES */
	size_t n = strlen(dir);
	snprintf(dir + n, sizeof dir - n, "/%s", name);
	twin_watch = inotify_init1(IN_CLOEXEC);
	if (twin_watch < 0 || inotify_add_watch(twin_watch, dir, IN_CREATE) < 0)
		return printf("twin=no watch on %s\n", dir), -1;
	twin_of = program;
	int rc = run(context, device, twin, name);
	cl.clReleaseProgram(twin);
	close(twin_watch);
	return rc;
}

/* --many: n programs of the input alive together, each with a kernel. */
static int build_many(cl_context context, cl_platform_id platform, cl_device_id device,
		      const char *kind, const char *path, const char *options, const char *name,
		      int n)
{
	cl_program *p = calloc((size_t)n, sizeof *p);
	cl_kernel *k = calloc((size_t)n, sizeof *k);
	char first[256] = "";
	int ok = 0;
	for (int i = 0; p && k && i < n; i++) {
		if (!(p[i] = create(context, platform, kind, path)) ||
		    cl.clBuildProgram(p[i], 1, &device, options, NULL, NULL) != CL_SUCCESS)
			continue;
		if (!name) { /* the first kernel's name */
			char names[4096] = "";
			cl.clGetProgramInfo(p[i], CL_PROGRAM_KERNEL_NAMES, sizeof names, names, NULL);
			snprintf(first, sizeof first, "%.*s", (int)strcspn(names, ";"), names);
			name = first;
		}
		k[i] = cl.clCreateKernel(p[i], name, NULL);
	}
	for (int i = 0; p && k && i < n; i++) {
		cl_program of = NULL;
		char fn[256] = "";
		if (k[i] &&
		    cl.clGetKernelInfo(k[i], CL_KERNEL_PROGRAM, sizeof of, &of, NULL) == CL_SUCCESS &&
		    cl.clGetKernelInfo(k[i], CL_KERNEL_FUNCTION_NAME, sizeof fn, fn, NULL) ==
			    CL_SUCCESS &&
		    of == p[i] && strcmp(fn, name) == 0)
			ok++;
	}
	for (int i = 0; p && k && i < n; i++) {
		if (k[i])
			cl.clReleaseKernel(k[i]);
		if (p[i])
			cl.clReleaseProgram(p[i]);
	}
	free(p);
	free(k);
	printf("many=%d ok=%d\n", n, ok);
	return ok == n ? 0 : -1;
}

/* --rewrite-during-build */
static const char *rewrite_file, *rewrite_new;
static int rewritten;

static void copy_file(const char *from, const char *to)
{
	char buf[65536];
	size_t n;
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	if (!in || !out)
		exit(2);
	while ((n = fread(buf, 1, sizeof buf, in)) > 0)
		fwrite(buf, 1, n, out);
	fclose(in);
	if (fclose(out) != 0)
		exit(2);
}

static void *rewriter(void *arg)
{
	int fd = *(int *)arg;
	char ev[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	if (read(fd, ev, sizeof ev) <= 0) /* the first read-only close */
		return NULL;
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.rewrite", rewrite_file);
	copy_file(rewrite_new, tmp);
	if (rename(tmp, rewrite_file) == 0)
		__atomic_store_n(&rewritten, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void start_rewriter(void)
{
	static int fd;
	pthread_t t;
	fd = inotify_init();
	if (fd < 0 || inotify_add_watch(fd, rewrite_file, IN_CLOSE_NOWRITE) < 0 ||
	    pthread_create(&t, NULL, rewriter, &fd) != 0) {
		perror("cl_build: --rewrite-during-build");
		exit(2);
	}
	pthread_detach(t);
}

int main(int argc, char **argv)
{
	const char *platform_name = NULL, *kind = NULL, *path = NULL, *options = NULL;
	const char *kernel = NULL;
	const char *use_dlopen = NULL;
	int async = 0, sleep_after = 0, keep = 0, many = 0, twin = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--dlopen") == 0)
			use_dlopen = "libOpenCL.so.1";
		else if (strcmp(argv[i], "--async") == 0)
			async = 1;
		else if (strcmp(argv[i], "--verify") == 0)
			verify = 1;
		else if (strcmp(argv[i], "--sleep") == 0)
			sleep_after = 1;
		else if (strcmp(argv[i], "--keep") == 0)
			keep = 1;
		else if (strcmp(argv[i], "--program-first") == 0)
			program_first = 1;
		else if (strcmp(argv[i], "--twin") == 0)
			twin = 1;
		else if (strcmp(argv[i], "--release-queued") == 0)
			release_queued = program_first = 1;
		else if (i + 1 >= argc)
			return fprintf(stderr, "cl_build: %s needs a value\n", argv[i]), 2;
		else if (strcmp(argv[i], "--dlopen-name") == 0)
			use_dlopen = argv[++i];
		else if (strcmp(argv[i], "--platform") == 0)
			platform_name = argv[++i];
		else if (strcmp(argv[i], "--options") == 0)
			options = argv[++i];
		else if (strcmp(argv[i], "--run") == 0)
			kernel = argv[++i];
		else if (strcmp(argv[i], "--many") == 0)
			many = atoi(argv[++i]);
		else if (strcmp(argv[i], "--rewrite-during-build") == 0 && strchr(argv[i + 1], '='))
			rewrite_file = argv[++i], rewrite_new = strchr(rewrite_file, '=') + 1,
			*strchr(argv[i], '=') = '\0';
		else
			kind = argv[i], path = argv[++i];
	}
	if (!path || load_api(use_dlopen) != 0)
		return fprintf(stderr, "usage: see the comment at the top of cl_build.c\n"), 2;
	cl_platform_id platform;
	cl_device_id device = pick_device(platform_name, &platform);
	cl_int err;
	cl_context context = cl.clCreateContext(NULL, 1, &device, NULL, NULL, &err);
	cl_program program = create(context, platform, kind, path);
	if (!program)
		return 1;
	if (rewrite_file)
		start_rewriter();
	double start = now();
	err = cl.clBuildProgram(program, 1, &device, options, async ? on_built : NULL,
				async ? (void *)&notified : NULL);
	if (async) {
		pthread_mutex_lock(&done_lock);
		while (!notified)
			pthread_cond_wait(&done_cond, &done_lock);
		pthread_mutex_unlock(&done_lock);
		if (notified != program)
			printf("notify_program=wrong\n");
	}
	if (rewrite_file)
		printf("rewritten=%s\n", __atomic_load_n(&rewritten, __ATOMIC_ACQUIRE) ? "during"
											: "after");
	printf("build=%d seconds=%.4f\n", err, now() - start);
	size_t size = 0;
	cl.clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size);
	char *log = calloc(1, size + 1);
	cl.clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log, NULL);
	printf("log<<\n%s\n>>log\n", log);
	free(log);
	cl_build_status status = 99;
	char opts[512] = "?";
	cl_int serr = cl.clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_STATUS,
					       sizeof status, &status, NULL);
	cl.clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_OPTIONS, sizeof opts, opts, NULL);
	cl_kernel probe = NULL;
	cl_int kerr = CL_SUCCESS;
	if (err != CL_SUCCESS) { /* what a failed program answers */
		probe = cl.clCreateKernel(program, kernel ? kernel : "compute", &kerr);
		if (probe)
			cl.clReleaseKernel(probe);
	}
	printf("status=%d/%d options=[%s] kernel_after_failure=%d\n", (int)serr, (int)status, opts,
	       (int)kerr);
	int rc = err == CL_SUCCESS ? 0 : 1;
	if (rc == 0 && kernel &&
	    (twin ? run_twin(context, device, program, kernel) : run(context, device, program, kernel)) != 0)
		rc = 1;
	if (rc == 0 && many > 0 && build_many(context, platform, device, kind, path, options,
					      kernel, many) != 0)
		rc = 1;
	if (sleep_after) {
		printf("sleeping\n");
		fflush(stdout);
		for (;;)
			pause();
	}
	if (keep)
		return rc;
	if ((!program_first || !kernel) && !twin_of)
		cl.clReleaseProgram(program);
	cl.clReleaseContext(context);
	return rc;
}
