// SPDX-License-Identifier: MIT
/*
 * ze_dlopen — a Level Zero client that, like SYCL's Unified Runtime and
 * oneDNN, dlopen()s libze_loader.so.1 and looks every function up on the
 * handle (door 2); it references no ze symbol at link time.
 *   ze_dlopen dlsym [options] FILE...        zeModuleCreate from dlsym
 *   ze_dlopen dlsym-table [options] FILE...  pfnCreate from the table that
 *                                            a dlsym'd zeGetModuleProcAddrTable fills
 * (options: ze_client.h)
 * With JC_TEST_UNLOAD=1 in the environment it then dlclose()s the loader, as
 * a program that reloads its GPU stack does, and prints one line each for
 * the loader and Intel's driver: "after dlclose: NAME mapped|unmapped"
 * (whether /proc/self/maps still lists it).
 */
#include <dlfcn.h>
#include <stdlib.h>

#include "ze_client.h"

static void *find(void *lib, const char *name)
{
	void *p = dlsym(lib, name);
	if (!p) {
		fprintf(stderr, "%s not found in libze_loader.so.1\n", name);
		exit(2);
	}
	return p;
}

int main(int argc, char **argv)
{
	if (argc < 2 || (strcmp(argv[1], "dlsym") != 0 && strcmp(argv[1], "dlsym-table") != 0)) {
		fprintf(stderr, "usage: ze_dlopen dlsym|dlsym-table [options] FILE...\n");
		return 2;
	}
	void *lib = dlopen("libze_loader.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "%s\n", dlerror());
		return 2;
	}
#define FIND(field, name) (zc.api.field = (__typeof__(zc.api.field))find(lib, name))
	FIND(init, "zeInit");
	FIND(driver_get, "zeDriverGet");
	FIND(device_get, "zeDeviceGet");
	FIND(context_create, "zeContextCreate");
	FIND(context_destroy, "zeContextDestroy");
	FIND(module_create, "zeModuleCreate");
	FIND(module_destroy, "zeModuleDestroy");
	FIND(get_kernel_names, "zeModuleGetKernelNames");
	FIND(kernel_create, "zeKernelCreate");
	FIND(kernel_destroy, "zeKernelDestroy");
	FIND(log_get_string, "zeModuleBuildLogGetString");
	FIND(log_destroy, "zeModuleBuildLogDestroy");
	FIND(get_module_table, "zeGetModuleProcAddrTable");
#undef FIND
	int rc = ze_client_main(argc, argv, strcmp(argv[1], "dlsym-table") == 0);
	const char *unload = getenv("JC_TEST_UNLOAD");
	if (!unload || strcmp(unload, "1") != 0)
		return rc;
	if (dlclose(lib) != 0)
		return fprintf(stderr, "dlclose: %s\n", dlerror()), 2;
	static const char *const names[] = { "libze_loader.so", "libze_intel_gpu.so" };
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		char line[4096];
		int mapped = 0;
		FILE *maps = fopen("/proc/self/maps", "r");
		while (maps && fgets(line, sizeof line, maps))
			mapped |= strstr(line, names[i]) != NULL;
		if (maps)
			fclose(maps);
		printf("after dlclose: %s %s\n", names[i], mapped ? "mapped" : "unmapped");
	}
	return rc;
}
