// SPDX-License-Identifier: MIT
/*
 * jitcache-replay — the worker of `jitcache warm` (bin/warm.c): an ordinary
 * Level Zero program, run with libjitcache preloaded, that makes again the
 * requests written down in recipes (key/recipe.h).  Its zeModuleCreate
 * calls go through the shim's own miss path (shim/compile_once.c), so every
 * module it builds is stored under the key a real application computes on
 * this driver and device, and one already there is a hit and costs a load.
 * It knows nothing of the cache: it only re-issues calls.
 *
 * OpenCL recipes are built again the same way, with clCreateProgramWith-
 * Source (or IL) and clBuildProgram on each GPU of every OpenCL platform,
 * each in a context of its own (libOpenCL.so.1, looked up with dlsym); a
 * clCompileProgram recipe with its embedded headers made from their
 * source, a clLinkProgram recipe by compiling each input so, then linking.
 * The files the source #includes are written where the compiler will find
 * them, relative to a scratch directory; an absolute one is used where it
 * is if its contents are the recorded ones (else the recipe is skipped).
 * A build reads no other file of this machine: the includes are followed
 * as the shim follows them when it records (key/include.h), and a recipe
 * whose source would reach a file it does not carry (`#include "/home/..."`,
 * `-I ~/.ssh`, an include through a macro) is skipped, never built.
 *
 * Protocol, on stdin and stdout:
 *   out: "device VENDOR ID IP NAME" per Level Zero GPU (hex, as the driver
 *        reports them), then "ready N" (N devices), or "none WHY" and exit 1;
 *   in:  a recipe: u64 little-endian size, then its bytes; end of input ends;
 *   out: one line per recipe: "ok", "fail 0xRESULT" (the driver refused it
 *        on some device) or "skip WHY" (this worker cannot replay it).
 * The driver is reached through libze_loader.so.1 (else straight through
 * libze_intel_gpu.so.1), looked up with dlsym as SYCL does.
 */
#include "key/cl_request.h"
#include "key/include.h"
#include "key/recipe.h"
#include "shim/cl/cl_api.h"
#include "shim/ze/ze_api.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* The device as the key sees it; 0 if it is new, 1 if one alike was seen
 * (through a second driver: a loader may list one twice), which would only
 * look up the same entries again. */
static int announce(ze_device_handle_t device)
{
	static char seen[MAX_DEVICES][300];
	static unsigned n_seen;
	ze_device_ip_version_ext_t ip = { .stype = ZE_STRUCTURE_TYPE_DEVICE_IP_VERSION_EXT };
	ze_device_properties_t p = { .stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES, .pNext = &ip };
	char line[300];
	if (ze.device_properties(device, &p) != ZE_RESULT_SUCCESS) {
		ip.ipVersion = 0;
		p = (ze_device_properties_t){ .stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES };
		ze.device_properties(device, &p);
	}
	snprintf(line, sizeof line, "device %x %x %x %.*s", p.vendorId, p.deviceId, ip.ipVersion,
		 (int)strnlen(p.name, sizeof p.name), p.name);
	for (unsigned i = 0; i < n_seen; i++)
		if (strcmp(seen[i], line) == 0)
			return 1;
	if (n_seen < MAX_DEVICES)
		memcpy(seen[n_seen++], line, sizeof line);
	printf("%s\n", line);
	return 0;
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
		for (uint32_t i = 0; i < n; i++)
			if (!announce(devices[i]))
				gpus[n_gpus++] = (struct gpu){ context, devices[i] };
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

/* ---- OpenCL ---------------------------------------------------------------- */

static struct {
	__typeof__(clGetPlatformIDs) *platforms;
	__typeof__(clGetDeviceIDs) *devices;
	__typeof__(clCreateContext) *context;
	__typeof__(clReleaseContext) *release_context;
	__typeof__(clCreateProgramWithSource) *with_source;
	__typeof__(clCreateProgramWithIL) *with_il;
	__typeof__(clSetProgramSpecializationConstant) *spec;
	__typeof__(clBuildProgram) *build;
	__typeof__(clCompileProgram) *compile;
	__typeof__(clLinkProgram) *link;
	__typeof__(clReleaseProgram) *release_program;
	__typeof__(clGetDeviceInfo) *info;
	int state; /* 0: not looked for, 1: found, -1: none (why says why) */
	const char *why;
	cl_context contexts[MAX_DEVICES];
	cl_device_id gpus[MAX_DEVICES];
	unsigned n;
} cl;

/* Every OpenCL GPU, each in a context of its own; looked for once, at the
 * first OpenCL recipe. */
static int find_cl(void)
{
	void *lib;
	cl_platform_id platforms[MAX_DEVICES];
	cl_uint np = 0;
	if (cl.state)
		return cl.state;
	cl.state = -1;
	cl.why = "no OpenCL platform offers one (a CPU device, as PoCL's, is not warmed)";
	if (!(lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL))) {
		cl.why = "no OpenCL loader (libOpenCL.so.1)";
		return -1;
	}
#define FIND(field, name) (cl.field = (__typeof__(cl.field))dlsym(lib, name))
	FIND(platforms, "clGetPlatformIDs");
	FIND(devices, "clGetDeviceIDs");
	FIND(context, "clCreateContext");
	FIND(release_context, "clReleaseContext");
	FIND(with_source, "clCreateProgramWithSource");
	FIND(with_il, "clCreateProgramWithIL");
	FIND(spec, "clSetProgramSpecializationConstant");
	FIND(build, "clBuildProgram");
	FIND(compile, "clCompileProgram");
	FIND(link, "clLinkProgram");
	FIND(release_program, "clReleaseProgram");
	FIND(info, "clGetDeviceInfo");
#undef FIND
	if (!cl.platforms || !cl.devices || !cl.context || !cl.with_source || !cl.build ||
	    !cl.release_program || cl.platforms(MAX_DEVICES, platforms, &np) != CL_SUCCESS)
		return -1;
	for (cl_uint p = 0; p < np && p < MAX_DEVICES; p++) {
		cl_device_id devs[MAX_DEVICES];
		cl_uint nd = 0;
		if (cl.devices(platforms[p], CL_DEVICE_TYPE_GPU, MAX_DEVICES, devs, &nd) != CL_SUCCESS)
			continue;
		for (cl_uint i = 0; i < nd && i < MAX_DEVICES && cl.n < MAX_DEVICES; i++) {
			cl_int err;
			cl_context c = cl.context(NULL, 1, &devs[i], NULL, NULL, &err);
			if (c) {
				cl.contexts[cl.n] = c;
				cl.gpus[cl.n++] = devs[i];
			}
		}
	}
	cl.state = cl.n ? 1 : -1;
	return cl.state;
}

/* A file name a recipe may write below the scratch directory: relative,
 * and never up through "..". */
static int safe_relative(const char *path)
{
	if (!*path || path[0] == '/')
		return 0;
	for (const char *p = path; p; p = strchr(p, '/')) {
		p += *p == '/';
		if (strncmp(p, "..", 2) == 0 && (p[2] == '/' || p[2] == '\0'))
			return 0;
	}
	return 1;
}

static int same_contents(const char *path, const void *data, size_t size)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int same = fd >= 0 && fstat(fd, &st) == 0 && (size_t)st.st_size == size;
	char *buf = same ? malloc(size ? size : 1) : NULL;
	same = same && buf && read(fd, buf, size) == (ssize_t)size && !memcmp(buf, data, size);
	free(buf);
	if (fd >= 0)
		close(fd);
	return same;
}

static int write_file(const char *path, const void *data, size_t size)
{
	char dir[4096];
	snprintf(dir, sizeof dir, "%s", path);
	for (char *s = strchr(dir, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdir(dir, 0700) != 0 && errno != EEXIST)
			return -1;
		*s = '/';
	}
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	int ok = fd >= 0 && write(fd, data, size) == (ssize_t)size;
	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

/* 0 if the file the include walk found is one the recipe carries, with
 * the contents it carries. */
static int carried(void *ctx, const char *path, const void *data, size_t size)
{
	const struct jc_recipe *r = ctx;
	for (size_t i = 0; i < r->cl_n_files; i++) {
		const struct jc_recipe_file *f = &r->cl_files[i];
		if (!strcmp(f->path, path) && f->size == size && !memcmp(f->data, data, size))
			return 0;
	}
	return 1;
}

/* Whether every file the includes of text reach, from here, is one the
 * recipe carries. */
static int text_reads_only_carried(const struct jc_recipe *r, const void *data, size_t size)
{
	struct jc_cl_input in;
	const char *text = data;
	if (jc_cl_input_source(&in, 1, &text, &size) != 0)
		return 0;
	int rc = jc_include_collect(NULL, in.n_includes, in.includes, r->cl_options, carried,
				    (void *)(uintptr_t)r);
	jc_cl_input_free(&in);
	return rc == 0;
}

/* Whether every file the source's includes (and its embedded headers')
 * reach, from here, is one the recipe carries (so the build reads nothing
 * else of this machine). */
static int reads_only_carried(const struct jc_recipe *r)
{
	if (!r->cl_from_il && !text_reads_only_carried(r, r->cl_text, r->cl_size))
		return 0; /* IL includes nothing */
	for (size_t i = 0; i < r->cl_n_headers; i++)
		if (!text_reads_only_carried(r, r->cl_headers[i].text, r->cl_headers[i].size))
			return 0;
	return 1;
}

/* The recipe's included files, where the compiler will look: NULL, or why not. */
static const char *lay_out_files(const struct jc_recipe *r)
{
	for (size_t i = 0; i < r->cl_n_files; i++) {
		const struct jc_recipe_file *f = &r->cl_files[i];
		if (f->path[0] == '/') {
			if (!same_contents(f->path, f->data, f->size))
				return "an included file outside its directory is not here as recorded";
		} else if (!safe_relative(f->path) || write_file(f->path, f->data, f->size) != 0) {
			return "an included file cannot be written where the compiler looks";
		}
	}
	if (!reads_only_carried(r))
		return "its source reaches a file the recipe does not carry (a replay reads "
		       "only the files its recipe carries)";
	return NULL;
}

/* The program of a recipe's source (or IL) with its constants, on GPU g. */
static cl_program program_on(unsigned g, const struct jc_recipe *r, cl_int *err)
{
	cl_program p;
	*err = CL_SUCCESS;
	if (r->cl_from_il) {
		if (!cl.with_il) {
			*err = CL_INVALID_OPERATION;
			return NULL;
		}
		p = cl.with_il(cl.contexts[g], r->cl_text, r->cl_size, err);
	} else {
		const char *text = r->cl_text;
		size_t size = r->cl_size;
		p = cl.with_source(cl.contexts[g], 1, &text, &size, err);
	}
	for (size_t i = 0; p && *err == CL_SUCCESS && i < r->cl_n_specs; i++)
		*err = cl.spec ? cl.spec(p, r->cl_specs[i].id, r->cl_specs[i].size,
					 r->cl_specs[i].value)
			       : CL_INVALID_OPERATION;
	if (p && *err != CL_SUCCESS) {
		cl.release_program(p);
		p = NULL;
	}
	return p;
}

static cl_int build_on(unsigned g, const struct jc_recipe *r)
{
	cl_int err;
	cl_program p = program_on(g, r, &err);
	if (p)
		err = cl.build(p, 1, &cl.gpus[g], r->cl_options, NULL, NULL);
	if (p)
		cl.release_program(p);
	return err;
}

/* A clCompileProgram recipe on GPU g, with its embedded headers: the
 * compiled program, or NULL and *err. */
static cl_program compile_on(unsigned g, const struct jc_recipe *r, cl_int *err)
{
	size_t n = r->cl_n_headers;
	cl_program p = cl.compile ? program_on(g, r, err) : NULL;
	cl_program *headers = calloc(n + 1, sizeof *headers);
	const char **names = calloc(n + 1, sizeof *names);
	if (!cl.compile)
		*err = CL_INVALID_OPERATION;
	else if (p && (!headers || !names))
		*err = CL_OUT_OF_HOST_MEMORY;
	for (size_t i = 0; p && headers && names && *err == CL_SUCCESS && i < n; i++) {
		const char *text = r->cl_headers[i].text;
		size_t size = r->cl_headers[i].size;
		headers[i] = cl.with_source(cl.contexts[g], 1, &text, &size, err);
		names[i] = r->cl_headers[i].name;
	}
	if (p && *err == CL_SUCCESS)
		*err = cl.compile(p, 1, &cl.gpus[g], r->cl_options, (cl_uint)n, n ? headers : NULL,
				  n ? names : NULL, NULL, NULL);
	for (size_t i = 0; headers && i < n; i++)
		if (headers[i])
			cl.release_program(headers[i]);
	free(headers);
	free(names);
	if (p && *err != CL_SUCCESS) {
		cl.release_program(p);
		p = NULL;
	}
	return p;
}

/* A clLinkProgram recipe on GPU g: each input compiled, then linked. */
static cl_int link_on(unsigned g, const struct jc_recipe *r, const struct jc_recipe *inputs)
{
	cl_int err = cl.link ? CL_SUCCESS : CL_INVALID_OPERATION;
	cl_program *p = calloc(r->link_n_inputs, sizeof *p);
	if (!p)
		err = CL_OUT_OF_HOST_MEMORY;
	for (size_t i = 0; p && err == CL_SUCCESS && i < r->link_n_inputs; i++)
		p[i] = compile_on(g, &inputs[i], &err);
	if (p && err == CL_SUCCESS) {
		cl_program linked = cl.link(cl.contexts[g], 1, &cl.gpus[g], r->link_options,
					    (cl_uint)r->link_n_inputs, p, NULL, NULL, &err);
		if (linked)
			cl.release_program(linked);
	}
	for (size_t i = 0; p && i < r->link_n_inputs; i++)
		if (p[i])
			cl.release_program(p[i]);
	free(p);
	return err;
}

/* A link's inputs, each a compile recipe: 0, or -1 (freed). */
static int decode_inputs(const struct jc_recipe *r, struct jc_recipe **inputs)
{
	*inputs = calloc(r->link_n_inputs, sizeof **inputs);
	size_t i = 0;
	while (*inputs && i < r->link_n_inputs &&
	       jc_recipe_decode(r->link_inputs[i].data, r->link_inputs[i].size, &(*inputs)[i]) == 0 &&
	       (*inputs)[i].api == JC_RECIPE_CL_COMPILE)
		i++;
	if (*inputs && i == r->link_n_inputs)
		return 0;
	for (size_t k = 0; *inputs && k <= i && k < r->link_n_inputs; k++)
		jc_recipe_free(&(*inputs)[k]);
	free(*inputs);
	*inputs = NULL;
	return -1;
}

/* One recipe of any OpenCL kind on GPU g. */
static cl_int replay_on(unsigned g, const struct jc_recipe *r, const struct jc_recipe *inputs)
{
	cl_int err;
	if (r->api == JC_RECIPE_CL_LINK)
		return link_on(g, r, inputs);
	if (r->api == JC_RECIPE_CL)
		return build_on(g, r);
	cl_program p = compile_on(g, r, &err);
	if (p)
		cl.release_program(p);
	return err;
}

/* Every file the recipe (a link: each input) carries laid out: NULL, or why not. */
static const char *lay_out_all(const struct jc_recipe *r, const struct jc_recipe *inputs)
{
	const char *why = NULL;
	if (r->api != JC_RECIPE_CL_LINK)
		return lay_out_files(r);
	for (size_t i = 0; !why && i < r->link_n_inputs; i++)
		why = lay_out_files(&inputs[i]);
	return why;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	remove(path);
	return 0;
}

/* In a scratch directory of its own, removed after. */
static void replay_cl(const struct jc_recipe *r)
{
	char scratch[] = "cl.XXXXXX";
	const char *why = NULL;
	struct jc_recipe *inputs = NULL;
	if (find_cl() != 1) {
		printf("skip no OpenCL GPU\n");
		return;
	}
	if (r->api == JC_RECIPE_CL_LINK && decode_inputs(r, &inputs) != 0) {
		printf("skip a link input is not a recipe this version reads\n");
		return;
	}
	if (!mkdtemp(scratch) || chdir(scratch) != 0) {
		printf("skip cannot make a scratch directory\n");
		return;
	}
	why = lay_out_all(r, inputs);
	cl_int worst = CL_SUCCESS;
	for (unsigned g = 0; !why && g < cl.n && worst == CL_SUCCESS; g++)
		worst = replay_on(g, r, inputs);
	if (chdir("..") != 0)
		why = why ? why : "cannot leave the scratch directory";
	nftw(scratch, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	for (size_t i = 0; inputs && i < r->link_n_inputs; i++)
		jc_recipe_free(&inputs[i]);
	free(inputs);
	if (why)
		printf("skip %s\n", why);
	else if (worst == CL_SUCCESS)
		printf("ok\n");
	else
		printf("fail %d\n", (int)worst);
}

static void replay(const void *bytes, size_t size)
{
	struct jc_recipe r;
	if (jc_recipe_decode(bytes, size, &r) != 0) {
		printf("skip not a recipe this version reads\n");
		return;
	}
	if (r.api != JC_RECIPE_ZE) {
		replay_cl(&r);
	} else if (n_gpus == 0) {
		printf("skip no Level Zero GPU\n");
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

/* A machine with OpenCL GPUs only: those are the devices. */
static int announce_cl(void)
{
	if (find_cl() != 1)
		return -1;
	for (unsigned g = 0; g < cl.n; g++) {
		cl_uint vendor = 0, id = 0, ip = 0;
		char name[256] = "";
		if (cl.info) {
			cl.info(cl.gpus[g], CL_DEVICE_VENDOR_ID, sizeof vendor, &vendor, NULL);
			cl.info(cl.gpus[g], JC_CL_DEVICE_ID_INTEL, sizeof id, &id, NULL);
			cl.info(cl.gpus[g], JC_CL_DEVICE_IP_VERSION_INTEL, sizeof ip, &ip, NULL);
			cl.info(cl.gpus[g], CL_DEVICE_NAME, sizeof name - 1, name, NULL);
		}
		printf("device %x %x %x %s\n", vendor, id, ip, name);
	}
	return 0;
}

int main(void)
{
	const char *why = find_gpus();
	if (why && announce_cl() != 0) { /* a recipe of either API would find no GPU */
		printf("none %s; %s\n", why, cl.why);
		return 1;
	}
	printf("ready %u\n", n_gpus ? n_gpus : cl.n);
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
