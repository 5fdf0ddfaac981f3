// SPDX-License-Identifier: MIT
/*
 * test_cl_pocl_fill — a pack of PoCL's program directory put in the one
 * PoCL makes for a build (shim/cl/cl_pocl_dir.c, compiled in; cl_pocl.h,
 * "PoCL's cache off"): only between jc_pocl_fill_begin() and _end(), only
 * once, only into a temporary directory of PoCL's cache directory (cache
 * off) or the one its hash names (cache on) that PoCL has made and that
 * holds no program.bc yet, every file whole, PoCL's own files left as they
 * are; a pack renamed names the new directory and carries the same files;
 * and a directory a pack was put in under another name is merged back.
 */
#include "shim/cl/cl_pocl_dir.c"
#include "tests/unit/check.h"

#include <unistd.h>

/* cl.c's, which this test does not need. */
const struct jc_cl_real *jc_cl_real(void)
{
	return NULL;
}

static char top[64];

static void write_at(const char *dir, const char *rel, const char *content)
{
	char path[512], parent[512];
	snprintf(path, sizeof path, "%.200s/%.200s", dir, rel);
	memcpy(parent, path, sizeof parent);
	*strrchr(parent, '/') = '\0';
	jc_fs_mkdir_p(parent, 0700);
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(content, f);
		fclose(f);
	}
}

/* The content of top/rel, or "" (static). */
static const char *read_at(const char *rel)
{
	static char out[256];
	char path[512];
	unsigned char *data = NULL;
	size_t size = 0;
	snprintf(path, sizeof path, "%s/%.200s", top, rel);
	out[0] = '\0';
	if (jc_fs_read_file(path, sizeof out - 1, &data, &size) == 0) {
		memcpy(out, data, size);
		out[size] = '\0';
	}
	free(data);
	return out;
}

static int exists_at(const char *rel)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%.200s", top, rel);
	return jc_fs_exists(path);
}

/* PoCL's access() of DIR/program.bc, DIR under top, in a build that is to
 * find pack: the name the fill reports (static), or "". */
static const char *build(const void *pack, size_t size, const char *dir)
{
	static char name[64];
	char path[512];
	snprintf(path, sizeof path, "%s/%.200s/program.bc", top, dir);
	jc_pocl_fill_begin(pack, size);
	jc_pocl_fill_at(path);
	char *got = jc_pocl_fill_end();
	snprintf(name, sizeof name, "%s", got ? got : "");
	free(got);
	return name;
}

int main(void)
{
	snprintf(top, sizeof top, "/tmp/jitcache-fill.XXXXXX");
	CHECK(mkdtemp(top) != NULL, "PoCL's cache directory");
	setenv("POCL_CACHE_DIR", top, 1);
	setenv("POCL_KERNEL_CACHE", "0", 1);

	/* A build's directory as PoCL left it, packed. */
	write_at(top, "_UNCACHED_AbC123/program.bc", "BC-of-the-program");
	write_at(top, "_UNCACHED_AbC123/ka/8-1-1/ka.so", "specialized-a");
	void *pack = NULL;
	size_t size = 0;
	CHECK(jc_pocl_pack("_UNCACHED_AbC123", &pack, &size) == 0, "a temporary directory packs");
	struct jc_pocl_binary b;
	CHECK(pack && jc_pocl_pack_parse(pack, size, &b) == 0 &&
	      strcmp(b.dir, "_UNCACHED_AbC123") == 0 && b.files == 1, "it names it, one kernel file");

	/* The next build's directory, as PoCL makes it (mkdtemp). */
	char d[512];
	snprintf(d, sizeof d, "%s/_UNCACHED_xYz789", top);
	mkdir(d, 0700);
	char path[600];
	snprintf(path, sizeof path, "%s/program.bc", d);
	jc_pocl_fill_at(path);
	CHECK(!exists_at("_UNCACHED_xYz789/program.bc"), "no build to fill: nothing put");
	CHECK(strcmp(build(pack, size, "_UNCACHED_xYz789"), "_UNCACHED_xYz789") == 0,
	      "a build: put in the directory PoCL made, named");
	CHECK(strcmp(read_at("_UNCACHED_xYz789/program.bc"), "BC-of-the-program") == 0 &&
	      strcmp(read_at("_UNCACHED_xYz789/ka/8-1-1/ka.so"), "specialized-a") == 0,
	      "... every file, whole");

	/* Once per build: a second access() of another directory puts nothing. */
	mkdir(strcat(strcpy(d, top), "/_UNCACHED_Second"), 0700);
	mkdir(strcat(strcpy(d, top), "/_UNCACHED_Third1"), 0700);
	char second[512], third[512];
	snprintf(second, sizeof second, "%s/_UNCACHED_Second/program.bc", top);
	snprintf(third, sizeof third, "%s/_UNCACHED_Third1/program.bc", top);
	jc_pocl_fill_begin(pack, size);
	jc_pocl_fill_at(second);
	jc_pocl_fill_at(third);
	char *got = jc_pocl_fill_end();
	CHECK(got && strcmp(got, "_UNCACHED_Second") == 0 && exists_at("_UNCACHED_Second/program.bc") &&
	      !exists_at("_UNCACHED_Third1/program.bc"),
	      "one directory per build: the first PoCL looked in");
	free(got);

	/* A program.bc there already is PoCL's, kept. */
	write_at(top, "_UNCACHED_Theirs/program.bc", "PoCL's-own");
	CHECK(build(pack, size, "_UNCACHED_Theirs")[0] == '\0' &&
	      strcmp(read_at("_UNCACHED_Theirs/program.bc"), "PoCL's-own") == 0 &&
	      !exists_at("_UNCACHED_Theirs/ka"), "a program.bc there already: nothing put, no hit");

	/* Not PoCL's directory for a build: nothing put. */
	CHECK(build(pack, size, "_UNCACHED_NotMade")[0] == '\0' && !exists_at("_UNCACHED_NotMade"),
	      "a directory PoCL did not make: nothing made");
	mkdir(strcat(strcpy(d, top), "/elsewhere"), 0700);
	mkdir(strcat(strcpy(d, top), "/elsewhere/_UNCACHED_Nested"), 0700);
	CHECK(build(pack, size, "elsewhere/_UNCACHED_Nested")[0] == '\0' &&
	      !exists_at("elsewhere/_UNCACHED_Nested/program.bc"), "one below another: nothing put");
	mkdir(strcat(strcpy(d, top), "/_UNCACHED_tooLong7"), 0700);
	CHECK(build(pack, size, "_UNCACHED_tooLong7")[0] == '\0' &&
	      !exists_at("_UNCACHED_tooLong7/program.bc"), "a name mkdtemp() does not make: nothing put");

	/* PoCL's cache on: the directory its hash names. */
	setenv("POCL_KERNEL_CACHE", "1", 1);
	mkdir(strcat(strcpy(d, top), "/AB"), 0700);
	mkdir(strcat(strcpy(d, top), "/AB/CDEFGHIJ"), 0700);
	CHECK(strcmp(build(pack, size, "AB/CDEFGHIJ"), "AB/CDEFGHIJ") == 0 &&
	      strcmp(read_at("AB/CDEFGHIJ/program.bc"), "BC-of-the-program") == 0,
	      "PoCL's cache on: put in the directory of its hash");
	CHECK(strcmp(build(pack, size, "AB/CDEFGHIJ"), "AB/CDEFGHIJ") == 0,
	      "... and found there by the next build, which PoCL loads itself");
	setenv("POCL_KERNEL_CACHE", "0", 1);

	/* Renamed, and merged back from the directory it was put in. */
	void *renamed = NULL, *merged = NULL;
	size_t renamed_size = 0, merged_size = 0;
	struct jc_pocl_binary r;
	CHECK(jc_pocl_pack_renamed(pack, size, "_UNCACHED_xYz789", &renamed, &renamed_size) == 0 &&
	      jc_pocl_pack_parse(renamed, renamed_size, &r) == 0 &&
	      strcmp(r.dir, "_UNCACHED_xYz789") == 0 && r.files == 1 &&
	      r.program_bc_size == b.program_bc_size &&
	      memcmp(r.program_bc, b.program_bc, b.program_bc_size) == 0,
	      "a pack renamed: the new name, the same files");
	CHECK(jc_pocl_pack_renamed(pack, size, "../evil", &merged, &merged_size) == -1,
	      "... never to a name PoCL does not give");
	write_at(top, "_UNCACHED_xYz789/ka/16-1-1/ka.so", "compiled-since");
	snprintf(path, sizeof path, "%s/_UNCACHED_xYz789", top);
	CHECK(jc_pocl_pack_merge(pack, size, path, &merged, &merged_size) == 1 &&
	      jc_pocl_pack_parse(merged, merged_size, &r) == 0 && r.files == 2,
	      "what PoCL compiled in the directory it was put in joins the pack");
	write_at(top, "_UNCACHED_Other1/program.bc", "another-program");
	write_at(top, "_UNCACHED_Other1/ka/32-1-1/ka.so", "not-ours");
	write_at(top, "_UNCACHED_Other1/ka/64-1-1/ka.so", "not-ours");
	snprintf(path, sizeof path, "%s/_UNCACHED_Other1", top);
	void *other = NULL;
	size_t other_size = 0;
	CHECK(jc_pocl_pack_merge(pack, size, path, &other, &other_size) == -1,
	      "... but not a directory of another program");
	free(other);
	free(merged);
	free(renamed);
	free(pack);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
	if (system(cmd) != 0)
		return 1;
	return check_summary();
}
