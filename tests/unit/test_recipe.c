// SPDX-License-Identifier: MIT
/* Unit tests of recipes: their format (key/recipe.c) and where the cache
 * keeps them (cache/recipe.c: beside the entry, flagged, walked by warm). */
#include "store/entry.h"
#include "key/recipe.h"
#include "tests/unit/cache_util.h"

static void test_ze_round_trip(void)
{
	static const uint8_t spirv[] = { 3, 2, 0x23, 7, 1, 2, 3, 4, 5, 6, 7, 8 };
	uint32_t ids[2] = { 7, 9 };
	uint64_t big = 0x1122334455667788ull;
	uint8_t small = 1;
	const void *values[2] = { &big, &small };
	uint32_t sizes0[2] = { 8, 1 };
	const uint32_t *sizes[2] = { sizes0, NULL };
	struct jc_ze_input in[2] = {
		{ spirv, sizeof spirv, "-ze-opt-level=2", 2, ids, values },
		{ spirv, 4, NULL, 0, NULL, NULL },
	};
	struct jc_recipe r = { .api = JC_RECIPE_ZE, .ze_count = 2, .ze = in,
			       .ze_spec_sizes = sizes, .device = { 0x8086, 0xe20b, 0x05004000, "B580" } };
	r.entry.bytes[0] = 0xab;
	void *bytes;
	size_t size;
	CHECK(jc_recipe_encode(&r, &bytes, &size) == 0, "a Level Zero recipe encodes");
	struct jc_recipe d;
	CHECK(jc_recipe_decode(bytes, size, &d) == 0, "and decodes");
	CHECK(d.api == JC_RECIPE_ZE && d.ze_count == 2, "its API and input count");
	CHECK(d.ze[0].size == sizeof spirv && !memcmp(d.ze[0].spirv, spirv, sizeof spirv),
	      "the SPIR-V");
	CHECK(!strcmp(d.ze[0].flags, "-ze-opt-level=2") && d.ze[1].flags == NULL,
	      "flags, and no flags (NULL) as given");
	CHECK(d.ze[0].n_constants == 2 && d.ze[0].constant_ids[1] == 9 &&
	      *(const uint64_t *)d.ze[0].constant_values[0] == big &&
	      *(const uint8_t *)d.ze[0].constant_values[1] == 1,
	      "spec constants: ids and values of their sizes, aligned");
	CHECK(d.device.id == 0xe20b && d.device.ip == 0x05004000 && !strcmp(d.device.name, "B580") &&
	      d.entry.bytes[0] == 0xab, "the recording: device and entry key");
	uint64_t h = jc_recipe_request_hash(bytes, size);
	jc_recipe_free(&d);

	r.entry.bytes[0] = 0xcd;
	r.device.id = 0x56a0;
	void *other;
	size_t other_size;
	jc_recipe_encode(&r, &other, &other_size);
	CHECK(h && jc_recipe_request_hash(other, other_size) == h,
	      "the same request recorded elsewhere has the same request hash");
	small = 0;
	free(other);
	jc_recipe_encode(&r, &other, &other_size);
	CHECK(jc_recipe_request_hash(other, other_size) != h,
	      "another spec constant value is another request");
	free(other);

	int bad = 0;
	for (size_t cut = 0; cut < size; cut++) {
		if (jc_recipe_decode(bytes, cut, &d) == 0) {
			bad++;
			jc_recipe_free(&d);
		}
	}
	CHECK(bad == 0, "every truncated recipe is refused");
	uint8_t *flipped = malloc(size);
	for (size_t i = 0; i < size; i++) { /* may decode: must not crash or overread */
		memcpy(flipped, bytes, size);
		flipped[i] ^= 0xff;
		if (jc_recipe_decode(flipped, size, &d) == 0)
			jc_recipe_free(&d);
	}
	free(flipped);
	free(bytes);
}

static void test_cl_round_trip(void)
{
	static const char src[] = "#include \"a.h\"\nkernel void k(global int *x) { x[0] = A; }";
	static const char header[] = "#define A 1\n";
	unsigned char v[4] = { 1, 2, 3, 4 };
	struct jc_cl_spec spec = { 3, 4, v };
	struct jc_recipe_file file = { "inc/a.h", header, sizeof header - 1 };
	struct jc_recipe r = { .api = JC_RECIPE_CL, .cl_text = src, .cl_size = sizeof src - 1,
			       .cl_options = "-I inc", .cl_n_specs = 1, .cl_specs = &spec,
			       .cl_n_files = 1, .cl_files = &file };
	void *bytes;
	size_t size;
	struct jc_recipe d;
	CHECK(jc_recipe_encode(&r, &bytes, &size) == 0 && jc_recipe_decode(bytes, size, &d) == 0,
	      "an OpenCL recipe encodes and decodes");
	CHECK(d.cl_size == sizeof src - 1 && !memcmp(d.cl_text, src, d.cl_size) && !d.cl_from_il &&
	      !strcmp(d.cl_options, "-I inc"), "source and options");
	CHECK(d.cl_n_specs == 1 && d.cl_specs[0].id == 3 && !memcmp(d.cl_specs[0].value, v, 4),
	      "spec constants");
	CHECK(d.cl_n_files == 1 && !strcmp(d.cl_files[0].path, "inc/a.h") &&
	      d.cl_files[0].size == sizeof header - 1, "included files with their contents");
	jc_recipe_free(&d);
	free(bytes);
}

/* A clCompileProgram recipe with its embedded headers, nested whole in a
 * clLinkProgram recipe. */
static void test_compile_link_round_trip(void)
{
	static const char src[] = "#include \"h.h\"\nkernel void k(global int *x) { x[0] = H; }";
	static const char htext[] = "#define H 2\n";
	struct jc_recipe_header h = { "h.h", htext, sizeof htext - 1 };
	struct jc_recipe c = { .api = JC_RECIPE_CL_COMPILE, .cl_text = src, .cl_size = sizeof src - 1,
			       .cl_options = "-DX=1", .cl_n_headers = 1, .cl_headers = &h };
	void *cb, *lb;
	size_t cs, ls;
	struct jc_recipe d, e, nested;
	CHECK(jc_recipe_encode(&c, &cb, &cs) == 0 && jc_recipe_decode(cb, cs, &d) == 0,
	      "a compile recipe encodes and decodes");
	CHECK(d.api == JC_RECIPE_CL_COMPILE && !strcmp(d.cl_options, "-DX=1") &&
	      d.cl_n_headers == 1 && !strcmp(d.cl_headers[0].name, "h.h") &&
	      d.cl_headers[0].size == sizeof htext - 1 &&
	      !memcmp(d.cl_headers[0].text, htext, sizeof htext - 1),
	      "its options and embedded header, by name with its text");
	struct jc_recipe_bytes in[2] = { { cb, cs }, { cb, cs } };
	struct jc_recipe l = { .api = JC_RECIPE_CL_LINK, .link_options = "-cl-fast-relaxed-math",
			       .link_n_inputs = 2, .link_inputs = in };
	CHECK(jc_recipe_encode(&l, &lb, &ls) == 0 && jc_recipe_decode(lb, ls, &e) == 0,
	      "a link recipe encodes and decodes");
	CHECK(e.api == JC_RECIPE_CL_LINK && e.link_n_inputs == 2 &&
	      !strcmp(e.link_options, "-cl-fast-relaxed-math") && e.link_inputs[1].size == cs &&
	      jc_recipe_decode(e.link_inputs[1].data, e.link_inputs[1].size, &nested) == 0 &&
	      nested.api == JC_RECIPE_CL_COMPILE && nested.cl_n_headers == 1,
	      "its options and each input's compile recipe, whole");
	jc_recipe_free(&nested);
	CHECK(jc_recipe_request_hash(lb, ls) != jc_recipe_request_hash(cb, cs),
	      "a link's request is not its input's");
	for (size_t cut = 0; cut < ls; cut += 7) {
		struct jc_recipe x;
		if (jc_recipe_decode(lb, cut, &x) == 0) {
			CHECK(0, "a truncated link recipe is refused");
			jc_recipe_free(&x);
			break;
		}
	}
	jc_recipe_free(&d);
	jc_recipe_free(&e);
	free(cb);
	free(lb);
}

struct seen {
	int n;
	size_t size;
};

static int count_recipe(void *ctx, const void *data, size_t size, int layer)
{
	struct seen *s = ctx;
	(void)layer;
	s->n++;
	s->size = size;
	(void)data;
	return 0;
}

static int flags_of(const char *path)
{
	uint8_t raw[16] = { 0 };
	int fd = open(path, O_RDONLY);
	if (fd < 0 || read(fd, raw, sizeof raw) != (ssize_t)sizeof raw)
		raw[12] = 0xff;
	if (fd >= 0)
		close(fd);
	return raw[12];
}

static void test_cache_recipes(void)
{
	char dir[256], path[PATH_MAX];
	test_path(dir, "recipes");
	struct jc_cache *c = open_cache(dir, 0, 0);
	struct jc_key k = make_key(0x42, 1), rk;
	jc_recipe_key(&k, &rk);
	CHECK(rk.bytes[0] == k.bytes[0] && memcmp(&rk, &k, sizeof k) != 0,
	      "a recipe's key: the entry's subdirectory, another name");
	put_bytes(c, k, 5000, 1);
	char text[4000];
	memset(text, 'r', sizeof text);
	CHECK(jc_cache_put_recipe(c, &k, text, sizeof text) == 0, "a recipe is stored");
	entry_file(dir, &rk, path);
	CHECK(flags_of(path) == (JC_ENTRY_RECIPE | JC_ENTRY_ZSTD), "flagged and compressed");
	struct stat st;
	CHECK(stat(path, &st) == 0 && st.st_size < 1000, "(4000 bytes take less than 1000)");
	struct seen s = { 0 };
	jc_cache_each_recipe(c, count_recipe, &s, NULL);
	CHECK(s.n == 1 && s.size == sizeof text, "the walk finds the recipe and not the entry");
	CHECK(jc_cache_verify(c, NULL) == 0, "verify takes recipes as good entries");

	struct timespec old[2] = { { 1000, 0 }, { 1000, 0 } };
	utimensat(AT_FDCWD, path, old, 0);
	struct jc_entry e;
	CHECK(jc_cache_get(c, &k, &e) == 0, "the entry hits");
	jc_entry_free(&e);
	CHECK(stat(path, &st) == 0 && st.st_mtime > 1000, "a hit keeps its recipe recent too");
	struct jc_cache_stats stats;
	jc_cache_shared_stats(c, &stats);
	CHECK(stats.stores == 1, "storing a recipe counts as no store");
	jc_cache_close(c);

	char noise[5000];
	fill(noise, sizeof noise, 7); /* does not compress below the cap */
	c = open_cache(dir, 3000, 0);
	struct jc_key big = make_key(0x43, 2);
	jc_recipe_key(&big, &rk);
	entry_file(dir, &rk, path);
	CHECK(jc_cache_put_recipe(c, &big, noise, sizeof noise) != 0 && !file_exists(path),
	      "a recipe larger than the cap is not stored");
	jc_cache_close(c);
}

int main(void)
{
	util_init();
	test_ze_round_trip();
	test_cl_round_trip();
	test_compile_link_round_trip();
	test_cache_recipes();
	util_cleanup();
	return check_summary();
}
