// SPDX-License-Identifier: MIT
/*
 * ze_client.h — the body shared by the Level Zero test clients.
 *
 * ze_client (linked to libze_loader.so.1) and ze_dlopen (dlopen + dlsym, no
 * link-time ze symbols) differ only in how they reach the API: each fills a
 * struct ze_client_api and calls ze_client_main().  Usage:
 *
 *   CLIENT MODE [options] FILE...
 *     MODE        link | table              (ze_client)
 *                 dlsym | dlsym-table       (ze_dlopen)
 *     -f FLAGS    build flags
 *     -c ID=VAL   a specialization constant (VAL is passed as a 64-bit value;
 *                 the driver reads as many bytes as the SPIR-V type has)
 *     -t N        N threads, each creating a module from FILE[i % files]
 *     -r N        create each module N times in the process
 *     -s          each thread creates a module from every FILE in turn
 *     -p          link all FILEs into one module (ZE_experimental_module_program)
 *     -n          the files are native binaries (ZE_MODULE_FORMAT_NATIVE)
 *     -x          chain an extension structure jitcache does not know
 *     -l          ask for the build log and print its size (and text on failure)
 *
 * Prints one "zeModuleCreate: S s result 0xR kernels N" line per module, and
 * exits 0 only if every module was created and all its kernels too.
 */
#ifndef JITCACHE_TEST_ZE_CLIENT_H
#define JITCACHE_TEST_ZE_CLIENT_H

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "shim/ze/ze_api.h"

struct ze_client_api {
	ze_result_t (*init)(ze_init_flags_t);
	ze_result_t (*driver_get)(uint32_t *, ze_driver_handle_t *);
	ze_result_t (*device_get)(ze_driver_handle_t, uint32_t *, ze_device_handle_t *);
	ze_result_t (*context_create)(ze_driver_handle_t, const ze_context_desc_t *,
				      ze_context_handle_t *);
	ze_result_t (*context_destroy)(ze_context_handle_t);
	ze_pfnModuleCreate_t module_create; /* the door under test */
	ze_result_t (*module_destroy)(ze_module_handle_t);
	ze_result_t (*get_kernel_names)(ze_module_handle_t, uint32_t *, const char **);
	ze_result_t (*kernel_create)(ze_module_handle_t, const ze_kernel_desc_t *,
				     ze_kernel_handle_t *);
	ze_result_t (*kernel_destroy)(ze_kernel_handle_t);
	ze_result_t (*log_get_string)(ze_module_build_log_handle_t, size_t *, char *);
	ze_result_t (*log_destroy)(ze_module_build_log_handle_t);
	ze_pfnGetModuleProcAddrTable_t get_module_table;
};

/* A dispatch table with room for fields newer drivers add after ours. */
union ze_client_table {
	ze_module_dditable_t table;
	void *room[64];
};

#define MAX_FILES 8
#define MAX_CONSTANTS 8

static struct {
	struct ze_client_api api;
	const char *flags;
	int threads, repeat, program, native, unknown_ext, want_log, sequence;
	int files;
	unsigned char *data[MAX_FILES];
	size_t size[MAX_FILES];
	uint32_t constant_ids[MAX_CONSTANTS];
	uint64_t constant_values[MAX_CONSTANTS];
	const void *constant_ptrs[MAX_CONSTANTS];
	ze_module_constants_t constants;
	ze_context_handle_t context;
	ze_device_handle_t device;
	pthread_mutex_t print_lock;
	int failures;
} zc = { .threads = 1, .repeat = 1, .print_lock = PTHREAD_MUTEX_INITIALIZER };

static double zc_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void zc_read(const char *path, int i)
{
	FILE *f = fopen(path, "rb");
	long n = -1;
	if (f && fseek(f, 0, SEEK_END) == 0)
		n = ftell(f);
	if (n <= 0 || !(zc.data[i] = malloc((size_t)n))) {
		fprintf(stderr, "cannot read %s\n", path);
		exit(2);
	}
	rewind(f);
	if (fread(zc.data[i], 1, (size_t)n, f) != (size_t)n)
		exit(2);
	fclose(f);
	zc.size[i] = (size_t)n;
}

#define ZC_CHECK(call)                                                                   \
	do {                                                                             \
		ze_result_t r_ = (call);                                                 \
		if (r_ != ZE_RESULT_SUCCESS) {                                           \
			fprintf(stderr, "%s failed: 0x%x\n", #call, (unsigned)r_);       \
			exit(1);                                                         \
		}                                                                        \
	} while (0)

static int zc_kernels(ze_module_handle_t module)
{
	uint32_t n = 0;
	if (zc.api.get_kernel_names(module, &n, NULL) != ZE_RESULT_SUCCESS)
		return -1;
	const char **names = calloc(n + 1, sizeof *names);
	if (!names || zc.api.get_kernel_names(module, &n, names) != ZE_RESULT_SUCCESS)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		ze_kernel_desc_t desc = { .stype = ZE_STRUCTURE_TYPE_KERNEL_DESC,
					  .pKernelName = names[i] };
		ze_kernel_handle_t kernel;
		ze_result_t r = zc.api.kernel_create(module, &desc, &kernel);
		if (r != ZE_RESULT_SUCCESS) {
			fprintf(stderr, "zeKernelCreate(%s) failed: 0x%x\n", names[i], (unsigned)r);
			free(names);
			return -1;
		}
		zc.api.kernel_destroy(kernel);
	}
	free(names);
	return (int)n;
}

static void zc_print_log(ze_module_build_log_handle_t log, int failed)
{
	size_t size = 0;
	ze_result_t r = zc.api.log_get_string(log, &size, NULL);
	char *text = r == ZE_RESULT_SUCCESS ? calloc(1, size + 1) : NULL;
	if (text)
		r = zc.api.log_get_string(log, &size, text);
	printf("build log: result 0x%x, %zu bytes\n", (unsigned)r, size);
	if (failed && text)
		printf("%s\n", text);
	free(text);
	zc.api.log_destroy(log);
}

/* Create (and destroy) one module from file i through the door under test. */
static void zc_create(int i)
{
	ze_module_program_exp_desc_t program = {
		.stype = ZE_STRUCTURE_TYPE_MODULE_PROGRAM_EXP_DESC,
		.count = (uint32_t)zc.files,
		.inputSizes = zc.size,
	};
	const uint8_t *inputs[MAX_FILES];
	const char *flags[MAX_FILES];
	const ze_module_constants_t *constants[MAX_FILES];
	for (int f = 0; f < zc.files; f++) {
		inputs[f] = zc.data[f];
		flags[f] = zc.flags;
		constants[f] = zc.constants.numConstants ? &zc.constants : NULL;
	}
	program.pInputModules = inputs;
	program.pBuildFlags = flags;
	program.pConstants = constants;
	ze_base_desc_t unknown = { .stype = (ze_structure_type_t)0x7ff0abcd };
	ze_module_desc_t desc = {
		.stype = ZE_STRUCTURE_TYPE_MODULE_DESC,
		.format = zc.native ? ZE_MODULE_FORMAT_NATIVE : ZE_MODULE_FORMAT_IL_SPIRV,
		.inputSize = zc.size[i],
		.pInputModule = zc.data[i],
		.pBuildFlags = zc.flags,
		.pConstants = zc.constants.numConstants ? &zc.constants : NULL,
	};
	if (zc.program) {
		/* As SYCL's Level Zero adapter does: placeholder input that must
		 * never be read, no flags or constants in the desc itself.
		 * (Intel's 2026 driver reads desc.pBuildFlags even then: a
		 * placeholder there crashes it, with or without jitcache.) */
		desc.pNext = &program;
		desc.inputSize = 1;
		desc.pInputModule = (const uint8_t *)1;
		desc.pBuildFlags = NULL;
		desc.pConstants = NULL;
	} else if (zc.unknown_ext) {
		desc.pNext = &unknown;
	}
	ze_module_handle_t module = NULL;
	ze_module_build_log_handle_t log = NULL;
	double start = zc_now();
	ze_result_t r = zc.api.module_create(zc.context, zc.device, &desc, &module,
					     zc.want_log ? &log : NULL);
	double elapsed = zc_now() - start;
	int kernels = r == ZE_RESULT_SUCCESS ? zc_kernels(module) : -1;
	pthread_mutex_lock(&zc.print_lock);
	printf("zeModuleCreate: %.4f s result 0x%x kernels %d\n", elapsed, (unsigned)r, kernels);
	if (zc.want_log)
		zc_print_log(log, r != ZE_RESULT_SUCCESS);
	if (r != ZE_RESULT_SUCCESS || kernels < 0)
		zc.failures++;
	pthread_mutex_unlock(&zc.print_lock);
	if (module)
		zc.api.module_destroy(module);
}

static void *zc_thread(void *arg)
{
	int t = (int)(intptr_t)arg;
	for (int n = 0; n < zc.repeat; n++)
		for (int f = 0; f < (zc.sequence && !zc.program ? zc.files : 1); f++)
			zc_create(zc.program ? 0 : zc.sequence ? f : t % zc.files);
	return NULL;
}

static union ze_client_table zc_table;

/* Door 3: the module table, as a loader gets it from a driver. */
static ze_result_t zc_table_create(ze_context_handle_t c, ze_device_handle_t d,
				   const ze_module_desc_t *desc, ze_module_handle_t *m,
				   ze_module_build_log_handle_t *l)
{
	return zc_table.table.pfnCreate(c, d, desc, m, l);
}

static void zc_use_table(void)
{
	if (!zc.api.get_module_table) {
		fprintf(stderr, "zeGetModuleProcAddrTable not found\n");
		exit(2);
	}
	ZC_CHECK(zc.api.get_module_table(ZE_MAKE_VERSION(1, 3), &zc_table.table));
	zc.api.module_create = zc_table_create;
}

static void zc_options(int argc, char **argv)
{
	int opt;
	while ((opt = getopt(argc, argv, "f:c:t:r:pnxls")) != -1) {
		switch (opt) {
		case 'f':
			zc.flags = optarg;
			break;
		case 'c': {
			uint32_t k = zc.constants.numConstants;
			char *eq = strchr(optarg, '=');
			if (k == MAX_CONSTANTS || !eq)
				exit(2);
			zc.constant_ids[k] = (uint32_t)strtoul(optarg, NULL, 0);
			zc.constant_values[k] = strtoull(eq + 1, NULL, 0);
			zc.constant_ptrs[k] = &zc.constant_values[k];
			zc.constants.numConstants = k + 1;
			break;
		}
		case 't':
			zc.threads = atoi(optarg);
			break;
		case 'r':
			zc.repeat = atoi(optarg);
			break;
		case 'p':
			zc.program = 1;
			break;
		case 'n':
			zc.native = 1;
			break;
		case 'x':
			zc.unknown_ext = 1;
			break;
		case 'l':
			zc.want_log = 1;
			break;
		case 's':
			zc.sequence = 1;
			break;
		default:
			exit(2);
		}
	}
	zc.constants.pConstantIds = zc.constant_ids;
	zc.constants.pConstantValues = zc.constant_ptrs;
	for (; optind < argc && zc.files < MAX_FILES; optind++)
		zc_read(argv[optind], zc.files++);
	if (zc.files == 0 || zc.threads < 1 || zc.threads > 64) {
		fprintf(stderr, "usage: see tests/helpers/ze_client.h\n");
		exit(2);
	}
}

/* argv[1] is the mode, already acted on by the caller (table or not). */
static int ze_client_main(int argc, char **argv, int use_table)
{
	zc_options(argc - 1, argv + 1);
	ZC_CHECK(zc.api.init(ZE_INIT_FLAG_GPU_ONLY));
	uint32_t n = 1;
	ze_driver_handle_t driver;
	ZC_CHECK(zc.api.driver_get(&n, &driver));
	n = 1;
	ZC_CHECK(zc.api.device_get(driver, &n, &zc.device));
	ze_context_desc_t cdesc = { .stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC };
	ZC_CHECK(zc.api.context_create(driver, &cdesc, &zc.context));
	if (use_table)
		zc_use_table();
	pthread_t threads[64];
	for (int t = 0; t < zc.threads; t++)
		if (pthread_create(&threads[t], NULL, zc_thread, (void *)(intptr_t)t) != 0)
			exit(1);
	for (int t = 0; t < zc.threads; t++)
		pthread_join(threads[t], NULL);
	zc.api.context_destroy(zc.context);
	return zc.failures ? 1 : 0;
}

#endif
