/* The fingerprint of an OpenCL build (see cl_key.h). */
#include "shim/cl_key.h"
#include "shim/key.h"
#include "shim/shim.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The driver and compiler libraries whose builds decide the output: the ICD
 * loader, Intel's NEO + IGC (2.x of the 2025+ drivers, and 1.x), PoCL + its LLVM,
 * NVIDIA's driver and PTX JIT. */
static const char *const compiler_libs[] = {
	"libOpenCL.so.1",
	"libigdrcl.so", "libigc.so.2", "libigdfcl.so.2", "libopencl-clang.so.16",
	"libigc.so.1", "libigdfcl.so.1", "libopencl-clang.so.14",
	"libpocl.so.2", "libLLVM-15.so.1", "libclang-cpp.so.15",
	"libnvidia-opencl.so.1", "libnvidia-ptxjitcompiler.so.1",
	NULL,
};

#define MAX_INCLUDE_FILES 256
#define MAX_INCLUDE_DEPTH 32
#define MAX_INCLUDE_SIZE (64u << 20)

/* ---- #include directives ---------------------------------------------- */

/* Calls add(ctx, kind, name, len) for each #include line of text: kind is
 * '"' or '<', or '?' for an include through a macro.  Directives inside
 * comments or disabled #if blocks are found too: that only ever makes a
 * build uncacheable, never wrong. */
typedef int (*include_fn)(void *ctx, char kind, const char *name, size_t len);

static int scan_includes(const char *text, size_t size, include_fn add, void *ctx)
{
	const char *end = text + size;
	for (const char *p = text; p < end;) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *line_end = eol ? eol : end;
		while (p < line_end && (*p == ' ' || *p == '\t'))
			p++;
		if (p < line_end && *p == '#') {
			p++;
			while (p < line_end && (*p == ' ' || *p == '\t'))
				p++;
			if (line_end - p > 7 && memcmp(p, "include", 7) == 0 &&
			    !isalnum((unsigned char)p[7]) && p[7] != '_') {
				p += 7;
				while (p < line_end && (*p == ' ' || *p == '\t'))
					p++;
				char close = p < line_end && *p == '"' ? '"' : p < line_end && *p == '<' ? '>' : 0;
				const char *name = p + 1;
				const char *stop = close ? memchr(name, close, (size_t)(line_end - name)) : NULL;
				int rc = stop ? add(ctx, *p, name, (size_t)(stop - name)) : add(ctx, '?', "", 0);
				if (rc != 0)
					return rc;
			}
		}
		p = eol ? eol + 1 : end;
	}
	return 0;
}

static int keep_include(void *ctx, char kind, const char *name, size_t len)
{
	struct jc_cl_input *in = ctx;
	char **grown = realloc(in->includes, (in->n_includes + 1) * sizeof *grown);
	char *s = malloc(len + 2);
	if (!grown || !s) {
		free(s);
		if (grown)
			in->includes = grown;
		return -1;
	}
	s[0] = kind;
	memcpy(s + 1, name, len);
	s[len + 1] = '\0';
	in->includes = grown;
	in->includes[in->n_includes++] = s;
	return 0;
}

/* ---- the program's input ------------------------------------------------ */

int jc_cl_input_source(struct jc_cl_input *in, cl_uint count, const char **strings,
		       const size_t *lengths)
{
	memset(in, 0, sizeof *in);
	size_t total = 0;
	for (cl_uint i = 0; i < count; i++)
		total += lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
	char *text = malloc(total + 1);
	if (!text)
		return -1;
	size_t at = 0;
	for (cl_uint i = 0; i < count; i++) {
		size_t n = lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
		memcpy(text + at, strings[i], n);
		at += n;
	}
	struct jc_fp *fp = jc_fp_begin("cl.source");
	jc_fp_bytes(fp, "source", text, total);
	jc_fp_end(fp, &in->digest);
	int rc = fp ? scan_includes(text, total, keep_include, in) : -1;
	free(text);
	if (rc != 0)
		jc_cl_input_free(in);
	return rc;
}

int jc_cl_input_il(struct jc_cl_input *in, const void *il, size_t size)
{
	memset(in, 0, sizeof *in);
	in->from_il = 1;
	struct jc_fp *fp = jc_fp_begin("cl.il");
	if (!fp)
		return -1;
	jc_fp_bytes(fp, "il", il, size);
	jc_fp_end(fp, &in->digest);
	return 0;
}

/* The value set last for an id wins, as in the driver. */
int jc_cl_input_spec(struct jc_cl_input *in, cl_uint id, size_t size, const void *value)
{
	size_t i = 0;
	while (i < in->n_specs && in->specs[i].id < id)
		i++;
	unsigned char *copy = malloc(size ? size : 1);
	if (!copy) {
		in->incomplete = 1;
		return -1;
	}
	memcpy(copy, value, size);
	if (i == in->n_specs || in->specs[i].id != id) {
		struct jc_cl_spec *grown = realloc(in->specs, (in->n_specs + 1) * sizeof *grown);
		if (!grown) {
			free(copy);
			in->incomplete = 1;
			return -1;
		}
		in->specs = grown;
		memmove(&in->specs[i + 1], &in->specs[i], (in->n_specs - i) * sizeof *grown);
		in->n_specs++;
		in->specs[i].value = NULL;
	}
	free(in->specs[i].value);
	in->specs[i] = (struct jc_cl_spec){ .id = id, .size = size, .value = copy };
	return 0;
}

void jc_cl_input_free(struct jc_cl_input *in)
{
	for (size_t i = 0; i < in->n_includes; i++)
		free(in->includes[i]);
	for (size_t i = 0; i < in->n_specs; i++)
		free(in->specs[i].value);
	free(in->includes);
	free(in->specs);
	memset(in, 0, sizeof *in);
}

/* ---- included files ----------------------------------------------------- */

struct includes {
	struct jc_fp *fp;
	char **dirs; /* from -I options */
	size_t n_dirs;
	char *seen[MAX_INCLUDE_FILES];
	size_t n_seen;
	const char *from_dir; /* directory of the file being scanned; NULL: top level */
	int depth;
};

/* The -I directories of an options string ("-I dir", "-Idir", quoted or not). */
static int parse_include_dirs(const char *options, struct includes *inc)
{
	const char *p = options ? options : "";
	int want_dir = 0;
	while (*p) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		char token[4096];
		size_t n = 0;
		char quote = 0;
		for (; *p && (quote || !isspace((unsigned char)*p)); p++) {
			if ((*p == '"' || *p == '\'') && (!quote || quote == *p))
				quote = quote ? 0 : *p;
			else if (n + 1 < sizeof token)
				token[n++] = *p;
		}
		token[n] = '\0';
		const char *dir = want_dir ? token : strncmp(token, "-I", 2) == 0 && token[2] ? token + 2 : NULL;
		want_dir = strcmp(token, "-I") == 0;
		if (!dir)
			continue;
		char **grown = realloc(inc->dirs, (inc->n_dirs + 1) * sizeof *grown);
		if (!grown)
			return -1;
		inc->dirs = grown;
		if (!(inc->dirs[inc->n_dirs] = strdup(dir)))
			return -1;
		inc->n_dirs++;
	}
	return 0;
}

static int readable_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, R_OK) == 0;
}

/* Where the compiler finds `name`: beside the including file (for "..."),
 * then the -I directories, then the current directory. */
static int resolve(const struct includes *inc, char kind, const char *name, char *out, size_t cap)
{
	if (name[0] == '/') {
		snprintf(out, cap, "%s", name);
		return readable_file(out);
	}
	if (kind == '"' && inc->from_dir) {
		snprintf(out, cap, "%s/%s", inc->from_dir, name);
		if (readable_file(out))
			return 1;
	}
	for (size_t i = 0; i < inc->n_dirs; i++) {
		snprintf(out, cap, "%s/%s", inc->dirs[i], name);
		if (readable_file(out))
			return 1;
	}
	snprintf(out, cap, "%s", name);
	return readable_file(out);
}

static char *read_file(const char *path, size_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || (uint64_t)st.st_size > MAX_INCLUDE_SIZE) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	char *data = malloc((size_t)st.st_size + 1);
	size_t got = 0;
	while (data && got < (size_t)st.st_size) {
		ssize_t n = read(fd, data + got, (size_t)st.st_size - got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (!data || got != (size_t)st.st_size) {
		free(data);
		return NULL;
	}
	*size = got;
	return data;
}

static int hash_include(void *ctx, char kind, const char *name_in, size_t len);

/* Hash one included file and, recursively, what it includes. */
static int hash_file(struct includes *inc, const char *path)
{
	for (size_t i = 0; i < inc->n_seen; i++)
		if (strcmp(inc->seen[i], path) == 0) {
			jc_fp_str(inc->fp, "include.again", path);
			return 0; /* include guards make this common and fine */
		}
	if (inc->n_seen == MAX_INCLUDE_FILES || inc->depth == MAX_INCLUDE_DEPTH)
		return -1;
	size_t size;
	char *text = read_file(path, &size);
	if (!text || !(inc->seen[inc->n_seen] = strdup(path))) {
		free(text);
		return -1;
	}
	inc->n_seen++;
	jc_fp_bytes(inc->fp, "include.content", text, size);
	char dir[4096];
	const char *slash = strrchr(path, '/');
	if (slash)
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
	else
		snprintf(dir, sizeof dir, ".");
	const char *outer = inc->from_dir;
	inc->from_dir = dir;
	inc->depth++;
	int rc = scan_includes(text, size, hash_include, inc);
	inc->depth--;
	inc->from_dir = outer;
	free(text);
	return rc;
}

static int hash_include(void *ctx, char kind, const char *name_in, size_t len)
{
	struct includes *inc = ctx;
	char name[4096], path[8192];
	if (kind == '?' || len >= sizeof name) {
		jc_log(JC_LOG_DEBUG, "OpenCL build not cached: an #include names its file "
				     "through a macro");
		return -1;
	}
	memcpy(name, name_in, len);
	name[len] = '\0';
	if (!resolve(inc, kind, name, path, sizeof path)) {
		jc_log(JC_LOG_DEBUG, "OpenCL build not cached: #include %c%s%c not found",
		       kind, name, kind == '<' ? '>' : '"');
		return -1;
	}
	jc_fp_str(inc->fp, "include", name);
	if (hash_file(inc, path) != 0) {
		jc_log(JC_LOG_DEBUG, "OpenCL build not cached: cannot read %s (or too many "
				     "nested includes)", path);
		return -1;
	}
	return 0;
}

static int hash_includes(struct jc_fp *fp, const struct jc_cl_input *in, const char *options)
{
	if (in->n_includes == 0)
		return 0;
	struct includes inc = { .fp = fp };
	int rc = parse_include_dirs(options, &inc);
	for (size_t i = 0; rc == 0 && i < in->n_includes; i++)
		rc = hash_include(&inc, in->includes[i][0], in->includes[i] + 1,
				  strlen(in->includes[i] + 1));
	for (size_t i = 0; i < inc.n_dirs; i++)
		free(inc.dirs[i]);
	for (size_t i = 0; i < inc.n_seen; i++)
		free(inc.seen[i]);
	free(inc.dirs);
	return rc;
}

/* ---- devices ------------------------------------------------------------ */

static int hash_device_str(struct jc_fp *fp, const char *label, cl_device_id dev,
			   cl_device_info param)
{
	const struct jc_cl_real *cl = jc_cl_real();
	size_t size = 0;
	if (cl->clGetDeviceInfo(dev, param, 0, NULL, &size) != CL_SUCCESS)
		return -1;
	char *s = malloc(size + 1);
	if (!s || cl->clGetDeviceInfo(dev, param, size, s, NULL) != CL_SUCCESS) {
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
	if (cl->clGetPlatformInfo(platform, param, 0, NULL, &size) != CL_SUCCESS)
		return -1;
	char *s = malloc(size + 1);
	if (!s || cl->clGetPlatformInfo(platform, param, size, s, NULL) != CL_SUCCESS) {
		free(s);
		return -1;
	}
	jc_fp_bytes(fp, label, s, size);
	free(s);
	return 0;
}

/* The optional Intel queries: hashed with their answer, or as absent. */
static void hash_device_u32(struct jc_fp *fp, const char *label, cl_device_id dev,
			    cl_device_info param)
{
	cl_uint value = 0;
	if (jc_cl_real()->clGetDeviceInfo(dev, param, sizeof value, &value, NULL) == CL_SUCCESS)
		jc_fp_u64(fp, label, value);
	else
		jc_fp_str(fp, label, NULL);
}

static int hash_device(struct jc_fp *fp, cl_device_id dev)
{
	const struct jc_cl_real *cl = jc_cl_real();
	cl_uint vendor;
	cl_platform_id platform;
	if (cl->clGetDeviceInfo(dev, CL_DEVICE_VENDOR_ID, sizeof vendor, &vendor, NULL) != CL_SUCCESS ||
	    cl->clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL) != CL_SUCCESS)
		return -1;
	jc_fp_u64(fp, "device.vendor-id", vendor);
	if (hash_device_str(fp, "device.name", dev, CL_DEVICE_NAME) ||
	    hash_device_str(fp, "device.version", dev, CL_DEVICE_VERSION) ||
	    hash_device_str(fp, "device.driver-version", dev, CL_DRIVER_VERSION) ||
	    hash_platform_str(fp, "platform.name", platform, CL_PLATFORM_NAME) ||
	    hash_platform_str(fp, "platform.version", platform, CL_PLATFORM_VERSION))
		return -1;
	hash_device_u32(fp, "device.intel-id", dev, JC_CL_DEVICE_ID_INTEL);
	hash_device_u32(fp, "device.intel-ip-version", dev, JC_CL_DEVICE_IP_VERSION_INTEL);
	return 0;
}

/* ---- the key ------------------------------------------------------------ */

int jc_cl_key(const struct jc_cl_input *in, cl_uint ndev, const cl_device_id *devices,
	      const char *options, struct jc_key *key)
{
	if (in->incomplete)
		return -1;
	struct jc_fp *fp = jc_fp_begin(in->from_il ? "cl.program.il" : "cl.program.source");
	if (!fp)
		return -1;
	jc_fp_bytes(fp, "input", in->digest.bytes, sizeof in->digest.bytes);
	jc_fp_str(fp, "options", options);
	jc_fp_u64(fp, "spec.count", in->n_specs);
	for (size_t i = 0; i < in->n_specs; i++) {
		jc_fp_u64(fp, "spec.id", in->specs[i].id);
		jc_fp_bytes(fp, "spec.value", in->specs[i].value, in->specs[i].size);
	}
	jc_fp_u64(fp, "device.count", ndev);
	int rc = 0;
	for (cl_uint i = 0; rc == 0 && i < ndev; i++)
		if ((rc = hash_device(fp, devices[i])) != 0)
			jc_log(JC_LOG_DEBUG, "OpenCL build not cached: a device does not answer "
					     "its identity queries");
	if (rc == 0)
		rc = hash_includes(fp, in, options);
	jc_fp_libraries(fp, compiler_libs);
	jc_fp_environment(fp);
	jc_fp_end(fp, key);
	return rc;
}
