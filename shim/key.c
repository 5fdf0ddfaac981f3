#include "shim/key.h"

#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

struct jc_fp {
	XXH3_state_t state;
};

static void feed(struct jc_fp *fp, const void *data, size_t size)
{
	XXH3_128bits_update(&fp->state, data, size);
}

static void feed_label(struct jc_fp *fp, const char *label, uint64_t size)
{
	size_t n = strlen(label);
	feed(fp, label, n + 1);
	feed(fp, &size, sizeof size);
}

struct jc_fp *jc_fp_begin(const char *api)
{
	struct jc_fp *fp = aligned_alloc(64, sizeof *fp);
	if (!fp)
		return NULL;
	XXH3_128bits_reset(&fp->state);
	jc_fp_u64(fp, "jitcache.key.version", JC_KEY_VERSION);
	jc_fp_str(fp, "api", api);
	return fp;
}

void jc_fp_bytes(struct jc_fp *fp, const char *label, const void *data, size_t size)
{
	if (!fp)
		return;
	feed_label(fp, label, size);
	if (size)
		feed(fp, data, size);
}

void jc_fp_str(struct jc_fp *fp, const char *label, const char *s)
{
	if (!fp)
		return;
	if (!s) {
		feed_label(fp, label, UINT64_MAX); /* NULL differs from "" */
		return;
	}
	jc_fp_bytes(fp, label, s, strlen(s));
}

void jc_fp_u64(struct jc_fp *fp, const char *label, uint64_t value)
{
	jc_fp_bytes(fp, label, &value, sizeof value);
}

void jc_fp_end(struct jc_fp *fp, struct jc_key *out)
{
	memset(out, 0, sizeof *out);
	if (!fp)
		return;
	XXH128_hash_t h = XXH3_128bits_digest(&fp->state);
	XXH128_canonical_t c;
	XXH128_canonicalFromHash(&c, h);
	memcpy(out->bytes, c.digest, sizeof out->bytes);
	free(fp);
}

/* ---- environment ------------------------------------------------------ */

static int starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
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

static int compiler_relevant(const char *var, int neo_debug_keys)
{
	static const char *const ignored[] = {
		"POCL_KERNEL_CACHE=", "POCL_CACHE_DIR=", "POCL_DEBUG", "POCL_VERBOSE=",
		"CUDA_CACHE_", "NEO_CACHE_", "IGC_ShaderDumpEnable",
	};
	for (size_t i = 0; i < sizeof ignored / sizeof *ignored; i++)
		if (starts_with(var, ignored[i]))
			return 0;
	if (starts_with(var, "IGC_") || starts_with(var, "POCL_") ||
	    starts_with(var, "CUDA_") || starts_with(var, "__NV") ||
	    starts_with(var, "NEOReadDebugKeys="))
		return 1;
	return neo_debug_keys && is_camel_case(var);
}

static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void jc_fp_environment(struct jc_fp *fp)
{
	extern char **environ;
	if (!fp || !environ)
		return;
	const char *neo = getenv("NEOReadDebugKeys");
	int neo_debug_keys = neo && strcmp(neo, "0") != 0;
	size_t n = 0;
	for (char **e = environ; *e; e++)
		n++;
	const char **picked = malloc((n + 1) * sizeof *picked);
	if (!picked) {
		jc_fp_str(fp, "env", "(out of memory)");
		return;
	}
	size_t k = 0;
	for (char **e = environ; *e; e++)
		if (compiler_relevant(*e, neo_debug_keys))
			picked[k++] = *e;
	qsort(picked, k, sizeof *picked, compare_strings);
	jc_fp_u64(fp, "env.count", k);
	for (size_t i = 0; i < k; i++)
		jc_fp_str(fp, "env", picked[i]);
	free(picked);
}

/* ---- library identity ------------------------------------------------- */

/* The GNU build-id of an ELF file on disk, read from its program headers'
 * PT_NOTE segments.  Returns its length (0 if none). */
static size_t file_build_id(int fd, uint8_t *out, size_t cap)
{
	Elf64_Ehdr eh;
	if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > 64)
		return 0;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + i * sizeof ph)) != (ssize_t)sizeof ph)
			return 0;
		if (ph.p_type != PT_NOTE || ph.p_filesz > 4096)
			continue;
		uint8_t notes[4096];
		if (pread(fd, notes, ph.p_filesz, (off_t)ph.p_offset) != (ssize_t)ph.p_filesz)
			return 0;
		for (size_t off = 0; off + sizeof(Elf64_Nhdr) <= ph.p_filesz;) {
			Elf64_Nhdr nh;
			memcpy(&nh, notes + off, sizeof nh);
			size_t name_at = off + sizeof nh;
			size_t desc_at = name_at + ((nh.n_namesz + 3) & ~3u);
			size_t next = desc_at + ((nh.n_descsz + 3) & ~3u);
			if (next > ph.p_filesz)
				break;
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    memcmp(notes + name_at, "GNU", 4) == 0 && nh.n_descsz <= cap) {
				memcpy(out, notes + desc_at, nh.n_descsz);
				return nh.n_descsz;
			}
			off = next;
		}
	}
	return 0;
}

static void hash_file_identity(struct jc_fp *fp, const char *name, const char *path)
{
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		if (fd >= 0)
			close(fd);
		jc_fp_str(fp, "lib.absent", name);
		return;
	}
	uint8_t id[64];
	size_t n = file_build_id(fd, id, sizeof id);
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

struct find_loaded {
	const char *name;
	char path[PATH_MAX];
};

static int match_loaded(struct dl_phdr_info *info, size_t size, void *data)
{
	struct find_loaded *f = data;
	const char *base = strrchr(info->dlpi_name, '/');
	base = base ? base + 1 : info->dlpi_name;
	if (info->dlpi_name[0] && strcmp(base, f->name) == 0) {
		snprintf(f->path, sizeof f->path, "%s", info->dlpi_name);
		return 1;
	}
	return 0;
}

/* Where `name` is loaded, as a real path; 0 if it is not loaded. */
static int loaded_path(const char *name, char *out)
{
	struct find_loaded f = { .name = name };
	return dl_iterate_phdr(match_loaded, &f) && realpath(f.path, out) != NULL;
}

/* The directory of the first library of the list that is loaded, where the
 * others are looked for when they are not (yet) loaded: a driver dlopens its
 * compiler on first use, and the key must not depend on whether it has. */
static void library_dir(const char *const *names, char *dir)
{
	dir[0] = '\0';
	for (const char *const *n = names; *n; n++) {
		char path[PATH_MAX];
		if (loaded_path(*n, path)) {
			char *slash = strrchr(path, '/');
			if (slash) {
				*slash = '\0';
				strcpy(dir, path);
			}
			return;
		}
	}
}

/* A small memo: the identity of each list of names, computed once. */
#define MEMO_SLOTS 8
static struct {
	const char *const *names;
	struct jc_key id;
} memo[MEMO_SLOTS];
static pthread_mutex_t memo_lock = PTHREAD_MUTEX_INITIALIZER;

static void identify(const char *const *names, struct jc_key *out)
{
	struct jc_fp *fp = jc_fp_begin("libraries");
	char dir[PATH_MAX];
	library_dir(names, dir);
	for (const char *const *n = names; *n; n++) {
		char path[PATH_MAX + 256];
		int found = loaded_path(*n, path);
		if (!found && dir[0]) {
			snprintf(path, sizeof path, "%s/%s", dir, *n);
			found = access(path, R_OK) == 0;
		}
		hash_file_identity(fp, *n, found ? path : NULL);
	}
	jc_fp_end(fp, out);
}

void jc_fp_libraries(struct jc_fp *fp, const char *const *names)
{
	if (!fp)
		return;
	struct jc_key id;
	int known = 0;
	pthread_mutex_lock(&memo_lock);
	for (int i = 0; i < MEMO_SLOTS && memo[i].names; i++)
		if (memo[i].names == names) {
			id = memo[i].id;
			known = 1;
			break;
		}
	pthread_mutex_unlock(&memo_lock);
	if (!known) {
		identify(names, &id);
		pthread_mutex_lock(&memo_lock);
		for (int i = 0; i < MEMO_SLOTS; i++)
			if (!memo[i].names) {
				memo[i].names = names;
				memo[i].id = id;
				break;
			}
		pthread_mutex_unlock(&memo_lock);
	}
	jc_fp_bytes(fp, "libraries", id.bytes, sizeof id.bytes);
}
