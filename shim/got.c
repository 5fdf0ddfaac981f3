// SPDX-License-Identifier: MIT
/* jc_got_hook (got.h): the slots found through each matching library's
 * dynamic section (dl_iterate_phdr), written in place. */
#include "shim/got.h"
#include "shim/shim.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* 64-bit only: ElfW(Rela) with ELF64_R_TYPE and ELF64_R_SYM. */
#if defined(__x86_64__)
#define SLOT_JUMP R_X86_64_JUMP_SLOT
#define SLOT_DATA R_X86_64_GLOB_DAT
#elif defined(__aarch64__)
#define SLOT_JUMP R_AARCH64_JUMP_SLOT
#define SLOT_DATA R_AARCH64_GLOB_DAT
#endif

struct ask {
	const char *lib, *name;
	void *hook, **real;
	int n;
};

/* The page-aligned [lo, hi) the loader made read-only after relocating:
 * PT_GNU_RELRO rounded down at both ends, as glibc's and musl's loaders
 * round it (a last partial page stays writable). */
static int read_only(const struct dl_phdr_info *info, uintptr_t at, uintptr_t page)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		uintptr_t lo = (info->dlpi_addr + p->p_vaddr) & ~(page - 1);
		uintptr_t hi = (info->dlpi_addr + p->p_vaddr + p->p_memsz) & ~(page - 1);
		if (p->p_type == PT_GNU_RELRO && at >= lo && at < hi)
			return 1;
	}
	return 0;
}

/* Whether `at` is in one of the library's own loaded segments: a slot of a
 * lazily bound call not made yet points back into the library's PLT. */
static int inside(const struct dl_phdr_info *info, uintptr_t at)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + p->p_vaddr;
		if (p->p_type == PT_LOAD && at >= lo && at < lo + p->p_memsz)
			return 1;
	}
	return 0;
}

static int write_slot(const struct dl_phdr_info *info, void **slot, void *hook)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	void *first = (void *)((uintptr_t)slot & ~(page - 1));
	int ro = read_only(info, (uintptr_t)slot, page);
	if (ro && mprotect(first, page, PROT_READ | PROT_WRITE) != 0)
		return -1;
	__atomic_store_n(slot, hook, __ATOMIC_RELEASE);
	if (ro)
		mprotect(first, page, PROT_READ);
	return 0;
}

#ifdef SLOT_JUMP
/* The slots of a->name among `size` bytes of relocations at `rel`. */
static void hook_table(const struct dl_phdr_info *info, const ElfW(Rela) *rel, size_t size,
		       const ElfW(Sym) *sym, const char *str, struct ask *a)
{
	for (size_t i = 0; i < size / sizeof *rel; i++) {
		unsigned long type = ELF64_R_TYPE(rel[i].r_info);
		if ((type != SLOT_JUMP && type != SLOT_DATA) ||
		    strcmp(str + sym[ELF64_R_SYM(rel[i].r_info)].st_name, a->name) != 0)
			continue;
		void **slot = (void **)(info->dlpi_addr + rel[i].r_offset);
		void *was = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
		if (was == a->hook) {
			a->n++;
			continue;
		}
		/* Not bound yet (lazy binding): what the loader would bind. */
		if (inside(info, (uintptr_t)was))
			was = jc_real_dlsym(RTLD_DEFAULT, a->name);
		if (!was || (*a->real && *a->real != was))
			continue; /* one function behind the hook, or none */
		*a->real = was;
		if (write_slot(info, slot, a->hook) == 0)
			a->n++;
	}
}
#endif

/* A dynamic entry's address: glibc's loader relocated them in place;
 * others may not have. */
static uintptr_t dyn_addr(const struct dl_phdr_info *info, ElfW(Addr) v)
{
	return v < info->dlpi_addr ? info->dlpi_addr + v : v;
}

static int each_library(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct ask *a = arg;
	const char *file = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
	file = file ? file + 1 : info->dlpi_name;
	const ElfW(Dyn) *dyn = NULL;
	for (int i = 0; file && strstr(file, a->lib) && i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
	uintptr_t symtab = 0, strtab = 0, jmprel = 0, rela = 0;
	size_t pltsz = 0, relasz = 0;
	long pltrel = 0;
	for (; dyn && dyn->d_tag != DT_NULL; dyn++)
		switch (dyn->d_tag) {
		case DT_SYMTAB: symtab = dyn_addr(info, dyn->d_un.d_ptr); break;
		case DT_STRTAB: strtab = dyn_addr(info, dyn->d_un.d_ptr); break;
		case DT_JMPREL: jmprel = dyn_addr(info, dyn->d_un.d_ptr); break;
		case DT_RELA: rela = dyn_addr(info, dyn->d_un.d_ptr); break;
		case DT_PLTRELSZ: pltsz = dyn->d_un.d_val; break;
		case DT_RELASZ: relasz = dyn->d_un.d_val; break;
		case DT_PLTREL: pltrel = (long)dyn->d_un.d_val; break;
		}
#ifdef SLOT_JUMP
	const ElfW(Sym) *sym = (const ElfW(Sym) *)symtab;
	const char *str = (const char *)strtab;
	if (sym && str && jmprel && pltrel == DT_RELA)
		hook_table(info, (const ElfW(Rela) *)jmprel, pltsz, sym, str, a);
	if (sym && str && rela)
		hook_table(info, (const ElfW(Rela) *)rela, relasz, sym, str, a);
#else
	(void)symtab, (void)strtab, (void)jmprel, (void)rela, (void)pltsz, (void)relasz, (void)pltrel;
#endif
	return 0;
}

int jc_got_hook(const char *lib, const char *name, void *hook, void **real)
{
	struct ask a = { .lib = lib, .name = name, .hook = hook, .real = real };
	dl_iterate_phdr(each_library, &a);
	return a.n;
}
