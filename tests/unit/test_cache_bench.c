// SPDX-License-Identifier: MIT
/* Timings of cache/: hit and store latency by entry size, against a plain
 * read of the same file, and what fsync would cost.  Lines starting with
 * '#' are figures; the few checks only catch gross regressions.
 *
 * JC_BENCH_FILE=path also measures that file (a real GPU binary, say) stored
 * plain and compressed (compression needs a build with JC_HAVE_ZSTD). */
#include "tests/unit/cache_util.h"

#include <fcntl.h>

static double time_gets(struct jc_cache *c, const struct jc_key *k, int n)
{
	double t = now_s();
	for (int i = 0; i < n; i++) {
		struct jc_entry e;
		if (jc_cache_get(c, k, &e) != 0)
			return -1;
		jc_entry_free(&e);
	}
	return (now_s() - t) / n;
}

/* open + read into a fresh buffer + close: the floor for a hit. */
static double time_reads(const char *path, size_t size, int n)
{
	double t = now_s();
	for (int i = 0; i < n; i++) {
		int fd = open(path, O_RDONLY);
		char *buf = malloc(size);
		ssize_t got = read(fd, buf, size);
		close(fd);
		free(buf);
		if (got < 0)
			return -1;
	}
	return (now_s() - t) / n;
}

static double time_fsync(const char *dir, const void *data, size_t size)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/fsync-probe", dir);
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	ssize_t w = write(fd, data, size);
	double before_sync = now_s();
	fsync(fd);
	double after = now_s();
	close(fd);
	unlink(path);
	return w == (ssize_t)size ? after - before_sync : -1;
}

static void bench_sizes(void)
{
	static const size_t sizes[] = { 4 << 10, 64 << 10, 1 << 20, 5 << 20 };
	static const int reps[] = { 2000, 1000, 200, 50 };
	char dir[256], path[PATH_MAX], hex[33];
	test_path(dir, "bench");
	struct jc_cache *c = open_cache(dir, 0, 0);
	printf("#    %-8s %10s %10s %10s %10s %12s\n", "size", "hit us", "read us", "put us",
	       "fsync us", "hit MB/s");
	for (unsigned i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		struct jc_key k = make_key((int)i, i);
		void *data = malloc(sizes[i]);
		fill(data, sizes[i], i);
		double t = now_s();
		int n = 20;
		for (int r = 0; r < n; r++) { /* new entries, each in its own subdirectory */
			struct jc_key other = make_key(16 * (int)i + r, 1000 + (unsigned)r);
			jc_cache_put(c, &other, data, sizes[i], 1);
		}
		double put = (now_s() - t) / n;
		jc_cache_put(c, &k, data, sizes[i], 1);
		double hit = time_gets(c, &k, reps[i]);
		jc_key_hex(&k, hex);
		snprintf(path, sizeof path, "%s/%02x/%s", dir, k.bytes[0], hex);
		double rd = time_reads(path, sizes[i] + 64, reps[i]);
		double sync = time_fsync(dir, data, sizes[i]);
		printf("#    %-8zu %10.1f %10.1f %10.1f %10.1f %12.0f\n", sizes[i], hit * 1e6,
		       rd * 1e6, put * 1e6, sync * 1e6, (double)sizes[i] / hit / 1e6);
		CHECK(hit > 0 && (SANITIZED || hit < 0.02), "hit of %zu bytes takes %.1f us", sizes[i], hit * 1e6);
		free(data);
	}
	jc_cache_close(c);
}

static void *read_file(const char *path, size_t *size)
{
	struct stat st;
	int fd = open(path, O_RDONLY);
	void *buf = NULL;
	if (fd >= 0 && fstat(fd, &st) == 0 && (buf = malloc((size_t)st.st_size + 1)) &&
	    read(fd, buf, (size_t)st.st_size) == st.st_size)
		*size = (size_t)st.st_size;
	else
		free(buf), buf = NULL;
	if (fd >= 0)
		close(fd);
	return buf;
}

static void bench_file(const char *file)
{
	size_t size = 0;
	void *data = read_file(file, &size);
	if (!data) {
		printf("#    cannot read JC_BENCH_FILE=%s\n", file);
		return;
	}
	printf("#    %s: %zu bytes\n", file, size);
	for (int compress = 0; compress <= 1; compress++) {
		char dir[256], path[PATH_MAX], hex[33];
		struct stat st;
		test_path(dir, compress ? "bench-zstd" : "bench-plain");
		struct jc_cache_options o = { .dir = dir, .compress = compress };
		struct jc_cache *c = jc_cache_open(&o);
		struct jc_key k = make_key(0x10, 1);
		double t = now_s();
		for (int i = 0; i < 10; i++)
			jc_cache_put(c, &k, data, size, 1);
		double put = (now_s() - t) / 10;
		double hit = time_gets(c, &k, 100);
		jc_key_hex(&k, hex);
		snprintf(path, sizeof path, "%s/10/%s", dir, hex);
		stat(path, &st);
		printf("#    compress=%d: stored %lld bytes (%.1f%%), put %.0f us, hit %.0f us\n", compress,
		       (long long)st.st_size, 100.0 * (double)st.st_size / (double)size, put * 1e6, hit * 1e6);
		struct jc_entry e;
		CHECK(jc_cache_get(c, &k, &e) == 0 && e.size == size && memcmp(e.data, data, size) == 0,
		      "compress=%d: the file round-trips", compress);
		jc_entry_free(&e);
		jc_cache_close(c);
	}
	free(data);
}

int main(void)
{
	util_init();
	bench_sizes();
	const char *file = getenv("JC_BENCH_FILE");
	if (file && *file)
		bench_file(file);
	util_cleanup();
	return check_summary();
}
