// SPDX-License-Identifier: MIT
/*
 * cl_fd_games — an OpenCL program that plays with descriptor numbers the
 * way real programs do, around jitcache's held cache directory (issue 35):
 *
 *   cl_fd_games race  --platform NAME --source FILE [--seconds S]
 *   cl_fd_games reuse --platform NAME --source FILE --own DIR [--break-cache CACHE]
 *
 * race: fills descriptors 3..199 (so that its files get 200 and up, the
 * number jitcache once held), builds FILE once, then for S seconds (1 by
 * default) two threads open /dev/null, check it stays /dev/null, and close
 * it, as fast as they can, while the main thread closes every directory
 * descriptor it did not open (a closefrom() of a daemon) and builds again.
 * Prints "program_fd_was_dir=N": how many times one of the threads' own
 * descriptors turned out to be a directory (jitcache's, placed on a number
 * the program was using).  0 is right.
 *
 * reuse: builds FILE, then closes every directory descriptor it did not
 * open and puts its own directory DIR under each of those numbers (dup2, as
 * bash does with `exec N>`), then (with --break-cache) makes CACHE writable
 * by everyone, so that jitcache cannot take it again, then builds FILE's
 * source with one more line (another key: a miss).  Prints "build1=ERR",
 * "build2=ERR", "reused=N" (numbers reused) and "own_fds=ok" when each
 * still is DIR afterwards.
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static cl_device_id device;
static cl_context context;

static int pick(const char *want)
{
	cl_platform_id p[8];
	cl_uint n = 0;
	if (clGetPlatformIDs(8, p, &n) != CL_SUCCESS)
		return -1;
	for (cl_uint i = 0; i < n && i < 8; i++) {
		char name[256] = "";
		clGetPlatformInfo(p[i], CL_PLATFORM_NAME, sizeof name - 1, name, NULL);
		if (strstr(name, want) &&
		    clGetDeviceIDs(p[i], CL_DEVICE_TYPE_ALL, 1, &device, NULL) == CL_SUCCESS) {
			cl_int err;
			context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
			return context ? 0 : -1;
		}
	}
	return -1;
}

static cl_int build(const char *source)
{
	cl_int err;
	cl_program prog = clCreateProgramWithSource(context, 1, &source, NULL, &err);
	if (!prog)
		return err;
	err = clBuildProgram(prog, 1, &device, "", NULL, NULL);
	clReleaseProgram(prog);
	return err;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *text = calloc(1, 1 << 20);
	size_t n = text ? fread(text, 1, (1 << 20) - 64, f) : 0;
	fclose(f);
	if (text)
		text[n] = '\0';
	return text;
}

static int is_dir(int fd)
{
	struct stat st;
	return fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
}

/* ---- race --------------------------------------------------------------- */

#define THREADS 2

static volatile int stop;
static long was_dir;

static void *opener(void *arg)
{
	(void)arg;
	while (!stop) {
		int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		for (int k = 0; k < 8; k++)
			if (is_dir(fd)) {
				__atomic_add_fetch(&was_dir, 1, __ATOMIC_RELAXED);
				break;
			}
		close(fd);
	}
	return NULL;
}

static int race(const char *text, double seconds)
{
	for (int fd = 3; fd < 200; fd++)
		if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDONLY) < 0)
			break;
	printf("build1=%d\n", (int)build(text));
	pthread_t t[THREADS];
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, opener, NULL);
	struct timespec start, now;
	clock_gettime(CLOCK_MONOTONIC, &start);
	int builds = 0, failed = 0;
	do {
		/* The directories are jitcache's: the threads open none. */
		for (int fd = 3; fd < 1024; fd++)
			if (is_dir(fd))
				close(fd);
		failed += build(text) != CL_SUCCESS;
		builds++;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((double)(now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9 <
		 seconds);
	stop = 1;
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	printf("builds=%d failed=%d\n", builds, failed);
	printf("program_fd_was_dir=%ld\n", was_dir);
	return was_dir || failed ? 1 : 0;
}

/* ---- reuse -------------------------------------------------------------- */

static int reuse(char *text, const char *own, const char *cache)
{
	cl_int err1 = build(text);
	printf("build1=%d\n", (int)err1);
	int nums[64], n = 0;
	for (int fd = 3; fd < 1024 && n < 64; fd++)
		if (is_dir(fd))
			nums[n++] = fd;
	struct stat mine;
	int dir = open(own, O_RDONLY | O_DIRECTORY);
	if (dir < 0 || fstat(dir, &mine) != 0) {
		perror(own);
		return 1;
	}
	for (int i = 0; i < n; i++)
		if (nums[i] != dir && dup2(dir, nums[i]) != nums[i])
			perror("dup2");
	printf("reused=%d\n", n);
	if (cache && chmod(cache, 0777) != 0)
		perror(cache);
	strcat(text, "\n/* the second program */\n");
	cl_int err2 = build(text);
	printf("build2=%d\n", (int)err2);
	int bad = 0;
	for (int i = 0; i < n; i++) {
		struct stat st;
		if (fstat(nums[i], &st) != 0 || st.st_ino != mine.st_ino || st.st_dev != mine.st_dev)
			bad++;
	}
	printf(bad ? "own_fds=BAD %d\n" : "own_fds=ok\n", bad);
	return err1 || err2 || bad;
}

int main(int argc, char **argv)
{
	const char *platform = NULL, *source = NULL, *own = NULL, *cache = NULL;
	double seconds = 1;
	for (int i = 2; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--platform"))
			platform = argv[i + 1];
		else if (!strcmp(argv[i], "--source"))
			source = argv[i + 1];
		else if (!strcmp(argv[i], "--own"))
			own = argv[i + 1];
		else if (!strcmp(argv[i], "--break-cache"))
			cache = argv[i + 1];
		else if (!strcmp(argv[i], "--seconds"))
			seconds = atof(argv[i + 1]);
	}
	char *text = source ? slurp(source) : NULL;
	if (argc < 2 || !platform || !text || pick(platform) != 0) {
		fprintf(stderr, "usage: cl_fd_games race|reuse --platform NAME --source FILE "
				"[--seconds S] [--own DIR] [--break-cache CACHE] (or no such platform)\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[1], "race"))
		return race(text, seconds);
	if (!strcmp(argv[1], "reuse") && own)
		return reuse(text, own, cache);
	fprintf(stderr, "cl_fd_games: unknown mode %s (or no --own)\n", argv[1]);
	return 2;
}
