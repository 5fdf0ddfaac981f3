// SPDX-License-Identifier: MIT
/*
 * cl_device.h — an OpenCL device as a build's key sees it: vendor,
 * versions of the device, its driver and platform, and Intel's device id
 * and IP version where the driver answers them (else the device's name),
 * asked of the driver.
 *
 *   if (jc_cl_hash_devices(fp, ndev, devices) != 0) ...not cacheable...
 *
 * Devices in the program's own order (CL_PROGRAM_DEVICES).  Returns -1,
 * after a debug-level line, when a device does not answer its queries.
 */
#ifndef JITCACHE_SHIM_CL_DEVICE_H
#define JITCACHE_SHIM_CL_DEVICE_H

#include "key/fingerprint.h"
#include "shim/cl/cl_api.h"

int jc_cl_hash_devices(struct jc_fp *fp, cl_uint ndev, const cl_device_id *devices);

#endif
