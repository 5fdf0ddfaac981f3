// SPDX-License-Identifier: MIT
/*
 * ze_fake_loader.c — a stand-in for the Level Zero loader, built by
 * tests/integration/ze_doors.sh as a shared library and preloaded after
 * libjitcache.so.  Like the real loader it reaches the driver only through
 * the driver's module dispatch table, which it gets with dlsym() on the
 * driver's handle.  So a zeModuleCreate from the application passes two
 * jitcache doors: the exported zeModuleCreate, then the table's pfnCreate.
 *
 * It reports on stderr where the pfnCreate it calls lives, so the test can
 * see that the inner door really was in the path.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "shim/ze/ze_api.h"

static union {
	ze_module_dditable_t table;
	void *room[64];
} driver;
static ze_result_t driver_result = ZE_RESULT_ERROR_UNINITIALIZED;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load_driver(void)
{
	void *lib = dlopen("libze_intel_gpu.so.1", RTLD_NOW | RTLD_LOCAL);
	ze_pfnGetModuleProcAddrTable_t get =
		lib ? (ze_pfnGetModuleProcAddrTable_t)dlsym(lib, "zeGetModuleProcAddrTable") : NULL;
	if (get)
		driver_result = get(ZE_MAKE_VERSION(1, 3), &driver.table);
	Dl_info info;
	if (driver_result == ZE_RESULT_SUCCESS && dladdr((void *)driver.table.pfnCreate, &info))
		fprintf(stderr, "fake loader: pfnCreate is in %s\n", info.dli_fname);
}

__attribute__((visibility("default"))) ze_result_t
zeModuleCreate(ze_context_handle_t context, ze_device_handle_t device,
	       const ze_module_desc_t *desc, ze_module_handle_t *module,
	       ze_module_build_log_handle_t *log)
{
	pthread_once(&once, load_driver);
	if (driver_result != ZE_RESULT_SUCCESS)
		return driver_result;
	return driver.table.pfnCreate(context, device, desc, module, log);
}
