// SPDX-License-Identifier: MIT
/* Unit tests of cache/: entries, validation, LRU under a cap, management
 * commands, permissions and file-system faults.  Concurrency is in
 * test_cache_concurrency.c, timings in test_cache_bench.c. */
#include "tests/unit/cache_util.h"
#include "config/clock.h"

#include "store/entry.h"
#include "store/fsutil.h"
#include "store/stats.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <sys/file.h>
#include <sys/mount.h>

#define NOBODY 65534

static int is_miss(struct jc_cache *c, struct jc_key k)
{
	struct jc_entry e;
	int rc = jc_cache_get(c, &k, &e);
	if (rc == 0)
		jc_entry_free(&e);
	return rc == -1 && e.data == NULL;
}

static off_t file_size(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0 ? st.st_size : -1;
}

static struct jc_cache_stats shared(struct jc_cache *c)
{
	struct jc_cache_stats s;
	jc_cache_shared_stats(c, &s);
	return s;
}

static struct jc_cache_stats mine(struct jc_cache *c)
{
	struct jc_cache_stats s;
	jc_cache_process_stats(c, &s);
	return s;
}

static void test_roundtrip(void)
{
	char dir[256], path[PATH_MAX];
	static const size_t sizes[] = { 0, 1, 100, 4096, 3 << 20, 8 << 20 };
	uint64_t total = 0;
	struct stat st;
	test_path(dir, "roundtrip/cache");
	struct jc_cache *c = open_cache(dir, 0, 0);
	CHECK(c != NULL, "open creates a missing directory (mkdir -p)");
	if (!c)
		return;
	CHECK(stat(dir, &st) == 0 && (st.st_mode & 0777) == 0700, "cache directory has mode 0700");
	for (unsigned i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		struct jc_key k = make_key((int)i * 40, i);
		CHECK(put_bytes(c, k, sizes[i], i) == 0, "put %zu bytes", sizes[i]);
		CHECK(holds(c, k, sizes[i], i), "get returns the same %zu bytes and compile time", sizes[i]);
		entry_file(dir, &k, path);
		CHECK(file_size(path) == (off_t)(sizes[i] + JC_ENTRY_HEADER_SIZE),
		      "entry file is header + payload, in subdirectory %02x", k.bytes[0]);
		total += sizes[i] + JC_ENTRY_HEADER_SIZE;
	}
	CHECK(is_miss(c, make_key(7, 99)), "unknown key is a miss");
	struct jc_entry e;
	CHECK(jc_cache_recheck(c, &(struct jc_key){ { 7, 99 } }, &e) == -1 && mine(c).misses == 1,
	      "a recheck miss is not counted again");
	struct jc_cache_stats p = mine(c), s = shared(c);
	CHECK(p.hits == 6 && p.misses == 1 && p.stores == 6 && p.saved_ns == 6 * 1000 + 15,
	      "process stats count hits, misses, stores, saved time");
	CHECK(s.hits == 6 && s.misses == 1 && s.entries == 6 && s.size == total,
	      "shared stats agree and know entries (%llu) and size (%llu)",
	      (unsigned long long)s.entries, (unsigned long long)s.size);
	CHECK(strcmp(jc_cache_dir(c), dir) == 0, "jc_cache_dir");
	jc_cache_close(c);
	char hex[33];
	struct jc_key k = { { 0x00, 0x01, 0xab, 0xff } };
	jc_key_hex(&k, hex);
	CHECK(strcmp(hex, "0001abff000000000000000000000000") == 0, "key hex is lower case");
}

static void test_replace_and_drop(void)
{
	char dir[256], path[PATH_MAX];
	test_path(dir, "replace");
	struct jc_cache *c = open_cache(dir, 0, 0);
	struct jc_key k = make_key(0x33, 1);
	put_bytes(c, k, 1000, 1);
	put_bytes(c, k, 3000, 2);
	CHECK(holds(c, k, 3000, 2), "a second put replaces the entry");
	struct jc_cache_stats s = shared(c);
	CHECK(s.entries == 1 && s.size == 3000 + JC_ENTRY_HEADER_SIZE,
	      "replacing keeps the usage exact (1 entry, %llu bytes)", (unsigned long long)s.size);
	jc_cache_drop(c, &k);
	entry_file(dir, &k, path);
	CHECK(!file_exists(path) && is_miss(c, k), "drop removes the entry");
	s = shared(c);
	CHECK(s.corrupt == 1 && s.entries == 0 && s.size == 0, "drop counts as corrupt");
	jc_cache_close(c);
}

/* Ways to damage an entry file. */
static void poke(const char *path, off_t at, uint8_t xor_with)
{
	int fd = open(path, O_RDWR);
	uint8_t b = 0;
	if (pread(fd, &b, 1, at) == 1) {
		b ^= xor_with;
		if (pwrite(fd, &b, 1, at) != 1)
			perror("pwrite");
	}
	close(fd);
}

static void flip_payload(const char *path) { poke(path, JC_ENTRY_HEADER_SIZE + 1234, 0x01); }
static void flip_header(const char *path) { poke(path, 48, 0x80); }  /* compile_ns */
static void bad_magic(const char *path) { poke(path, 0, 0x20); }
static void bad_flags(const char *path) { poke(path, 13, 0x01); }
static void cut_one(const char *path) { truncate(path, file_size(path) - 1); }
static void cut_header(const char *path) { truncate(path, 20); }
static void empty(const char *path) { truncate(path, 0); }

static void add_one(const char *path)
{
	int fd = open(path, O_WRONLY | O_APPEND);
	if (write(fd, "x", 1) != 1)
		perror("write");
	close(fd);
}

/* Another format version, with a checksum that fits. */
static void other_version(const char *path)
{
	uint8_t raw[JC_ENTRY_HEADER_SIZE];
	int fd = open(path, O_RDWR);
	off_t size = file_size(path);
	void *payload = malloc((size_t)size);
	if (pread(fd, raw, sizeof raw, 0) == (ssize_t)sizeof raw &&
	    pread(fd, payload, (size_t)size - sizeof raw, sizeof raw) == size - (off_t)sizeof raw) {
		raw[8] = 2;
		uint64_t sum = jc_entry_checksum(raw, payload, (size_t)size - sizeof raw);
		for (int i = 0; i < 8; i++)
			raw[56 + i] = (uint8_t)(sum >> (8 * i));
		if (pwrite(fd, raw, sizeof raw, 0) != (ssize_t)sizeof raw)
			perror("pwrite");
	}
	free(payload);
	close(fd);
}

static void test_corrupt(void)
{
	static const struct {
		const char *what;
		void (*damage)(const char *path);
		int corrupt;
	} cases[] = {
		{ "a flipped payload byte", flip_payload, 1 },
		{ "a flipped header byte", flip_header, 1 },
		{ "a bad magic", bad_magic, 1 },
		{ "unknown flags", bad_flags, 1 },
		{ "a missing last byte", cut_one, 1 },
		{ "an extra byte", add_one, 1 },
		{ "a cut header", cut_header, 1 },
		{ "an empty file", empty, 1 },
		{ "another format version", other_version, 0 },
	};
	/* Payloads under 64 KiB are read, larger ones mapped (store/layout.c). */
	static const struct {
		size_t size;
		const char *how;
	} sizes[] = { { 5000, "read" }, { 100000, "mapped" } };
	char dir[256], path[PATH_MAX];
	test_path(dir, "corrupt");
	struct jc_cache *c = open_cache(dir, 0, 0);
	for (unsigned j = 0; j < sizeof sizes / sizeof *sizes; j++)
		for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) {
			size_t size = sizes[j].size;
			struct jc_key k = make_key(0x44 + (int)j, i);
			put_bytes(c, k, size, i);
			entry_file(dir, &k, path);
			cases[i].damage(path);
			uint64_t before = mine(c).corrupt, shared_before = shared(c).corrupt;
			CHECK(is_miss(c, k), "an entry (%s) with %s is a miss", sizes[j].how,
			      cases[i].what);
			CHECK(!file_exists(path), "... and is removed");
			CHECK(mine(c).corrupt - before == (uint64_t)cases[i].corrupt &&
			      shared(c).corrupt - shared_before == (uint64_t)cases[i].corrupt,
			      "... and %s",
			      cases[i].corrupt ? "counts as corrupt" : "does not count as corrupt");
			CHECK(put_bytes(c, k, size, i) == 0 && holds(c, k, size, i),
			      "... and a new put works");
		}
	/* A whole, valid entry under another key's name. */
	struct jc_key a = make_key(0x55, 1), b = make_key(0x55, 2);
	char pa[PATH_MAX], pb[PATH_MAX];
	put_bytes(c, a, 3000, 1);
	put_bytes(c, b, 3000, 2);
	entry_file(dir, &a, pa);
	entry_file(dir, &b, pb);
	rename(pa, pb);
	CHECK(is_miss(c, b) && !file_exists(pb), "an entry holding another key is a miss and removed");
	CHECK(shared(c).entries == 2 * sizeof cases / sizeof *cases + 1 /* a */,
	      "usage stays exact through removals (%llu entries)",
	      (unsigned long long)shared(c).entries);
	jc_cache_close(c);
}

/* A payload from 64 KiB up is served from a mapping of its entry file. */
static void test_mapped(void)
{
	char dir[256], path[PATH_MAX];
	struct jc_entry e;
	test_path(dir, "mapped");
	struct jc_cache *c = open_cache(dir, 0, 0);
	struct jc_key small = make_key(0x21, 1), big = make_key(0x22, 2);
	put_bytes(c, small, 65535, 1);
	put_bytes(c, big, 65536, 2);
	CHECK(jc_cache_get(c, &small, &e) == 0 && entry_is(&e, 65535, 1) && e.map == NULL,
	      "a 65535-byte payload is read into memory");
	jc_entry_free(&e);
	CHECK(jc_cache_get(c, &big, &e) == 0 && entry_is(&e, 65536, 2) && e.map != NULL &&
	      (uint8_t *)e.data == (uint8_t *)e.map + JC_ENTRY_HEADER_SIZE,
	      "a 64 KiB payload is served from a mapping of its file");
	entry_file(dir, &big, path);
	jc_cache_drop(c, &big);
	CHECK(!file_exists(path) && entry_is(&e, 65536, 2),
	      "the mapped payload stays whole when its entry is removed meanwhile");
	jc_entry_free(&e);
	CHECK(e.data == NULL && e.map == NULL && e.size == 0, "jc_entry_free unmaps it");
	put_bytes(c, big, 65536, 3);
	CHECK(holds(c, big, 65536, 3), "a new entry under the same key is served");
	jc_cache_close(c);
}

/* put A B C, hit A, put D: B goes.  Hit C, put E: A goes. */
static void lru_case(const char *name, int same_subdir)
{
	char dir[256], path[PATH_MAX];
	const size_t size = 10000; /* files of 10064 bytes: 3 fit under 90% of the cap, 4 do not */
	struct jc_key k[5];
	test_path(dir, name);
	struct jc_cache *c = open_cache(dir, 36000, 0);
	for (int i = 0; i < 5; i++)
		k[i] = make_key(same_subdir ? 0x77 : 0x10 * (i + 1), (unsigned)i);
	put_bytes(c, k[0], size, 0);
	put_bytes(c, k[1], size, 1);
	put_bytes(c, k[2], size, 2);
	CHECK(holds(c, k[0], size, 0), "%s: hit A", name);
	put_bytes(c, k[3], size, 3);
	entry_file(dir, &k[1], path);
	CHECK(!file_exists(path), "%s: B, the least recently used, was evicted", name);
	CHECK(holds(c, k[0], size, 0) && holds(c, k[2], size, 2) && holds(c, k[3], size, 3),
	      "%s: A (refreshed by its hit), C and D survive", name);
	/* Now A, C, D were hit in that order: A is the least recent. */
	put_bytes(c, k[4], size, 4);
	entry_file(dir, &k[0], path);
	CHECK(!file_exists(path) && holds(c, k[2], size, 2) && holds(c, k[3], size, 3) &&
	      holds(c, k[4], size, 4), "%s: next, A goes and C, D, E stay", name);
	struct jc_cache_stats s = shared(c);
	CHECK(s.evictions == 2 && s.entries == 3 && s.size == 3 * (size + JC_ENTRY_HEADER_SIZE),
	      "%s: 2 evictions, usage exact", name);
	jc_cache_close(c);
}

static void test_lru(void)
{
	lru_case("lru-spread", 0);
	lru_case("lru-one-subdir", 1);
}

static void test_too_big(void)
{
	char dir[256];
	test_path(dir, "too-big");
	struct jc_cache *c = open_cache(dir, 36000, 0);
	struct jc_key small = make_key(1, 1), big = make_key(2, 2);
	put_bytes(c, small, 20000, 1);
	CHECK(put_bytes(c, big, 40000, 2) == -1 && is_miss(c, big), "an entry bigger than the cap is not stored");
	CHECK(holds(c, small, 20000, 1), "... and evicts nothing");
	CHECK(mine(c).store_failures == 0, "... and is not a store failure");
	jc_cache_close(c);
}

/* Set a file's mtime to age seconds ago. */
static void age(const char *path, int seconds)
{
	struct timespec t[2];
	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[0].tv_sec -= seconds;
	t[1] = t[0];
	utimensat(AT_FDCWD, path, t, AT_SYMLINK_NOFOLLOW);
}

static void make_file(const char *path, int seconds_old)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	if (write(fd, "partial", 7) != 7)
		perror("write");
	close(fd);
	age(path, seconds_old);
}

static void test_leftovers(void)
{
	char dir[256], old_tmp[PATH_MAX], new_tmp[PATH_MAX], old_lock[PATH_MAX];
	char held_lock[PATH_MAX], swept[PATH_MAX];
	test_path(dir, "leftovers");
	struct jc_cache *c = open_cache(dir, 0, 0);
	put_bytes(c, make_key(0x42, 1), 100, 1);
	snprintf(old_tmp, PATH_MAX, "%s/42/.tmp.1.2.dead", dir);
	snprintf(new_tmp, PATH_MAX, "%s/42/.tmp.1.3.busy", dir);
	snprintf(old_lock, PATH_MAX, "%s/42/42000000000000000000000000000000.lock", dir);
	snprintf(held_lock, PATH_MAX, "%s/42/42000000000000000000000000000001.lock", dir);
	make_file(old_tmp, 2 * 3600);
	make_file(new_tmp, 60);
	make_file(old_lock, 2 * 3600);
	make_file(held_lock, 2 * 3600);
	int held = open(held_lock, O_RDONLY);
	flock(held, LOCK_EX);
	jc_cache_trim(c, UINT64_MAX);
	CHECK(!file_exists(old_tmp) && file_exists(new_tmp),
	      "a scan removes temporary files over an hour old, and only those");
	CHECK(!file_exists(old_lock) && file_exists(held_lock),
	      "... and old lock files, unless someone holds them");
	close(held);

	/* Stores rescan one subdirectory every 32 stores: the 32nd does "01". */
	snprintf(swept, PATH_MAX, "%s/01", dir);
	mkdir(swept, 0700);
	snprintf(swept, PATH_MAX, "%s/01/.tmp.9.9.dead", dir);
	make_file(swept, 2 * 3600);
	for (unsigned i = 0; i < 31; i++)
		put_bytes(c, make_key(0x90, i), 10, i);
	CHECK(!file_exists(swept), "stores sweep one subdirectory at a time for leftovers");
	jc_cache_close(c);
}

static void test_clear_trim_verify(void)
{
	char dir[256], path[PATH_MAX];
	const size_t size = 2000, file = size + JC_ENTRY_HEADER_SIZE;
	test_path(dir, "manage");
	struct jc_cache *c = open_cache(dir, 0, 0);
	for (unsigned i = 0; i < 20; i++)
		put_bytes(c, make_key((int)(i * 13 % 256), i), size, i);
	for (unsigned i = 0; i < 5; i++)
		holds(c, make_key((int)(i * 13 % 256), i), size, i); /* now the newest */
	CHECK(jc_cache_trim(c, 10 * file) == 0, "trim to 10 entries");
	int order_ok = 1;
	for (unsigned i = 0; i < 20; i++) {
		struct jc_key k = make_key((int)(i * 13 % 256), i);
		entry_file(dir, &k, path);
		order_ok &= file_exists(path) == (i < 5 || i >= 15);
	}
	CHECK(order_ok, "trim removed the 10 least recently used");
	CHECK(shared(c).entries == 10 && dir_total(dir, NULL, NULL) == 10 * file,
	      "after trim: 10 entries, %zu bytes", 10 * file);

	struct jc_key bad = make_key((int)(15 * 13 % 256), 15);
	entry_file(dir, &bad, path);
	flip_payload(path);
	char *report = NULL;
	size_t report_size = 0;
	FILE *out = open_memstream(&report, &report_size);
	long n = jc_cache_verify(c, out);
	fclose(out);
	CHECK(n == 1 && !file_exists(path), "verify finds and removes the one bad entry");
	CHECK(report && strstr(report, "removed") && strstr(report, "checksum") &&
	      strstr(report, "9 good entries"), "verify reports it: %s", report ? report : "");
	free(report);
	CHECK(shared(c).entries == 9 && shared(c).corrupt == 1, "... and counts it");

	CHECK(jc_cache_clear(c) == 0, "clear");
	uint64_t count;
	CHECK(dir_total(dir, &count, NULL) == 0 && count == 0 && shared(c).size == 0 &&
	      shared(c).entries == 0, "clear leaves no entries");
	CHECK(put_bytes(c, bad, size, 1) == 0 && holds(c, bad, size, 1), "the cache works after clear");
	jc_cache_close(c);
}

static void test_stats_file(void)
{
	char dir[256], path[PATH_MAX];
	test_path(dir, "stats-file");
	struct jc_cache *c = open_cache(dir, 0, 0);
	for (unsigned i = 0; i < 3; i++)
		put_bytes(c, make_key((int)i, i), 1000, i);
	snprintf(path, PATH_MAX, "%s/stats", dir);
	FILE *f = fopen(path, "r+");
	fputs("garbage", f);
	fclose(f);
	CHECK(put_bytes(c, make_key(9, 9), 1000, 9) == 0, "a put works with a damaged statistics file");
	uint64_t count;
	uint64_t total = dir_total(dir, &count, NULL);
	CHECK(shared(c).entries == 4 && shared(c).size == total,
	      "the damaged file was replaced and the entries recounted");
	unlink(path);
	CHECK(put_bytes(c, make_key(10, 10), 1000, 10) == 0, "a put works without a statistics file");
	total = dir_total(dir, &count, NULL);
	CHECK(shared(c).entries == 5 && shared(c).size == total, "the file was made again and recounted");
	jc_cache_close(c);
	unlink(path);
	c = open_cache(dir, 0, 0);
	CHECK(c && shared(c).entries == 5, "open recounts an existing cache without statistics");
	jc_cache_close(c);
}

/* Every count reaches the statistics file at once (store/count.c): a
 * process killed after a hit has counted it.  other is a second handle on
 * the same directory: it reads the file as another process would.  Every
 * hit is of the entry put below (1000 bytes, seed 2). */
static int hit(struct jc_cache *c, struct jc_key k)
{
	return holds(c, k, 1000, 2);
}

static void hit_in_child(void *arg)
{
	struct jc_cache *c = arg;
	CHECK(mine(c).hits == 0, "a forked child's own counts start at 0 (not its parent's 3)");
	CHECK(hit(c, make_key(1, 1)), "the child hits");
	CHECK(mine(c).hits == 1, "... and count its one hit as its own");
	/* in_child() then ends it with _exit(): no exit handler, no close */
}

static void test_hits_at_once(void)
{
	char dir[256];
	test_path(dir, "at-once");
	struct jc_cache *c = open_cache(dir, 0, 0), *other = open_cache(dir, 0, 0);
	struct jc_key k = make_key(1, 1);
	put_bytes(c, k, 1000, 2);
	int all = 1;
	for (int i = 0; i < 3; i++)
		all &= hit(c, k);
	struct jc_cache_stats s = shared(other);
	CHECK(all && mine(c).hits == 3 && s.hits == 3 && s.saved_ns == 3 * 1002,
	      "three hits are in the file as they happen, with the time saved (%llu hits)",
	      (unsigned long long)s.hits);
	in_child("a forked child", hit_in_child, c);
	CHECK(shared(other).hits == 4, "a child that ends without exit handlers counted its hit");
	jc_cache_close(c);
	jc_cache_close(other);
}

/* Within 0.1%. */
static int near(uint64_t v, uint64_t want)
{
	return v > want - want / 1000 && v < want + want / 1000;
}

/* Hits by tier, misses by cause, both times saved, zero and since. */
static void test_tier_counts(void)
{
	char dir[256], path[PATH_MAX];
	test_path(dir, "tiers");
	struct jc_cache *c = open_cache(dir, 0, 0);
	struct jc_key k = make_key(3, 1), k2 = make_key(3, 2);
	struct jc_cache_stats s = shared(c);
	int64_t now = jc_wall_ns();
	CHECK(s.since_ns > 0 && s.since_ns <= now && now - s.since_ns < 600 * 1000000000LL,
	      "a new statistics file records when its counters started");
	/* A compile of 2.0 s CPU that took 5.0 s of wall time. */
	uint64_t word = jc_compile_word(2000000000ull, 5000000000ull), cpu, wall;
	jc_compile_times(word, &cpu, &wall);
	CHECK(near(cpu, 2000000000ull) && near(wall, 5000000000ull),
	      "the compile word keeps both times: %llu ns CPU, %llu ns wall",
	      (unsigned long long)cpu, (unsigned long long)wall);
	jc_compile_times(1234567, &cpu, &wall);
	CHECK(cpu == 1234567 && wall == 1234567, "an older entry's plain time reads as both");
	CHECK(jc_compile_word(1234567, 1234567) == 1234567, "equal times are written plain");
	jc_compile_times(word, &cpu, &wall);
	CHECK(is_miss(c, k), "a key never stored misses");
	char buf[100];
	memset(buf, 7, sizeof buf);
	CHECK(jc_cache_put(c, &k, buf, sizeof buf, word) == 0, "stored with both times");
	struct jc_entry e;
	CHECK(jc_cache_get(c, &k, &e) == 0 && e.compile_ns == cpu && e.wall_ns == wall &&
	      e.layer == 0 && !e.remote, "the hit reads both times back");
	jc_entry_free(&e);
	s = shared(c);
	CHECK(s.hits == 1 && s.tier_hits[JC_SLOT_LOCAL] == 1 && s.misses == 1 &&
	      s.miss_not_found == 1 && s.saved_ns == cpu && s.saved_wall_ns == wall,
	      "counted: 1 local hit, 1 miss found nowhere, 2 s CPU and 5 s wall saved");
	/* A damaged entry: a miss whose cause is the damage. */
	CHECK(jc_cache_put(c, &k2, buf, sizeof buf, word) == 0, "second entry stored");
	char name[2 * JC_KEY_BYTES + 1];
	jc_key_hex(&k2, name);
	snprintf(path, sizeof path, "%s/%02x/%s", dir, k2.bytes[0], name);
	int fd = open(path, O_WRONLY);
	CHECK(fd >= 0 && pwrite(fd, "X", 1, 80) == 1, "damaged a byte of its payload");
	close(fd);
	CHECK(is_miss(c, k2), "the damaged entry misses");
	s = shared(c);
	CHECK(s.misses == 2 && s.miss_corrupt == 1 && s.miss_not_found == 1,
	      "counted as a miss of a damaged entry");
	/* The driver refuses a hit: it becomes a miss, refused. */
	CHECK(jc_cache_get(c, &k, &e) == 0, "a hit");
	jc_cache_reject(c, &k, &e);
	jc_entry_free(&e);
	s = shared(c);
	CHECK(s.hits == 1 && s.tier_hits[JC_SLOT_LOCAL] == 1 && s.misses == 3 &&
	      s.miss_rejected == 1 && s.saved_ns == cpu,
	      "a refused hit counts as a miss refused by the driver, and saved nothing");
	/* A miss, then a recheck that finds it: one hit, the miss and its
	 * cause taken back. */
	struct jc_key k3 = make_key(3, 3);
	CHECK(is_miss(c, k3), "another key misses");
	CHECK(jc_cache_put(c, &k3, buf, sizeof buf, 1000) == 0, "...another process stores it");
	CHECK(jc_cache_recheck(c, &k3, &e) == 0, "...the recheck finds it");
	jc_entry_free(&e);
	s = shared(c);
	CHECK(s.hits == 2 && s.misses == 3 && s.miss_not_found == 1 && s.miss_corrupt == 1 &&
	      s.miss_rejected == 1, "the recheck's hit takes back the miss and its cause "
	      "(%llu hits, %llu misses, %llu found nowhere)", (unsigned long long)s.hits,
	      (unsigned long long)s.misses, (unsigned long long)s.miss_not_found);
	jc_cache_count_build_failure(c);
	CHECK(shared(c).build_failures == 1, "a failed build is counted");
	int64_t before = jc_wall_ns();
	CHECK(jc_cache_zero_stats(c) == 0, "zero");
	s = shared(c);
	CHECK(s.hits == 0 && s.misses == 0 && s.miss_not_found == 0 && s.saved_wall_ns == 0 &&
	      s.tier_hits[JC_SLOT_LOCAL] == 0 && s.build_failures == 0 && s.since_ns >= before &&
	      s.entries == 1, "zero: every counter 0, since now, the entries still counted");
	jc_cache_close(c);
}

static void test_compress(void)
{
	char dir[256], path[PATH_MAX];
	struct jc_cache_options o = { .compress = 1 };
	test_path(dir, "compress");
	o.dir = dir;
	struct jc_cache *c = jc_cache_open(&o);
	size_t size = 1 << 20;
	char *text = malloc(size);
	for (size_t i = 0; i < size; i++)
		text[i] = "kernel void f(global int *a) { a[get_global_id(0)] += 1; }\n"[i % 58];
	struct jc_key k = make_key(0x66, 1), r = make_key(0x66, 2);
	CHECK(jc_cache_put(c, &k, text, size, 5) == 0, "put with compress=1");
	struct jc_entry e;
	CHECK(jc_cache_get(c, &k, &e) == 0 && e.size == size && memcmp(e.data, text, size) == 0,
	      "compressible data round-trips");
	if (e.data)
		jc_entry_free(&e);
	entry_file(dir, &k, path);
	printf("#    1 MiB of repetitive text is stored in %lld bytes (%s)\n",
	       (long long)file_size(path),
	       file_size(path) < (off_t)size ? "compressed" : "this build has no zstd");
	CHECK(put_bytes(c, r, 100000, 3) == 0 && holds(c, r, 100000, 3),
	      "incompressible data round-trips (stored plain)");
	free(text);
	jc_cache_close(c);
}

static void test_permissions(void)
{
	char dir[300], real[256], link[256], path[PATH_MAX], other[PATH_MAX];
	struct jc_cache *c;
	test_path(dir, "perm-0777");
	mkdir(dir, 0700);
	chmod(dir, 0777);
	CHECK(open_cache(dir, 0, 0) == NULL, "a directory writable by others is refused");
	CHECK((c = open_cache(dir, 0, 1)) != NULL, "... unless shared");
	jc_cache_close(c);
	test_path(dir, "perm-0770");
	mkdir(dir, 0700);
	chmod(dir, 0770);
	CHECK(open_cache(dir, 0, 0) == NULL, "a directory writable by the group is refused");
	if (geteuid() == 0) {
		test_path(dir, "perm-other-owner");
		mkdir(dir, 0700);
		CHECK(chown(dir, NOBODY, NOBODY) == 0 && open_cache(dir, 0, 0) == NULL,
		      "a directory owned by another user is refused");
		CHECK((c = open_cache(dir, 0, 1)) != NULL, "... unless shared");
		jc_cache_close(c);
	}

	/* Symlinks above the cache directory are followed: the user chose them. */
	test_path(real, "perm-real");
	test_path(link, "perm-link");
	mkdir(real, 0700);
	symlink(real, link);
	snprintf(dir, PATH_MAX, "%s/cache", link);
	c = open_cache(dir, 0, 0);
	struct jc_key a = make_key(0x21, 1), b = make_key(0x21, 2);
	CHECK(c && put_bytes(c, a, 100, 1) == 0 && holds(c, a, 100, 1),
	      "a cache directory under a symlinked parent works");
	/* ... but an entry file that is a symlink is never followed. */
	entry_file(dir, &a, path);
	entry_file(dir, &b, other);
	symlink(path, other);
	CHECK(c && is_miss(c, b) && holds(c, a, 100, 1), "an entry that is a symlink is a miss");
	jc_cache_close(c);
}

static void test_dir_removed(void)
{
	char dir[256];
	test_path(dir, "vanishing");
	struct jc_cache *c = open_cache(dir, 1 << 20, 0);
	struct jc_key a = make_key(1, 1), b = make_key(2, 2);
	put_bytes(c, a, 1000, 1);
	rm_rf(dir);
	CHECK(is_miss(c, a), "after the directory is removed, a get is a miss");
	struct jc_cache_lock *l = jc_cache_lock_key(c, &b);
	CHECK(l != NULL, "lock_key makes the directory again");
	jc_cache_unlock(l);
	rm_rf(dir);
	CHECK(put_bytes(c, b, 1000, 2) == 0 && holds(c, b, 1000, 2), "a put makes the directory again");
	CHECK(shared(c).entries == 1, "... with fresh statistics");
	jc_cache_close(c);
}

/* ---- as another user, and on special file systems --------------------- */

static void chown_tree(const char *dir)
{
	char path[PATH_MAX];
	if (chown(dir, NOBODY, NOBODY) != 0)
		perror("chown");
	snprintf(path, PATH_MAX, "%s/stats", dir);
	if (chown(path, NOBODY, NOBODY) != 0)
		perror("chown");
	for (int sub = 0; sub < 256; sub++) {
		snprintf(path, PATH_MAX, "%s/%02x", dir, sub);
		DIR *d = opendir(path);
		struct dirent *de;
		while (d && (de = readdir(d)))
			if (de->d_name[0] != '.')
				fchownat(dirfd(d), de->d_name, NOBODY, NOBODY, 0);
		if (d) {
			closedir(d);
			chown(path, NOBODY, NOBODY);
			chmod(path, 0500);
		}
	}
	chmod(dir, 0500);
}

/* 1 if uid NOBODY can reach (search) path: every directory above it
 * included.  Neither $TMPDIR nor /tmp may be assumed open to others. */
static int nobody_reaches(const char *path)
{
	int status = 1;
	pid_t pid = fork();
	if (pid == 0)
		_exit(setgroups(0, NULL) == 0 && setgid(NOBODY) == 0 && setuid(NOBODY) == 0 &&
		      access(path, X_OK) == 0 ? 0 : 1);
	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0;
}

/* A new 0711 directory that uid NOBODY can reach, in the first of test_root,
 * $TMPDIR, /tmp, /var/tmp and /dev/shm it can reach; 0 if none. */
static int nobody_scratch(char out[256])
{
	const char *tmp = getenv("TMPDIR");
	const char *bases[] = { test_root, tmp && *tmp && strlen(tmp) < 200 ? tmp : "/tmp",
				"/tmp", "/var/tmp", "/dev/shm" };
	for (size_t i = 0; i < sizeof bases / sizeof *bases; i++) {
		snprintf(out, 256, "%s/jc-nobody.XXXXXX", bases[i]);
		if (!nobody_reaches(bases[i]) || !mkdtemp(out))
			continue;
		chmod(out, 0711);
		return 1;
	}
	return 0;
}

static void as_nobody(void *arg)
{
	const char *dir = arg;
	char elsewhere[PATH_MAX], parent[PATH_MAX - 16];
	if (setgroups(0, NULL) != 0 || setgid(NOBODY) != 0 || setuid(NOBODY) != 0) {
		printf("#    skipped: cannot become uid %d (%s)\n", NOBODY, strerror(errno));
		return;
	}
	struct jc_cache *c = open_cache(dir, 1 << 20, 0);
	CHECK(c != NULL, "unwritable (0500) directory: opens");
	if (!c)
		return;
	CHECK(holds(c, make_key(0x31, 1), 1000, 1), "unwritable directory: hits still work");
	CHECK(put_bytes(c, make_key(0x31, 2), 1000, 2) == -1, "unwritable directory: put fails soft");
	CHECK(put_bytes(c, make_key(0x99, 3), 1000, 3) == -1, "... also where a subdirectory is missing");
	double t = now_s();
	struct jc_cache_lock *l = jc_cache_lock_key(c, &(struct jc_key){ { 0x31, 9 } });
	CHECK(l == NULL && now_s() - t < 0.5, "unwritable directory: lock_key gives up at once");
	jc_cache_trim(c, 1);
	jc_cache_clear(c);
	jc_cache_verify(c, NULL);
	CHECK(1, "unwritable directory: trim, clear and verify do not crash");
	jc_cache_close(c);
	snprintf(parent, sizeof parent, "%s", dir);
	*strrchr(parent, '/') = '\0';
	snprintf(elsewhere, PATH_MAX, "%s/sub/cache", parent);
	CHECK(open_cache(elsewhere, 0, 0) == NULL, "a directory that cannot be created: open fails");
}

static void test_unwritable(void)
{
	char scratch[256], dir[300];
	if (geteuid() != 0) {
		printf("#    skipped: unwritable-directory test needs root to switch users\n");
		return;
	}
	int reached = nobody_scratch(scratch);
	CHECK(reached, "a directory uid %d can reach (in $TMPDIR, /tmp, /var/tmp or /dev/shm)", NOBODY);
	if (!reached)
		return;
	snprintf(dir, sizeof dir, "%s/nobody", scratch);
	struct jc_cache *c = open_cache(dir, 1 << 20, 0);
	put_bytes(c, make_key(0x31, 1), 1000, 1);
	jc_cache_close(c);
	chown_tree(dir);
	in_child("as nobody", as_nobody, dir);
	rm_rf(scratch);
}

static void on_tmpfs(void *arg)
{
	const char *mnt = arg;
	char dir[256], missing[PATH_MAX];
	if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
	    mount("tmpfs", mnt, "tmpfs", 0, "size=256k,mode=0700") != 0) {
		printf("#    skipped: cannot mount a tmpfs (%s)\n", strerror(errno));
		return;
	}
	snprintf(dir, PATH_MAX, "%s/cache", mnt);
	struct jc_cache *c = open_cache(dir, 0, 0);
	int temps = -1;
	CHECK(put_bytes(c, make_key(1, 1), 1 << 20, 1) == -1, "ENOSPC: put fails soft");
	dir_total(dir, NULL, &temps);
	CHECK(temps == 0, "ENOSPC: the partial temporary file is removed");
	CHECK(mine(c).store_failures == 1, "ENOSPC: counted as a store failure");
	CHECK(put_bytes(c, make_key(2, 2), 10000, 2) == 0 && holds(c, make_key(2, 2), 10000, 2),
	      "ENOSPC: smaller entries still fit");

	if (mount(NULL, mnt, NULL, MS_REMOUNT | MS_RDONLY, NULL) != 0) {
		printf("#    skipped: cannot remount read-only (%s)\n", strerror(errno));
		jc_cache_close(c);
		return;
	}
	CHECK(holds(c, make_key(2, 2), 10000, 2), "EROFS: hits still work");
	CHECK(put_bytes(c, make_key(3, 3), 1000, 3) == -1, "EROFS: put fails soft");
	double t = now_s();
	CHECK(jc_cache_lock_key(c, &(struct jc_key){ { 3 } }) == NULL && now_s() - t < 0.5,
	      "EROFS: lock_key gives up at once");
	jc_cache_trim(c, 1);
	jc_cache_verify(c, NULL);
	jc_cache_clear(c);
	CHECK(holds(c, make_key(2, 2), 10000, 2), "EROFS: trim, verify and clear change nothing");
	jc_cache_close(c);
	CHECK((c = open_cache(dir, 0, 0)) != NULL, "EROFS: an existing cache opens");
	jc_cache_close(c);
	snprintf(missing, PATH_MAX, "%s/other", mnt);
	CHECK(open_cache(missing, 0, 0) == NULL, "EROFS: a new cache cannot be made: open fails");
}

static void test_tmpfs(void)
{
	char mnt[256];
	test_path(mnt, "tmpfs");
	mkdir(mnt, 0700);
	in_child("tmpfs", on_tmpfs, mnt);
}

int main(void)
{
	util_init();
	test_roundtrip();
	test_replace_and_drop();
	test_corrupt();
	test_mapped();
	test_lru();
	test_too_big();
	test_leftovers();
	test_clear_trim_verify();
	test_stats_file();
	test_hits_at_once();
	test_tier_counts();
	test_compress();
	test_permissions();
	test_dir_removed();
	test_unwritable();
	test_tmpfs();
	util_cleanup();
	return check_summary();
}
