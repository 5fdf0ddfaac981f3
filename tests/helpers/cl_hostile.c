// SPDX-License-Identifier: MIT
/*
 * cl_hostile — an OpenCL program that does what programs may do to the
 * descriptors and directory jitcache lives beside (issue 26):
 *
 *   cl_hostile --platform NAME --source FILE [--options STR]
 *              [--own FILE] [--chdir DIR]
 *
 * With --chdir it first changes directory (after jitcache was loaded from
 * where it started).  It builds the program from FILE once; then, with
 * --own, closes every descriptor from 3 up that it did not open (a daemon's
 * closefrom(3) after fork, a sandbox) and opens FILE eight times for
 * appending (the lowest numbers, 3 and up); then it builds a second
 * program (FILE's source with one more line: another key) and, with --own,
 * writes one line to each of its descriptors and checks each is still the
 * file it opened.
 *
 * Prints "build1=ERR", "build2=ERR" and, with --own, "own_fds=ok" or
 * "own_fds=BAD N" (N descriptors no longer the program's file).  The file
 * must then hold exactly the eight lines "line K of the program" and
 * nothing else.  Exit status 0 only if everything succeeded.
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OWN 8

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
		if (strstr(name, want) && clGetDeviceIDs(p[i], CL_DEVICE_TYPE_ALL, 1, &device, NULL) ==
						  CL_SUCCESS) {
			cl_int err;
			context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
			return context ? 0 : -1;
		}
	}
	return -1;
}

static cl_int build(const char *source, const char *options)
{
	cl_int err;
	cl_program prog = clCreateProgramWithSource(context, 1, &source, NULL, &err);
	if (!prog)
		return err;
	err = clBuildProgram(prog, 1, &device, options, NULL, NULL);
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

int main(int argc, char **argv)
{
	const char *platform = NULL, *source = NULL, *options = "", *own = NULL, *dir = NULL;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--platform"))
			platform = argv[i + 1];
		else if (!strcmp(argv[i], "--source"))
			source = argv[i + 1];
		else if (!strcmp(argv[i], "--options"))
			options = argv[i + 1];
		else if (!strcmp(argv[i], "--own"))
			own = argv[i + 1];
		else if (!strcmp(argv[i], "--chdir"))
			dir = argv[i + 1];
	}
	char *text = source ? slurp(source) : NULL;
	if (!platform || !text || pick(platform) != 0) {
		fprintf(stderr, "usage: cl_hostile --platform NAME --source FILE [--options STR] "
				"[--own FILE] [--chdir DIR] (or no such platform)\n");
		return 2;
	}
	if (dir && chdir(dir) != 0) {
		perror(dir);
		return 1;
	}
	cl_int err1 = build(text, options);
	printf("build1=%d\n", (int)err1);
	fflush(stdout);

	int fds[OWN];
	struct stat was[OWN];
	if (own) {
		/* Everything this program did not open goes, as closefrom(3). */
		for (int fd = 3; fd < 4096; fd++)
			close(fd);
		for (int k = 0; k < OWN; k++) {
			fds[k] = open(own, O_WRONLY | O_APPEND | O_CREAT, 0644);
			if (fds[k] < 0 || fstat(fds[k], &was[k]) != 0) {
				perror(own);
				return 1;
			}
		}
	}
	strcat(text, "\n/* the second program */\n");
	cl_int err2 = build(text, options);
	printf("build2=%d\n", (int)err2);

	int bad = 0;
	if (own) {
		for (int k = 0; k < OWN; k++) {
			struct stat now;
			char line[64];
			int n = snprintf(line, sizeof line, "line %d of the program\n", k + 1);
			if (fstat(fds[k], &now) != 0 || now.st_dev != was[k].st_dev ||
			    now.st_ino != was[k].st_ino || write(fds[k], line, (size_t)n) != n)
				bad++;
		}
		if (bad)
			printf("own_fds=BAD %d\n", bad);
		else
			printf("own_fds=ok\n");
	}
	free(text);
	return err1 == CL_SUCCESS && err2 == CL_SUCCESS && !bad ? 0 : 1;
}
