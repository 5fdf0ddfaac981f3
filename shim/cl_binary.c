/* What of a driver's program binary a hit needs (see cl_binary.h). */
#include "shim/cl_binary.h"

#include <stdint.h>
#include <string.h>

#define ET_OPENCL_EXECUTABLE 0xff04         /* NEO's legacy OpenCL ELF type */
#define SHT_OPENCL_DEV_BINARY 0xff000005u   /* "Intel(R) OpenCL Device Binary" */

static uint16_t u16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t u32(const unsigned char *p) { return (uint32_t)u16(p) | (uint32_t)u16(p + 2) << 16; }
static uint64_t u64(const unsigned char *p) { return (uint64_t)u32(p) | (uint64_t)u32(p + 4) << 32; }

const unsigned char *jc_cl_binary_needed(const unsigned char *bin, size_t size, size_t *needed)
{
	*needed = size;
	/* A 64-bit little-endian ELF of NEO's OpenCL type. */
	if (size < 64 || memcmp(bin, "\x7f" "ELF", 4) != 0 || bin[4] != 2 || bin[5] != 1 ||
	    u16(bin + 16) != ET_OPENCL_EXECUTABLE)
		return bin;
	uint64_t shoff = u64(bin + 40);
	uint16_t shentsize = u16(bin + 58), shnum = u16(bin + 60);
	if (shentsize < 64 || shoff > size || (uint64_t)shnum * shentsize > size - shoff)
		return bin;
	const unsigned char *found = NULL;
	size_t found_size = 0;
	for (uint16_t i = 0; i < shnum; i++) {
		const unsigned char *sh = bin + shoff + (uint64_t)i * shentsize;
		if (u32(sh + 4) != SHT_OPENCL_DEV_BINARY)
			continue;
		uint64_t off = u64(sh + 24), len = u64(sh + 32);
		if (found || off > size || len > size - off || len < 4 ||
		    memcmp(bin + off, "CTNI", 4) != 0)
			return bin; /* two of them, or not what it should be: keep it whole */
		found = bin + off;
		found_size = (size_t)len;
	}
	if (!found)
		return bin;
	*needed = found_size;
	return found;
}
