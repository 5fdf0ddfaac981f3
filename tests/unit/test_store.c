// SPDX-License-Identifier: MIT
/* The local store on its own, through store/store.h alone (no cache/): its
 * verbs as its header tells them — open, put, get, has, remove, a damaged
 * entry, eviction under max_size, the counts it makes and the walk of its
 * files; and the contract of a stored object (store/object.h): its name in
 * each layout, and the walk of a directory of them with their kind. */
#include "store/entry.h"
#include "store/object.h"
#include "store/stats.h"
#include "store/store.h"
#include "tests/unit/cache_util.h"

#include <errno.h>

/* What the store told its owner it counted (jc_store_options.counted). */
static uint64_t told[JC_NCOUNTERS];

static void counted(void *ctx, const uint64_t *delta)
{
	(void)ctx;
	for (int i = 0; i < JC_NCOUNTERS; i++)
		told[i] += delta[i];
}

static struct jc_store *open_store(const char *dir, uint64_t max_size)
{
	struct jc_store_options o = { .dir = dir, .max_size = max_size, .counted = counted };
	return jc_store_open(&o);
}

/* Store size bytes of fill(seed) under k, encoded as cache/ does. */
static int put(struct jc_store *s, struct jc_key k, size_t size, unsigned seed, int count)
{
	struct jc_encoded e;
	void *buf = malloc(size ? size : 1);
	fill(buf, size, seed);
	jc_entry_encode(&k, buf, size, 1000 + seed, 0, &e);
	int rc = jc_store_put(s, &k, &e, count);
	free(e.owned);
	free(buf);
	return rc;
}

static int get_is(struct jc_store *s, struct jc_key k, size_t size, unsigned seed)
{
	struct jc_entry e;
	if (jc_store_get(s, &k, &e) != 0)
		return 0;
	int ok = entry_is(&e, size, seed) && e.layer == 0 && e.remote == 0;
	jc_entry_free(&e);
	return ok;
}

static void test_verbs(void)
{
	char dir[256], path[PATH_MAX];
	struct jc_cache_stats st;
	struct jc_entry e;
	test_path(dir, "verbs");
	struct jc_store *s = open_store(dir, 0);
	CHECK(s != NULL, "open makes the directory");
	struct jc_key k = make_key(0x3c, 1), other = make_key(0x3c, 2);
	CHECK(jc_store_get(s, &k, &e) == -1 && !jc_store_has(s, &k), "an empty store: a miss (-1)");
	memset(told, 0, sizeof told);
	CHECK(put(s, k, 5000, 7, 1) == 0, "put");
	CHECK(get_is(s, k, 5000, 7), "get hands back what was put");
	CHECK(jc_store_has(s, &k) && !jc_store_has(s, &other), "has: that key only");
	entry_file(dir, &k, path);
	struct stat f;
	CHECK(lstat(path, &f) == 0 && jc_store_file_size(s, &k) == (uint64_t)f.st_size,
	      "file_size: the entry file's (%llu bytes)", (unsigned long long)f.st_size);
	CHECK(told[JC_STORES] == 1 && told[JC_BYTES_STORED] == 5000,
	      "a counted put is told to the owner (stores %llu, bytes %llu)",
	      (unsigned long long)told[JC_STORES], (unsigned long long)told[JC_BYTES_STORED]);
	CHECK(put(s, other, 100, 8, 0) == 0 && told[JC_STORES] == 1, "an uncounted put: not told");
	CHECK(jc_store_shared_stats(s, &st) == 0 && st.stores == 1 && st.entries == 2 &&
	      st.size == dir_total(dir, NULL, NULL),
	      "the shared counters: 1 store, 2 entries, their bytes");
	uint64_t delta[JC_NCOUNTERS] = { [JC_HITS] = 3 };
	jc_store_count(s, delta, NULL);
	CHECK(jc_store_shared_stats(s, &st) == 0 && st.hits == 3, "count adds to the shared file");
	CHECK(jc_store_remove(s, &other) == 0 && !jc_store_has(s, &other) &&
	      jc_store_remove(s, &other) != 0, "remove: once");
	CHECK(strcmp(jc_store_dir(s), dir) == 0, "dir: as configured (%s)", jc_store_dir(s));
	jc_store_close(s);
}

/* A damaged entry is -2 and gone; its recount holds. */
static void test_damaged(void)
{
	char dir[256], path[PATH_MAX];
	struct jc_entry e;
	test_path(dir, "damaged");
	struct jc_store *s = open_store(dir, 0);
	struct jc_key k = make_key(0x11, 1);
	CHECK(put(s, k, 3000, 1, 1) == 0, "put");
	entry_file(dir, &k, path);
	int fd = open(path, O_WRONLY);
	CHECK(fd >= 0 && pwrite(fd, "XXXX", 4, 200) == 4, "damage its payload");
	if (fd >= 0)
		close(fd);
	CHECK(jc_store_get(s, &k, &e) == -2, "get: -2, a damaged entry");
	CHECK(!file_exists(path), "... removed");
	CHECK(jc_store_get(s, &k, &e) == -1, "then a plain miss");
	jc_store_close(s);
}

/* Puts past max_size evict the least recently used; get refreshes. */
static void test_evict(void)
{
	char dir[256];
	struct jc_cache_stats st;
	test_path(dir, "evict");
	struct jc_store *s = open_store(dir, 64 * 1024);
	memset(told, 0, sizeof told);
	struct jc_key big = make_key(0x20, 99);
	CHECK(put(s, big, 70 * 1024, 1, 1) == -1 && !jc_store_has(s, &big),
	      "an entry larger than max_size: not stored");
	for (unsigned i = 0; i < 40; i++) {
		put(s, make_key((int)(i % 4), i), 4000, i, 1);
		get_is(s, make_key(0, 0), 4000, 0); /* keep the first one in use */
	}
	uint64_t total = dir_total(dir, NULL, NULL);
	CHECK(total <= 64 * 1024, "under max_size after 40 puts of 4 KB (%llu bytes)",
	      (unsigned long long)total);
	CHECK(get_is(s, make_key(0, 0), 4000, 0), "the entry used all along is still there");
	CHECK(told[JC_EVICTIONS] > 0 && jc_store_shared_stats(s, &st) == 0 &&
	      st.evictions == told[JC_EVICTIONS],
	      "evictions told to the owner and shared alike (%llu)",
	      (unsigned long long)told[JC_EVICTIONS]);
	jc_store_close(s);
}

struct walk {
	unsigned files, bad;
	uint64_t bytes;
};

static int walk_fn(void *ctx, const struct jc_key *key, const void *data, uint64_t size,
		   int64_t mtime_s, const char *why)
{
	struct walk *w = ctx;
	(void)key, (void)mtime_s, (void)why;
	if (!data) {
		w->bad++;
		return 0;
	}
	w->files++;
	w->bytes += size;
	return 0;
}

static int stop_fn(void *ctx, const struct jc_key *key, const void *data, uint64_t size,
		   int64_t mtime_s, const char *why)
{
	(void)key, (void)data, (void)size, (void)mtime_s, (void)why;
	return ++*(int *)ctx == 2 ? 7 : 0;
}

static void test_each_file(void)
{
	char dir[256];
	struct walk w = { 0 };
	int n = 0;
	test_path(dir, "walk");
	struct jc_store *s = open_store(dir, 0);
	for (unsigned i = 0; i < 5; i++)
		put(s, make_key((int)(i * 50), i), 1000 + i, i, 1);
	uint64_t count;
	uint64_t total = dir_total(dir, &count, NULL);
	CHECK(jc_store_each_file(s, 0, walk_fn, &w) == 0 && w.files == 5 && w.bad == 0 &&
	      w.bytes == total, "each_file: every entry file, its bytes (%u files)", w.files);
	CHECK(jc_store_each_file(s, INT64_MAX, walk_fn, &(struct walk){ 0 }) == 0,
	      "each_file since the end of time: none");
	CHECK(jc_store_each_file(s, 0, stop_fn, &n) == 7 && n == 2,
	      "a nonzero return ends the walk and is returned");
	jc_store_close(s);
}

/* An entry's file name and its key, both ways: what the walks of the
 * store, of the recipes and of an archive's members take for an entry. */
static void test_key_names(void)
{
	struct jc_key k = make_key(0xab, 7), back;
	char name[2 * JC_KEY_BYTES + 2];
	jc_key_hex(&k, name);
	CHECK(jc_key_from_hex(name, &back) == 0 && !memcmp(&k, &back, sizeof k),
	      "a key's name reads back as the key (%s)", name);
	name[2 * JC_KEY_BYTES] = 'x', name[2 * JC_KEY_BYTES + 1] = '\0';
	CHECK(jc_key_from_hex(name, &back) != 0, "a digit more: not an entry's name");
	name[2 * JC_KEY_BYTES - 1] = '\0';
	CHECK(jc_key_from_hex(name, &back) != 0, "a digit short: not one, nothing read past the NUL");
	CHECK(jc_key_from_hex("ABCDEF0123456789abcdef0123456789", &back) != 0 &&
		      jc_key_from_hex("abcdef0123456789abcdef012345678.", &back) != 0 &&
		      jc_key_from_hex("locks", &back) != 0 && jc_key_from_hex("", &back) != 0,
	      "capitals, a stray character, the locks directory: none is a key");
}

/* One name per layout, the same bytes the file:// and http(s):// remotes,
 * the layers and the cache directory used before the contract named them. */
static void test_object_names(void)
{
	struct jc_key k = make_key(0xab, 7), back;
	char hex[2 * JC_KEY_BYTES + 1], want[300], path[300], small[20];
	jc_key_hex(&k, hex);
	snprintf(want, sizeof want, "/d/ab/%s", hex);
	CHECK(jc_object_path("/d", &k, JC_LAYOUT_SUBDIRS, path, sizeof path) == 0 &&
	      strcmp(path, want) == 0, "subdirs: BASE/ab/<32 hex> (%s)", path);
	snprintf(want, sizeof want, "/d/%s", hex);
	CHECK(jc_object_path("/d", &k, JC_LAYOUT_FLAT, path, sizeof path) == 0 &&
	      strcmp(path, want) == 0, "flat: BASE/<32 hex> (%s)", path);
	snprintf(want, sizeof want, "/d/ac/%s%s", hex, hex);
	CHECK(jc_object_path("/d", &k, JC_LAYOUT_BAZEL, path, sizeof path) == 0 &&
	      strcmp(path, want) == 0, "bazel: BASE/ac/<the hex twice> (%s)", path);
	CHECK(jc_object_path("/d", &k, JC_LAYOUT_SUBDIRS, small, sizeof small) == -1,
	      "a name that does not fit: -1");
	snprintf(want, sizeof want, "./ab/%s", hex);
	CHECK(jc_object_key(want, &back) == 0 && !memcmp(&k, &back, sizeof k),
	      "an archive member's name reads back as its key");
	snprintf(want, sizeof want, "ac/%s", hex);
	CHECK(jc_object_key(want, &back) != 0, "... not under another key's subdirectory");
	CHECK(jc_object_is_bookkeeping("ab/.tmp.1.2") && jc_object_is_bookkeeping("./locks") &&
		      jc_object_is_bookkeeping("stats") && !jc_object_is_bookkeeping(want),
	      "the directory's own files are bookkeeping, an object is not");
}

struct kinds {
	unsigned entries, recipes;
};

static int kind_fn(void *ctx, const struct jc_key *key, int fd, uint32_t flags)
{
	struct kinds *k = ctx;
	(void)key, (void)fd;
	if (flags & JC_ENTRY_RECIPE)
		k->recipes++;
	else
		k->entries++;
	return 0;
}

/* The walk recipe.c makes of the cache and its layers: every object with
 * its kind, nothing else of the directory (locks, stats, odd names). */
static void test_each_object(void)
{
	char dir[256];
	struct kinds k = { 0 };
	test_path(dir, "objects");
	struct jc_store *s = open_store(dir, 0);
	for (unsigned i = 0; i < 3; i++)
		put(s, make_key((int)(i * 70), i), 500, i, 1);
	struct jc_key rk;
	struct jc_encoded e;
	jc_recipe_key(&(struct jc_key){ { 1 } }, &rk);
	jc_entry_encode_flags(&rk, "recipe", 6, 0, 0, JC_ENTRY_RECIPE, &e);
	CHECK(jc_store_put(s, &rk, &e, 0) == 0, "a recipe stored beside them");
	free(e.owned);
	short type;
	char shown[PATH_MAX];
	int fd = jc_store_open_locks(s, &type, shown);
	CHECK(fd >= 0 && type == F_WRLCK && strstr(shown, "/locks"),
	      "the locks file opened for writing (%s)", shown);
	if (fd >= 0)
		close(fd);
	CHECK(jc_store_each_object(s, kind_fn, &k) == 0 && k.entries == 3 && k.recipes == 1,
	      "each_object: 3 entries and 1 recipe, nothing else (%u, %u)", k.entries, k.recipes);
	fd = jc_store_spool(s);
	CHECK(fd >= 0 && write(fd, "x", 1) == 1, "a spool file in the cache directory");
	if (fd >= 0)
		close(fd);
	jc_store_close(s);
}

/* A layer is a store opened read-only: it serves its objects, and nothing
 * is ever written there (no statistics file, no put, no removal). */
static void test_read_only(void)
{
	char dir[256], stats[300], missing[300];
	struct jc_entry e;
	const char *why;
	struct jc_key k = make_key(0x42, 1);
	test_path(dir, "ro");
	struct jc_store *w = open_store(dir, 0);
	put(w, k, 800, 3, 1);
	jc_store_close(w);
	snprintf(stats, sizeof stats, "%s/stats", dir);
	unlink(stats);
	struct jc_store *s = jc_store_open_read_only(dir, 0, 0);
	CHECK(s != NULL, "a read-only store opens an existing directory");
	int fd = s ? jc_store_open_object(s, &k) : -1;
	struct jc_accept a = { .limit = jc_entry_limit(0) };
	CHECK(fd >= 0 && jc_accept_file(fd, &k, &a, &e, &why) == JC_ENTRY_OK && e.size == 800,
	      "its object opens and is accepted");
	if (fd >= 0) {
		jc_entry_free(&e);
		close(fd);
	}
	errno = 0;
	CHECK(s && jc_store_open_object(s, &(struct jc_key){ { 9 } }) == -1 && errno == ENOENT,
	      "none of another key: ENOENT");
	struct jc_encoded enc;
	jc_entry_encode(&k, "x", 1, 0, 0, &enc);
	CHECK(s && jc_store_put(s, &k, &enc, 1) == -1 && jc_store_remove(s, &k) == -1,
	      "put and remove refuse");
	free(enc.owned);
	CHECK(!file_exists(stats), "no statistics file made");
	/* The program puts a file of its own on the layer's descriptor. */
	int held = -1;
	char link[64], to[300];
	for (int n = 3; n < 1024 && held < 0; n++) {
		snprintf(link, sizeof link, "/proc/self/fd/%d", n);
		ssize_t len = readlink(link, to, sizeof to - 1);
		if (len > 0 && (to[len] = '\0', strcmp(to, dir) == 0))
			held = n;
	}
	int theirs = open("/dev/null", O_RDONLY | O_CLOEXEC);
	CHECK(held >= 0 && theirs >= 0 && dup2(theirs, held) == held, "the layer's descriptor reused");
	errno = 0;
	CHECK(s && jc_store_open_object(s, &k) == -1 && errno == EBADF,
	      "then the layer is not used (EBADF), said once");
	jc_store_close(s);
	CHECK(held >= 0 && fcntl(held, F_GETFD) >= 0, "close leaves the program's descriptor open");
	if (held >= 0)
		close(held);
	if (theirs >= 0)
		close(theirs);
	snprintf(missing, sizeof missing, "%s/nothere", dir);
	CHECK(jc_store_open_read_only(missing, 0, 0) == NULL, "a missing directory: NULL (said)");
	CHECK(!file_exists(missing), "... and never made");
}

int main(void)
{
	util_init();
	test_key_names();
	test_object_names();
	test_each_object();
	test_read_only();
	test_verbs();
	test_damaged();
	test_evict();
	test_each_file();
	util_cleanup();
	return check_summary();
}
