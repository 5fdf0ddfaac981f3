// SPDX-License-Identifier: MIT
/*
 * ze_bench — the Level Zero client of the benchmarks (bench/run.sh).
 *
 *   ze_bench spirv  FILE.spv [--save-native OUT] [--flags FLAGS]
 *   ze_bench native FILE     [--flags FLAGS]
 *
 * One process, one module: it reads FILE into memory, initialises the driver
 * (zeInit, first driver and device, a context), then times its FIRST
 * zeModuleCreate — the one a real program pays at start-up:
 *   spirv:  ZE_MODULE_FORMAT_IL_SPIRV, the JIT (cold without jitcache; under
 *           `jitcache run` a miss or a hit);
 *   native: ZE_MODULE_FORMAT_NATIVE from the native binary already in memory,
 *           no jitcache: the floor, what a perfect cache could not beat.
 * --save-native writes zeModuleGetNativeBinary's output (what jitcache
 * stores) after the timed call, outside the timing: the floor's input.
 * Then every kernel is created, as a real program would, to show the module
 * is usable (timed separately).
 *
 * Prints one line of key=value pairs, times in seconds:
 *   ze_bench mode=spirv input_bytes=N init_s=X create_s=X kernels=K kernels_s=X
 * Exits non-zero, naming the call and its ze_result_t, on any failure.
 * Like examples/ze_module it knows nothing of jitcache.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "shim/ze/ze_api.h"

#define CHECK(call)                                                                   \
	do {                                                                          \
		ze_result_t r_ = (call);                                              \
		if (r_ != ZE_RESULT_SUCCESS) {                                        \
			fprintf(stderr, "ze_bench: %s failed: 0x%x\n", #call,         \
				(unsigned)r_);                                        \
			exit(1);                                                      \
		}                                                                     \
	} while (0)

static double seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static unsigned char *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		exit(1);
	}
	if (fseek(f, 0, SEEK_END) != 0) {
		perror(path);
		exit(1);
	}
	long n = ftell(f);
	rewind(f);
	unsigned char *data = malloc(n > 0 ? (size_t)n : 1);
	if (!data || n <= 0 || fread(data, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "ze_bench: cannot read %s\n", path);
		exit(1);
	}
	fclose(f);
	*size = (size_t)n;
	return data;
}

static void write_native(ze_module_handle_t module, const char *path)
{
	size_t size = 0;
	CHECK(zeModuleGetNativeBinary(module, &size, NULL));
	unsigned char *bin = malloc(size ? size : 1);
	if (!bin)
		exit(1);
	CHECK(zeModuleGetNativeBinary(module, &size, bin));
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(bin, 1, size, f) != size || fclose(f) != 0) {
		fprintf(stderr, "ze_bench: cannot write %s\n", path);
		exit(1);
	}
	free(bin);
}

static void print_build_log(ze_module_build_log_handle_t log)
{
	size_t size = 0;
	if (!log || zeModuleBuildLogGetString(log, &size, NULL) != ZE_RESULT_SUCCESS || size <= 1)
		return;
	char *text = malloc(size);
	if (text && zeModuleBuildLogGetString(log, &size, text) == ZE_RESULT_SUCCESS)
		fprintf(stderr, "build log:\n%s\n", text);
	free(text);
}

static int usage(void)
{
	fprintf(stderr, "usage: ze_bench spirv FILE.spv [--save-native OUT] [--flags FLAGS]\n"
			"       ze_bench native FILE [--flags FLAGS]\n");
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return usage();
	int native = strcmp(argv[1], "native") == 0;
	if (!native && strcmp(argv[1], "spirv") != 0)
		return usage();
	const char *save = NULL, *flags = "";
	for (int i = 3; i < argc; i++) {
		if (strcmp(argv[i], "--save-native") == 0 && i + 1 < argc && !native)
			save = argv[++i];
		else if (strcmp(argv[i], "--flags") == 0 && i + 1 < argc)
			flags = argv[++i];
		else
			return usage();
	}
	size_t input_size;
	unsigned char *input = read_file(argv[2], &input_size);

	double t0 = seconds();
	CHECK(zeInit(ZE_INIT_FLAG_GPU_ONLY));
	uint32_t count = 1;
	ze_driver_handle_t driver;
	CHECK(zeDriverGet(&count, &driver));
	count = 1;
	ze_device_handle_t device;
	CHECK(zeDeviceGet(driver, &count, &device));
	ze_context_desc_t context_desc = { .stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC };
	ze_context_handle_t context;
	CHECK(zeContextCreate(driver, &context_desc, &context));
	double init_s = seconds() - t0;

	ze_module_desc_t desc = {
		.stype = ZE_STRUCTURE_TYPE_MODULE_DESC,
		.format = native ? ZE_MODULE_FORMAT_NATIVE : ZE_MODULE_FORMAT_IL_SPIRV,
		.inputSize = input_size,
		.pInputModule = input,
		.pBuildFlags = flags,
	};
	ze_module_handle_t module;
	ze_module_build_log_handle_t log = NULL;
	t0 = seconds();
	ze_result_t r = zeModuleCreate(context, device, &desc, &module, &log);
	double create_s = seconds() - t0;
	if (r != ZE_RESULT_SUCCESS) {
		fprintf(stderr, "ze_bench: zeModuleCreate failed: 0x%x\n", (unsigned)r);
		print_build_log(log);
		return 1;
	}
	if (log)
		CHECK(zeModuleBuildLogDestroy(log));
	if (save)
		write_native(module, save);

	t0 = seconds();
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
	double kernels_s = seconds() - t0;
	if (n == 0) {
		fprintf(stderr, "ze_bench: the module has no kernels\n");
		return 1;
	}
	printf("ze_bench mode=%s input_bytes=%zu init_s=%.6f create_s=%.6f kernels=%u "
	       "kernels_s=%.6f\n", argv[1], input_size, init_s, create_s, n, kernels_s);
	fflush(stdout);

	for (uint32_t i = 0; i < n; i++)
		CHECK(zeKernelDestroy(kernels[i]));
	CHECK(zeModuleDestroy(module));
	CHECK(zeContextDestroy(context));
	free(kernels);
	free(names);
	free(input);
	return 0;
}
