// SPDX-License-Identifier: MIT
/*
 * elfnote.h — the GNU build-id of an ELF object: the one fact jitcache reads
 * from a driver's or compiler's library to tell its builds apart.
 *
 *   uint8_t id[JC_BUILD_ID_MAX];
 *   size_t n = jc_elf_notes_build_id(notes, notes_size, id, sizeof id);
 *   size_t n = jc_elf_file_build_id(fd, id, sizeof id);   // a file not loaded
 *
 * jc_elf_notes_build_id() searches the contents of one PT_NOTE segment (in
 * memory, e.g. of a loaded image found with dl_iterate_phdr); the file
 * variant reads a 64-bit ELF file's program headers and note segments with
 * pread.  Both return the build-id's length, or 0 when there is none, the
 * bytes are malformed, or the id is longer than cap.  They read only inside
 * the given buffer or file, whatever its bytes claim.  Limits, kept so that
 * an object is identified alike whether read from memory or from its file:
 * at most JC_ELF_MAX_PHDRS program headers, and note segments of at most
 * JC_ELF_MAX_NOTES bytes are searched (a larger one is skipped).
 */
#ifndef JITCACHE_KEY_ELFNOTE_H
#define JITCACHE_KEY_ELFNOTE_H

#include <stddef.h>
#include <stdint.h>

#define JC_BUILD_ID_MAX 64
#define JC_ELF_MAX_PHDRS 64
#define JC_ELF_MAX_NOTES 4096

size_t jc_elf_notes_build_id(const void *notes, size_t size, uint8_t *out, size_t cap);
size_t jc_elf_file_build_id(int fd, uint8_t *out, size_t cap);

#endif
