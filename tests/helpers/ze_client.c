// SPDX-License-Identifier: MIT
/*
 * ze_client — a Level Zero client linked to libze_loader.so.1 (door 1), or
 * using the module table from zeGetModuleProcAddrTable (door 3).
 *   ze_client link|table [options] FILE...     (options: ze_client.h)
 */
#include "ze_client.h"

int main(int argc, char **argv)
{
	if (argc < 2 || (strcmp(argv[1], "link") != 0 && strcmp(argv[1], "table") != 0)) {
		fprintf(stderr, "usage: ze_client link|table [options] FILE...\n");
		return 2;
	}
	zc.api = (struct ze_client_api){
		.init = zeInit,
		.driver_get = zeDriverGet,
		.device_get = zeDeviceGet,
		.context_create = zeContextCreate,
		.context_destroy = zeContextDestroy,
		.module_create = zeModuleCreate,
		.module_destroy = zeModuleDestroy,
		.get_kernel_names = zeModuleGetKernelNames,
		.kernel_create = zeKernelCreate,
		.kernel_destroy = zeKernelDestroy,
		.log_get_string = zeModuleBuildLogGetString,
		.log_destroy = zeModuleBuildLogDestroy,
		.get_module_table = zeGetModuleProcAddrTable,
	};
	return ze_client_main(argc, argv, strcmp(argv[1], "table") == 0);
}
