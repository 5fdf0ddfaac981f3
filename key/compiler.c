// SPDX-License-Identifier: MIT
/* Compiler identity and environment (see compiler.h). */
#include "key/compiler.h"
#include "key/elfnote.h"
#include "key/memo.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- environment ------------------------------------------------------ */

static int starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* "NAME=value" is named name. */
static int is_named(const char *var, const char *name)
{
	size_t n = strlen(name);
	return strncmp(var, name, n) == 0 && var[n] == '=';
}

static int named_in(const char *var, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (is_named(var, names[i]))
			return 1;
	return 0;
}

#define NAMED_IN(var, list) named_in(var, list, sizeof list / sizeof *list)

/* Cache and dump switches of the compilers: where output goes, not what. */
static const char *const ignored_prefixes[] = {
	"POCL_KERNEL_CACHE=", "POCL_CACHE_DIR=", "POCL_DEBUG", "POCL_VERBOSE=",
	"CUDA_CACHE_", "NEO_CACHE_", "IGC_ShaderDumpEnable",
};

/* Variables Intel's driver reads itself, outside its debug keys, that change
 * the code it has IGC emit: FP64 emulation (-ze-fp64-gen-emu), the
 * debugger's and instrumentation's options, a PVC workaround; CM_FE_DIR
 * picks IGC's CM front end.  (Found with strings(1) in NEO 26.27 and IGC
 * 2.40; the driver's own ZE_AFFINITY_MASK and the like only choose devices,
 * whose identity is in the key anyway.) */
static const char *const driver_variables[] = {
	"NEO_FP64_EMULATION", "ZET_ENABLE_PROGRAM_DEBUGGING",
	"ZET_ENABLE_PROGRAM_INSTRUMENTATION", "ONEAPI_PVC_SEND_WAR_WA", "CM_FE_DIR",
};

/* NEO's debug keys that release builds read even without NEOReadDebugKeys
 * (its release_variables.inl) and that change code. */
static const char *const release_keys[] = { "OverrideDefaultFP64Settings" };

/* NEO's debug keys that simulate a GPU, or set the identity the driver
 * reports for it, or only log.  The identity they set is in the key as the
 * driver reports it (vendor, device id, IP version with its stepping), and
 * IGC's code depends on nothing else of it (measured: byte-equal across EU
 * topologies and device ids of one IP version, and equal to ocloc's for that
 * IP version).  Leaving them out makes an entry built on a simulated GPU the
 * one a real GPU of that kind looks up.  Every other debug key stays in the
 * key: UseBindlessMode, say, changes every Level Zero kernel. */
static const char *const simulation_keys[] = {
	"NEOReadDebugKeys", "SetCommandStreamReceiver", "UseAubStream",
	"ProductFamilyOverride", "ForceDeviceId", "OverrideRevision", "HardwareInfoOverride",
	"OverrideDeviceName", "UseExternalAllocatorForSshAndDsh", "OverrideMaxWorkgroupSize",
};

/* The debug keys' logging families: PrintDebugMessages, LogApiCalls, ... */
static int is_logging_key(const char *key)
{
	return (starts_with(key, "Print") && key[5] >= 'A' && key[5] <= 'Z') ||
	       (starts_with(key, "Log") && key[3] >= 'A' && key[3] <= 'Z');
}

/* NEO's debug keys are CamelCase names such as ProductFamilyOverride. */
static int is_camel_case(const char *var)
{
	if (!(var[0] >= 'A' && var[0] <= 'Z'))
		return 0;
	for (const char *p = var; *p && *p != '='; p++)
		if (*p >= 'a' && *p <= 'z')
			return 1;
	return 0;
}

/* The debug key a variable sets, or NULL: NEO takes each key bare or after
 * one of its prefixes (NEO_L0_UseBindlessMode), the CamelCase name telling
 * keys from NEO_CACHE_DIR and the like. */
static const char *neo_debug_key(const char *var)
{
	static const char *const prefixes[] = { "NEO_OCLOC_", "NEO_OCL_", "NEO_L0_", "NEO_" };
	for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
		if (starts_with(var, prefixes[i]) && is_camel_case(var + strlen(prefixes[i])))
			return var + strlen(prefixes[i]);
	return is_camel_case(var) ? var : NULL;
}

static int compiler_relevant(const char *var, int neo_debug_keys)
{
	for (size_t i = 0; i < sizeof ignored_prefixes / sizeof *ignored_prefixes; i++)
		if (starts_with(var, ignored_prefixes[i]))
			return 0;
	if (starts_with(var, "IGC_") || starts_with(var, "POCL_") ||
	    starts_with(var, "CUDA_") || starts_with(var, "__NV") ||
	    NAMED_IN(var, driver_variables))
		return 1;
	const char *key = neo_debug_key(var);
	if (!key)
		return 0;
	if (NAMED_IN(key, release_keys))
		return 1;
	return neo_debug_keys && !NAMED_IN(key, simulation_keys) && !is_logging_key(key);
}

static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* NEO reads its debug keys when NEOReadDebugKeys is set, in any of its
 * forms, and not "0" (the first definition counts, as for getenv). */
static int neo_reads_debug_keys(const char *const *env)
{
	for (const char *const *e = env; *e; e++) {
		const char *key = neo_debug_key(*e);
		if (key && is_named(key, "NEOReadDebugKeys"))
			return strcmp(key + strlen("NEOReadDebugKeys="), "0") != 0;
	}
	return 0;
}

void jc_fp_environment_of(struct jc_fp *fp, const char *const *env)
{
	if (!fp || !env)
		return;
	int neo_debug_keys = neo_reads_debug_keys(env);
	size_t n = 0;
	for (const char *const *e = env; *e; e++)
		n++;
	const char **picked = malloc((n + 1) * sizeof *picked);
	if (!picked) {
		jc_fp_str(fp, "env", "(out of memory)");
		return;
	}
	size_t k = 0;
	for (const char *const *e = env; *e; e++)
		if (compiler_relevant(*e, neo_debug_keys))
			picked[k++] = *e;
	qsort(picked, k, sizeof *picked, compare_strings);
	jc_fp_u64(fp, "env.count", k);
	for (size_t i = 0; i < k; i++)
		jc_fp_str(fp, "env", picked[i]);
	free(picked);
}

void jc_fp_neo_revision_override(struct jc_fp *fp)
{
	extern char **environ;
	const char *value = NULL;
	if (environ && neo_reads_debug_keys((const char *const *)environ))
		for (char **e = environ; *e && !value; e++) {
			const char *key = neo_debug_key(*e);
			if (key && is_named(key, "OverrideRevision"))
				value = key + strlen("OverrideRevision=");
		}
	jc_fp_str(fp, "device.revision", value);
}

void jc_fp_environment(struct jc_fp *fp)
{
	extern char **environ;
	jc_fp_environment_of(fp, (const char *const *)environ);
}

/* ---- library identity ------------------------------------------------- */

/* One library looked for among the loaded images. */
struct image {
	const char *name;
	char path[PATH_MAX];      /* as the dynamic linker names it */
	uint8_t id[JC_BUILD_ID_MAX];
	size_t id_size;           /* 0: no build-id in memory */
};

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* The build-id from the image's note segments, as mapped: the same bytes
 * and limits as jc_elf_file_build_id() reads from the file. */
static size_t image_build_id(const struct dl_phdr_info *info, uint8_t *out, size_t cap)
{
	if (info->dlpi_phnum > JC_ELF_MAX_PHDRS)
		return 0;
	for (unsigned i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE || ph->p_filesz > JC_ELF_MAX_NOTES ||
		    ph->p_memsz < ph->p_filesz)
			continue;
		size_t n = jc_elf_notes_build_id((const void *)(info->dlpi_addr + ph->p_vaddr),
						 ph->p_filesz, out, cap);
		if (n)
			return n;
	}
	return 0;
}

static int match_loaded(struct dl_phdr_info *info, size_t size, void *data)
{
	struct image *f = data;
	if (!info->dlpi_name[0] || strcmp(base_name(info->dlpi_name), f->name) != 0)
		return 0;
	int n = snprintf(f->path, sizeof f->path, "%s", info->dlpi_name);
	if (n < 0 || (size_t)n >= sizeof f->path)
		return 0; /* a name that cannot be a path: not this one */
	f->id_size = image_build_id(info, f->id, sizeof f->id);
	return 1;
}

/* 1 and *f filled if `name` is loaded. */
static int find_loaded(const char *name, struct image *f)
{
	memset(f, 0, sizeof *f);
	f->name = name;
	return dl_iterate_phdr(match_loaded, f);
}

/* The directory that holds the file a loaded library's path names, after
 * following that file if it is a symbolic link, or "" if there is none.
 * A link to a file beside it (Debian's libfoo.so.N -> libfoo.so.N.x.y)
 * keeps the path's own directory: one readlink() instead of realpath()'s
 * one per path component, a few microseconds each on the first hit of a
 * process.  Directory links need no resolving: the same files are found
 * through them.  Anything else (a relative path, a link elsewhere) goes
 * through realpath(). */
static void directory_of(const char *path, char dir[PATH_MAX])
{
	char target[PATH_MAX];
	const char *slash = strrchr(path, '/');
	if (path[0] == '/') {
		ssize_t n = readlink(path, target, sizeof target);
		int beside = n < 0 ? errno == EINVAL /* not a link */
				   : (size_t)n < sizeof target && !memchr(target, '/', (size_t)n);
		if (beside) {
			size_t len = (size_t)(slash - path);
			memcpy(dir, path, len);
			dir[len] = '\0';
			return;
		}
	}
	char *end;
	if (realpath(path, dir) && (end = strrchr(dir, '/')))
		*end = '\0';
	else
		dir[0] = '\0';
}

/* The directory of the first library of the list that is loaded, where the
 * others are looked for when they are not (yet) loaded: a driver dlopens its
 * compiler on first use, and the key must not depend on whether it has. */
static void library_dir(const char *const *names, char dir[PATH_MAX])
{
	dir[0] = '\0';
	for (const char *const *n = names; *n; n++) {
		struct image f;
		if (find_loaded(*n, &f)) {
			directory_of(f.path, dir);
			return;
		}
	}
}

/* A file's identity: its build-id, else size + mtime + inode. */
static void hash_file(struct jc_fp *fp, const char *name, const char *path)
{
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		if (fd >= 0)
			close(fd);
		jc_fp_str(fp, "lib.absent", name);
		return;
	}
	uint8_t id[JC_BUILD_ID_MAX];
	size_t n = jc_elf_file_build_id(fd, id, sizeof id);
	close(fd);
	jc_fp_str(fp, "lib", name);
	if (n) {
		jc_fp_bytes(fp, "lib.build-id", id, n);
	} else {
		jc_fp_u64(fp, "lib.size", (uint64_t)st.st_size);
		jc_fp_u64(fp, "lib.mtime", (uint64_t)st.st_mtim.tv_sec * 1000000000u +
					   (uint64_t)st.st_mtim.tv_nsec);
		jc_fp_u64(fp, "lib.ino", (uint64_t)st.st_ino);
	}
}

static void hash_library(struct jc_fp *fp, const char *name, const char *dir)
{
	struct image f;
	if (find_loaded(name, &f)) {
		if (f.id_size) { /* from memory: no file to read */
			jc_fp_str(fp, "lib", name);
			jc_fp_bytes(fp, "lib.build-id", f.id, f.id_size);
			return;
		}
		char real[PATH_MAX];
		if (realpath(f.path, real)) {
			hash_file(fp, name, real);
			return;
		}
	}
	char path[PATH_MAX];
	int n = dir[0] ? snprintf(path, sizeof path, "%s/%s", dir, name) : -1;
	int found = n > 0 && (size_t)n < sizeof path && access(path, R_OK) == 0;
	hash_file(fp, name, found ? path : NULL);
}

static void identify(const char *const *names, struct jc_key *out)
{
	struct jc_fp *fp = jc_fp_begin("libraries");
	char dir[PATH_MAX];
	library_dir(names, dir);
	for (const char *const *n = names; *n; n++)
		hash_library(fp, *n, dir);
	jc_fp_end(fp, out);
}

JC_MEMO(identities, 8);

void jc_fp_libraries(struct jc_fp *fp, const char *const *names)
{
	if (!fp)
		return;
	struct jc_key id;
	if (jc_memo_get(&identities, names, &id) != 0) {
		identify(names, &id);
		jc_memo_put(&identities, names, &id);
	}
	jc_fp_bytes(fp, "libraries", id.bytes, sizeof id.bytes);
}
