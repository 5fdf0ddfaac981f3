// SPDX-License-Identifier: MIT
/* Unit tests of tiers/layers.c through the cache: read-only cache
 * directories searched after the cache directory. */
#include "store/entry.h"
#include "tests/unit/cache_util.h"

#include <errno.h>
#include <sys/mount.h>

static struct jc_cache *open_layered(const char *dir, const char *layers, int shared)
{
	struct jc_cache_options o = { .dir = dir, .lock_timeout = 1, .shared = shared,
				      .layers = layers };
	return jc_cache_open(&o);
}

/* 1 if a get of k hits with the bytes put_bytes(.., size, seed) stored,
 * from layer number `layer` (0: the cache directory). */
static int hits(struct jc_cache *c, struct jc_key k, size_t size, unsigned seed, int layer)
{
	struct jc_entry e;
	if (jc_cache_get(c, &k, &e) != 0)
		return 0;
	int ok = entry_is(&e, size, seed) && e.layer == layer;
	jc_entry_free(&e);
	return ok;
}

static struct jc_cache_stats shared_stats(struct jc_cache *c)
{
	struct jc_cache_stats s;
	jc_cache_shared_stats(c, &s);
	return s;
}

/* The mtime and size of a file, to show that a layer is left untouched. */
static int64_t stamp(const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return -1;
	return (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec + st.st_size;
}

static void poke(const char *path, off_t at)
{
	int fd = open(path, O_RDWR);
	uint8_t b = 0;
	if (pread(fd, &b, 1, at) == 1) {
		b ^= 0x01;
		if (pwrite(fd, &b, 1, at) != 1)
			perror("pwrite");
	}
	close(fd);
}

static void test_hit_order_and_stats(void)
{
	char a[256], b[256], local[256], list[600];
	test_path(a, "layer-a");
	test_path(b, "layer-b");
	test_path(local, "local");
	/* Fill two layers as ordinary caches: k1 in a, k2 in both (different
	 * bytes), k3 in b only. */
	struct jc_cache *ca = open_cache(a, 0, 0), *cb = open_cache(b, 0, 0);
	struct jc_key k1 = make_key(0x10, 1), k2 = make_key(0x20, 2), k3 = make_key(0x10, 3);
	struct jc_key k4 = make_key(0x30, 4);
	put_bytes(ca, k1, 5000, 1);
	put_bytes(ca, k2, 6000, 2);
	put_bytes(cb, k2, 6000, 22);
	put_bytes(cb, k3, 7000, 3);
	jc_cache_close(ca);
	jc_cache_close(cb);
	char e1[PATH_MAX];
	entry_file(a, &k1, e1);
	int64_t before = stamp(e1);

	snprintf(list, sizeof list, "%s:%s/", a, b);
	struct jc_cache *c = open_layered(local, list, 0);
	CHECK(c != NULL, "a cache with two layers opens");
	CHECK(hits(c, k1, 5000, 1, 1), "an entry only in the first layer hits, from layer 1");
	CHECK(hits(c, k2, 6000, 2, 1), "an entry in both layers comes from the first");
	CHECK(hits(c, k3, 7000, 3, 2), "an entry only in the second layer hits, from layer 2");
	struct jc_entry e;
	CHECK(jc_cache_get(c, &k4, &e) != 0, "a key in no layer is a miss");
	uint64_t n;
	dir_total(local, &n, NULL);
	CHECK(n == 0, "layer hits are not copied into the cache directory");
	CHECK(stamp(e1) == before, "a layer hit leaves the layer's entry as it was (no recency)");
	struct jc_cache_stats s = shared_stats(c);
	CHECK(s.hits == 3 && s.layer_hits == 3 && s.misses == 1,
	      "stats: 3 hits, all from layers, 1 miss (got %llu, %llu, %llu)",
	      (unsigned long long)s.hits, (unsigned long long)s.layer_hits,
	      (unsigned long long)s.misses);
	CHECK(s.saved_ns == 1001 + 1002 + 1003, "stats: saved time of the layer hits");

	/* The cache directory comes first. */
	put_bytes(c, k1, 5000, 11);
	CHECK(hits(c, k1, 5000, 11, 0), "an entry in the cache directory beats the layers");
	/* The driver refuses a layer entry: counted back, layer unchanged. */
	CHECK(jc_cache_get(c, &k3, &e) == 0 && e.layer == 2, "k3 hits from layer 2 again");
	jc_cache_reject(c, &k3, &e);
	jc_entry_free(&e);
	char e3[PATH_MAX];
	entry_file(b, &k3, e3);
	CHECK(file_exists(e3), "a layer entry the driver refused is not removed");
	s = shared_stats(c);
	CHECK(s.layer_hits == 3 && s.hits == 4, "a refused layer hit is taken back (%llu, %llu)",
	      (unsigned long long)s.layer_hits, (unsigned long long)s.hits);
	/* A recheck after the lock does not go back to the layers. */
	CHECK(jc_cache_recheck(c, &k3, &e) != 0, "a recheck asks the cache directory only");
	jc_cache_close(c);
}

static void test_corrupt_layer_entry(void)
{
	char a[256], local[256];
	test_path(a, "layer-bad");
	test_path(local, "local-bad");
	struct jc_cache *ca = open_cache(a, 0, 0);
	struct jc_key k = make_key(0x44, 9);
	put_bytes(ca, k, 4000, 9);
	jc_cache_close(ca);
	char path[PATH_MAX];
	entry_file(a, &k, path);
	poke(path, JC_ENTRY_HEADER_SIZE + 100);
	int64_t before = stamp(path);
	struct jc_cache *c = open_layered(local, a, 0);
	struct jc_entry e;
	CHECK(jc_cache_get(c, &k, &e) != 0, "a corrupt layer entry is a miss");
	CHECK(stamp(path) == before, "... and stays in the layer, unchanged");
	struct jc_cache_stats s = shared_stats(c);
	CHECK(s.misses == 1 && s.corrupt == 1 && s.hits == 0,
	      "... counted as a miss and a corrupt entry");
	jc_cache_close(c);
}

static void test_refused_layers(void)
{
	char a[256], gw[256], file[256], local[256], list[1200];
	test_path(a, "layer-ok");
	test_path(gw, "layer-gw");
	test_path(file, "layer-file");
	test_path(local, "local-refused");
	struct jc_key k = make_key(0x55, 5), k2 = make_key(0x55, 6);
	struct jc_cache *ca = open_cache(a, 0, 0), *cg = open_cache(gw, 0, 0);
	put_bytes(ca, k, 3000, 5);
	put_bytes(cg, k2, 3000, 6);
	jc_cache_close(ca);
	jc_cache_close(cg);
	chmod(gw, 0775);
	close(open(file, O_CREAT | O_WRONLY, 0600));
	snprintf(list, sizeof list, "%s/missing:relative/dir:%s:%s:%s", test_root, file, gw, a);
	struct jc_cache *c = open_layered(local, list, 0);
	CHECK(c != NULL, "unusable layers do not stop the cache");
	CHECK(hits(c, k, 3000, 5, 5), "the one good layer (5th in the list) serves hits");
	struct jc_entry e;
	CHECK(jc_cache_get(c, &k2, &e) != 0, "a group-writable layer is not read");
	jc_cache_close(c);
	c = open_layered(local, list, 1);
	CHECK(hits(c, k2, 3000, 6, 4), "with shared = 1, the group-writable layer is read");
	jc_cache_close(c);
	/* Owned by another user who is not root (only root can hand it over). */
	chmod(gw, 0755);
	if (geteuid() == 0 && chown(gw, 65534, 65534) == 0) {
		c = open_layered(local, gw, 0);
		CHECK(jc_cache_get(c, &k2, &e) != 0, "a layer owned by another user is not read");
		jc_cache_close(c);
	} else {
		printf("skip another user's layer: cannot chown (not root)\n");
	}
}

/* The cache directory cannot be made: the layers still serve hits, and
 * nothing else happens (no store, no lock, no file anywhere). */
static void test_layers_only(void)
{
	char a[256], file[256], bad_dir[300];
	test_path(a, "layer-only");
	test_path(file, "a-file");
	snprintf(bad_dir, sizeof bad_dir, "%s/cache", file); /* below a regular file */
	close(open(file, O_CREAT | O_WRONLY, 0600));
	struct jc_cache *ca = open_cache(a, 0, 0);
	struct jc_key k = make_key(0x77, 7), k2 = make_key(0x77, 8);
	put_bytes(ca, k, 3000, 7);
	jc_cache_close(ca);
	CHECK(open_layered(bad_dir, NULL, 0) == NULL, "an unusable cache directory, no layers: NULL");
	struct jc_cache *c = open_layered(bad_dir, a, 0);
	CHECK(c != NULL, "an unusable cache directory with a good layer: a cache all the same");
	CHECK(hits(c, k, 3000, 7, 1), "... which serves hits from the layer");
	struct jc_entry e;
	CHECK(jc_cache_get(c, &k2, &e) != 0, "... and misses what the layer lacks");
	CHECK(put_bytes(c, k2, 3000, 8) != 0, "... stores nothing");
	CHECK(jc_cache_lock_key(c, &k2) == NULL, "... takes no lock");
	struct jc_cache_stats s;
	CHECK(jc_cache_shared_stats(c, &s) != 0 && jc_cache_clear(c) != 0 &&
	      jc_cache_trim(c, 1) != 0 && jc_cache_verify(c, NULL) != 0,
	      "... and refuses statistics files and management");
	jc_cache_process_stats(c, &s);
	CHECK(s.hits == 1 && s.layer_hits == 1 && s.misses == 1, "... counting in the process");
	CHECK(strstr(jc_cache_dir(c), "layers only") != NULL, "its directory: %s", jc_cache_dir(c));
	uint64_t n;
	dir_total(a, &n, NULL);
	struct stat st;
	CHECK(n == 1 && stat(file, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0,
	      "... and the layer and the file in the way are as they were");
	jc_cache_close(c);
}

/* A layer on a read-only file system (a read-only bind mount; root only). */
static void test_read_only_mount(void)
{
	char a[256], ro[256], local[256];
	test_path(a, "layer-rw");
	test_path(ro, "layer-ro");
	test_path(local, "local-ro");
	mkdir(ro, 0755);
	struct jc_cache *ca = open_cache(a, 0, 0);
	struct jc_key k = make_key(0x66, 6);
	put_bytes(ca, k, 3000, 6);
	jc_cache_close(ca);
	if (mount(a, ro, NULL, MS_BIND, NULL) != 0) {
		printf("skip read-only layer: cannot bind-mount (%s)\n", strerror(errno));
		return;
	}
	if (mount(NULL, ro, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY, NULL) != 0) {
		printf("skip read-only layer: cannot remount read-only (%s)\n", strerror(errno));
		umount(ro);
		return;
	}
	struct jc_cache *c = open_layered(local, ro, 0);
	CHECK(hits(c, k, 3000, 6, 1), "a layer on a read-only mount serves hits");
	jc_cache_close(c);
	umount2(ro, MNT_DETACH);
}

int main(void)
{
	util_init();
	test_hit_order_and_stats();
	test_corrupt_layer_entry();
	test_refused_layers();
	test_layers_only();
	test_read_only_mount();
	util_cleanup();
	return check_summary();
}
