// SPDX-License-Identifier: MIT
/*
 * test_cl_pocl — PoCL's binary format and the program directory it packs
 * (shim/cl/cl_pocl_binary.c, compiled in): a binary made as PoCL 3.1's
 * pocl_binary_serialize() makes one is read, the files PoCL compiled into
 * the directory since are added to it (and nothing else: not PoCL's
 * temporary files, a symlink, a directory that is no kernel's, the root's
 * own files), the result reads as a PoCL binary again, a second merge adds
 * nothing, and a directory of another program or a damaged binary is
 * refused.
 */
#include "shim/cl/cl_pocl_binary.c"
#include "tests/unit/check.h"

#include <unistd.h>

struct buf {
	unsigned char b[8192];
	size_t n;
};

static void raw(struct buf *o, const void *p, size_t n)
{
	memcpy(o->b + o->n, p, n);
	o->n += n;
}

static void u32(struct buf *o, uint32_t v)
{
	v = htole32(v);
	raw(o, &v, 4);
}

static void u64(struct buf *o, uint64_t v)
{
	v = htole64(v);
	raw(o, &v, 8);
}

static void str(struct buf *o, const char *s)
{
	u32(o, (uint32_t)strlen(s));
	raw(o, s, strlen(s));
}

static void file(struct buf *o, const char *path, const char *content)
{
	str(o, path);
	str(o, content);
}

/* One kernel record: its metadata as PoCL writes it (no arguments, no
 * locals), then its files (path, content pairs; NULL-terminated). */
static void kernel(struct buf *o, const char *name, const char *const *files)
{
	size_t start = o->n;
	u64(o, 0);
	u64(o, 0);
	u32(o, 0); /* arginfo size */
	str(o, name);
	u32(o, 0); /* arguments */
	u32(o, 0); /* locals */
	for (int i = 0; i < 3; i++)
		u64(o, 0); /* reqd_wg_size */
	str(o, "");   /* attributes */
	u64(o, 0);    /* has_arg_metadata */
	size_t files_at = o->n;
	for (int i = 0; files && files[i]; i += 2)
		file(o, files[i], files[i + 1]);
	uint64_t struct_size = htole64(o->n - start), binaries = htole64(o->n - files_at);
	memcpy(o->b + start, &struct_size, 8);
	memcpy(o->b + start + 8, &binaries, 8);
}

static void make_binary(struct buf *o, uint32_t version)
{
	char hash[HASH_SIZE] = "_UNCACHED_AbC123";
	o->n = 0;
	raw(o, "poclbin", 8);
	u64(o, 0x1234);
	u32(o, version);
	u32(o, 2); /* kernels */
	u64(o, 0);
	u32(o, 1); /* root entries */
	raw(o, hash, HASH_SIZE);
	struct buf root = { .n = 0 };
	file(&root, "/program.bc", "BC-of-the-program");
	u64(o, root.n);
	raw(o, root.b, root.n);
	kernel(o, "ka", (const char *const[]){ "/ka/0-0-0/ka.so", "generic-a", NULL });
	kernel(o, "kb", NULL);
}

static void write_at(const char *dir, const char *rel, const char *content)
{
	char path[PATH_MAX], parent[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", dir, rel);
	snprintf(parent, sizeof parent, "%s", path);
	for (char *s = parent + strlen(dir) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(parent, 0700);
		*s = '/';
	}
	FILE *f = fopen(path, "w");
	fputs(content, f);
	fclose(f);
}

static int has(const void *bin, size_t size, const char *s)
{
	return memmem(bin, size, s, strlen(s)) != NULL;
}

int main(void)
{
	struct buf bin;
	struct jc_pocl_binary b;
	make_binary(&bin, VERSION);
	CHECK(jc_pocl_parse(bin.b, bin.n, &b) == 0, "a PoCL 3.1 binary reads");
	CHECK(strcmp(b.dir, "_UNCACHED_AbC123") == 0, "its program directory's name");
	CHECK(b.program_bc && b.program_bc_size == 17 &&
	      !memcmp(b.program_bc, "BC-of-the-program", 17), "its program.bc");
	CHECK(b.files == 1, "one file in its kernels' directories");

	char dir[] = "/tmp/jitcache-pocl.XXXXXX";
	CHECK(mkdtemp(dir) != NULL, "a program directory");
	write_at(dir, "program.bc", "BC-of-the-program");
	write_at(dir, "last_accessed", "");
	write_at(dir, "ka/0-0-0/ka.so", "generic-a");
	write_at(dir, "ka/8-1-1-goffs0-smallgrid/ka.so", "specialized-a");
	write_at(dir, "ka/8-1-1-goffs0-smallgrid/ka.so_Xy12Zw.temp", "half-written");
	write_at(dir, "kb/4-1-1/kb.so", "specialized-b");
	write_at(dir, "other/zz", "no kernel's");
	char link[PATH_MAX];
	snprintf(link, sizeof link, "%s/kb/4-1-1/evil.so", dir);
	CHECK(symlink("/etc/hostname", link) == 0, "a symlink among them");
	CHECK(jc_pocl_dir_files(dir) == 4, "4 files in subdirectories (not the temporary, the "
	      "symlink, the root's): %zu", jc_pocl_dir_files(dir));

	void *merged = NULL, *again = NULL;
	size_t merged_size = 0, again_size = 0;
	CHECK(jc_pocl_merge(bin.b, bin.n, dir, &merged, &merged_size) == 1, "files to add");
	struct jc_pocl_binary m;
	CHECK(merged && jc_pocl_parse(merged, merged_size, &m) == 0, "the result reads");
	CHECK(merged && m.files == 3 && strcmp(m.dir, b.dir) == 0 && m.program_bc_size == 17,
	      "with 3 files in its kernels' directories, the same directory and program.bc");
	CHECK(merged && has(merged, merged_size, "/ka/8-1-1-goffs0-smallgrid/ka.so") &&
	      has(merged, merged_size, "specialized-a") &&
	      has(merged, merged_size, "/kb/4-1-1/kb.so") &&
	      has(merged, merged_size, "specialized-b"), "each kernel's new work-group function");
	CHECK(merged && !has(merged, merged_size, ".temp") && !has(merged, merged_size, "evil") &&
	      !has(merged, merged_size, "/other/") && !has(merged, merged_size, "last_accessed"),
	      "nothing else");
	CHECK(merged && merged_size == bin.n + 2 * (4 + 4) + 32 + 13 + 15 + 13,
	      "grown by exactly the two files (%zu -> %zu)", bin.n, merged_size);
	CHECK(merged && jc_pocl_merge(merged, merged_size, dir, &again, &again_size) == 0,
	      "merged again: nothing to add");

	/* Every one-byte change is read or refused, never read past the end
	 * (AddressSanitizer builds: make SANITIZE=address). */
	int sound = 1;
	for (size_t i = 0; i < bin.n; i++) {
		struct buf bad = bin;
		bad.b[i] ^= 0xa5;
		unsigned char *copy = malloc(bad.n);
		memcpy(copy, bad.b, bad.n);
		void *m2 = NULL;
		size_t m2_size = 0;
		if (jc_pocl_parse(copy, bad.n, &b) == 0 &&
		    jc_pocl_merge(copy, bad.n, dir, &m2, &m2_size) == 1)
			sound &= jc_pocl_parse(m2, m2_size, &b) == 0;
		free(m2);
		free(copy);
	}
	CHECK(sound, "every one-byte change is refused, or merges into a binary that reads");

	write_at(dir, "program.bc", "BC-of-another-one");
	CHECK(jc_pocl_merge(bin.b, bin.n, dir, &again, &again_size) == -1,
	      "a directory of another program is refused");
	free(merged);

	int refused = 1;
	for (size_t cut = 0; cut < bin.n; cut++)
		refused &= jc_pocl_parse(bin.b, cut, &b) != 0;
	CHECK(refused, "every shorter prefix is refused");
	make_binary(&bin, 11);
	CHECK(jc_pocl_parse(bin.b, bin.n, &b) != 0, "another format version is refused");
	make_binary(&bin, VERSION);
	bin.b[HEADER_SIZE + 8 + 4 + 11 + 4 + 17 + 7] ^= 0x40; /* ka's struct_size, high byte */
	CHECK(jc_pocl_parse(bin.b, bin.n, &b) != 0, "a kernel record past the end is refused");

	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0, "cleaned up");
	return check_summary();
}
