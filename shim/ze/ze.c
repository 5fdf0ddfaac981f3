// SPDX-License-Identifier: MIT
/*
 * Level Zero: zeModuleCreate(SPIR-V) answered from the cache.
 *
 * Programs reach a driver's zeModuleCreate through three doors, and each
 * leads to the same module_create() with the real functions of that door:
 *
 *   1. the exported symbol zeModuleCreate (programs linked to the loader);
 *   2. a dlsym() of "zeModuleCreate" on a library handle (SYCL's Unified
 *      Runtime, oneDNN), answered by shim/dlsym.c with one of our wrappers;
 *      "zeGetModuleProcAddrTable" looked up that way is wrapped too, since
 *      that is how a loader reaches a driver;
 *   3. the module dispatch table filled by zeGetModuleProcAddrTable, whose
 *      pfnCreate we replace with a wrapper around the original.
 *
 * The functions a wrapper needs besides create (read the native binary,
 * destroy, device and driver properties) come from the library that holds
 * that door's real create, so handles are never mixed between a loader and a
 * driver.  A call that passes two doors (a loader's wrapper calling a
 * driver's) is handled by the outer one only: jc_enter() makes the inner one
 * pass straight through, as it does for jitcache's own calls.
 *
 * Doors 2 and 3 wrap function pointers found at run time, so their wrappers
 * are a fixed set of small functions, each bound to one slot that records the
 * real pointer it stands for.
 */
#include "key/compiler.h"
#include "key/fingerprint.h"
#include "key/memo.h"
#include "key/recipe.h"
#include "key/spirv.h"
#include "key/ze_request.h"
#include "shim/compile_once.h"
#include "shim/shim.h"
#include "shim/ze/ze_api.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- doors --------------------------------------------------------------- */

/* The real functions one wrapper uses, all from the library of `create`. */
struct ze_fns {
	ze_pfnModuleGetNativeBinary_t get_native_binary;
	ze_pfnModuleBuildLogDestroy_t build_log_destroy;
	/* optional: without them a hit's build log is not read (load_native) */
	ze_pfnModuleBuildLogGetString_t build_log_get_string;
	ze_pfnModuleDestroy_t module_destroy;
	ze_pfnDeviceGetProperties_t device_get_properties;
	ze_pfnDriverGet_t driver_get;
	ze_pfnDriverGetProperties_t driver_get_properties;
};

struct ze_door {
	const char *name;           /* how the call came in, for the log */
	ze_pfnModuleCreate_t create; /* the real function behind this door */
	int next;                   /* create is the next definition after jitcache,
				       and so are the fns */
	int state;                  /* 0: fns not looked up, 1: usable, -1: not */
	struct ze_fns fns;
};

static pthread_mutex_t doors_lock = PTHREAD_MUTEX_INITIALIZER;

static void find_fns(struct ze_door *door)
{
	const char *file = NULL;
	void *lib = RTLD_NEXT;
	if (!door->next) {
		/* RTLD_NOLOAD: the library is loaded already; this only finds it,
		 * and the reference it takes is given back below, so that a
		 * program that dlclose()s its GPU stack unloads it. */
		file = jc_library_file_of((const void *)door->create);
		lib = file ? dlopen(file, RTLD_LAZY | RTLD_NOLOAD) : NULL;
	}
	struct ze_fns *f = &door->fns;
	if (lib) {
#define FIND(field, name) (f->field = (__typeof__(f->field))jc_real_dlsym(lib, name))
		FIND(get_native_binary, "zeModuleGetNativeBinary");
		FIND(build_log_destroy, "zeModuleBuildLogDestroy");
		FIND(build_log_get_string, "zeModuleBuildLogGetString");
		FIND(module_destroy, "zeModuleDestroy");
		FIND(device_get_properties, "zeDeviceGetProperties");
		FIND(driver_get, "zeDriverGet");
		FIND(driver_get_properties, "zeDriverGetProperties");
#undef FIND
		if (lib != RTLD_NEXT)
			dlclose(lib);
	}
	int complete = f->get_native_binary && f->build_log_destroy &&
		       f->device_get_properties && f->driver_get && f->driver_get_properties;
	if (!complete)
		jc_log(JC_LOG_WARN, "Level Zero functions not found beside %s in %s; its module "
		       "builds are not cached", door->name,
		       door->next ? "the libraries after jitcache" : file ? file : "(unknown object)");
	__atomic_store_n(&door->state, complete ? 1 : -1, __ATOMIC_RELEASE);
}

/* The door's functions, or NULL if they cannot be had. */
static const struct ze_fns *fns_of(struct ze_door *door)
{
	int state = __atomic_load_n(&door->state, __ATOMIC_ACQUIRE);
	if (state == 0) {
		pthread_mutex_lock(&doors_lock);
		if (door->state == 0)
			find_fns(door);
		state = door->state;
		pthread_mutex_unlock(&doors_lock);
	}
	return state == 1 ? &door->fns : NULL;
}

static ze_result_t module_create(struct ze_door *door, ze_context_handle_t context,
				 ze_device_handle_t device, const ze_module_desc_t *desc,
				 ze_module_handle_t *module, ze_module_build_log_handle_t *log);
static ze_result_t get_module_table(ze_pfnGetModuleProcAddrTable_t real,
				    ze_api_version_t version, ze_module_dditable_t *table);

/* The wrappers of doors 2 and 3: a fixed set of functions, each bound to
 * one slot of a pool that records the real function it stands for. */
#define SLOTS 8
#define EACH_SLOT(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)

struct slots {
	const char *name;           /* the door, for the log */
	unsigned used;
	void *real[SLOTS];
	void *const wrapper[SLOTS];
	struct ze_door door[SLOTS]; /* pools of create wrappers: the door of each */
};

static struct slots dlsym_create, table_create, dlsym_table, local_create;

#define CREATE_WRAPPER(pool, i)                                                          \
	static ze_result_t pool##_##i(ze_context_handle_t c, ze_device_handle_t d,       \
				      const ze_module_desc_t *desc, ze_module_handle_t *m, \
				      ze_module_build_log_handle_t *l)                   \
	{                                                                                \
		return module_create(&pool.door[i], c, d, desc, m, l);                   \
	}
#define TABLE_WRAPPER(pool, i)                                                           \
	static ze_result_t pool##_##i(ze_api_version_t v, ze_module_dditable_t *t)       \
	{                                                                                \
		return get_module_table((ze_pfnGetModuleProcAddrTable_t)pool.real[i], v, t); \
	}
#define DLSYM_CREATE(i) CREATE_WRAPPER(dlsym_create, i)
#define TABLE_CREATE(i) CREATE_WRAPPER(table_create, i)
#define DLSYM_TABLE(i) TABLE_WRAPPER(dlsym_table, i)
#define LOCAL_CREATE(i) CREATE_WRAPPER(local_create, i)
EACH_SLOT(DLSYM_CREATE)
EACH_SLOT(LOCAL_CREATE)
EACH_SLOT(TABLE_CREATE)
EACH_SLOT(DLSYM_TABLE)
#define W_DLSYM_CREATE(i) (void *)dlsym_create_##i,
#define W_TABLE_CREATE(i) (void *)table_create_##i,
#define W_DLSYM_TABLE(i) (void *)dlsym_table_##i,
#define W_LOCAL_CREATE(i) (void *)local_create_##i,

static struct slots dlsym_create = {
	.name = "dlsym(zeModuleCreate)", .wrapper = { EACH_SLOT(W_DLSYM_CREATE) },
};
static struct slots table_create = {
	.name = "pfnCreate", .wrapper = { EACH_SLOT(W_TABLE_CREATE) },
};
static struct slots dlsym_table = {
	.name = "dlsym(zeGetModuleProcAddrTable)", .wrapper = { EACH_SLOT(W_DLSYM_TABLE) },
};
/* Door 1 when the definition is in the caller's local scope only. */
static struct slots local_create = {
	.name = "zeModuleCreate", .wrapper = { EACH_SLOT(W_LOCAL_CREATE) },
};

/* The wrapper standing for real in pool (the same one every time), or NULL
 * when all slots are taken. */
static void *wrapper_for(struct slots *pool, void *real)
{
	unsigned used = __atomic_load_n(&pool->used, __ATOMIC_ACQUIRE);
	for (unsigned i = 0; i < used; i++)
		if (pool->real[i] == real)
			return pool->wrapper[i];
	void *found = NULL;
	pthread_mutex_lock(&doors_lock);
	for (unsigned i = 0; i < pool->used && !found; i++)
		if (pool->real[i] == real)
			found = pool->wrapper[i];
	if (!found && pool->used < SLOTS) {
		unsigned i = pool->used;
		pool->real[i] = real;
		pool->door[i].name = pool->name;
		pool->door[i].create = (ze_pfnModuleCreate_t)real;
		found = pool->wrapper[i];
		__atomic_store_n(&pool->used, i + 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&doors_lock);
	if (!found)
		JC_LOG_ONCE(JC_LOG_WARN, "more than %d Level Zero functions seen through %s; "
			    "calls through the others are not cached", SLOTS, pool->name);
	return found;
}

static int caching_disabled(void)
{
	return jc_runtime_config()->disable;
}

/* Door 3: fill the table, then put our wrapper in front of its pfnCreate. */
static ze_result_t get_module_table(ze_pfnGetModuleProcAddrTable_t real,
				    ze_api_version_t version, ze_module_dditable_t *table)
{
	if (!real)
		return ZE_RESULT_ERROR_UNINITIALIZED;
	ze_result_t r = real(version, table);
	if (r != ZE_RESULT_SUCCESS || !table || !table->pfnCreate || caching_disabled() ||
	    jc_is_ours((const void *)table->pfnCreate))
		return r;
	void *wrapper = wrapper_for(&table_create, (void *)table->pfnCreate);
	if (wrapper)
		table->pfnCreate = (ze_pfnModuleCreate_t)wrapper;
	return r;
}

/* Door 2 (shim.h). */
static void *dlsym_hook(const char *name, void *real)
{
	struct slots *pool;
	if (strcmp(name, "zeModuleCreate") == 0)
		pool = &dlsym_create;
	else if (strcmp(name, "zeGetModuleProcAddrTable") == 0)
		pool = &dlsym_table;
	else
		return NULL;
	if (caching_disabled() || jc_is_ours(real))
		return NULL;
	return wrapper_for(pool, real);
}
JC_DLSYM_HOOK(dlsym_hook);

/* The Level Zero exports, for the core's table of them (shim/core.c). */
JC_CORE_WRAPPER(zeModuleCreate);
JC_CORE_WRAPPER(zeGetModuleProcAddrTable);

/* Door 1 and door 3's export: the next definitions after jitcache. */
static struct ze_door linked = { .name = "zeModuleCreate", .next = 1 };
static ze_pfnGetModuleProcAddrTable_t linked_table;
static pthread_once_t linked_once = PTHREAD_ONCE_INIT;

static void find_linked(void)
{
	linked.create = (ze_pfnModuleCreate_t)jc_real_dlsym(RTLD_NEXT, "zeModuleCreate");
	linked_table = (ze_pfnGetModuleProcAddrTable_t)jc_real_dlsym(RTLD_NEXT,
								     "zeGetModuleProcAddrTable");
}

JC_EXPORT ze_result_t zeModuleCreate(ze_context_handle_t context, ze_device_handle_t device,
				     const ze_module_desc_t *desc, ze_module_handle_t *module,
				     ze_module_build_log_handle_t *log)
{
	pthread_once(&linked_once, find_linked);
	if (linked.create)
		return module_create(&linked, context, device, desc, module, log);
	/* Not in the global scope: a caller with a privately loaded loader. */
	void *real = jc_real_for_caller(__builtin_return_address(0), "zeModuleCreate");
	if (!real)
		return ZE_RESULT_ERROR_UNINITIALIZED;
	void *wrapper = caching_disabled() ? NULL : wrapper_for(&local_create, real);
	ze_pfnModuleCreate_t create = (ze_pfnModuleCreate_t)(wrapper ? wrapper : real);
	return create(context, device, desc, module, log);
}

JC_EXPORT ze_result_t zeGetModuleProcAddrTable(ze_api_version_t version,
					       ze_module_dditable_t *table)
{
	pthread_once(&linked_once, find_linked);
	ze_pfnGetModuleProcAddrTable_t real = linked_table;
	if (!real) /* e.g. a loader dlopen()ed RTLD_LOCAL filling its own table */
		real = (ze_pfnGetModuleProcAddrTable_t)jc_real_for_caller(
			__builtin_return_address(0), "zeGetModuleProcAddrTable");
	return get_module_table(real, version, table);
}

/* ---- what is asked ------------------------------------------------------- */

/* A cacheable request: one input, or several linked (program extension). */
struct ze_request {
	uint32_t count;
	const struct jc_ze_input *inputs;
	struct jc_ze_input single;
	struct jc_ze_input *linked; /* malloc'd for the program extension */
	char *joined_flags;         /* every input's flags, for the native load */
	const char *native_flags;
	char *native_owned;         /* native_flags, when a copy was needed */
};

static void request_free(struct ze_request *req)
{
	free(req->linked);
	free(req->joined_flags);
	free(req->native_owned);
}

/* The key's view of one input; 0 if the driver's structures are usable. */
static int input_of(const void *spirv, size_t size, const char *flags,
		    const ze_module_constants_t *c, struct jc_ze_input *in)
{
	*in = (struct jc_ze_input){ .spirv = spirv, .size = size, .flags = flags };
	if (!spirv || size == 0)
		return -1;
	if (!c || c->numConstants == 0)
		return 0;
	if (!c->pConstantIds || !c->pConstantValues)
		return -1;
	in->n_constants = c->numConstants;
	in->constant_ids = c->pConstantIds;
	in->constant_values = (const void *const *)c->pConstantValues;
	return 0;
}

static int describe_program(const ze_module_program_exp_desc_t *p, struct ze_request *req)
{
	if (p->pNext || p->count == 0 || !p->inputSizes || !p->pInputModules)
		return -1;
	req->linked = calloc(p->count, sizeof *req->linked);
	if (!req->linked)
		return -1;
	size_t flags_size = 1;
	for (uint32_t i = 0; i < p->count; i++) {
		const char *flags = p->pBuildFlags ? p->pBuildFlags[i] : NULL;
		if (input_of(p->pInputModules[i], p->inputSizes[i], flags,
			     p->pConstants ? p->pConstants[i] : NULL, &req->linked[i]) != 0)
			return -1;
		flags_size += flags ? strlen(flags) + 1 : 0;
	}
	/* A native load is one module: it gets every input's flags, which the
	 * driver reads for module-wide switches (symbol export, and so on). */
	req->joined_flags = malloc(flags_size);
	if (!req->joined_flags)
		return -1;
	char *end = req->joined_flags;
	for (uint32_t i = 0; i < p->count; i++) {
		const char *f = req->linked[i].flags;
		if (!f || !*f)
			continue;
		if (end != req->joined_flags)
			*end++ = ' ';
		end = stpcpy(end, f);
	}
	*end = '\0';
	req->count = p->count;
	req->inputs = req->linked;
	req->native_flags = req->joined_flags;
	return 0;
}

/* The native load must see the driver's "recompiled from IR" warning
 * (compile_once.h). */
static int keep_recompiled_warning(struct ze_request *req)
{
	int failed;
	req->native_owned = jc_keep_recompiled_warning(req->native_flags, &failed);
	if (req->native_owned)
		req->native_flags = req->native_owned;
	return failed ? -1 : 0;
}

/* 0 if jitcache can cache this call; -1 to pass it through untouched. */
static int describe(const ze_module_desc_t *desc, struct ze_request *req)
{
	memset(req, 0, sizeof *req);
	if (!desc || desc->format != ZE_MODULE_FORMAT_IL_SPIRV)
		return -1; /* native input, or something to let the driver judge */
	if (desc->pNext) {
		const ze_base_desc_t *ext = desc->pNext;
		if (ext->stype != ZE_STRUCTURE_TYPE_MODULE_PROGRAM_EXP_DESC) {
			JC_LOG_ONCE(JC_LOG_INFO, "zeModuleCreate with extension structure 0x%x: "
				    "not cached", (unsigned)ext->stype);
			return -1;
		}
		/* desc's own input, flags and constants are unused (and SYCL puts
		 * placeholders there): never read them. */
		if (describe_program((const ze_module_program_exp_desc_t *)ext, req) != 0)
			return -1;
		return keep_recompiled_warning(req);
	}
	if (input_of(desc->pInputModule, desc->inputSize, desc->pBuildFlags, desc->pConstants,
		     &req->single) != 0)
		return -1;
	req->count = 1;
	req->inputs = &req->single;
	req->native_flags = desc->pBuildFlags;
	return keep_recompiled_warning(req);
}

/* ---- the device, as the key sees it -------------------------------------- */

/* Hashes the drivers' identity. */
static int hash_drivers(struct jc_fp *fp, const struct ze_fns *fn)
{
	ze_driver_handle_t drivers[16];
	uint32_t n = 0;
	if (fn->driver_get(&n, NULL) != ZE_RESULT_SUCCESS)
		return -1;
	if (n > 16)
		n = 16;
	if (n && fn->driver_get(&n, drivers) != ZE_RESULT_SUCCESS)
		return -1;
	jc_fp_u64(fp, "drivers", n);
	for (uint32_t i = 0; i < n; i++) {
		ze_driver_properties_t p = { .stype = ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES };
		if (fn->driver_get_properties(drivers[i], &p) != ZE_RESULT_SUCCESS)
			return -1;
		/* Not the uuid: Intel's driver makes it from the driver version and
		 * the time it was initialised, so it changes with every process.
		 * The driver's build is in the key through jc_fp_libraries(). */
		jc_fp_u64(fp, "driver.version", p.driverVersion);
	}
	return 0;
}

/* The identity of a device and its drivers, hashed into *id. */
static int identify_device(const struct ze_fns *fn, ze_device_handle_t device,
			   struct jc_key *id)
{
	struct jc_fp *fp = jc_fp_begin("ze.device");
	if (!fp || hash_drivers(fp, fn) != 0) {
		jc_fp_end(fp, id);
		return -1;
	}
	/* The IP version extension is asked for without asking the driver
	 * whether it offers it (listing a driver's extensions costs more than
	 * the rest of the device's identity): a driver that refuses the chained
	 * structure is asked again without it, and one that ignores it leaves
	 * ipVersion 0, the same in every process. */
	ze_device_ip_version_ext_t ip = { .stype = ZE_STRUCTURE_TYPE_DEVICE_IP_VERSION_EXT };
	ze_device_properties_t p = { .stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES, .pNext = &ip };
	int ip_supported = 1;
	ze_result_t r = fn->device_get_properties(device, &p);
	if (r != ZE_RESULT_SUCCESS) {
		ip_supported = 0;
		p = (ze_device_properties_t){ .stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES };
		r = fn->device_get_properties(device, &p);
	}
	if (r != ZE_RESULT_SUCCESS) {
		jc_fp_end(fp, id);
		return -1;
	}
	jc_fp_u64(fp, "device.vendor", p.vendorId);
	/* What decides the code is the IP version (with its stepping), not the
	 * marketing name: IGC's binary is byte-equal under any name the driver
	 * is told to report (OverrideDeviceName), and the name follows from the
	 * device id anyway.  Without the name, an entry built on a simulated GPU
	 * is the one the real GPU looks up. */
	if (ip_supported && ip.ipVersion) {
		/* The IP version decides the code, not the device id: IGC's binary
		 * is byte-equal across device ids of one IP version (an A750 and
		 * an A770 share their entries; issue 31). */
		jc_fp_u64(fp, "device.ip", ip.ipVersion);
	} else {
		/* No IP version (Debian 12's 22.43): the device id and the
		 * simulated stepping are all that tell GPUs apart. */
		jc_fp_str(fp, "device.ip", NULL);
		jc_fp_u64(fp, "device.id", p.deviceId);
		jc_fp_neo_revision_override(fp);
	}
	jc_fp_end(fp, id);
	return 0;
}

/* Device handles live as long as the process: their identity is asked once. */
JC_MEMO(devices, 64);

static int device_identity(const struct ze_fns *fn, ze_device_handle_t device,
			   struct jc_key *id)
{
	if (jc_memo_get(&devices, device, id) == 0)
		return 0;
	if (identify_device(fn, device, id) != 0) {
		JC_LOG_ONCE(JC_LOG_WARN, "cannot read the Level Zero device's properties; "
			    "its module builds are not cached");
		return -1;
	}
	jc_memo_put(&devices, device, id);
	return 0;
}

/* ---- hit, miss ----------------------------------------------------------- */

/* One intercepted call, once found cacheable. */
struct ze_call {
	struct ze_door *door;
	const struct ze_fns *fn;
	struct jc_once once;
	ze_context_handle_t context;
	ze_device_handle_t device;
	const ze_module_desc_t *desc;
	struct ze_request req;
	ze_module_handle_t *module;
	ze_module_build_log_handle_t *log;
	ze_result_t failed;  /* the build failed: store a failure record */
	char *failed_log;    /* and its build log (malloc'd), or NULL */
	size_t failed_log_size;
	ze_result_t answer;  /* what a hit returns (a replayed failure's result) */
};

/* A failure record (the payload of an entry whose build failed): this magic,
 * the result (4 bytes, little-endian) and the build log's text.  Native
 * binaries are ELF files, so no stored binary starts with it. */
static const char failure_magic[8] = { 'J', 'C', 'Z', 'E', 'F', 'A', 'I', 'L' };
#define FAILURE_HEAD 12

/* The text of a build log, malloc'd (*size with its NUL), or NULL. */
static char *log_text(const struct ze_fns *fn, ze_module_build_log_handle_t log, size_t *size)
{
	*size = 0;
	if (!log || !fn->build_log_get_string ||
	    fn->build_log_get_string(log, size, NULL) != ZE_RESULT_SUCCESS || *size == 0)
		return NULL;
	char *text = malloc(*size);
	if (text && fn->build_log_get_string(log, size, text) != ZE_RESULT_SUCCESS) {
		free(text);
		return NULL;
	}
	return text;
}

/* 1 if the log says the driver recompiled the module (compile_once.h). */
static int recompiled_from_ir(const struct ze_fns *fn, ze_module_build_log_handle_t log)
{
	size_t size = 0;
	if (!log || fn->build_log_get_string(log, &size, NULL) != ZE_RESULT_SUCCESS || size == 0)
		return 0;
	char *text = malloc(size);
	int found = text && fn->build_log_get_string(log, &size, text) == ZE_RESULT_SUCCESS &&
		    jc_recompiled_from_ir(text, size);
	free(text);
	return found;
}

/* A failure record: the build failed with this result the first time, and
 * fails the same way now, without compiling.  Only for a caller that asked
 * for no build log: a log handle is the driver's object, which jitcache
 * cannot make with the recorded text, so a caller that wants the log gets
 * the driver's own compile (and its log), as without jitcache. */
static enum jc_load load_failure(struct ze_call *c, const struct jc_entry *e)
{
	const uint8_t *p = e->data;
	uint32_t result = (uint32_t)p[8] | (uint32_t)p[9] << 8 | (uint32_t)p[10] << 16 |
			  (uint32_t)p[11] << 24;
	if (c->log) {
		jc_log(JC_LOG_DEBUG, "%s: %s is a failed build (0x%x), compiled again: the caller "
		       "asks for its build log", c->door->name, c->once.hex, result);
		return JC_LOAD_FAILED;
	}
	if (result == ZE_RESULT_SUCCESS)
		return JC_LOAD_REJECTED;
	c->answer = (ze_result_t)result;
	jc_cache_count_failure_hit(c->once.cache);
	jc_log(JC_LOG_DEBUG, "%s: hit, a failed build (0x%x) replayed from %s", c->door->name,
	       result, c->once.hex);
	return JC_LOADED;
}

/* Create the module from a stored native binary.  The application's build
 * log, if it asked for one, is the native load's own.  A binary the driver
 * refuses, or recompiles from its IR, is rejected, and the module is
 * compiled from SPIR-V (the driver's own result for the request). */
static enum jc_load load_native(void *call, const struct jc_entry *e)
{
	struct ze_call *c = call;
	if (e->size >= FAILURE_HEAD && memcmp(e->data, failure_magic, 8) == 0)
		return load_failure(c, e);
	ze_module_desc_t native = {
		.stype = ZE_STRUCTURE_TYPE_MODULE_DESC,
		.format = ZE_MODULE_FORMAT_NATIVE,
		.inputSize = e->size,
		.pInputModule = e->data,
		.pBuildFlags = c->req.native_flags,
	};
	int check = c->fn->build_log_get_string && c->fn->module_destroy;
	ze_module_build_log_handle_t log = NULL;
	ze_module_handle_t module = NULL;
	ze_result_t r = c->door->create(c->context, c->device, &native, &module,
					c->log || check ? &log : NULL);
	int recompiled = r == ZE_RESULT_SUCCESS && check && recompiled_from_ir(c->fn, log);
	if (r == ZE_RESULT_SUCCESS && !recompiled) {
		*c->module = module;
		if (c->log)
			*c->log = log;
		else if (log)
			c->fn->build_log_destroy(log);
		jc_log(JC_LOG_DEBUG, "%s: hit, loaded %zu bytes from %s", c->door->name, e->size,
		       c->once.hex);
		return JC_LOADED;
	}
	if (log)
		c->fn->build_log_destroy(log);
	if (recompiled) {
		c->fn->module_destroy(module);
		jc_log(JC_LOG_WARN, "the driver recompiled cached module %s from its IR (a binary "
		       "for another GPU or driver); entry removed, compiling from SPIR-V", c->once.hex);
	} else
		jc_log(JC_LOG_WARN, "the driver rejected cached module %s (0x%x); entry removed, "
		       "compiling from SPIR-V", c->once.hex, (unsigned)r);
	return JC_LOAD_REJECTED;
}

/* The application's own compile.  A build that fails (a compile error, not
 * a lack of memory or a lost device) is a fact about the key, stored as a
 * failure record with its log, read from the caller's log handle or from
 * one asked for here and destroyed. */
static int compile(void *call, struct jc_request *request, enum jc_built *built)
{
	struct ze_call *c = call;
	ze_module_build_log_handle_t own = NULL;
	int read_log = c->fn->build_log_get_string && c->fn->build_log_destroy;
	ze_result_t r = c->door->create(c->context, c->device, c->desc, c->module,
					c->log ? c->log : read_log ? &own : NULL);
	*built = r == ZE_RESULT_SUCCESS ? JC_BUILT_NOW : JC_BUILT_FAILED;
	if (r == ZE_RESULT_ERROR_MODULE_BUILD_FAILURE) {
		c->failed = r;
		c->failed_log = log_text(c->fn, c->log ? *c->log : own, &c->failed_log_size);
		*built = JC_BUILT_NOW;
	} else if (r != ZE_RESULT_SUCCESS) {
		jc_log(JC_LOG_DEBUG, "%s: build failed (0x%x); nothing stored", c->door->name,
		       (unsigned)r);
	}
	if (own)
		c->fn->build_log_destroy(own);
	return (int)r;
}

static int export_native(void *call, void **bytes, size_t *size)
{
	const struct ze_call *c = call;
	if (c->failed) {
		uint8_t *record = malloc(FAILURE_HEAD + c->failed_log_size);
		if (!record)
			return -1;
		memcpy(record, failure_magic, 8);
		for (int i = 0; i < 4; i++)
			record[8 + i] = (uint8_t)((uint32_t)c->failed >> (8 * i));
		if (c->failed_log_size)
			memcpy(record + FAILURE_HEAD, c->failed_log, c->failed_log_size);
		*bytes = record;
		*size = FAILURE_HEAD + c->failed_log_size;
		return 0;
	}
	uint8_t *binary = NULL;
	*size = 0;
	if (c->fn->get_native_binary(*c->module, size, NULL) == ZE_RESULT_SUCCESS && *size)
		binary = malloc(*size);
	if (!binary || c->fn->get_native_binary(*c->module, size, binary) != ZE_RESULT_SUCCESS) {
		JC_LOG_ONCE(JC_LOG_WARN, "zeModuleGetNativeBinary failed; module not cached");
		free(binary);
		return -1;
	}
	*bytes = binary;
	return 0;
}

static void stored(void *call, size_t size, uint64_t compile_ns, uint64_t store_ns)
{
	const struct ze_call *c = call;
	if (c->failed)
		jc_log(JC_LOG_DEBUG, "%s: miss, build failed (0x%x) in %.3f s, stored as a failure "
		       "record (%zu bytes) as %s", c->door->name, (unsigned)c->failed,
		       (double)compile_ns / 1e9, size, c->once.hex);
	else
		jc_log(JC_LOG_DEBUG, "%s: miss, compiled in %.3f s, stored %zu bytes as %s",
		       c->door->name, (double)compile_ns / 1e9, size, c->once.hex);
}

/* The device as the recipe records it (not part of any key). */
static void describe_device(const struct ze_call *c, struct jc_recipe_device *d)
{
	ze_device_ip_version_ext_t ip = { .stype = ZE_STRUCTURE_TYPE_DEVICE_IP_VERSION_EXT };
	ze_device_properties_t p = { .stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES, .pNext = &ip };
	if (c->fn->device_get_properties(c->device, &p) != ZE_RESULT_SUCCESS) {
		ip.ipVersion = 0;
		p = (ze_device_properties_t){ .stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES };
		if (c->fn->device_get_properties(c->device, &p) != ZE_RESULT_SUCCESS)
			return;
	}
	*d = (struct jc_recipe_device){ .vendor = p.vendorId, .id = p.deviceId,
					.ip = ip.ipVersion };
	snprintf(d->name, sizeof d->name, "%.*s", (int)strnlen(p.name, sizeof p.name), p.name);
}

static int recipe(void *call, void **bytes, size_t *size)
{
	const struct ze_call *c = call;
	uint32_t n = c->req.count;
	if (c->failed) /* a failure record needs no replay */
		return -1;
	uint32_t **sizes = calloc(n, sizeof *sizes);
	int ok = sizes != NULL;
	for (uint32_t i = 0; ok && i < n; i++) {
		const struct jc_ze_input *in = &c->req.inputs[i];
		ok = (sizes[i] = calloc(in->n_constants + 1, sizeof **sizes)) &&
		     (in->n_constants == 0 ||
		      jc_spirv_spec_sizes(in->spirv, in->size, in->n_constants, in->constant_ids,
					  sizes[i]) == 0);
	}
	struct jc_recipe r = { .api = JC_RECIPE_ZE, .ze_count = n, .ze = c->req.inputs,
			       .ze_spec_sizes = (const uint32_t *const *)sizes,
			       .entry = c->once.key };
	if (ok)
		describe_device(c, &r.device);
	ok = ok && jc_recipe_encode(&r, bytes, size) == 0;
	for (uint32_t i = 0; sizes && i < n; i++)
		free(sizes[i]);
	free(sizes);
	return ok ? 0 : -1;
}

/* JITCACHE_STRICT=error (compile_once.h): the driver's build-failure
 * result, no module.  A build log is the driver's object, which jitcache
 * cannot write (load_failure): a caller that asks for one gets the log of a
 * load the driver refuses at once (a native binary of no known format), and
 * the reason is jitcache's one line on stderr. */
static int refuse(void *call, const char *why)
{
	static const uint8_t none[16] = "jitcache strict";
	struct ze_call *c = call;
	(void)why;
	if (c->log) {
		ze_module_desc_t bogus = {
			.stype = ZE_STRUCTURE_TYPE_MODULE_DESC, .format = ZE_MODULE_FORMAT_NATIVE,
			.inputSize = sizeof none, .pInputModule = none,
		};
		ze_module_handle_t module = NULL;
		*c->log = NULL;
		if (c->door->create(c->context, c->device, &bogus, &module, c->log) ==
			    ZE_RESULT_SUCCESS && module && c->fn->module_destroy)
			c->fn->module_destroy(module);
	}
	return ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
}

static const struct jc_once_ops ze_once_ops = { load_native, compile, export_native, stored,
						 recipe, refuse };

/* JITCACHE_STRICT=error and a request jitcache cannot key: refused as a
 * miss is (refuse), without its functions where prepare() did not find
 * them (no build log then: *log is NULL). */
static ze_result_t refuse_unkeyed(struct ze_call *c, const char *why)
{
	if (!c->fn)
		c->fn = fns_of(c->door);
	if (c->fn)
		return (ze_result_t)refuse(c, why);
	if (c->log)
		*c->log = NULL;
	return ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
}

/* 0 and *c filled if the call can be answered from the cache. */
static int prepare(struct ze_call *c)
{
	struct jc_key device;
	if (!c->once.cache || !c->context || !c->device || !c->module ||
	    describe(c->desc, &c->req) != 0 || !(c->fn = fns_of(c->door)) ||
	    device_identity(c->fn, c->device, &device) != 0 ||
	    jc_ze_key(c->req.count, c->req.inputs, &device, &c->once.key) != 0)
		return -1;
	return 0;
}

static ze_result_t module_create(struct ze_door *door, ze_context_handle_t context,
				 ze_device_handle_t device, const ze_module_desc_t *desc,
				 ze_module_handle_t *module, ze_module_build_log_handle_t *log)
{
	if (!jc_enter()) /* an outer door, or jitcache itself, is handling it */
		return door->create(context, device, desc, module, log);
	struct ze_call c = {
		.door = door, .context = context, .device = device, .desc = desc,
		.module = module, .log = log,
		.once = { .cache = jc_runtime_cache(), .what = door->name, .ops = &ze_once_ops },
	};
	c.once.call = &c;
	int status = ZE_RESULT_SUCCESS;
	ze_result_t r;
	if (prepare(&c) != 0) {
		/* One line per call at debug level, so that a log accounts for
		 * every zeModuleCreate (hits + misses + these = the calls made). */
		int native = desc && desc->format == ZE_MODULE_FORMAT_NATIVE;
		jc_log(JC_LOG_DEBUG, "%s: passed through (%s)", door->name,
		       native ? "native input" : "not cacheable");
		jc_cache_count_pass(c.once.cache, native ? JC_PASS_NATIVE : JC_PASS_NOT_KEYABLE);
		static const char why[] = "a request jitcache cannot key: see JITCACHE_LOG=debug";
		if (!native && c.once.cache && jc_strict_passed(door->name, why))
			r = refuse_unkeyed(&c, why);
		else
			r = door->create(context, device, desc, module, log);
	} else
		r = jc_compile_once(&c.once, &status) ? c.answer : (ze_result_t)status;
	free(c.failed_log);
	request_free(&c.req);
	jc_leave();
	return r;
}
