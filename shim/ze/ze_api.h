// SPDX-License-Identifier: MIT
/*
 * ze_api.h — the small part of the Level Zero ABI that jitcache (and its
 * example and test programs) use, written from the published specification
 * (oneapi-src/level-zero, include/ze_api.h and ze_ddi.h, API 1.x).
 *
 * Debian ships no Level Zero headers, and jitcache must build without an
 * SDK: it resolves the real functions at run time.  The names follow the
 * specification so that code reads as it would against <level_zero/ze_api.h>.
 * Layouts are checked below against their x86-64 sizes and offsets in the
 * published headers, and the real driver checks the rest.
 */
#ifndef JITCACHE_ZE_API_H
#define JITCACHE_ZE_API_H

#include <stddef.h>
#include <stdint.h>

#define ZE_MAKE_VERSION(major, minor) (((major) << 16) | ((minor) & 0x0000ffff))

typedef enum _ze_result_t {
	ZE_RESULT_SUCCESS = 0,
	ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY = 0x70000002,
	ZE_RESULT_ERROR_MODULE_BUILD_FAILURE = 0x70000004,
	ZE_RESULT_ERROR_UNINITIALIZED = 0x78000001,
	ZE_RESULT_ERROR_UNSUPPORTED_VERSION = 0x78000002,
	ZE_RESULT_ERROR_UNSUPPORTED_FEATURE = 0x78000003,
	ZE_RESULT_ERROR_INVALID_ARGUMENT = 0x78000004,
	ZE_RESULT_ERROR_INVALID_NULL_HANDLE = 0x78000005,
	ZE_RESULT_ERROR_INVALID_NULL_POINTER = 0x78000007,
	ZE_RESULT_ERROR_INVALID_SIZE = 0x78000008,
	ZE_RESULT_ERROR_INVALID_ENUMERATION = 0x7800000c,
	ZE_RESULT_ERROR_INVALID_NATIVE_BINARY = 0x7800000f,
	ZE_RESULT_ERROR_UNKNOWN = 0x7ffffffe,
	ZE_RESULT_FORCE_UINT32 = 0x7fffffff
} ze_result_t;

typedef enum _ze_structure_type_t {
	ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES = 0x1,
	ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES = 0x3,
	ZE_STRUCTURE_TYPE_CONTEXT_DESC = 0xd,
	ZE_STRUCTURE_TYPE_MODULE_DESC = 0x1b,
	ZE_STRUCTURE_TYPE_KERNEL_DESC = 0x1d,
	ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES = 0x1e,
	ZE_STRUCTURE_TYPE_DEVICE_IP_VERSION_EXT = 0x1000f,
	ZE_STRUCTURE_TYPE_MODULE_PROGRAM_EXP_DESC = 0x00020002,
	ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2 = 0x00020006,
	ZE_STRUCTURE_TYPE_FORCE_UINT32 = 0x7fffffff
} ze_structure_type_t;

typedef enum _ze_api_version_t {
	ZE_API_VERSION_1_0 = ZE_MAKE_VERSION(1, 0),
	ZE_API_VERSION_FORCE_UINT32 = 0x7fffffff
} ze_api_version_t;

typedef enum _ze_module_format_t {
	ZE_MODULE_FORMAT_IL_SPIRV = 0,
	ZE_MODULE_FORMAT_NATIVE = 1,
	ZE_MODULE_FORMAT_FORCE_UINT32 = 0x7fffffff
} ze_module_format_t;

typedef enum _ze_device_type_t {
	ZE_DEVICE_TYPE_GPU = 1,
	ZE_DEVICE_TYPE_FORCE_UINT32 = 0x7fffffff
} ze_device_type_t;

typedef uint32_t ze_init_flags_t;
#define ZE_INIT_FLAG_GPU_ONLY 1u

typedef struct _ze_driver_handle_t *ze_driver_handle_t;
typedef struct _ze_device_handle_t *ze_device_handle_t;
typedef struct _ze_context_handle_t *ze_context_handle_t;
typedef struct _ze_module_handle_t *ze_module_handle_t;
typedef struct _ze_module_build_log_handle_t *ze_module_build_log_handle_t;
typedef struct _ze_kernel_handle_t *ze_kernel_handle_t;

#define ZE_MAX_DRIVER_UUID_SIZE 16
#define ZE_MAX_DEVICE_UUID_SIZE 16
#define ZE_MAX_DEVICE_NAME 256

/* Every descriptor and property structure starts like this; pNext chains
 * extension structures. */
typedef struct _ze_base_desc_t {
	ze_structure_type_t stype;
	const void *pNext;
} ze_base_desc_t;

typedef struct _ze_driver_properties_t {
	ze_structure_type_t stype;
	void *pNext;
	uint8_t uuid[ZE_MAX_DRIVER_UUID_SIZE];
	uint32_t driverVersion;
} ze_driver_properties_t;

typedef struct _ze_device_properties_t {
	ze_structure_type_t stype;
	void *pNext;
	ze_device_type_t type;
	uint32_t vendorId;
	uint32_t deviceId;
	uint32_t flags;
	uint32_t subdeviceId;
	uint32_t coreClockRate;
	uint64_t maxMemAllocSize;
	uint32_t maxHardwareContexts;
	uint32_t maxCommandQueuePriority;
	uint32_t numThreadsPerEU;
	uint32_t physicalEUSimdWidth;
	uint32_t numEUsPerSubslice;
	uint32_t numSubslicesPerSlice;
	uint32_t numSlices;
	uint64_t timerResolution;
	uint32_t timestampValidBits;
	uint32_t kernelTimestampValidBits;
	uint8_t uuid[ZE_MAX_DEVICE_UUID_SIZE];
	char name[ZE_MAX_DEVICE_NAME];
} ze_device_properties_t;

/* ZE_extension_device_ip_version: chained on ze_device_properties_t. */
typedef struct _ze_device_ip_version_ext_t {
	ze_structure_type_t stype;
	const void *pNext;
	uint32_t ipVersion;
} ze_device_ip_version_ext_t;

typedef struct _ze_context_desc_t {
	ze_structure_type_t stype;
	const void *pNext;
	uint32_t flags;
} ze_context_desc_t;

typedef struct _ze_module_constants_t {
	uint32_t numConstants;
	const uint32_t *pConstantIds;
	const void **pConstantValues;
} ze_module_constants_t;

typedef struct _ze_module_desc_t {
	ze_structure_type_t stype;
	const void *pNext;
	ze_module_format_t format;
	size_t inputSize;
	const uint8_t *pInputModule;
	const char *pBuildFlags;
	const ze_module_constants_t *pConstants;
} ze_module_desc_t;

/* ZE_experimental_module_program: several SPIR-V modules linked into one.
 * When chained, the module desc's own input, flags and constants are unused. */
typedef struct _ze_module_program_exp_desc_t {
	ze_structure_type_t stype;
	const void *pNext;
	uint32_t count;
	const size_t *inputSizes;
	const uint8_t **pInputModules;
	const char **pBuildFlags;
	const ze_module_constants_t **pConstants;
} ze_module_program_exp_desc_t;

typedef struct _ze_kernel_desc_t {
	ze_structure_type_t stype;
	const void *pNext;
	uint32_t flags;
	const char *pKernelName;
} ze_kernel_desc_t;

/* What zeKernelGetProperties answers (test programs compare it on a miss
 * and on a hit). */
typedef struct _ze_kernel_uuid_t {
	uint8_t kid[16];
	uint8_t mid[16];
} ze_kernel_uuid_t;

typedef struct _ze_kernel_properties_t {
	ze_structure_type_t stype;
	void *pNext;
	uint32_t numKernelArgs;
	uint32_t requiredGroupSizeX, requiredGroupSizeY, requiredGroupSizeZ;
	uint32_t requiredNumSubGroups;
	uint32_t requiredSubgroupSize;
	uint32_t maxSubgroupSize;
	uint32_t maxNumSubgroups;
	uint32_t localMemSize;
	uint32_t privateMemSize;
	uint32_t spillMemSize;
	ze_kernel_uuid_t uuid;
} ze_kernel_properties_t;

typedef ze_result_t (*ze_pfnModuleCreate_t)(ze_context_handle_t, ze_device_handle_t,
					    const ze_module_desc_t *, ze_module_handle_t *,
					    ze_module_build_log_handle_t *);
typedef ze_result_t (*ze_pfnModuleDestroy_t)(ze_module_handle_t);
typedef ze_result_t (*ze_pfnModuleGetNativeBinary_t)(ze_module_handle_t, size_t *, uint8_t *);
typedef ze_result_t (*ze_pfnModuleBuildLogDestroy_t)(ze_module_build_log_handle_t);
typedef ze_result_t (*ze_pfnModuleBuildLogGetString_t)(ze_module_build_log_handle_t,
							size_t *, char *);
typedef ze_result_t (*ze_pfnDeviceGetProperties_t)(ze_device_handle_t, ze_device_properties_t *);
typedef ze_result_t (*ze_pfnDriverGet_t)(uint32_t *, ze_driver_handle_t *);
typedef ze_result_t (*ze_pfnDriverGetProperties_t)(ze_driver_handle_t, ze_driver_properties_t *);

/* The module dispatch table (ze_ddi.h), as a loader gets it from a driver.
 * Only the fields up to pfnGetFunctionPointer exist in every 1.x version;
 * jitcache touches pfnCreate alone. */
typedef struct _ze_module_dditable_t {
	ze_pfnModuleCreate_t pfnCreate;
	ze_pfnModuleDestroy_t pfnDestroy;
	void *pfnDynamicLink;
	ze_pfnModuleGetNativeBinary_t pfnGetNativeBinary;
	void *pfnGetGlobalPointer;
	void *pfnGetKernelNames;
	void *pfnGetProperties;
	void *pfnGetFunctionPointer;
} ze_module_dditable_t;

typedef ze_result_t (*ze_pfnGetModuleProcAddrTable_t)(ze_api_version_t, ze_module_dditable_t *);

/* Prototypes of the functions the example and test programs call (the
 * shim itself only defines zeModuleCreate and zeGetModuleProcAddrTable and
 * reaches the rest through pointers). */
ze_result_t zeInit(ze_init_flags_t flags);
ze_result_t zeDriverGet(uint32_t *pCount, ze_driver_handle_t *phDrivers);
ze_result_t zeDriverGetProperties(ze_driver_handle_t, ze_driver_properties_t *);
ze_result_t zeDeviceGet(ze_driver_handle_t, uint32_t *pCount, ze_device_handle_t *phDevices);
ze_result_t zeDeviceGetProperties(ze_device_handle_t, ze_device_properties_t *);
ze_result_t zeContextCreate(ze_driver_handle_t, const ze_context_desc_t *, ze_context_handle_t *);
ze_result_t zeContextDestroy(ze_context_handle_t);
ze_result_t zeModuleCreate(ze_context_handle_t, ze_device_handle_t, const ze_module_desc_t *,
			   ze_module_handle_t *, ze_module_build_log_handle_t *);
ze_result_t zeModuleDestroy(ze_module_handle_t);
ze_result_t zeModuleGetNativeBinary(ze_module_handle_t, size_t *pSize, uint8_t *pModuleNativeBinary);
ze_result_t zeModuleGetKernelNames(ze_module_handle_t, uint32_t *pCount, const char **pNames);
ze_result_t zeModuleBuildLogGetString(ze_module_build_log_handle_t, size_t *pSize, char *pBuildLog);
ze_result_t zeModuleBuildLogDestroy(ze_module_build_log_handle_t);
ze_result_t zeKernelCreate(ze_module_handle_t, const ze_kernel_desc_t *, ze_kernel_handle_t *);
ze_result_t zeKernelDestroy(ze_kernel_handle_t);
ze_result_t zeKernelGetProperties(ze_kernel_handle_t, ze_kernel_properties_t *);
ze_result_t zeModuleGetGlobalPointer(ze_module_handle_t, const char *pGlobalName, size_t *pSize,
				     void **pptr);
ze_result_t zeGetModuleProcAddrTable(ze_api_version_t version, ze_module_dditable_t *pDdiTable);

/* The layouts jitcache reads and writes (x86-64 figures of the published headers). */
#if defined(__x86_64__) || defined(__aarch64__)
_Static_assert(sizeof(ze_module_desc_t) == 56, "ze_module_desc_t size");
_Static_assert(offsetof(ze_module_desc_t, format) == 16, "ze_module_desc_t.format");
_Static_assert(offsetof(ze_module_desc_t, inputSize) == 24, "ze_module_desc_t.inputSize");
_Static_assert(offsetof(ze_module_desc_t, pInputModule) == 32, "ze_module_desc_t.pInputModule");
_Static_assert(offsetof(ze_module_desc_t, pBuildFlags) == 40, "ze_module_desc_t.pBuildFlags");
_Static_assert(offsetof(ze_module_desc_t, pConstants) == 48, "ze_module_desc_t.pConstants");
_Static_assert(sizeof(ze_module_constants_t) == 24, "ze_module_constants_t size");
_Static_assert(offsetof(ze_module_constants_t, pConstantIds) == 8, "pConstantIds");
_Static_assert(offsetof(ze_module_constants_t, pConstantValues) == 16, "pConstantValues");
_Static_assert(sizeof(ze_module_program_exp_desc_t) == 56, "ze_module_program_exp_desc_t size");
_Static_assert(offsetof(ze_module_program_exp_desc_t, count) == 16, "program.count");
_Static_assert(offsetof(ze_module_program_exp_desc_t, inputSizes) == 24, "program.inputSizes");
_Static_assert(offsetof(ze_module_program_exp_desc_t, pInputModules) == 32, "program.pInputModules");
_Static_assert(offsetof(ze_module_program_exp_desc_t, pBuildFlags) == 40, "program.pBuildFlags");
_Static_assert(offsetof(ze_module_program_exp_desc_t, pConstants) == 48, "program.pConstants");
_Static_assert(sizeof(ze_driver_properties_t) == 40, "ze_driver_properties_t size");
_Static_assert(offsetof(ze_driver_properties_t, uuid) == 16, "driver.uuid");
_Static_assert(offsetof(ze_driver_properties_t, driverVersion) == 32, "driver.driverVersion");
_Static_assert(sizeof(ze_device_properties_t) == 368, "ze_device_properties_t size");
_Static_assert(offsetof(ze_device_properties_t, vendorId) == 20, "device.vendorId");
_Static_assert(offsetof(ze_device_properties_t, deviceId) == 24, "device.deviceId");
_Static_assert(offsetof(ze_device_properties_t, maxMemAllocSize) == 40, "device.maxMemAllocSize");
_Static_assert(offsetof(ze_device_properties_t, timerResolution) == 80, "device.timerResolution");
_Static_assert(offsetof(ze_device_properties_t, uuid) == 96, "device.uuid");
_Static_assert(offsetof(ze_device_properties_t, name) == 112, "device.name");
_Static_assert(sizeof(ze_device_ip_version_ext_t) == 24, "ze_device_ip_version_ext_t size");
_Static_assert(offsetof(ze_device_ip_version_ext_t, ipVersion) == 16, "ip.ipVersion");
_Static_assert(sizeof(ze_kernel_desc_t) == 32, "ze_kernel_desc_t size");
_Static_assert(sizeof(ze_kernel_properties_t) == 96, "ze_kernel_properties_t size");
_Static_assert(offsetof(ze_kernel_properties_t, numKernelArgs) == 16, "kernel.numKernelArgs");
_Static_assert(offsetof(ze_kernel_properties_t, spillMemSize) == 56, "kernel.spillMemSize");
_Static_assert(offsetof(ze_kernel_properties_t, uuid) == 60, "kernel.uuid");
_Static_assert(offsetof(ze_module_dditable_t, pfnGetNativeBinary) == 24, "table.pfnGetNativeBinary");
_Static_assert(sizeof(ze_result_t) == 4 && sizeof(ze_structure_type_t) == 4, "32-bit enums");
#endif

#endif
