// SPDX-License-Identifier: MIT
/* One OpenCL cache entry's bytes (see cl_payload.h). */
#include "shim/cl/cl_payload.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct header {
	uint32_t magic, version, ndev, status;
};

struct sizes {
	uint64_t binary, log;
};

static uint32_t version_of(const struct jc_cl_payload *p)
{
	if (p->status)
		return JC_CL_PAYLOAD_VERSION_FAILED;
	return p->kernels_known ? JC_CL_PAYLOAD_VERSION_KERNELS : JC_CL_PAYLOAD_VERSION;
}

int jc_cl_payload_encode(const struct jc_cl_payload *p, void **out, size_t *size)
{
	int kernels = !p->status && p->kernels_known;
	size_t total = sizeof(struct header) + p->ndev * sizeof(struct sizes);
	for (cl_uint i = 0; i < p->ndev; i++)
		total += p->binary_sizes[i] + p->log_sizes[i];
	if (kernels)
		total += sizeof(uint32_t) + p->nkernels * sizeof(struct sizes);
	for (cl_uint i = 0; kernels && i < p->nkernels; i++)
		total += p->name_sizes[i] + p->attribute_sizes[i];
	unsigned char *buf = malloc(total);
	if (!buf)
		return -1;
	struct header h = { JC_CL_PAYLOAD_MAGIC, version_of(p), p->ndev, (uint32_t)p->status };
	memcpy(buf, &h, sizeof h);
	unsigned char *at = buf + sizeof h;
	for (cl_uint i = 0; i < p->ndev; i++, at += sizeof(struct sizes)) {
		struct sizes s = { p->binary_sizes[i], p->log_sizes[i] };
		memcpy(at, &s, sizeof s);
	}
	for (cl_uint i = 0; i < p->ndev; i++) {
		if (p->binary_sizes[i]) /* a failure record has none (NULL) */
			memcpy(at, p->binaries[i], p->binary_sizes[i]);
		at += p->binary_sizes[i];
	}
	for (cl_uint i = 0; i < p->ndev; i++) {
		if (p->log_sizes[i])
			memcpy(at, p->logs[i], p->log_sizes[i]);
		at += p->log_sizes[i];
	}
	if (kernels) {
		uint32_t k = p->nkernels;
		memcpy(at, &k, sizeof k);
		at += sizeof k;
		for (cl_uint i = 0; i < k; i++, at += sizeof(struct sizes)) {
			struct sizes s = { p->name_sizes[i], p->attribute_sizes[i] };
			memcpy(at, &s, sizeof s);
		}
		for (cl_uint i = 0; i < k; at += p->name_sizes[i], i++)
			memcpy(at, p->kernel_names[i], p->name_sizes[i]);
		for (cl_uint i = 0; i < k; at += p->attribute_sizes[i], i++)
			memcpy(at, p->attributes[i], p->attribute_sizes[i]);
	}
	*out = buf;
	*size = total;
	return 0;
}

static int allocate(struct jc_cl_payload *p, cl_uint ndev)
{
	p->ndev = ndev;
	p->binaries = calloc(ndev, sizeof *p->binaries);
	p->binary_sizes = calloc(ndev, sizeof *p->binary_sizes);
	p->logs = calloc(ndev, sizeof *p->logs);
	p->log_sizes = calloc(ndev, sizeof *p->log_sizes);
	if (p->binaries && p->binary_sizes && p->logs && p->log_sizes)
		return 0;
	jc_cl_payload_free(p);
	return -1;
}

/* Version 3's kernels, in the `size` bytes at b: 0, or -1 unless exactly
 * one well-formed section with every string NUL-terminated. */
static int decode_kernels(const unsigned char *b, size_t size, struct jc_cl_payload *p)
{
	uint32_t k;
	if (size < sizeof k)
		return -1;
	memcpy(&k, b, sizeof k);
	size_t left = size - sizeof k;
	if (k > JC_CL_PAYLOAD_MAX_KERNELS || left / sizeof(struct sizes) < k)
		return -1;
	left -= k * sizeof(struct sizes);
	p->kernels_known = 1;
	p->nkernels = k;
	p->kernel_names = calloc(k + 1, sizeof *p->kernel_names);
	p->name_sizes = calloc(k + 1, sizeof *p->name_sizes);
	p->attributes = calloc(k + 1, sizeof *p->attributes);
	p->attribute_sizes = calloc(k + 1, sizeof *p->attribute_sizes);
	if (!p->kernel_names || !p->name_sizes || !p->attributes || !p->attribute_sizes)
		return -1;
	for (uint32_t i = 0; i < k; i++) {
		struct sizes s;
		memcpy(&s, b + sizeof k + i * sizeof s, sizeof s);
		if (s.binary == 0 || s.log == 0 || s.binary > left || s.log > left - s.binary)
			return -1;
		left -= s.binary + s.log;
		p->name_sizes[i] = s.binary;
		p->attribute_sizes[i] = s.log;
	}
	if (left != 0)
		return -1;
	const unsigned char *at = b + sizeof k + k * sizeof(struct sizes);
	for (uint32_t i = 0; i < k; at += p->name_sizes[i], i++)
		if (at[p->name_sizes[i] - 1] != '\0')
			return -1;
		else
			p->kernel_names[i] = (const char *)at;
	for (uint32_t i = 0; i < k; at += p->attribute_sizes[i], i++)
		if (at[p->attribute_sizes[i] - 1] != '\0')
			return -1;
		else
			p->attributes[i] = (const char *)at;
	return 0;
}

int jc_cl_payload_decode(const void *bytes, size_t size, struct jc_cl_payload *p)
{
	const unsigned char *b = bytes;
	struct header h;
	memset(p, 0, sizeof *p);
	if (size < sizeof h)
		return -1;
	memcpy(&h, b, sizeof h);
	int failed = h.version == JC_CL_PAYLOAD_VERSION_FAILED;
	int kernels = h.version == JC_CL_PAYLOAD_VERSION_KERNELS;
	if (h.magic != JC_CL_PAYLOAD_MAGIC ||
	    (h.version != JC_CL_PAYLOAD_VERSION && !failed && !kernels) ||
	    h.ndev == 0 || h.ndev > JC_CL_PAYLOAD_MAX_DEVICES || (h.status != 0) != failed ||
	    (size - sizeof h) / sizeof(struct sizes) < h.ndev || allocate(p, h.ndev) != 0)
		return -1;
	p->status = (cl_int)h.status;
	size_t at = sizeof h + h.ndev * sizeof(struct sizes);
	size_t left = size - at;
	for (cl_uint i = 0; i < h.ndev; i++) {
		struct sizes s;
		memcpy(&s, b + sizeof h + i * sizeof s, sizeof s);
		if ((s.binary == 0) != failed || s.binary > left || s.log > left - s.binary) {
			jc_cl_payload_free(p);
			return -1;
		}
		left -= s.binary + s.log;
		p->binary_sizes[i] = s.binary;
		p->log_sizes[i] = s.log;
	}
	if (kernels ? decode_kernels(b + size - left, left, p) != 0 : left != 0) {
		jc_cl_payload_free(p);
		return -1;
	}
	for (cl_uint i = 0; i < h.ndev; i++) {
		p->binaries[i] = b + at;
		at += p->binary_sizes[i];
	}
	for (cl_uint i = 0; i < h.ndev; i++) {
		p->logs[i] = (const char *)b + at;
		at += p->log_sizes[i];
	}
	return 0;
}

void jc_cl_payload_free(struct jc_cl_payload *p)
{
	free(p->binaries);
	free(p->binary_sizes);
	free(p->logs);
	free(p->log_sizes);
	free(p->kernel_names);
	free(p->name_sizes);
	free(p->attributes);
	free(p->attribute_sizes);
	memset(p, 0, sizeof *p);
}
