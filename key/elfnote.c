// SPDX-License-Identifier: MIT
/* GNU build-id notes, from memory or from a file (see elfnote.h). */
#include "key/elfnote.h"

#include <elf.h>
#include <string.h>
#include <unistd.h>

size_t jc_elf_notes_build_id(const void *notes, size_t size, uint8_t *out, size_t cap)
{
	const uint8_t *p = notes;
	for (size_t off = 0; off <= size && size - off >= sizeof(Elf64_Nhdr);) {
		Elf64_Nhdr nh;
		memcpy(&nh, p + off, sizeof nh); /* notes may be unaligned */
		/* In 64-bit arithmetic, so that no size in the note can wrap. */
		uint64_t name_at = off + sizeof nh;
		uint64_t desc_at = name_at + (((uint64_t)nh.n_namesz + 3) & ~(uint64_t)3);
		uint64_t next = desc_at + (((uint64_t)nh.n_descsz + 3) & ~(uint64_t)3);
		if (next > size)
			break;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp(p + name_at, "GNU", 4) == 0 && nh.n_descsz <= cap) {
			memcpy(out, p + desc_at, nh.n_descsz);
			return nh.n_descsz;
		}
		off = (size_t)next;
	}
	return 0;
}

size_t jc_elf_file_build_id(int fd, uint8_t *out, size_t cap)
{
	Elf64_Ehdr eh;
	if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > JC_ELF_MAX_PHDRS)
		return 0;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		if (eh.e_phoff > INT64_MAX - JC_ELF_MAX_PHDRS * sizeof ph ||
		    pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + i * sizeof ph)) != (ssize_t)sizeof ph)
			return 0;
		if (ph.p_type != PT_NOTE || ph.p_filesz > JC_ELF_MAX_NOTES || ph.p_offset > INT64_MAX)
			continue;
		uint8_t notes[JC_ELF_MAX_NOTES];
		if (pread(fd, notes, ph.p_filesz, (off_t)ph.p_offset) != (ssize_t)ph.p_filesz)
			return 0;
		size_t n = jc_elf_notes_build_id(notes, ph.p_filesz, out, cap);
		if (n)
			return n;
	}
	return 0;
}
