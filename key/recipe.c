// SPDX-License-Identifier: MIT
/* Writing and reading recipes (see recipe.h).
 *
 * Layout, integers little-endian:
 *   "jcrecip1"  u32 api  u64 request_size  request  recording
 * ZE request:  u32 count, then per input: blob spirv, str flags,
 *              u32 n, then per constant: u32 id, blob value
 * CL request:  u8 from_il, blob text, str options, u32 n, then per
 *              constant: u32 id, blob value; u32 files, then per file:
 *              str path, blob contents
 * CL compile:  the CL request, then u32 headers, then per header: str
 *              name, blob text
 * CL link:     str options, u32 inputs, then per input: blob (a whole
 *              CL compile recipe)
 * recording:   16-byte entry key, u32 vendor, u32 id, u32 ip, str name
 * blob: u64 size + bytes; str: u8 present, u64 size, bytes, a NUL.
 */
#include "key/recipe.h"

#include "config/buf.h"
#include "store/hash.h"

#include <stdlib.h>
#include <string.h>

static const char magic[8] = { 'j', 'c', 'r', 'e', 'c', 'i', 'p', '1' };
#define HEAD_SIZE 20 /* magic, api, request_size */

/* ---- writing --------------------------------------------------------------- */

static void put_blob(struct jc_buf *o, const void *data, size_t size)
{
	jc_buf_put_le64(o, size);
	jc_buf_put(o, data, size);
}

static void put_str(struct jc_buf *o, const char *s)
{
	uint8_t present = s != NULL;
	jc_buf_put(o, &present, 1);
	put_blob(o, s ? s : "", s ? strlen(s) : 0);
	jc_buf_put(o, "", 1);
}

static void put_ze(struct jc_buf *o, const struct jc_recipe *r)
{
	jc_buf_put_le32(o, r->ze_count);
	for (uint32_t i = 0; i < r->ze_count; i++) {
		const struct jc_ze_input *in = &r->ze[i];
		put_blob(o, in->spirv, in->size);
		put_str(o, in->flags);
		jc_buf_put_le32(o, in->n_constants);
		for (uint32_t k = 0; k < in->n_constants; k++) {
			jc_buf_put_le32(o, in->constant_ids[k]);
			put_blob(o, in->constant_values[k], r->ze_spec_sizes[i][k]);
		}
	}
}

static void put_cl(struct jc_buf *o, const struct jc_recipe *r)
{
	uint8_t il = r->cl_from_il != 0;
	jc_buf_put(o, &il, 1);
	put_blob(o, r->cl_text, r->cl_size);
	put_str(o, r->cl_options);
	jc_buf_put_le32(o, (uint32_t)r->cl_n_specs);
	for (size_t k = 0; k < r->cl_n_specs; k++) {
		jc_buf_put_le32(o, r->cl_specs[k].id);
		put_blob(o, r->cl_specs[k].value, r->cl_specs[k].size);
	}
	jc_buf_put_le32(o, (uint32_t)r->cl_n_files);
	for (size_t k = 0; k < r->cl_n_files; k++) {
		put_str(o, r->cl_files[k].path);
		put_blob(o, r->cl_files[k].data, r->cl_files[k].size);
	}
}

static void put_compile(struct jc_buf *o, const struct jc_recipe *r)
{
	put_cl(o, r);
	jc_buf_put_le32(o, (uint32_t)r->cl_n_headers);
	for (size_t k = 0; k < r->cl_n_headers; k++) {
		put_str(o, r->cl_headers[k].name);
		put_blob(o, r->cl_headers[k].text, r->cl_headers[k].size);
	}
}

static void put_link(struct jc_buf *o, const struct jc_recipe *r)
{
	put_str(o, r->link_options);
	jc_buf_put_le32(o, (uint32_t)r->link_n_inputs);
	for (size_t k = 0; k < r->link_n_inputs; k++)
		put_blob(o, r->link_inputs[k].data, r->link_inputs[k].size);
}

int jc_recipe_encode(const struct jc_recipe *r, void **bytes, size_t *size)
{
	struct jc_buf o = { 0 };
	jc_buf_put(&o, magic, sizeof magic);
	jc_buf_put_le32(&o, r->api);
	jc_buf_put_le64(&o, 0); /* request_size, filled below */
	if (r->api == JC_RECIPE_ZE)
		put_ze(&o, r);
	else if (r->api == JC_RECIPE_CL_COMPILE)
		put_compile(&o, r);
	else if (r->api == JC_RECIPE_CL_LINK)
		put_link(&o, r);
	else
		put_cl(&o, r);
	size_t request = o.n - HEAD_SIZE;
	jc_buf_put(&o, r->entry.bytes, JC_KEY_BYTES);
	jc_buf_put_le32(&o, r->device.vendor);
	jc_buf_put_le32(&o, r->device.id);
	jc_buf_put_le32(&o, r->device.ip);
	put_str(&o, r->device.name);
	if (o.failed) {
		free(o.s);
		return -1;
	}
	for (int i = 0; i < 8; i++)
		o.s[12 + i] = (char)((uint64_t)request >> (8 * i));
	*bytes = o.s;
	*size = o.n;
	return 0;
}

/* ---- reading --------------------------------------------------------------- */

struct in {
	const uint8_t *p;
	size_t left;
	int bad;
};

static const uint8_t *take(struct in *in, size_t size)
{
	if (in->bad || size > in->left) {
		in->bad = 1;
		return NULL;
	}
	const uint8_t *p = in->p;
	in->p += size, in->left -= size;
	return p;
}

static uint64_t get_u64(struct in *in)
{
	const uint8_t *b = take(in, 8);
	uint64_t v = 0;
	for (int i = 7; b && i >= 0; i--)
		v = v << 8 | b[i];
	return v;
}

static uint32_t get_u32(struct in *in)
{
	const uint8_t *b = take(in, 4);
	return b ? (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
			   (uint32_t)b[3] << 24
		 : 0;
}

static const void *get_blob(struct in *in, size_t *size)
{
	uint64_t n = get_u64(in);
	*size = n <= in->left ? (size_t)n : 0;
	return n <= in->left ? take(in, (size_t)n) : (in->bad = 1, NULL);
}

/* NULL for an absent string (and on a malformed one: in->bad says). */
static const char *get_str(struct in *in)
{
	const uint8_t *present = take(in, 1);
	size_t n;
	const char *s = get_blob(in, &n);
	const uint8_t *nul = take(in, 1);
	if (!nul || *nul != 0 || (n && memchr(s, 0, n))) {
		in->bad = 1;
		return NULL;
	}
	return *present ? s : NULL;
}

/* Arrays the decoded recipe owns, in one list freed together. */
struct arena {
	void **v;
	size_t n;
};

static void *own(struct jc_recipe *r, size_t size)
{
	struct arena *a = r->owned;
	void **v = realloc(a->v, (a->n + 1) * sizeof *v);
	void *p = v ? calloc(1, size ? size : 1) : NULL;
	if (v)
		a->v = v;
	if (p)
		a->v[a->n++] = p;
	return p;
}

/* A constant's value, copied where the driver may read it as its type. */
static void *aligned_copy(struct jc_recipe *r, const void *data, size_t size)
{
	void *p = own(r, size);
	if (p && size)
		memcpy(p, data, size);
	return p;
}

static int get_ze(struct in *in, struct jc_recipe *r)
{
	uint32_t count = get_u32(in);
	if (in->bad || count == 0 || count > in->left)
		return -1;
	struct jc_ze_input *inputs = own(r, count * sizeof *inputs);
	if (!inputs)
		return -1;
	for (uint32_t i = 0; i < count && !in->bad; i++) {
		struct jc_ze_input *x = &inputs[i];
		x->spirv = get_blob(in, &x->size);
		x->flags = get_str(in);
		x->n_constants = get_u32(in);
		if (in->bad || x->n_constants > in->left / 12)
			return -1;
		uint32_t *ids = own(r, x->n_constants * sizeof *ids);
		const void **values = own(r, x->n_constants * sizeof *values);
		if (!ids || !values)
			return -1;
		for (uint32_t k = 0; k < x->n_constants && !in->bad; k++) {
			size_t n;
			ids[k] = get_u32(in);
			const void *v = get_blob(in, &n);
			values[k] = v ? aligned_copy(r, v, n) : NULL;
			if (!values[k])
				return -1;
		}
		x->constant_ids = ids;
		x->constant_values = values;
	}
	r->ze_count = count;
	r->ze = inputs;
	return in->bad ? -1 : 0;
}

static int get_cl(struct in *in, struct jc_recipe *r)
{
	const uint8_t *il = take(in, 1);
	r->cl_from_il = il && *il;
	r->cl_text = get_blob(in, &r->cl_size);
	r->cl_options = get_str(in);
	r->cl_n_specs = get_u32(in);
	if (in->bad || r->cl_n_specs > in->left / 12)
		return -1;
	struct jc_cl_spec *specs = own(r, r->cl_n_specs * sizeof *specs);
	for (size_t k = 0; specs && k < r->cl_n_specs && !in->bad; k++) {
		size_t n;
		specs[k].id = get_u32(in);
		const void *v = get_blob(in, &n);
		specs[k].size = n;
		specs[k].value = v ? aligned_copy(r, v, n) : NULL;
	}
	r->cl_specs = specs;
	r->cl_n_files = get_u32(in);
	if (!specs || in->bad || r->cl_n_files > in->left / 18)
		return -1;
	struct jc_recipe_file *files = own(r, r->cl_n_files * sizeof *files);
	for (size_t k = 0; files && k < r->cl_n_files && !in->bad; k++) {
		files[k].path = get_str(in);
		files[k].data = get_blob(in, &files[k].size);
		in->bad |= !files[k].path;
	}
	r->cl_files = files;
	return files && !in->bad ? 0 : -1;
}

static int get_compile(struct in *in, struct jc_recipe *r)
{
	if (get_cl(in, r) != 0)
		return -1;
	r->cl_n_headers = get_u32(in);
	if (in->bad || r->cl_n_headers > in->left / 19)
		return -1;
	struct jc_recipe_header *h = own(r, r->cl_n_headers * sizeof *h);
	for (size_t k = 0; h && k < r->cl_n_headers && !in->bad; k++) {
		h[k].name = get_str(in);
		h[k].text = get_blob(in, &h[k].size);
		in->bad |= !h[k].name;
	}
	r->cl_headers = h;
	return h && !in->bad ? 0 : -1;
}

static int get_link(struct in *in, struct jc_recipe *r)
{
	r->link_options = get_str(in);
	r->link_n_inputs = get_u32(in);
	if (in->bad || r->link_n_inputs == 0 || r->link_n_inputs > in->left / 8)
		return -1;
	struct jc_recipe_bytes *x = own(r, r->link_n_inputs * sizeof *x);
	for (size_t k = 0; x && k < r->link_n_inputs && !in->bad; k++)
		x[k].data = get_blob(in, &x[k].size);
	r->link_inputs = x;
	return x && !in->bad ? 0 : -1;
}

static int get_request(struct in *in, struct jc_recipe *r)
{
	switch (r->api) {
	case JC_RECIPE_ZE:
		return get_ze(in, r);
	case JC_RECIPE_CL:
		return get_cl(in, r);
	case JC_RECIPE_CL_COMPILE:
		return get_compile(in, r);
	case JC_RECIPE_CL_LINK:
		return get_link(in, r);
	}
	return -1;
}

int jc_recipe_decode(const void *bytes, size_t size, struct jc_recipe *r)
{
	memset(r, 0, sizeof *r);
	struct in in = { bytes, size, 0 };
	const uint8_t *m = take(&in, sizeof magic);
	if (!m || memcmp(m, magic, sizeof magic) != 0)
		return -1;
	r->api = get_u32(&in);
	uint64_t request = get_u64(&in);
	if (in.bad || request > in.left || r->api < JC_RECIPE_ZE || r->api > JC_RECIPE_CL_LINK)
		return -1;
	if (!(r->owned = calloc(1, sizeof(struct arena))))
		return -1;
	struct in req = { in.p, (size_t)request, 0 };
	int rc = get_request(&req, r);
	take(&in, (size_t)request);
	const uint8_t *key = take(&in, JC_KEY_BYTES);
	if (key)
		memcpy(r->entry.bytes, key, JC_KEY_BYTES);
	r->device.vendor = get_u32(&in);
	r->device.id = get_u32(&in);
	r->device.ip = get_u32(&in);
	const char *name = get_str(&in);
	if (name)
		snprintf(r->device.name, sizeof r->device.name, "%s", name);
	if (rc != 0 || req.bad || req.left || in.bad) {
		jc_recipe_free(r);
		return -1;
	}
	return 0;
}

void jc_recipe_free(struct jc_recipe *r)
{
	struct arena *a = r->owned;
	for (size_t i = 0; a && i < a->n; i++)
		free(a->v[i]);
	if (a)
		free(a->v);
	free(a);
	r->owned = NULL;
}

uint64_t jc_recipe_request_hash(const void *bytes, size_t size)
{
	struct in in = { bytes, size, 0 };
	const uint8_t *m = take(&in, sizeof magic);
	get_u32(&in);
	uint64_t request = get_u64(&in);
	if (!m || memcmp(m, magic, sizeof magic) != 0 || in.bad || request > in.left)
		return 0;
	return jc_hash64(bytes, HEAD_SIZE + (size_t)request, 0);
}
