// SPDX-License-Identifier: MIT
/* A driver that ends a build on a thread of its own: preloaded after
 * jitcache, this clBuildProgram hands a build with a pfn_notify callback
 * to a new thread and returns at once, as the OpenCL specification allows
 * (and as drivers that build in the background do); the build itself is
 * the real driver's (PoCL's), called through the program's ICD dispatch
 * table, so that neither jitcache nor the loader sees it twice.  Builds
 * without a callback are the driver's, on the caller's thread.  The thread
 * calls pfn_notify when the driver does, as a driver's own thread would
 * (tests/integration/cl_later_redis.sh), and says so on stderr. */
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl_icd.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct build {
	cl_program program;
	cl_uint ndev;
	cl_device_id *devices;
	char *options;
	void(CL_CALLBACK *notify)(cl_program, void *);
	void *user_data;
};

/* The driver's own clBuildProgram: the first member of an ICD object is its
 * dispatch table. */
static cl_int driver_build(cl_program program, cl_uint ndev, const cl_device_id *devices,
			   const char *options, void(CL_CALLBACK *notify)(cl_program, void *),
			   void *user_data)
{
	const cl_icd_dispatch *d = *(const cl_icd_dispatch *const *)program;
	return d->clBuildProgram(program, ndev, devices, options, notify, user_data);
}

static void *build_thread(void *arg)
{
	struct build *b = arg;
	fprintf(stderr, "cl_async_driver: the build ends on the driver's thread\n");
	driver_build(b->program, b->ndev, b->devices, b->options, b->notify, b->user_data);
	free(b->devices);
	free(b->options);
	free(b);
	return NULL;
}

CL_API_ENTRY cl_int CL_API_CALL clBuildProgram(cl_program program, cl_uint ndev,
					       const cl_device_id *devices, const char *options,
					       void(CL_CALLBACK *notify)(cl_program, void *),
					       void *user_data)
{
	struct build *b = notify && program ? calloc(1, sizeof *b) : NULL;
	if (!b)
		return driver_build(program, ndev, devices, options, notify, user_data);
	*b = (struct build){ .program = program, .ndev = ndev, .notify = notify,
			     .user_data = user_data };
	if (ndev && devices && (b->devices = malloc(ndev * sizeof *devices)))
		memcpy(b->devices, devices, ndev * sizeof *devices);
	if (options)
		b->options = strdup(options);
	pthread_t t;
	if (pthread_create(&t, NULL, build_thread, b) != 0) {
		free(b->devices);
		free(b->options);
		free(b);
		return driver_build(program, ndev, devices, options, notify, user_data);
	}
	pthread_detach(t);
	return CL_SUCCESS;
}
