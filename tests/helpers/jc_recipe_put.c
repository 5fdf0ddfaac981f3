// SPDX-License-Identifier: MIT
/*
 * jc_recipe_put — what a party that can write an archive, a layer or a
 * cache could plant: an OpenCL recipe of its own making (key/recipe.h),
 * stored through the cache itself beside an entry key of its choosing.
 *
 *   jc_recipe_put DIR SOURCE OPTIONS VENDOR DEVICE-NAME [PATH=FILE]...
 *       the text of SOURCE built with OPTIONS, recorded on that device, and
 *       carrying FILE's contents as the included file PATH
 *
 * JITCACHE_SIGNING_KEY=FILE signs it.  Exit status 0 if it was stored.
 */
#include "cache/cache.h"
#include "key/recipe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n = -1;
	if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n)
		*size = (size_t)n;
	else
		free(buf), buf = NULL;
	if (f)
		fclose(f);
	if (!buf)
		fprintf(stderr, "jc_recipe_put: cannot read %s\n", path);
	return buf;
}

int main(int argc, char **argv)
{
	if (argc < 6) {
		fprintf(stderr, "usage: jc_recipe_put DIR SOURCE OPTIONS VENDOR DEVICE-NAME "
			"[PATH=FILE]...\n");
		return 2;
	}
	struct jc_recipe_file files[8];
	size_t n_files = 0;
	struct jc_recipe r = { .api = JC_RECIPE_CL, .cl_options = argv[3] };
	r.cl_text = slurp(argv[2], &r.cl_size);
	r.device.vendor = (uint32_t)strtoul(argv[4], NULL, 0);
	snprintf(r.device.name, sizeof r.device.name, "%s", argv[5]);
	for (int i = 6; i < argc && n_files < 8; i++) {
		char *eq = strchr(argv[i], '=');
		if (!eq)
			return 2;
		*eq = '\0';
		files[n_files].path = argv[i];
		if (!(files[n_files].data = slurp(eq + 1, &files[n_files].size)))
			return 1;
		n_files++;
	}
	r.cl_files = files;
	r.cl_n_files = n_files;
	for (int i = 0; i < JC_KEY_BYTES; i++)
		r.entry.bytes[i] = (uint8_t)(0xa0 + 5 * i);
	void *bytes;
	size_t size;
	struct jc_cache_options o = { .dir = argv[1], .lock_timeout = 1,
				      .signing_key = getenv("JITCACHE_SIGNING_KEY") };
	struct jc_cache *c = r.cl_text ? jc_cache_open(&o) : NULL;
	int rc = c && jc_recipe_encode(&r, &bytes, &size) == 0 &&
			 jc_cache_put_recipe(c, &r.entry, bytes, size) == 0 ? 0 : 1;
	jc_cache_close(c);
	return rc;
}
