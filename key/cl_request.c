// SPDX-License-Identifier: MIT
/* An OpenCL program's input and the key of its builds (see cl_request.h). */
#include "key/cl_request.h"
#include "key/compiler.h"
#include "key/include.h"
#include "key/spirv.h"

#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

/* The driver and compiler libraries whose builds decide the output: Intel's
 * NEO + IGC (2.x of the 2025+ drivers, and 1.x), PoCL + its LLVM, NVIDIA's
 * driver and PTX JIT.  The ICD loader compiles nothing and is left out, as
 * the Level Zero loader is: which one a program reached the driver through
 * (the system's ocl-icd, or the Khronos loader a SYCL wheel ships) must not
 * change the key, or `jitcache warm` could not make the entries it looks up. */
static const char *const compiler_libs[] = {
	"libigdrcl.so", "libigc.so.2", "libigdfcl.so.2", "libopencl-clang.so.16",
	"libigc.so.1", "libigdfcl.so.1", "libopencl-clang.so.14",
	"libpocl.so.2", "libLLVM-15.so.1", "libclang-cpp.so.15",
	"libnvidia-opencl.so.1", "libnvidia-ptxjitcompiler.so.1",
	NULL,
};

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

/* A hash of OpenCL C without its comments and with each run of white space
 * one blank (none at the ends), for `jitcache explain` alone: two sources
 * with the same one differ only in what a compiler's debug information
 * would show (line numbers).  String and character literals are kept as
 * they are. */
static uint64_t source_semantic_hash(const char *t, size_t n)
{
	char *out = malloc(n + 1);
	if (!out)
		return 0;
	size_t o = 0;
	int blank = 0;
	for (size_t i = 0; i < n; i++) {
		char c = t[i];
		if (c == '/' && i + 1 < n && t[i + 1] == '/') {
			while (i < n && t[i] != '\n')
				i++;
			blank = 1;
			continue;
		}
		if (c == '/' && i + 1 < n && t[i + 1] == '*') {
			for (i += 2; i + 1 < n && !(t[i] == '*' && t[i + 1] == '/'); i++)
				;
			i++;
			blank = 1;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
			blank = 1;
			continue;
		}
		if (blank && o)
			out[o++] = ' ';
		blank = 0;
		out[o++] = c;
		if (c == '"' || c == '\'') { /* a literal, to its end */
			for (i++; i < n && t[i] != c && t[i] != '\n'; i++) {
				out[o++] = t[i];
				if (t[i] == '\\' && i + 1 < n)
					out[o++] = t[++i];
			}
			if (i < n)
				out[o++] = t[i];
		}
	}
	uint64_t h = XXH3_64bits(out, o);
	free(out);
	return h ? h : 1;
}

int jc_cl_input_source(struct jc_cl_input *in, uint32_t count, const char **strings,
		       const size_t *lengths)
{
	memset(in, 0, sizeof *in);
	size_t total = 0;
	for (uint32_t i = 0; i < count; i++)
		total += lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
	char *text = malloc(total + 1);
	if (!text)
		return -1;
	size_t at = 0;
	for (uint32_t i = 0; i < count; i++) {
		size_t n = lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
		memcpy(text + at, strings[i], n);
		at += n;
	}
	struct jc_fp *fp = jc_fp_begin("cl.source");
	jc_fp_bytes(fp, "source", text, total);
	jc_fp_end(fp, &in->digest);
	in->semantic = source_semantic_hash(text, total);
	int rc = fp ? jc_include_scan(text, total, keep_include, in) : -1;
	in->text = text;
	in->text_size = total;
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
	in->semantic = jc_spirv_semantic_hash(il, size);
	if ((in->text = malloc(size ? size : 1)))
		memcpy(in->text, il, size);
	in->text_size = size;
	return 0;
}

/* The value set last for an id wins, as in the driver. */
int jc_cl_input_spec(struct jc_cl_input *in, uint32_t id, size_t size, const void *value)
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
	free(in->text);
	memset(in, 0, sizeof *in);
}

int jc_cl_input_copy(struct jc_cl_input *out, const struct jc_cl_input *in)
{
	*out = *in;
	out->text = NULL;
	out->text_size = 0;
	out->includes = in->n_includes ? calloc(in->n_includes, sizeof *out->includes) : NULL;
	out->specs = in->n_specs ? calloc(in->n_specs, sizeof *out->specs) : NULL;
	int ok = (!in->n_includes || out->includes) && (!in->n_specs || out->specs);
	for (size_t i = 0; ok && i < in->n_includes; i++)
		ok = (out->includes[i] = strdup(in->includes[i])) != NULL;
	for (size_t i = 0; ok && i < in->n_specs; i++) {
		out->specs[i] = in->specs[i];
		out->specs[i].value = malloc(in->specs[i].size ? in->specs[i].size : 1);
		if ((ok = out->specs[i].value != NULL))
			memcpy(out->specs[i].value, in->specs[i].value, in->specs[i].size);
	}
	if (!ok) {
		if (!out->includes)
			out->n_includes = 0;
		if (!out->specs)
			out->n_specs = 0;
		jc_cl_input_free(out);
		return -1;
	}
	return 0;
}

/* ---- the key ------------------------------------------------------------ */

/* What a build and a compile key alike: the input, its options and
 * specialization constants, the devices, the files it includes, the
 * compiler.  A compile adds its embedded headers (`more`, may be NULL). */
static int program_key(const char *tag, const struct jc_cl_input *in, const char *options,
		       jc_cl_hash_devices_fn hash_devices, void *ctx,
		       int (*more)(struct jc_fp *, const void *), const void *more_ctx,
		       struct jc_key *key)
{
	if (in->incomplete)
		return -1;
	struct jc_fp *fp = jc_fp_begin(tag);
	if (!fp)
		return -1;
	jc_fp_bytes(fp, "input", in->digest.bytes, sizeof in->digest.bytes);
	jc_fp_note_u64(fp, "input.semantic", in->semantic);
	jc_fp_str(fp, "options", options);
	jc_fp_u64(fp, "spec.count", in->n_specs);
	for (size_t i = 0; i < in->n_specs; i++) {
		jc_fp_u64(fp, "spec.id", in->specs[i].id);
		jc_fp_bytes(fp, "spec.value", in->specs[i].value, in->specs[i].size);
	}
	int rc = hash_devices(ctx, fp);
	if (rc == 0)
		rc = jc_include_hash(fp, in->n_includes, in->includes, options);
	if (rc == 0 && more)
		rc = more(fp, more_ctx);
	jc_fp_libraries(fp, compiler_libs);
	jc_fp_environment(fp);
	jc_fp_end(fp, key);
	return rc;
}

int jc_cl_key(const struct jc_cl_input *in, const char *options,
	      jc_cl_hash_devices_fn hash_devices, void *ctx, struct jc_key *key)
{
	return program_key(in->from_il ? "cl.program.il" : "cl.program.source", in, options,
			   hash_devices, ctx, NULL, NULL, key);
}

struct headers {
	size_t n;
	const struct jc_cl_input *const *inputs;
	const char *const *names;
	const char *options;
};

/* Each embedded header by the name the source includes it by, its text,
 * and the files it includes in turn. */
static int hash_headers(struct jc_fp *fp, const void *ctx)
{
	const struct headers *h = ctx;
	jc_fp_u64(fp, "headers.count", h->n);
	for (size_t i = 0; i < h->n; i++) {
		const struct jc_cl_input *in = h->inputs[i];
		if (in->incomplete || in->from_il || !h->names[i])
			return -1;
		jc_fp_str(fp, "header.name", h->names[i]);
		jc_fp_bytes(fp, "header.input", in->digest.bytes, sizeof in->digest.bytes);
		if (jc_include_hash(fp, in->n_includes, in->includes, h->options) != 0)
			return -1;
	}
	return 0;
}

int jc_cl_compile_key(const struct jc_cl_input *in, const char *options, size_t n_headers,
		      const struct jc_cl_input *const *headers, const char *const *names,
		      jc_cl_hash_devices_fn hash_devices, void *ctx, struct jc_key *key)
{
	struct headers h = { n_headers, headers, names, options };
	return program_key(in->from_il ? "cl.compile.il" : "cl.compile.source", in, options,
			   hash_devices, ctx, hash_headers, &h, key);
}

int jc_cl_link_key(const char *options, size_t n_inputs, const struct jc_key *inputs,
		   jc_cl_hash_devices_fn hash_devices, void *ctx, struct jc_key *key)
{
	struct jc_fp *fp = jc_fp_begin("cl.link");
	if (!fp)
		return -1;
	jc_fp_str(fp, "options", options);
	jc_fp_u64(fp, "inputs.count", n_inputs);
	for (size_t i = 0; i < n_inputs; i++)
		jc_fp_bytes(fp, "input.compile", inputs[i].bytes, sizeof inputs[i].bytes);
	int rc = hash_devices(ctx, fp);
	jc_fp_libraries(fp, compiler_libs);
	jc_fp_environment(fp);
	jc_fp_end(fp, key);
	return rc;
}

int jc_cl_input_names_files(const struct jc_cl_input *in)
{
	for (size_t i = 0; i < in->n_includes; i++)
		if (strchr("\"<?!", in->includes[i][0]))
			return 1;
	return 0;
}
