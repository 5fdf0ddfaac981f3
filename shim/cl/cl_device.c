// SPDX-License-Identifier: MIT
/* OpenCL device identity, asked of the driver (see cl_device.h). */
#include "shim/cl/cl_device.h"

#include "key/compiler.h"
#include "shim/shim.h"

#include <stdlib.h>

static int hash_device_str(struct jc_fp *fp, const char *label, cl_device_id dev,
			   cl_device_info param)
{
	const struct jc_cl_real *cl = jc_cl_real();
	size_t size = 0;
	if (cl->real_clGetDeviceInfo(dev, param, 0, NULL, &size) != CL_SUCCESS)
		return -1;
	char *s = malloc(size + 1);
	if (!s || cl->real_clGetDeviceInfo(dev, param, size, s, NULL) != CL_SUCCESS) {
		free(s);
		return -1;
	}
	jc_fp_bytes(fp, label, s, size);
	free(s);
	return 0;
}

static int hash_platform_str(struct jc_fp *fp, const char *label, cl_platform_id platform,
			     cl_platform_info param)
{
	const struct jc_cl_real *cl = jc_cl_real();
	size_t size = 0;
	if (cl->real_clGetPlatformInfo(platform, param, 0, NULL, &size) != CL_SUCCESS)
		return -1;
	char *s = malloc(size + 1);
	if (!s || cl->real_clGetPlatformInfo(platform, param, size, s, NULL) != CL_SUCCESS) {
		free(s);
		return -1;
	}
	jc_fp_bytes(fp, label, s, size);
	free(s);
	return 0;
}

/* An optional Intel query: 1 and *value if the driver answers it. */
static int intel_u32(cl_device_id dev, cl_device_info param, cl_uint *value)
{
	*value = 0;
	return jc_cl_real()->real_clGetDeviceInfo(dev, param, sizeof *value, value, NULL) == CL_SUCCESS;
}

/* An Intel device is keyed by its IP version (with its stepping), as Level
 * Zero's are (shim/ze/ze.c): neither the marketing name nor the device id
 * decides the code.  Without an IP version, the device id and the simulated
 * stepping; other devices, which have no IP version, keep their name. */
static int hash_device(struct jc_fp *fp, cl_device_id dev)
{
	const struct jc_cl_real *cl = jc_cl_real();
	cl_uint vendor, intel_id, ip;
	cl_platform_id platform;
	if (cl->real_clGetDeviceInfo(dev, CL_DEVICE_VENDOR_ID, sizeof vendor, &vendor, NULL) != CL_SUCCESS ||
	    cl->real_clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL) != CL_SUCCESS)
		return -1;
	jc_fp_u64(fp, "device.vendor-id", vendor);
	int has_ip = intel_u32(dev, JC_CL_DEVICE_IP_VERSION_INTEL, &ip) && ip != 0;
	if ((!has_ip && hash_device_str(fp, "device.name", dev, CL_DEVICE_NAME)) ||
	    hash_device_str(fp, "device.version", dev, CL_DEVICE_VERSION) ||
	    hash_device_str(fp, "device.driver-version", dev, CL_DRIVER_VERSION) ||
	    hash_platform_str(fp, "platform.name", platform, CL_PLATFORM_NAME) ||
	    hash_platform_str(fp, "platform.version", platform, CL_PLATFORM_VERSION))
		return -1;
	if (has_ip) {
		/* the IP version decides the code, not the device id (shim/ze/ze.c) */
		jc_fp_u64(fp, "device.intel-ip-version", ip);
		return 0;
	}
	jc_fp_str(fp, "device.intel-ip-version", NULL);
	if (intel_u32(dev, JC_CL_DEVICE_ID_INTEL, &intel_id))
		jc_fp_u64(fp, "device.intel-id", intel_id);
	else
		jc_fp_str(fp, "device.intel-id", NULL);
	if (vendor == 0x8086)
		jc_fp_neo_revision_override(fp);
	return 0;
}

int jc_cl_hash_devices(struct jc_fp *fp, cl_uint ndev, const cl_device_id *devices)
{
	jc_fp_u64(fp, "device.count", ndev);
	for (cl_uint i = 0; i < ndev; i++)
		if (hash_device(fp, devices[i]) != 0) {
			jc_log(JC_LOG_DEBUG, "OpenCL build not cached: a device does not answer "
					     "its identity queries");
			return -1;
		}
	return 0;
}
