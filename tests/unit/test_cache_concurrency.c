// SPDX-License-Identifier: MIT
/* Unit tests of cache/ under concurrency: processes writing under a small
 * cap, compile-once locks between processes and threads, processes killed
 * at random points, and a threaded stress test (run it under TSan:
 * make BUILD=build-tsan SANITIZE=thread unit). */
#include "tests/unit/cache_util.h"

#include "store/stats.h" /* the store lock, for true snapshots of the size */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>

static struct jc_cache *open_with(const char *dir, uint64_t max_size, double lock_timeout)
{
	struct jc_cache_options o = { .dir = dir, .max_size = max_size,
				      .lock_timeout = lock_timeout };
	return jc_cache_open(&o);
}

/* Keys of the random tests: a few per subdirectory, each with its own
 * size and content, so that any hit can be checked. */
#define NKEYS 48
static struct jc_key key_of(unsigned k) { return make_key((int)(k % 12) * 21, k); }
static size_t size_of(unsigned k) { return 2000 + (k * 7919u) % 60000; }

/* 0 on a miss or a correct hit, -1 on a hit with wrong content. */
static int look(struct jc_cache *c, unsigned k, uint8_t *scratch, int *hit,
		int (*get)(struct jc_cache *, const struct jc_key *, struct jc_entry *))
{
	struct jc_key key = key_of(k);
	struct jc_entry e;
	*hit = get(c, &key, &e) == 0;
	if (!*hit)
		return 0;
	fill(scratch, size_of(k), k);
	int ok = e.size == size_of(k) && memcmp(e.data, scratch, e.size) == 0 && e.compile_ns == k;
	jc_entry_free(&e);
	return ok ? 0 : -1;
}

static int get_checked(struct jc_cache *c, unsigned k, uint8_t *scratch, int *hit)
{
	return look(c, k, scratch, hit, jc_cache_get);
}

static int put_key(struct jc_cache *c, unsigned k, uint8_t *scratch)
{
	struct jc_key key = key_of(k);
	fill(scratch, size_of(k), k);
	return jc_cache_put(c, &key, scratch, size_of(k), k);
}

/* The compile-once sequence of cache.h. */
static int lookup_or_store(struct jc_cache *c, unsigned k, uint8_t *scratch)
{
	int hit, rc = get_checked(c, k, scratch, &hit);
	if (rc != 0 || hit)
		return rc;
	struct jc_key key = key_of(k);
	struct jc_cache_lock *l = jc_cache_lock_key(c, &key);
	rc = look(c, k, scratch, &hit, jc_cache_recheck);
	if (rc == 0 && !hit)
		put_key(c, k, scratch);
	jc_cache_unlock(l);
	return rc;
}

/* ---- several processes writing under a small cap --------------------- */

struct load {
	const char *name;
	size_t min, max; /* entry sizes */
	int puts;
};

static int writer(const char *dir, uint64_t cap, const struct load *w, unsigned seed)
{
	struct jc_cache *c = open_with(dir, cap, 1);
	uint8_t *buf = malloc(w->max);
	int failures = 0;
	for (int i = 0; i < w->puts; i++) {
		size_t size = w->min + rand_r(&seed) % (w->max - w->min);
		struct jc_key k = make_key((int)(rand_r(&seed) % 256), (unsigned)rand_r(&seed));
		fill(buf, size, seed);
		failures += jc_cache_put(c, &k, buf, size, 1) != 0;
	}
	free(buf);
	jc_cache_close(c);
	return failures;
}

/* Bytes on disk, measured while no store can finish (stores end under the
 * store lock), so that the walk is a true snapshot. */
static uint64_t snapshot(const char *dir)
{
	int lock = jc_stats_store_lock(dir);
	uint64_t total = dir_total(dir, NULL, NULL);
	if (lock >= 0)
		jc_stats_store_unlock(lock);
	return total;
}

/* Run procs writers; returns how many failed, with the peak size seen. */
static int run_writers(const char *dir, uint64_t cap, const struct load *w, int procs,
		       uint64_t *peak, int *samples)
{
	int failed = 0, alive = procs;
	for (int i = 0; i < procs; i++)
		if (fork() == 0)
			_exit(writer(dir, cap, w, (unsigned)i + 1) ? 1 : 0);
	while (alive > 0) {
		uint64_t total = snapshot(dir);
		*peak = total > *peak ? total : *peak;
		++*samples;
		int status;
		while (waitpid(-1, &status, WNOHANG) > 0) {
			alive--;
			failed += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
		}
		usleep(3000);
	}
	return failed;
}

static void test_writers(const struct load *w)
{
	char dir[256];
	const uint64_t cap = 2 << 20;
	const int procs = SANITIZED ? 4 : 6, puts = SANITIZED ? w->puts / 4 : w->puts;
	struct load load = *w;
	uint64_t peak = 0, count;
	int samples = 0;
	load.puts = puts;
	test_path(dir, w->name);
	jc_cache_close(open_with(dir, cap, 1));
	double t = now_s();
	int failed = run_writers(dir, cap, &load, procs, &peak, &samples);
	t = now_s() - t;
	uint64_t total = dir_total(dir, &count, NULL);
	struct jc_cache *c = open_with(dir, cap, 1);
	struct jc_cache_stats s;
	jc_cache_shared_stats(c, &s);
	printf("#    %s: %d processes x %d puts of %zu-%zu KiB, cap %llu KiB: %.2f s, %llu evictions; "
	       "peak %.1f%% of the cap over %d snapshots, final %.1f%%\n", w->name, procs, puts,
	       w->min >> 10, w->max >> 10, (unsigned long long)(cap >> 10), t,
	       (unsigned long long)s.evictions, 100.0 * (double)peak / (double)cap, samples,
	       100.0 * (double)total / (double)cap);
	CHECK(failed == 0, "%s: every put succeeded", w->name);
	CHECK(s.stores == (uint64_t)(procs * puts) && s.evictions > 0,
	      "%s: every store counted; evictions happened", w->name);
	CHECK(peak <= cap, "%s: the size never passed the cap (peak %.1f%%)", w->name,
	      100.0 * (double)peak / (double)cap);
	CHECK(total <= cap && total >= cap / 2, "%s: final size under the cap (%.1f%%)", w->name,
	      100.0 * (double)total / (double)cap);
	CHECK(s.size == total && s.entries == count,
	      "%s: the shared usage is exact (%llu bytes counted, %llu on disk)", w->name,
	      (unsigned long long)s.size, (unsigned long long)total);
	CHECK(jc_cache_verify(c, NULL) == 0, "%s: every entry is valid", w->name);
	jc_cache_close(c);
}

/* ---- compile-once locks ----------------------------------------------- */

static void test_lock_processes(void)
{
	char dir[256];
	int p[2];
	char byte;
	struct jc_key k = make_key(0x5e, 1);
	test_path(dir, "lock-proc");
	struct jc_cache *c = open_with(dir, 0, 0.3);
	if (pipe(p) != 0)
		return;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		struct jc_cache *mine = open_with(dir, 0, 1);
		struct jc_cache_lock *l = jc_cache_lock_key(mine, &k);
		if (write(p[1], l ? "L" : "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	CHECK(read(p[0], &byte, 1) == 1 && byte == 'L', "a child process takes the lock");
	double t = now_s();
	struct jc_cache_lock *l = jc_cache_lock_key(c, &k);
	t = now_s() - t;
	CHECK(l == NULL && t >= 0.29 && t < 1.0, "another process waits, then times out (%.3f s of 0.3)", t);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	t = now_s();
	l = jc_cache_lock_key(c, &k);
	t = now_s() - t;
	CHECK(l != NULL && t < 0.05, "the lock is free once its holder is SIGKILLed (%.4f s)", t);
	jc_cache_unlock(l);

	/* A waiter gets the lock soon after the holder lets go. */
	fflush(stdout);
	if ((pid = fork()) == 0) {
		struct jc_cache *mine = open_with(dir, 0, 1);
		struct jc_cache_lock *held = jc_cache_lock_key(mine, &k);
		if (write(p[1], "L", 1) != 1)
			_exit(1);
		usleep(200000);
		jc_cache_unlock(held);
		pause();
		_exit(0);
	}
	CHECK(read(p[0], &byte, 1) == 1, "a child holds the lock for 0.2 s");
	jc_cache_close(c);
	c = open_with(dir, 0, 5);
	t = now_s();
	l = jc_cache_lock_key(c, &k);
	t = now_s() - t;
	CHECK(l != NULL && t > 0.1 && t < 0.5, "a waiter gets it when released (after %.3f s)", t);
	jc_cache_unlock(l);
	struct jc_cache_stats st;
	jc_cache_process_stats(c, &st);
	CHECK(st.lock_wait_ns > 50000000 && st.lock_wait_ns <= (uint64_t)(t * 1e9),
	      "the wait is counted as one for another's compile (%.3f s)", st.lock_wait_ns / 1e9);
	l = jc_cache_lock_key(c, &k); /* nobody holds it now: no wait */
	jc_cache_unlock(l);
	jc_cache_process_stats(c, &st);
	CHECK(l != NULL && st.lock_wait_ns <= (uint64_t)(t * 1e9),
	      "a lock nobody held adds no wait (%.3f s)", st.lock_wait_ns / 1e9);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(p[0]);
	close(p[1]);
	jc_cache_close(c);
}

struct lock_thread {
	struct jc_cache *c;
	struct jc_key key;
	int held, release, inside, overlaps;
	long counter;
};

static void *hold_lock(void *arg)
{
	struct lock_thread *a = arg;
	struct jc_cache_lock *l = jc_cache_lock_key(a->c, &a->key);
	__atomic_store_n(&a->held, l ? 1 : -1, __ATOMIC_SEQ_CST);
	while (!__atomic_load_n(&a->release, __ATOMIC_SEQ_CST))
		usleep(1000);
	jc_cache_unlock(l);
	return NULL;
}

/* Read-pause-write under the lock: lost updates show a broken exclusion. */
static void *count_under_lock(void *arg)
{
	struct lock_thread *a = arg;
	for (int i = 0; i < 40; i++) {
		struct jc_cache_lock *l = jc_cache_lock_key(a->c, &a->key);
		if (!l)
			continue;
		if (__atomic_add_fetch(&a->inside, 1, __ATOMIC_SEQ_CST) > 1)
			__atomic_add_fetch(&a->overlaps, 1, __ATOMIC_SEQ_CST);
		long v = __atomic_load_n(&a->counter, __ATOMIC_SEQ_CST);
		usleep(50);
		__atomic_store_n(&a->counter, v + 1, __ATOMIC_SEQ_CST);
		__atomic_sub_fetch(&a->inside, 1, __ATOMIC_SEQ_CST);
		jc_cache_unlock(l);
	}
	return NULL;
}

static void test_lock_threads(void)
{
	char dir[256];
	pthread_t th[4];
	test_path(dir, "lock-threads");
	struct jc_cache *c = open_with(dir, 0, 0.2);
	struct lock_thread a = { .c = c, .key = make_key(0x6f, 1) };
	pthread_create(&th[0], NULL, hold_lock, &a);
	while (!__atomic_load_n(&a.held, __ATOMIC_SEQ_CST))
		usleep(1000);
	double t = now_s();
	struct jc_cache_lock *l = jc_cache_lock_key(c, &a.key);
	t = now_s() - t;
	CHECK(a.held == 1 && l == NULL && t >= 0.19, "another thread of the same process waits and times out");
	__atomic_store_n(&a.release, 1, __ATOMIC_SEQ_CST);
	pthread_join(th[0], NULL);
	l = jc_cache_lock_key(c, &a.key);
	CHECK(l != NULL, "... and gets the lock once the holder releases it");
	jc_cache_unlock(l);
	jc_cache_close(c);

	c = open_with(dir, 0, 30);
	struct lock_thread b = { .c = c, .key = make_key(0x6f, 2) };
	for (int i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, count_under_lock, &b);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	CHECK(b.counter == 160 && b.overlaps == 0, "4 threads x 40 locked increments: %ld, %d overlaps",
	      b.counter, b.overlaps);
	jc_cache_close(c);
}

/* ---- processes killed at random points --------------------------------- */

static void kill_worker(const char *dir, uint64_t cap, unsigned seed)
{
	struct jc_cache *c = open_with(dir, cap, 1);
	uint8_t *scratch = malloc(65536);
	int hit;
	for (;;) {
		unsigned k = (unsigned)rand_r(&seed) % NKEYS;
		struct jc_key key = key_of(k);
		int rc = 0;
		switch (rand_r(&seed) % 8) {
		case 0: case 1: case 2: rc = lookup_or_store(c, k, scratch); break;
		case 3: case 4: rc = get_checked(c, k, scratch, &hit); break;
		case 5: put_key(c, k, scratch); break;
		case 6: jc_cache_drop(c, &key); break;
		default: if (rand_r(&seed) % 16 == 0) jc_cache_trim(c, cap / 2); break;
		}
		if (rc != 0)
			_exit(3); /* a hit with the wrong bytes */
	}
}

static void age_temps(const char *dir)
{
	struct timespec t[2] = { { .tv_sec = time(NULL) - 7200 }, { .tv_sec = time(NULL) - 7200 } };
	for (int sub = 0; sub < 256; sub++) {
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s/%02x", dir, sub);
		DIR *d = opendir(path);
		struct dirent *de;
		while (d && (de = readdir(d)))
			if (strncmp(de->d_name, ".tmp.", 5) == 0)
				utimensat(dirfd(d), de->d_name, t, AT_SYMLINK_NOFOLLOW);
		if (d)
			closedir(d);
	}
}

/* After the killing: every lock free, every entry whole, usage recountable. */
static void check_after_kills(const char *dir, uint64_t cap, int trials)
{
	struct jc_cache *c = open_with(dir, cap, 0);
	uint8_t *scratch = malloc(65536);
	int free_locks = 0, wrong = 0, hits = 0, temps;
	uint64_t count, total = dir_total(dir, &count, &temps);
	struct jc_cache_stats s;
	jc_cache_shared_stats(c, &s);
	printf("#    after %d kills: %llu entries, %llu bytes (usage record says %llu), %d temporary files left\n",
	       trials, (unsigned long long)count, (unsigned long long)total,
	       (unsigned long long)s.size, temps);
	for (unsigned k = 0; k < NKEYS; k++) {
		struct jc_key key = key_of(k);
		struct jc_cache_lock *l = jc_cache_lock_key(c, &key);
		free_locks += l != NULL;
		jc_cache_unlock(l);
		int hit;
		wrong += get_checked(c, k, scratch, &hit) != 0;
		hits += hit;
	}
	CHECK(free_locks == NKEYS, "no lock is left held by a killed process (%d of %d free)",
	      free_locks, NKEYS);
	CHECK(wrong == 0, "every hit returns the right bytes (%d hits)", hits);
	CHECK(jc_cache_verify(c, NULL) == 0, "verify finds no bad entry");
	jc_cache_shared_stats(c, &s);
	CHECK(s.size == dir_total(dir, NULL, NULL), "after verify the usage is exact again");
	age_temps(dir);
	jc_cache_trim(c, UINT64_MAX);
	dir_total(dir, NULL, &temps);
	CHECK(temps == 0, "leftover temporary files go once they are old");
	put_key(c, 0, scratch);
	CHECK(dir_total(dir, NULL, NULL) <= cap + cap / 10, "the cap holds after the next store");
	free(scratch);
	jc_cache_close(c);
}

static void test_kills(void)
{
	char dir[256];
	const uint64_t cap = 600 << 10;
	const int trials = SANITIZED ? 300 : 600;
	int wrong = 0;
	unsigned seed = 12345;
	test_path(dir, "kills");
	double t = now_s();
	for (int i = 0; i < trials; i++) {
		pid_t pid[2];
		fflush(stdout);
		for (int j = 0; j < 2; j++)
			if ((pid[j] = fork()) == 0)
				kill_worker(dir, cap, (unsigned)(i * 2 + j + 1));
		usleep((useconds_t)(rand_r(&seed) % 4000));
		for (int j = 0; j < 2; j++) {
			int status;
			kill(pid[j], SIGKILL);
			waitpid(pid[j], &status, 0);
			wrong += WIFEXITED(status);
		}
	}
	printf("#    %d trials of 2 processes SIGKILLed after 0-4 ms: %.1f s\n", trials, now_s() - t);
	CHECK(wrong == 0, "no worker saw a wrong hit before it was killed");
	check_after_kills(dir, cap, 2 * trials);
}

/* ---- threads ---------------------------------------------------------- */

struct stress {
	struct jc_cache *c;
	unsigned seed;
	double until;
	int errors, ops;
};

static void *stress_thread(void *arg)
{
	struct stress *a = arg;
	uint8_t *scratch = malloc(65536);
	struct jc_cache_stats s;
	int hit;
	while (now_s() < a->until) {
		unsigned k = (unsigned)rand_r(&a->seed) % NKEYS;
		struct jc_key key = key_of(k);
		switch (rand_r(&a->seed) % 10) {
		case 0: case 1: case 2: a->errors += get_checked(a->c, k, scratch, &hit) != 0; break;
		case 3: case 4: a->errors += lookup_or_store(a->c, k, scratch) != 0; break;
		case 5: case 6: put_key(a->c, k, scratch); break;
		case 7: jc_cache_drop(a->c, &key); break;
		case 8: jc_cache_process_stats(a->c, &s); jc_cache_shared_stats(a->c, &s); break;
		default:
			if (rand_r(&a->seed) % 20 == 0)
				a->errors += jc_cache_verify(a->c, NULL) != 0;
			else if (rand_r(&a->seed) % 20 == 0)
				jc_cache_trim(a->c, 200 << 10);
		}
		a->ops++;
	}
	free(scratch);
	return NULL;
}

static void test_threads(void)
{
	char dir[256];
	pthread_t th[4];
	struct stress a[4];
	int errors = 0, ops = 0;
	test_path(dir, "threads");
	struct jc_cache *c = open_with(dir, 400 << 10, 2);
	double until = now_s() + 1.5;
	for (int i = 0; i < 4; i++) {
		a[i] = (struct stress){ .c = c, .seed = (unsigned)i + 7, .until = until };
		pthread_create(&th[i], NULL, stress_thread, &a[i]);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		errors += a[i].errors;
		ops += a[i].ops;
	}
	CHECK(errors == 0, "4 threads sharing one cache for 1.5 s: %d operations, no wrong result", ops);
	CHECK(jc_cache_verify(c, NULL) == 0, "... and every entry is valid afterwards");
	struct jc_cache_stats s;
	jc_cache_shared_stats(c, &s);
	CHECK(s.size == dir_total(dir, NULL, NULL), "... and the usage is exact");
	jc_cache_close(c);
}

int main(void)
{
	util_init();
	test_writers(&(struct load){ "small-entries", 1 << 10, 16 << 10, 1500 });
	test_writers(&(struct load){ "large-entries", 64 << 10, 256 << 10, 150 });
	test_lock_processes();
	test_kills();
	test_lock_threads(); /* threads last: forking after them is not TSan's friend */
	test_threads();
	util_cleanup();
	return check_summary();
}
