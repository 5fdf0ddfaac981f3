// SPDX-License-Identifier: MIT
/* libFuzzer target: the archive reader (cache/archive.c) must survive any
 * file, plain or zstd-compressed: never crashing, reading out of bounds,
 * looping or allocating more than the data that arrived.  Inputs of odd
 * length are first compressed as one zstd frame, so that the fuzzer also
 * reaches the tar parser through the decompressor; seeds are whole, cut and
 * foreign archives (tests/fuzz/corpus-archive). */
#include "tiers/archive.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#define MAX_MEMBER (64 * 1024)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A member check as import's: it sees at most 512 bytes, all of them there,
 * and refuses members whose first byte is odd. */
static const char *check(void *arg, const char *name, const void *head, size_t n,
			 uint64_t size)
{
	if (n > 512 || n > size || (n && !head))
		abort();
	if (n)
		((const volatile uint8_t *)head)[n - 1];
	return n && ((const uint8_t *)head)[0] % 2 ? "odd" : NULL;
}

static void read_all(const uint8_t *bytes, size_t size, int checked)
{
	FILE *f = fmemopen((void *)(uintptr_t)bytes, size ? size : 1, "rb");
	if (!f)
		return;
	if (!size)
		fgetc(f); /* fmemopen needs a size: read its one byte away */
	struct jc_archive_reader *r = jc_archive_open(f, MAX_MEMBER);
	struct jc_archive_member m;
	if (r && checked)
		jc_archive_set_check(r, check, NULL);
	int rc = 0;
	for (long n = 0; r && (rc = jc_archive_next(r, &m)) > 0; n++) {
		if (n > 1000000)
			abort(); /* no input holds that many members: a loop */
		if (m.data ? m.size > MAX_MEMBER || m.why : !m.why)
			abort(); /* data only for a kept member; a reason otherwise */
		if (m.data && m.size)
			((volatile uint8_t *)m.data)[m.size - 1]; /* all of it is there */
		if (checked && m.data && m.size && ((const uint8_t *)m.data)[0] % 2)
			abort(); /* the check refused it: not kept */
		if (memchr(m.name, '\n', sizeof m.name))
			abort(); /* names are printable */
		jc_archive_member_free(&m);
	}
	if (r && rc < 0 && !jc_archive_error(r)[0])
		abort(); /* every stop says why */
	jc_archive_close(r);
	fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	read_all(data, size, size % 3 == 0);
	if (size % 2) {
		size_t bound = ZSTD_compressBound(size);
		uint8_t *z = malloc(bound);
		size_t n = ZSTD_compress(z, bound, data, size, 1);
		if (!ZSTD_isError(n))
			read_all(z, n, size % 3 == 0);
		free(z);
	}
	return 0;
}
