// SPDX-License-Identifier: MIT
/*
 * ze_answers — everything a program can ask of a Level Zero module it
 * created, printed one answer a line, so that two runs (without jitcache,
 * on a miss, on a hit) can be compared with diff: the Level Zero half of
 * cl_answers (issue 40).
 *
 *   ze_answers FILE.spv [-f FLAGS] [-g GLOBAL]...
 *
 * Creates a module from the SPIR-V in FILE on the first device of the first
 * driver, asking for its build log, and prints: the result, the build log,
 * the kernel count and names (in the driver's order), for each kernel its
 * properties (argument count, required group and sub-group sizes, maximum
 * sub-groups, local, private and spill memory, the kernel and module
 * uuids), and for each GLOBAL the size zeModuleGetGlobalPointer answers.
 * Lines are "WHAT=VALUE"; a call that fails prints "err:0xCODE".
 * Exit status 0 if the module was created.
 */
#include "shim/ze/ze_api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	long n;
	if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) != 0 ||
	    !(buf = malloc((size_t)n)) || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "ze_answers: cannot read %s\n", path);
		exit(2);
	}
	fclose(f);
	*size = (size_t)n;
	return buf;
}

static void put_text(const char *what, const char *s)
{
	printf("%s=", what);
	for (; *s; s++)
		if (*s == '\n')
			fputs("\\n", stdout);
		else
			putchar(*s);
	putchar('\n');
}

static void put_uuid(const char *kernel, const char *what, const uint8_t id[16])
{
	printf("kernel.%s.%s=", kernel, what);
	for (int i = 0; i < 16; i++)
		printf("%02x", id[i]);
	putchar('\n');
}

static void put_kernel(ze_module_handle_t module, const char *name)
{
	ze_kernel_desc_t kd = { .stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = name };
	ze_kernel_handle_t k = NULL;
	ze_result_t r = zeKernelCreate(module, &kd, &k);
	if (r != ZE_RESULT_SUCCESS) {
		printf("kernel.%s.create=err:0x%x\n", name, (unsigned)r);
		return;
	}
	ze_kernel_properties_t p = { .stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES };
	r = zeKernelGetProperties(k, &p);
	if (r != ZE_RESULT_SUCCESS) {
		printf("kernel.%s.properties=err:0x%x\n", name, (unsigned)r);
	} else {
		printf("kernel.%s.num_args=%u\n", name, p.numKernelArgs);
		printf("kernel.%s.required_group_size=%u,%u,%u\n", name, p.requiredGroupSizeX,
		       p.requiredGroupSizeY, p.requiredGroupSizeZ);
		printf("kernel.%s.required_num_sub_groups=%u\n", name, p.requiredNumSubGroups);
		printf("kernel.%s.required_subgroup_size=%u\n", name, p.requiredSubgroupSize);
		printf("kernel.%s.max_subgroup_size=%u\n", name, p.maxSubgroupSize);
		printf("kernel.%s.max_num_subgroups=%u\n", name, p.maxNumSubgroups);
		printf("kernel.%s.local_mem_size=%u\n", name, p.localMemSize);
		printf("kernel.%s.private_mem_size=%u\n", name, p.privateMemSize);
		printf("kernel.%s.spill_mem_size=%u\n", name, p.spillMemSize);
		put_uuid(name, "kid", p.uuid.kid);
		put_uuid(name, "mid", p.uuid.mid);
	}
	zeKernelDestroy(k);
}

int main(int argc, char **argv)
{
	const char *file = NULL, *flags = "", *globals[16];
	int nglobals = 0;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-f") && i + 1 < argc)
			flags = argv[++i];
		else if (!strcmp(argv[i], "-g") && i + 1 < argc && nglobals < 16)
			globals[nglobals++] = argv[++i];
		else
			file = argv[i];
	if (!file) {
		fprintf(stderr, "usage: ze_answers FILE.spv [-f FLAGS] [-g GLOBAL]...\n");
		return 2;
	}
	size_t size;
	unsigned char *spv = slurp(file, &size);
	uint32_t n = 1;
	ze_driver_handle_t driver;
	ze_device_handle_t device;
	ze_context_handle_t context;
	ze_context_desc_t cd = { .stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC };
	if (zeInit(0) != ZE_RESULT_SUCCESS || zeDriverGet(&n, &driver) != ZE_RESULT_SUCCESS ||
	    (n = 1, zeDeviceGet(driver, &n, &device)) != ZE_RESULT_SUCCESS ||
	    zeContextCreate(driver, &cd, &context) != ZE_RESULT_SUCCESS) {
		fprintf(stderr, "ze_answers: no Level Zero device\n");
		return 2;
	}
	ze_module_desc_t md = { .stype = ZE_STRUCTURE_TYPE_MODULE_DESC,
				.format = ZE_MODULE_FORMAT_IL_SPIRV, .inputSize = size,
				.pInputModule = spv, .pBuildFlags = flags };
	ze_module_handle_t module = NULL;
	ze_module_build_log_handle_t log = NULL;
	ze_result_t r = zeModuleCreate(context, device, &md, &module, &log);
	printf("module.result=0x%x\n", (unsigned)r);
	size_t lsize = 0;
	if (log && zeModuleBuildLogGetString(log, &lsize, NULL) == ZE_RESULT_SUCCESS) {
		char *text = calloc(1, lsize + 1);
		if (text && zeModuleBuildLogGetString(log, &lsize, text) == ZE_RESULT_SUCCESS)
			put_text("module.build_log", text);
		free(text);
	} else {
		printf("module.build_log=%s\n", log ? "err" : "(no handle)");
	}
	if (log)
		zeModuleBuildLogDestroy(log);
	if (r != ZE_RESULT_SUCCESS)
		return 1;
	uint32_t count = 0;
	zeModuleGetKernelNames(module, &count, NULL);
	const char **names = calloc(count + 1, sizeof *names);
	if (!names || zeModuleGetKernelNames(module, &count, names) != ZE_RESULT_SUCCESS)
		return 1;
	printf("module.num_kernels=%u\n", count);
	for (uint32_t i = 0; i < count; i++)
		printf("module.kernel[%u]=%s\n", i, names[i]);
	for (uint32_t i = 0; i < count; i++)
		put_kernel(module, names[i]);
	for (int i = 0; i < nglobals; i++) {
		size_t gsize = 0;
		void *ptr = NULL;
		r = zeModuleGetGlobalPointer(module, globals[i], &gsize, &ptr);
		if (r == ZE_RESULT_SUCCESS)
			printf("global.%s.size=%zu pointer=%s\n", globals[i], gsize, ptr ? "yes" : "null");
		else
			printf("global.%s=err:0x%x\n", globals[i], (unsigned)r);
	}
	free(names);
	zeModuleDestroy(module);
	zeContextDestroy(context);
	free(spv);
	return 0;
}
