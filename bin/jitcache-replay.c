/*
 * jitcache-replay — the worker of `jitcache warm` (bin/warm.c): an ordinary
 * Level Zero program, run with libjitcache preloaded, that makes again the
 * requests written down in recipes (key/recipe.h).  Its zeModuleCreate
 * calls go through the shim's own miss path (shim/compile_once.c), so every
 * module it builds is stored under the key a real application computes on
 * this driver and device, and one already there is a hit and costs a load.
 * It knows nothing of the cache: it only re-issues calls.
 *
 * Protocol, on stdin and stdout:
 *   out: "device VENDOR ID IP NAME" per GPU (hex, as the driver reports
 *        them), then "ready N" (N devices), or "none WHY" and exit 1;
 *   in:  a recipe: u64 little-endian size, then its bytes; end of input ends;
 *   out: one line per recipe: "ok", "fail 0xRESULT" (the driver refused it
 *        on some device) or "skip WHY" (this worker cannot replay it).
 * The driver is reached through libze_loader.so.1 (else straight through
 * libze_intel_gpu.so.1), looked up with dlsym as SYCL does.
 */
#include "key/recipe.h"
#include "shim/ze_api.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEVICES 16

static struct {
	__typeof__(zeInit) *init;
	__typeof__(zeDriverGet) *driver_get;
	__typeof__(zeDeviceGet) *device_get;
	__typeof__(zeDeviceGetProperties) *device_properties;
	__typeof__(zeContextCreate) *context_create;
	__typeof__(zeModuleCreate) *module_create;
	__typeof__(zeModuleDestroy) *module_destroy;
	__typeof__(zeModuleBuildLogDestroy) *log_destroy;
} ze;

struct gpu {
	ze_context_handle_t context;
	ze_device_handle_t device;
};

static struct gpu gpus[MAX_DEVICES];
static unsigned n_gpus;

static int load_ze(void)
{
	void *lib = dlopen("libze_loader.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		lib = dlopen("libze_intel_gpu.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return -1;
#define FIND(field, name) (ze.field = (__typeof__(ze.field))dlsym(lib, name))
	FIND(init, "zeInit");
	FIND(driver_get, "zeDriverGet");
	FIND(device_get, "zeDeviceGet");
	FIND(device_properties, "zeDeviceGetProperties");
	FIND(context_create, "zeContextCreate");
	FIND(module_create, "zeModuleCreate");
	FIND(module_destroy, "zeModuleDestroy");
	FIND(log_destroy, "zeModuleBuildLogDestroy");
#undef FIND
	return ze.init && ze.driver_get && ze.device_get && ze.device_properties &&
	       ze.context_create && ze.module_create && ze.module_destroy && ze.log_destroy
		       ? 0 : -1;
}

static void announce(ze_device_handle_t device)
{
	ze_device_ip_version_ext_t ip = { .stype = ZE_STRUCTURE_TYPE_DEVICE_IP_VERSION_EXT };
	ze_device_properties_t p = { .stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES, .pNext = &ip };
	if (ze.device_properties(device, &p) != ZE_RESULT_SUCCESS) {
		ip.ipVersion = 0;
		p = (ze_device_properties_t){ .stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES };
		ze.device_properties(device, &p);
	}
	printf("device %x %x %x %.*s\n", p.vendorId, p.deviceId, ip.ipVersion,
	       (int)strnlen(p.name, sizeof p.name), p.name);
}

/* Every GPU of every driver, each with a context of its driver. */
static const char *find_gpus(void)
{
	ze_driver_handle_t drivers[MAX_DEVICES];
	uint32_t nd = 0;
	if (load_ze() != 0)
		return "no Level Zero loader or driver (libze_loader.so.1, libze_intel_gpu.so.1)";
	if (ze.init(ZE_INIT_FLAG_GPU_ONLY) != ZE_RESULT_SUCCESS ||
	    ze.driver_get(&nd, NULL) != ZE_RESULT_SUCCESS || nd == 0)
		return "no Level Zero driver offers a GPU";
	if (nd > MAX_DEVICES)
		nd = MAX_DEVICES;
	if (ze.driver_get(&nd, drivers) != ZE_RESULT_SUCCESS)
		return "no Level Zero driver offers a GPU";
	for (uint32_t d = 0; d < nd && n_gpus < MAX_DEVICES; d++) {
		ze_device_handle_t devices[MAX_DEVICES];
		uint32_t n = 0;
		ze_context_desc_t cd = { .stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC };
		ze_context_handle_t context;
		if (ze.device_get(drivers[d], &n, NULL) != ZE_RESULT_SUCCESS || n == 0)
			continue;
		if (n > MAX_DEVICES - n_gpus)
			n = MAX_DEVICES - n_gpus;
		if (ze.device_get(drivers[d], &n, devices) != ZE_RESULT_SUCCESS ||
		    ze.context_create(drivers[d], &cd, &context) != ZE_RESULT_SUCCESS)
			continue;
		for (uint32_t i = 0; i < n; i++) {
			gpus[n_gpus++] = (struct gpu){ context, devices[i] };
			announce(devices[i]);
		}
	}
	return n_gpus ? NULL : "no Level Zero device";
}

/* The driver's structures for a recipe's inputs (pointing into it). */
struct inputs {
	ze_module_constants_t *constants;
	const ze_module_constants_t **pconstants;
	size_t *sizes;
	const uint8_t **modules;
	const char **flags;
};

static void inputs_free(struct inputs *x)
{
	free(x->constants), free(x->pconstants), free(x->sizes), free(x->modules), free(x->flags);
}

static int inputs_of(const struct jc_recipe *r, struct inputs *x)
{
	uint32_t n = r->ze_count;
	x->constants = calloc(n, sizeof *x->constants);
	x->pconstants = calloc(n, sizeof *x->pconstants);
	x->sizes = calloc(n, sizeof *x->sizes);
	x->modules = calloc(n, sizeof *x->modules);
	x->flags = calloc(n, sizeof *x->flags);
	if (!x->constants || !x->pconstants || !x->sizes || !x->modules || !x->flags)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		const struct jc_ze_input *in = &r->ze[i];
		x->constants[i] = (ze_module_constants_t){
			.numConstants = in->n_constants,
			.pConstantIds = in->constant_ids,
			.pConstantValues = (const void **)(uintptr_t)in->constant_values,
		};
		x->pconstants[i] = in->n_constants ? &x->constants[i] : NULL;
		x->sizes[i] = in->size;
		x->modules[i] = in->spirv;
		x->flags[i] = in->flags;
	}
	return 0;
}

/* One module create of the recipe on one GPU, as the application made it:
 * one input in the module desc itself, several through the program
 * extension. */
static ze_result_t create_on(const struct gpu *g, const struct jc_recipe *r,
			     const struct inputs *x)
{
	ze_module_program_exp_desc_t program = {
		.stype = ZE_STRUCTURE_TYPE_MODULE_PROGRAM_EXP_DESC, .count = r->ze_count,
		.inputSizes = x->sizes, .pInputModules = x->modules, .pBuildFlags = x->flags,
		.pConstants = x->pconstants,
	};
	ze_module_desc_t desc = {
		.stype = ZE_STRUCTURE_TYPE_MODULE_DESC, .format = ZE_MODULE_FORMAT_IL_SPIRV,
		.inputSize = x->sizes[0], .pInputModule = x->modules[0],
		.pBuildFlags = x->flags[0], .pConstants = x->pconstants[0],
	};
	if (r->ze_count > 1)
		desc.pNext = &program;
	ze_module_handle_t module = NULL;
	ze_module_build_log_handle_t log = NULL;
	ze_result_t rc = ze.module_create(g->context, g->device, &desc, &module, &log);
	if (log)
		ze.log_destroy(log);
	if (rc == ZE_RESULT_SUCCESS)
		ze.module_destroy(module);
	return rc;
}

static void replay(const void *bytes, size_t size)
{
	struct jc_recipe r;
	if (jc_recipe_decode(bytes, size, &r) != 0) {
		printf("skip not a recipe this version reads\n");
		return;
	}
	if (r.api != JC_RECIPE_ZE) {
		printf("skip OpenCL recipes are not replayed yet\n");
	} else {
		struct inputs x = { 0 };
		ze_result_t worst = inputs_of(&r, &x) == 0 ? ZE_RESULT_SUCCESS
							    : ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
		for (unsigned i = 0; i < n_gpus && worst == ZE_RESULT_SUCCESS; i++)
			worst = create_on(&gpus[i], &r, &x);
		inputs_free(&x);
		if (worst == ZE_RESULT_SUCCESS)
			printf("ok\n");
		else
			printf("fail 0x%x\n", (unsigned)worst);
	}
	jc_recipe_free(&r);
}

int main(void)
{
	const char *why = find_gpus();
	if (why) {
		printf("none %s\n", why);
		return 1;
	}
	printf("ready %u\n", n_gpus);
	fflush(stdout);
	for (;;) {
		uint8_t head[8];
		if (fread(head, 1, 8, stdin) != 8)
			return 0;
		uint64_t size = 0;
		for (int i = 7; i >= 0; i--)
			size = size << 8 | head[i];
		void *bytes = size < (1ull << 32) ? malloc(size ? size : 1) : NULL;
		if (!bytes || fread(bytes, 1, size, stdin) != size) {
			printf("skip cannot read the recipe\n");
			return 1;
		}
		replay(bytes, size);
		fflush(stdout);
		free(bytes);
	}
}
