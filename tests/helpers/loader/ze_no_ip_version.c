// SPDX-License-Identifier: MIT
/*
 * ze_no_ip_version.c — built by tests/integration/ze_keys.sh as a shared
 * library and preloaded after libjitcache.so: a zeDeviceGetProperties that
 * refuses any structure chained on pNext, as a driver without the IP version
 * extension may.  jitcache asks for the IP version without listing the
 * driver's extensions first, so it must then ask again without it and still
 * cache the module.  Says on stderr each time it refuses.
 */
#include <dlfcn.h>
#include <stdio.h>

#include "shim/ze/ze_api.h"

__attribute__((visibility("default"))) ze_result_t
zeDeviceGetProperties(ze_device_handle_t device, ze_device_properties_t *properties)
{
	ze_pfnDeviceGetProperties_t real =
		(ze_pfnDeviceGetProperties_t)dlsym(RTLD_NEXT, "zeDeviceGetProperties");
	if (properties && properties->pNext) {
		fprintf(stderr, "no-ip: refused a chained structure\n");
		return ZE_RESULT_ERROR_INVALID_ENUMERATION;
	}
	return real ? real(device, properties) : ZE_RESULT_ERROR_UNINITIALIZED;
}
