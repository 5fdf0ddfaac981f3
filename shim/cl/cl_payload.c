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

int jc_cl_payload_encode(const struct jc_cl_payload *p, void **out, size_t *size)
{
	size_t total = sizeof(struct header) + p->ndev * sizeof(struct sizes);
	for (cl_uint i = 0; i < p->ndev; i++)
		total += p->binary_sizes[i] + p->log_sizes[i];
	unsigned char *buf = malloc(total);
	if (!buf)
		return -1;
	struct header h = { JC_CL_PAYLOAD_MAGIC,
			    p->status ? JC_CL_PAYLOAD_VERSION_FAILED : JC_CL_PAYLOAD_VERSION, p->ndev,
			    (uint32_t)p->status };
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

int jc_cl_payload_decode(const void *bytes, size_t size, struct jc_cl_payload *p)
{
	const unsigned char *b = bytes;
	struct header h;
	memset(p, 0, sizeof *p);
	if (size < sizeof h)
		return -1;
	memcpy(&h, b, sizeof h);
	int failed = h.version == JC_CL_PAYLOAD_VERSION_FAILED;
	if (h.magic != JC_CL_PAYLOAD_MAGIC || (h.version != JC_CL_PAYLOAD_VERSION && !failed) ||
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
	if (left != 0) {
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
	memset(p, 0, sizeof *p);
}
