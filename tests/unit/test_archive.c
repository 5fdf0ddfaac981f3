// SPDX-License-Identifier: MIT
/* Unit tests of tiers/archive.c and cache/transfer.c: export and import of
 * whole caches, and the member reader on truncated, tampered and foreign
 * archives. */
#include "tiers/archive.h"
#include "store/entry.h"
#include "tests/unit/cache_util.h"

#include <zstd.h>

#define N_ENTRIES 12

static size_t entry_size(unsigned i)
{
	return 3000 + 1500 * i; /* not multiples of 512: members need padding */
}

/* A cache of N_ENTRIES entries spread over several subdirectories. */
static struct jc_cache *filled(const char *name, int compress)
{
	char dir[256];
	test_path(dir, name);
	struct jc_cache_options o = { .dir = dir, .lock_timeout = 1, .compress = compress };
	struct jc_cache *c = jc_cache_open(&o);
	for (unsigned i = 0; i < N_ENTRIES; i++)
		put_bytes(c, make_key((int)(i * 37 % 5), i), entry_size(i), i);
	return c;
}

static struct jc_cache *empty_cache(const char *name, uint64_t max_size)
{
	char dir[256];
	test_path(dir, name);
	return open_cache(dir, max_size, 0);
}

static int all_held(struct jc_cache *c)
{
	int n = 0;
	for (unsigned i = 0; i < N_ENTRIES; i++)
		n += holds(c, make_key((int)(i * 37 % 5), i), entry_size(i), i);
	return n;
}

static uint8_t *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n = -1;
	if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n)
		*size = (size_t)n;
	if (f)
		fclose(f);
	return buf;
}

static void spill(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	if (f) {
		fwrite(data, 1, size, f);
		fclose(f);
	}
}

/* Import path into a fresh cache; msgs go to a file, then *count lines of it
 * that contain `needle` (NULL: all lines). */
static int import_into(const char *cache_name, const char *path, uint64_t max_size,
		       struct jc_transfer *t, struct jc_cache **out)
{
	char log[256];
	test_path(log, "import.log");
	FILE *msgs = fopen(log, "w");
	struct jc_cache *c = empty_cache(cache_name, max_size);
	int rc = jc_cache_import(c, path, msgs, t);
	fclose(msgs);
	*out = c;
	return rc;
}

static int log_has(const char *needle)
{
	char log[256], line[1024];
	int n = 0;
	test_path(log, "import.log");
	FILE *f = fopen(log, "r");
	while (f && fgets(line, sizeof line, f)) {
		fputs("     log: ", stdout);
		fputs(line, stdout);
		n += strstr(line, needle) != NULL;
	}
	if (f)
		fclose(f);
	return n;
}

/* compress: the source cache stores zstd entries (random bytes do not
 * shrink, so they are stored plain all the same: see test_cache.c). */
static void test_round_trip(int compress)
{
	char path[256];
	struct jc_transfer t, u;
	struct jc_cache *c = filled(compress ? "src-z" : "src", compress), *d;
	test_path(path, "all.tar.zst");
	CHECK(jc_cache_export(c, path, 0, stderr, &t) == 0 && t.entries == N_ENTRIES,
	      "export (%s entries): %llu entries, %llu bytes, archive %llu bytes",
	      compress ? "zstd" : "plain", (unsigned long long)t.entries,
	      (unsigned long long)t.bytes, (unsigned long long)t.archive_bytes);
	uint64_t n, size = 0;
	char dir[256];
	test_path(dir, compress ? "src-z" : "src");
	size = dir_total(dir, &n, NULL);
	CHECK(t.bytes == size, "export: bytes = the entry files' sizes (%llu)", (unsigned long long)size);
	CHECK(import_into(compress ? "dst-z" : "dst", path, 0, &u, &d) == 0,
	      "import of the archive succeeds");
	CHECK(u.entries == N_ENTRIES && u.refused == 0 && u.present == 0,
	      "import: %llu entries, %llu refused, %llu present", (unsigned long long)u.entries,
	      (unsigned long long)u.refused, (unsigned long long)u.present);
	CHECK(all_held(d) == N_ENTRIES, "every entry reads back with its bytes and compile time");
	struct jc_cache_stats s;
	jc_cache_shared_stats(d, &s);
	CHECK(s.entries == N_ENTRIES && s.stores == N_ENTRIES,
	      "imported entries are stored and counted like any store");
	jc_cache_close(d);
	/* Again into the same cache: all present, nothing stored. */
	CHECK(import_into(compress ? "dst-z" : "dst", path, 0, &u, &d) == 0 &&
	      u.entries == 0 && u.present == N_ENTRIES,
	      "importing again: %llu present, none added", (unsigned long long)u.present);
	jc_cache_close(d);
	jc_cache_close(c);
}

static void test_since(void)
{
	char path[256], dir[256], file[PATH_MAX];
	struct jc_transfer t, u;
	struct jc_cache *c = filled("since", 0), *d;
	test_path(dir, "since");
	/* Make every entry look used a day ago but two. */
	struct timespec old[2] = { { .tv_nsec = UTIME_OMIT }, { .tv_sec = time(NULL) - 86400 } };
	for (unsigned i = 2; i < N_ENTRIES; i++) {
		struct jc_key k = make_key((int)(i * 37 % 5), i);
		entry_file(dir, &k, file);
		utimensat(AT_FDCWD, file, old, AT_SYMLINK_NOFOLLOW);
	}
	test_path(path, "since.tar.zst");
	int64_t hour_ago = ((int64_t)time(NULL) - 3600) * 1000000000LL;
	CHECK(jc_cache_export(c, path, hour_ago, stderr, &t) == 0 && t.entries == 2,
	      "export since an hour ago: the 2 entries used since (%llu)",
	      (unsigned long long)t.entries);
	import_into("since-dst", path, 0, &u, &d);
	CHECK(u.entries == 2 && holds(d, make_key(0, 0), entry_size(0), 0) &&
	      holds(d, make_key(37 % 5, 1), entry_size(1), 1), "... and those are what imports");
	jc_cache_close(d);
	jc_cache_close(c);
}

static void test_cap(void)
{
	char path[256];
	struct jc_transfer t, u;
	struct jc_cache *c = filled("cap-src", 0), *d;
	test_path(path, "cap.tar.zst");
	jc_cache_export(c, path, 0, stderr, &t);
	uint64_t cap = t.bytes / 2;
	import_into("cap-dst", path, cap, &u, &d);
	struct jc_cache_stats s;
	jc_cache_shared_stats(d, &s);
	char dir[256];
	uint64_t n;
	test_path(dir, "cap-dst");
	uint64_t size = dir_total(dir, &n, NULL);
	CHECK(size <= cap && s.size <= cap,
	      "import into a cache of half the size: %llu bytes <= cap %llu", (unsigned long long)size,
	      (unsigned long long)cap);
	CHECK(u.evicted > 0 && u.evicted == s.evictions && n == u.entries - u.evicted,
	      "... evicting %llu entries, as reported", (unsigned long long)u.evicted);
	jc_cache_close(d);
	jc_cache_close(c);
}

/* Every prefix length cut of the archive: the members wholly before the cut
 * go in, nothing is wrong in what does, and the rest is refused. */
static void test_truncated(void)
{
	char path[256], cut[256];
	struct jc_transfer t, u;
	struct jc_cache *c = filled("trunc-src", 0), *d;
	test_path(path, "trunc.tar.zst");
	test_path(cut, "cut.tar.zst");
	jc_cache_export(c, path, 0, stderr, &t);
	size_t size = 0;
	uint8_t *all = slurp(path, &size);
	int bad = 0;
	uint64_t last = 0;
	int monotone = 1;
	for (int i = 1; i <= 7; i++) {
		size_t keep = size * (size_t)i / 8;
		spill(cut, all, keep);
		int rc = import_into("trunc-dst", cut, 0, &u, &d);
		char dir[256];
		uint64_t n;
		test_path(dir, "trunc-dst");
		dir_total(dir, &n, NULL);
		bad += rc == 0 || n != u.entries + u.present || all_held(d) != (int)n ||
		       !log_has("truncated");
		monotone &= n >= last;
		last = n;
		jc_cache_close(d);
		rm_rf(dir);
	}
	CHECK(bad == 0, "an archive cut at 1/8 .. 7/8: every whole member before the cut imported, "
		       "the cut reported as truncated, exit status 1");
	CHECK(monotone && last > 0 && last < N_ENTRIES, "longer cuts import more (7/8: %llu of %d)",
	      (unsigned long long)last, N_ENTRIES);
	spill(cut, all, size - 1);
	import_into("trunc-dst2", cut, 0, &u, &d);
	CHECK(u.entries == N_ENTRIES && log_has("truncated") == 1,
	      "an archive missing its last byte: all entries in, the end reported missing");
	jc_cache_close(d);
	free(all);
	jc_cache_close(c);
}

/* Damage inside the compressed stream, at 9 places in turn: the member it
 * hits is lost (named, where its header survived), the others are not. */
static void test_tampered_frame(void)
{
	char path[256], bad[256];
	struct jc_transfer t, u;
	struct jc_cache *c = filled("tamper-src", 0), *d;
	test_path(path, "tamper.tar.zst");
	test_path(bad, "tampered.tar.zst");
	jc_cache_export(c, path, 0, stderr, &t);
	size_t size = 0;
	uint8_t *all = slurp(path, &size);
	int wrong = 0, named = 0;
	for (int k = 1; k <= 9; k++) {
		size_t at = size * (size_t)k / 10;
		all[at] ^= 0x55;
		all[at + 1] ^= 0xaa;
		spill(bad, all, size);
		all[at] ^= 0x55;
		all[at + 1] ^= 0xaa;
		int rc = import_into("tamper-dst", bad, 0, &u, &d);
		wrong += rc != 1 || u.refused < 1 || log_has("refused") < 1 ||
			 u.entries < N_ENTRIES - 2 || all_held(d) != (int)u.entries;
		named += log_has("member 0") >= 1;
		jc_cache_close(d);
		char dir[256];
		test_path(dir, "tamper-dst");
		rm_rf(dir);
	}
	CHECK(wrong == 0, "2 damaged bytes at 9 places of the compressed data: each time refused "
			 "in a line, at most 2 members lost, the rest imported intact");
	CHECK(named >= 5, "... the lost member named in most cases (%d of 9)", named);
	free(all);
	jc_cache_close(c);
}

/* An archive whose member was changed before compression (the zstd layer
 * is sound, the entry's checksum is not) and one with a foreign member. */
static void test_tampered_member(void)
{
	char path[256];
	struct jc_transfer u;
	struct jc_cache *d;
	test_path(path, "forged.tar.zst");
	struct jc_archive_writer *w = jc_archive_create(path, stderr);
	struct jc_key k1 = make_key(1, 1), k2 = make_key(2, 2);
	char hex[2 * JC_KEY_BYTES + 1], name[64];
	uint8_t payload[5000];
	struct jc_encoded e;
	fill(payload, sizeof payload, 1);
	jc_entry_encode(&k1, payload, sizeof payload, 77, 0, &e);
	uint8_t *file = malloc(JC_ENTRY_HEADER_SIZE + sizeof payload);
	memcpy(file, e.header, JC_ENTRY_HEADER_SIZE);
	memcpy(file + JC_ENTRY_HEADER_SIZE, payload, sizeof payload);
	jc_key_hex(&k1, hex);
	snprintf(name, sizeof name, "01/%s", hex);
	file[JC_ENTRY_HEADER_SIZE + 10] ^= 1; /* tampered */
	jc_archive_add(w, name, 0, file, JC_ENTRY_HEADER_SIZE + sizeof payload, 0);
	file[JC_ENTRY_HEADER_SIZE + 10] ^= 1;
	jc_key_hex(&k2, hex);
	snprintf(name, sizeof name, "02/%s", hex); /* k1's entry under k2's name */
	jc_archive_add(w, name, 0, file, JC_ENTRY_HEADER_SIZE + sizeof payload, 0);
	jc_archive_add(w, "etc/passwd", 0, "root", 4, 0);
	struct jc_key k3 = make_key(3, 3);
	jc_key_hex(&k3, hex);
	snprintf(name, sizeof name, "03/%s", hex);
	jc_archive_add(w, name, 0, "", 0, 0); /* an empty file under an entry's name */
	jc_archive_add(w, "stats", 0, "x", 1, 0);
	free(e.owned);
	jc_entry_encode(&k2, payload, 100, 78, 0, &e);
	memcpy(file, e.header, JC_ENTRY_HEADER_SIZE);
	memcpy(file + JC_ENTRY_HEADER_SIZE, payload, 100);
	jc_key_hex(&k2, hex);
	snprintf(name, sizeof name, "./02/%s", hex);
	jc_archive_add(w, name, 0, file, JC_ENTRY_HEADER_SIZE + 100, 0);
	jc_archive_commit(w);
	free(file);
	int rc = import_into("forged-dst", path, 0, &u, &d);
	CHECK(rc == 1 && u.entries == 1 && u.refused == 4,
	      "a forged archive: 1 good entry in, 4 members refused (%llu, %llu)",
	      (unsigned long long)u.entries, (unsigned long long)u.refused);
	CHECK(log_has("checksum mismatch") == 1, "... a changed payload: checksum mismatch");
	CHECK(log_has("holds another key") == 1, "... an entry under another key's name");
	CHECK(log_has("etc/passwd: not a cache entry") == 1, "... a file that is no entry");
	CHECK(log_has("shorter than a header") == 1, "... an empty file under an entry's name");
	struct jc_entry got;
	CHECK(jc_cache_get(d, &k1, &got) != 0, "... and the tampered entry is not in the cache");
	jc_cache_close(d);
}

static void test_not_an_archive(void)
{
	char path[256];
	struct jc_transfer u;
	struct jc_cache *d;
	test_path(path, "junk");
	spill(path, "hello, this is not a tar file at all\n", 37);
	CHECK(import_into("junk-dst", path, 0, &u, &d) < 0 && log_has("not a tar archive") == 1,
	      "a file that is no archive: nothing imported, said so");
	jc_cache_close(d);
	test_path(path, "missing.tar.zst");
	CHECK(import_into("junk-dst", path, 0, &u, &d) < 0 && log_has("No such file") == 1,
	      "a missing file: said so");
	jc_cache_close(d);
	/* Export to a directory that does not exist: nothing written. */
	struct jc_transfer t;
	struct jc_cache *c = filled("nowhere-src", 0);
	test_path(path, "no/such/dir/x.tar.zst");
	CHECK(jc_cache_export(c, path, 0, stdout, &t) < 0, "export into a missing directory fails");
	jc_cache_close(c);
}

int main(void)
{
	util_init();
	test_round_trip(0);
	test_since();
	test_cap();
	test_truncated();
	test_tampered_frame();
	test_tampered_member();
	test_not_an_archive();
	util_cleanup();
	return check_summary();
}
