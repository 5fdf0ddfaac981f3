// SPDX-License-Identifier: MIT
/* libFuzzer target: the entry reader must survive any file, never crashing,
 * reading out of bounds or handing out data that was not checked.  Inputs
 * of odd length get their checksum fixed up first, so that the fuzzer gets
 * past it to the size checks and the decompressor.  Every input is also
 * stored as a payload and read back, which must round-trip. */
#include "store/entry.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int memfd(void)
{
	static int fd = -1;
	if (fd < 0)
		fd = memfd_create("jitcache-fuzz-entry", 0);
	return fd;
}

/* Write bytes to the memfd and read them back as the entry for key. */
static enum jc_entry_status read_back(const uint8_t *bytes, size_t size, const struct jc_key *key,
				      struct jc_entry *e)
{
	const char *why = NULL;
	int fd = memfd();
	if (ftruncate(fd, 0) != 0 || pwrite(fd, bytes, size, 0) != (ssize_t)size ||
	    lseek(fd, 0, SEEK_SET) != 0)
		abort();
	enum jc_entry_status status = jc_read_entry(fd, key, JC_ENTRY_LIMIT_UNCAPPED, e, &why);
	if (status != JC_ENTRY_OK && !why)
		abort(); /* every rejection says why */
	return status;
}

static void round_trip(const uint8_t *data, size_t size)
{
	struct jc_encoded enc;
	struct jc_entry e;
	struct jc_key key = { { 0 } };
	memcpy(key.bytes, data, size < JC_KEY_BYTES ? size : JC_KEY_BYTES);
	jc_entry_encode(&key, data, size, size, size % 3 == 0, &enc);
	size_t file_size = JC_ENTRY_HEADER_SIZE + enc.payload_size;
	uint8_t *file = malloc(file_size);
	memcpy(file, enc.header, JC_ENTRY_HEADER_SIZE);
	if (enc.payload_size)
		memcpy(file + JC_ENTRY_HEADER_SIZE, enc.payload, enc.payload_size);
	free(enc.owned);
	if (read_back(file, file_size, &key, &e) != JC_ENTRY_OK || e.size != size ||
	    (size && memcmp(e.data, data, size) != 0) || e.compile_ns != size)
		abort();
	jc_entry_free(&e);
	free(file);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jc_key key = { { 0 } };
	struct jc_entry e;
	uint8_t *file = malloc(size ? size : 1);
	if (size)
		memcpy(file, data, size);
	if (size >= JC_ENTRY_HEADER_SIZE) {
		memcpy(key.bytes, file + 16, JC_KEY_BYTES); /* the key the file claims */
		if (size % 2) {
			uint64_t sum = jc_entry_checksum(file, file + JC_ENTRY_HEADER_SIZE,
							 size - JC_ENTRY_HEADER_SIZE);
			for (int i = 0; i < 8; i++)
				file[56 + i] = (uint8_t)(sum >> (8 * i));
		}
	}
	if (read_back(file, size, &key, &e) == JC_ENTRY_OK) {
		/* Only a file whose checksum matched may produce data. */
		if (size < JC_ENTRY_HEADER_SIZE || (e.size && !e.data))
			abort();
		jc_entry_free(&e);
	}
	free(file);
	round_trip(data, size);
	return 0;
}
