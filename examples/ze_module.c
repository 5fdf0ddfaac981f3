// SPDX-License-Identifier: MIT
/*
 * ze_module — a small Level Zero program: load a SPIR-V file, build it into a
 * module on the first GPU, and create every kernel it holds.
 *
 *   ze_module KERNELS.spv [BUILD-FLAGS]
 *
 * Prints how long zeModuleCreate took and how many kernels were created.
 * Exits non-zero, naming the failing call and its ze_result_t, on any error.
 * This is an ordinary Level Zero client: it knows nothing of jitcache, which
 * speeds up its zeModuleCreate when run under `jitcache run`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Debian ships no Level Zero headers; this is jitcache's declaration of the
 * part of <level_zero/ze_api.h> used here, with the specification's names. */
#include "shim/ze/ze_api.h"

#define CHECK(call)                                                              \
	do {                                                                     \
		ze_result_t r_ = (call);                                         \
		if (r_ != ZE_RESULT_SUCCESS) {                                   \
			fprintf(stderr, "ze_module: %s failed: 0x%x\n", #call,   \
				(unsigned)r_);                                   \
			exit(1);                                                 \
		}                                                                \
	} while (0)

static unsigned char *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		exit(1);
	}
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	unsigned char *data = malloc(n > 0 ? (size_t)n : 1);
	if (!data || n <= 0 || fread(data, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "ze_module: cannot read %s\n", path);
		exit(1);
	}
	fclose(f);
	*size = (size_t)n;
	return data;
}

static double seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void print_build_log(ze_module_build_log_handle_t log)
{
	size_t size = 0;
	if (zeModuleBuildLogGetString(log, &size, NULL) != ZE_RESULT_SUCCESS || size <= 1)
		return;
	char *text = malloc(size);
	if (text && zeModuleBuildLogGetString(log, &size, text) == ZE_RESULT_SUCCESS)
		fprintf(stderr, "build log:\n%s\n", text);
	free(text);
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: ze_module KERNELS.spv [BUILD-FLAGS]\n");
		return 2;
	}
	size_t spirv_size;
	unsigned char *spirv = read_file(argv[1], &spirv_size);

	CHECK(zeInit(ZE_INIT_FLAG_GPU_ONLY));
	uint32_t count = 1;
	ze_driver_handle_t driver;
	CHECK(zeDriverGet(&count, &driver));
	count = 1;
	ze_device_handle_t device;
	CHECK(zeDeviceGet(driver, &count, &device));
	ze_device_properties_t props = { .stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES };
	CHECK(zeDeviceGetProperties(device, &props));
	ze_context_desc_t context_desc = { .stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC };
	ze_context_handle_t context;
	CHECK(zeContextCreate(driver, &context_desc, &context));

	ze_module_desc_t desc = {
		.stype = ZE_STRUCTURE_TYPE_MODULE_DESC,
		.format = ZE_MODULE_FORMAT_IL_SPIRV,
		.inputSize = spirv_size,
		.pInputModule = spirv,
		.pBuildFlags = argc > 2 ? argv[2] : "",
	};
	ze_module_handle_t module;
	ze_module_build_log_handle_t log = NULL;
	double start = seconds();
	ze_result_t r = zeModuleCreate(context, device, &desc, &module, &log);
	double elapsed = seconds() - start;
	if (r != ZE_RESULT_SUCCESS) {
		fprintf(stderr, "ze_module: zeModuleCreate failed: 0x%x\n", (unsigned)r);
		if (log)
			print_build_log(log);
		return 1;
	}
	if (log)
		CHECK(zeModuleBuildLogDestroy(log));
	printf("device: %s\n", props.name);
	printf("zeModuleCreate: %.3f s (%zu bytes of SPIR-V)\n", elapsed, spirv_size);

	uint32_t n = 0;
	CHECK(zeModuleGetKernelNames(module, &n, NULL));
	const char **names = calloc(n ? n : 1, sizeof *names);
	ze_kernel_handle_t *kernels = calloc(n ? n : 1, sizeof *kernels);
	if (!names || !kernels)
		return 1;
	CHECK(zeModuleGetKernelNames(module, &n, names));
	for (uint32_t i = 0; i < n; i++) {
		ze_kernel_desc_t kdesc = { .stype = ZE_STRUCTURE_TYPE_KERNEL_DESC,
					   .pKernelName = names[i] };
		CHECK(zeKernelCreate(module, &kdesc, &kernels[i]));
	}
	printf("kernels: %u created\n", n);

	for (uint32_t i = 0; i < n; i++)
		CHECK(zeKernelDestroy(kernels[i]));
	CHECK(zeModuleDestroy(module));
	CHECK(zeContextDestroy(context));
	free(kernels);
	free(names);
	free(spirv);
	return 0;
}
