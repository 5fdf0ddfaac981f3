// SPDX-License-Identifier: MIT
/* libFuzzer target: the GNU build-id reader (key/elfnote.c) must survive any
 * note segment and any file, reading only inside them, and hand out an id
 * no longer than asked.  The input is tried both as the contents of a
 * PT_NOTE segment and as a whole ELF file (through a memfd). */
#include "key/elfnote.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	uint8_t id[JC_BUILD_ID_MAX];
	uint8_t *notes = malloc(size ? size : 1);
	memcpy(notes, data, size);
	size_t cap = size ? data[0] % (JC_BUILD_ID_MAX + 1) : JC_BUILD_ID_MAX;
	if (jc_elf_notes_build_id(notes, size, id, cap) > cap)
		abort();
	free(notes);
	if (fd < 0 && (fd = memfd_create("jitcache-fuzz-elf", 0)) < 0)
		abort();
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	if (jc_elf_file_build_id(fd, id, sizeof id) > sizeof id)
		abort();
	return 0;
}
