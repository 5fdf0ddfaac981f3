// SPDX-License-Identifier: MIT
/*
 * cl_exec — an OpenCL program that compiles, then replaces itself with
 * another program through one of the exec functions, as a launcher or a
 * wrapper script's `exec` does: for tests/integration/remote_exec.sh.
 *
 *   cl_exec N HOW PROGRAM
 *
 * Builds N small programs from source (each its own kernel text, so each
 * a miss) on the first platform whose name contains $CL_EXEC_PLATFORM
 * (default "Portable": PoCL), then runs PROGRAM with the one argument
 * "exec-ok" through HOW: execve, execv, execvp, execvpe, execl, execlp,
 * execle or fexecve; or
 *   path         execv() of PROGRAM in each directory of $PATH in turn, as
 *                Python's os.execvp does (each failed call is an exec too);
 *   exit-signal  exit(0), with an alarm 1 s later whose handler execv()s
 *                PROGRAM: the exec comes while the exit handlers run.  $CL_EXEC_TAG, if set, goes into each kernel's text
 * (a comment), so that runs with different tags make different keys.
 * Prints "built N" first.  Exit status 1 if a build or
 * the exec fails (it does not return otherwise).
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

static cl_device_id pick_device(const char *want, cl_context *ctx)
{
	cl_platform_id platforms[16];
	cl_uint n = 0;
	clGetPlatformIDs(16, platforms, &n);
	for (cl_uint i = 0; i < n; i++) {
		char name[256] = "";
		cl_device_id device;
		clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
		if (strstr(name, want) &&
		    clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_ALL, 1, &device, NULL) == CL_SUCCESS) {
			*ctx = clCreateContext(NULL, 1, &device, NULL, NULL, NULL);
			return *ctx ? device : NULL;
		}
	}
	return NULL;
}

static char *alarm_prog;

static void exec_on_alarm(int sig)
{
	(void)sig;
	char ok[] = "exec-ok";
	char *argv[] = { alarm_prog, ok, NULL };
	execv(alarm_prog, argv);
	_exit(3);
}

/* prog in each directory of $PATH, by hand. */
static int path_search(char *prog)
{
	const char *path = getenv("PATH");
	char ok[] = "exec-ok", file[PATH_MAX];
	for (const char *p = path ? path : ""; *p; p += *p == ':') {
		size_t len = strcspn(p, ":");
		snprintf(file, sizeof file, "%.*s/%s", (int)len, p, prog);
		char *argv[] = { file, ok, NULL };
		execv(file, argv);
		p += len;
	}
	return -1;
}

static int run(const char *how, char *prog)
{
	if (strcmp(how, "path") == 0)
		return path_search(prog);
	if (strcmp(how, "exit-signal") == 0) {
		alarm_prog = prog;
		signal(SIGALRM, exec_on_alarm);
		alarm(1);
		exit(0);
	}
	char ok[] = "exec-ok";
	char *argv[] = { prog, ok, NULL };
	if (strcmp(how, "execve") == 0)
		return execve(prog, argv, environ);
	if (strcmp(how, "execv") == 0)
		return execv(prog, argv);
	if (strcmp(how, "execvp") == 0)
		return execvp(prog, argv);
	if (strcmp(how, "execvpe") == 0)
		return execvpe(prog, argv, environ);
	if (strcmp(how, "execl") == 0)
		return execl(prog, prog, "exec-ok", (char *)NULL);
	if (strcmp(how, "execlp") == 0)
		return execlp(prog, prog, "exec-ok", (char *)NULL);
	if (strcmp(how, "execle") == 0)
		return execle(prog, prog, "exec-ok", (char *)NULL, environ);
	if (strcmp(how, "fexecve") == 0) {
		int fd = open(prog, O_RDONLY | O_CLOEXEC);
		return fd < 0 ? -1 : fexecve(fd, argv, environ);
	}
	fprintf(stderr, "cl_exec: no exec function %s\n", how);
	return -1;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: cl_exec N HOW PROGRAM\n");
		return 2;
	}
	const char *want = getenv("CL_EXEC_PLATFORM"), *tag = getenv("CL_EXEC_TAG");
	int n = atoi(argv[1]);
	cl_context ctx = NULL;
	cl_device_id device = pick_device(want && *want ? want : "Portable", &ctx);
	if (!device) {
		fprintf(stderr, "cl_exec: no OpenCL device\n");
		return 1;
	}
	for (int i = 0; i < n; i++) {
		char text[256];
		const char *src = text;
		snprintf(text, sizeof text,
			 "// %s\nkernel void k(global float *o) { o[get_global_id(0)] = %d.0f; }\n",
			 tag ? tag : "", i);
		cl_int err;
		cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
		if (!p || clBuildProgram(p, 1, &device, "", NULL, NULL) != CL_SUCCESS) {
			fprintf(stderr, "cl_exec: build %d failed\n", i);
			return 1;
		}
		clReleaseProgram(p);
	}
	printf("built %d\n", n);
	fflush(stdout);
	run(argv[2], argv[3]);
	perror("cl_exec: exec");
	return 1;
}
