// SPDX-License-Identifier: MIT
/* Unit tests of the remote tier (tiers/remote.c through cache.h): values
 * verified exactly like entry files, and, against a real redis-server this
 * test starts on a unix socket in its own directory, lookups falling
 * through to Redis, stores, read-only, bad values, compile leases between
 * "machines" (caches in separate directories, in threads and processes) and
 * a remote that is not there.  Never a system Redis. */
#include "tiers/remote.h"
#include "tests/unit/cache_util.h"
#include "store/stats.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>

static char sock[300], url[340];
static pid_t redis_pid;

/* ---- values verified like entry files ------------------------------------ */

static void value_of(const struct jc_key *key, const void *data, size_t size, int compress,
		     struct jc_remote_value *v)
{
	struct jc_encoded e;
	jc_entry_encode(key, data, size, 123, compress, &e);
	memcpy(v->header, e.header, JC_ENTRY_HEADER_SIZE);
	v->payload = malloc(e.payload_size + 1);
	memcpy(v->payload, e.payload, e.payload_size);
	v->size = JC_ENTRY_HEADER_SIZE + e.payload_size;
	free(e.owned);
}

static void test_value_check(void)
{
	struct jc_key k = make_key(1, 1), other = make_key(1, 2);
	struct jc_entry_header h;
	struct jc_remote_value v;
	const char *why = "";
	char data[4096];
	fill(data, sizeof data, 7);
	for (int z = 0; z < 2; z++) {
		value_of(&k, data, sizeof data, z, &v);
		CHECK(jc_remote_value_check(&k, &v, &h, &why) == JC_ENTRY_OK &&
		      h.compile_ns == 123, "%s value: accepted", z ? "zstd" : "plain");
		CHECK(jc_remote_value_check(&other, &v, &h, &why) == JC_ENTRY_CORRUPT &&
		      strstr(why, "another key"), "%s value under another key: refused (%s)",
		      z ? "zstd" : "plain", why);
		v.size--;
		CHECK(jc_remote_value_check(&k, &v, &h, &why) == JC_ENTRY_CORRUPT,
		      "%s value one byte short: refused (%s)", z ? "zstd" : "plain", why);
		v.size++;
		((uint8_t *)v.payload)[10] ^= 1;
		CHECK(jc_remote_value_check(&k, &v, &h, &why) == JC_ENTRY_CORRUPT &&
		      strstr(why, "checksum"), "%s value with a flipped bit: refused (%s)",
		      z ? "zstd" : "plain", why);
		((uint8_t *)v.payload)[10] ^= 1;
		v.header[3] ^= 0x20;
		CHECK(jc_remote_value_check(&k, &v, &h, &why) == JC_ENTRY_CORRUPT &&
		      strstr(why, "magic"), "%s value with a bad magic: refused", z ? "zstd" : "plain");
		v.header[3] ^= 0x20;
		v.header[8]++;
		CHECK(jc_remote_value_check(&k, &v, &h, &why) == JC_ENTRY_OLD_FORMAT,
		      "%s value of another format version: refused", z ? "zstd" : "plain");
		free(v.payload);
	}
	memset(&v, 0, sizeof v);
	memcpy(v.header, "OK", 2);
	v.size = 2;
	CHECK(jc_remote_value_check(&k, &v, &h, &why) == JC_ENTRY_CORRUPT,
	      "a 2-byte value: refused (%s)", why);
}

/* ---- a private redis-server ------------------------------------------------ */

static int can_connect(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof a.sun_path)
		return 0;
	memcpy(a.sun_path, path, strlen(path) + 1);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int ok = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
	if (fd >= 0)
		close(fd);
	return ok;
}

static int start_redis(void)
{
	char dir[256];
	test_path(dir, "redis");
	mkdir(dir, 0700);
	snprintf(sock, sizeof sock, "%s/redis.sock", dir);
	snprintf(url, sizeof url, "redis+unix://%s", sock);
	redis_pid = fork();
	if (redis_pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		execlp("redis-server", "redis-server", "--port", "0", "--unixsocket", sock,
		       "--save", "", "--appendonly", "no", "--dir", dir, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 500 && redis_pid > 0; i++) {
		if (can_connect(sock))
			return 0;
		if (waitpid(redis_pid, NULL, WNOHANG) == redis_pid)
			break;
		usleep(10000);
	}
	return -1;
}

static void stop_redis(void)
{
	if (redis_pid > 0) {
		kill(redis_pid, SIGTERM);
		waitpid(redis_pid, NULL, 0);
	}
}

static struct jc_cache *node_waiting(const char *name, int read_only, double lock_timeout,
				     double lease, double lease_wait)
{
	char dir[256];
	test_path(dir, name);
	struct jc_cache_options o = {
		.dir = dir, .lock_timeout = lock_timeout,
		.remote = { .url = url, .read_only = read_only, .connect_timeout = 1,
			    .timeout = 2, .backoff = 30, .lease = lease,
			    .lease_wait = lease_wait, .exit_wait = 5 },
	};
	return jc_cache_open(&o);
}

/* A node that waits for others' leases as long as its lock_timeout. */
static struct jc_cache *node(const char *name, int read_only, double lock_timeout, double lease)
{
	return node_waiting(name, read_only, lock_timeout, lease, 60);
}

/* ---- through a real Redis ---------------------------------------------------- */

static void test_fall_through(void)
{
	struct jc_cache *a = node("a", 0, 5, 5), *b = node("b", 0, 5, 5), *ro = node("ro", 1, 5, 5);
	struct jc_key k = make_key(2, 1), k2 = make_key(2, 2);
	struct jc_entry e;
	struct jc_cache_stats s;
	char data[100000];
	fill(data, sizeof data, 3);
	CHECK(a && b && ro, "three nodes open");
	CHECK(jc_cache_get(b, &k, &e) != 0, "node b: cold miss");
	CHECK(jc_cache_put(a, &k, data, sizeof data, 777) == 0, "node a stores");
	CHECK(jc_cache_flush_remote(a, 10) == 0, "... and its write to the remote is done");
	CHECK(jc_cache_get(b, &k, &e) == 0 && e.size == sizeof data &&
	      memcmp(e.data, data, sizeof data) == 0 && e.compile_ns == 777,
	      "node b: the remote's value, byte for byte");
	jc_entry_free(&e);
	jc_cache_process_stats(b, &s);
	CHECK(s.hits == 1 && s.misses == 1 && s.remote_hits == 1 && s.remote_misses == 1 &&
	      s.remote_bytes_in == sizeof data + JC_ENTRY_HEADER_SIZE && s.stores == 0,
	      "node b counts: 1 hit (remote), 1 miss, %llu bytes in",
	      (unsigned long long)s.remote_bytes_in);
	char path[PATH_MAX], bdir[256];
	test_path(bdir, "b");
	entry_file(bdir, &k, path);
	CHECK(file_exists(path), "node b kept the value in its directory");
	CHECK(jc_cache_get(b, &k, &e) == 0, "node b: the next lookup hits locally");
	jc_entry_free(&e);
	jc_cache_process_stats(b, &s);
	CHECK(s.remote_hits == 1 && s.remote_bytes_in == sizeof data + JC_ENTRY_HEADER_SIZE,
	      "... without asking the remote");
	CHECK(s.tier_hits[JC_SLOT_REDIS] == 1 && s.tier_hits[JC_SLOT_LOCAL] == 1 &&
	      s.miss_not_found == 1, "hits by tier: 1 from Redis, then 1 from the local store; "
	      "the cold miss found nowhere");

	CHECK(jc_cache_put(ro, &k2, data, 1000, 1) == 0, "read-only node stores locally");
	jc_cache_process_stats(ro, &s);
	CHECK(s.remote_stores == 0 && s.remote_bytes_out == 0, "... and nothing remotely");
	CHECK(jc_cache_get(a, &k2, &e) != 0, "node a does not find it in the remote");
	CHECK(jc_cache_get(ro, &k, &e) == 0, "read-only node reads the remote");
	jc_entry_free(&e);

	/* A well-formed value of another key planted under k2's name. */
	struct jc_encoded enc;
	struct jc_remote_value v;
	uint64_t delta[JC_NCOUNTERS] = { 0 };
	struct jc_remote_options ro_opts = { .url = url, .timeout = 1, .connect_timeout = 1 };
	struct jc_remote *r = jc_remote_open(&ro_opts, NULL, JC_ENTRY_LIMIT_UNCAPPED, NULL, NULL);
	jc_entry_encode(&k, data, 1000, 5, 0, &enc);
	CHECK(r && jc_remote_put(r, &k2, &enc, NULL, delta) == 0 && jc_remote_flush(r, 10) == 0,
	      "a value of another key planted");
	free(enc.owned);
	CHECK(jc_cache_get(b, &k2, &e) != 0, "node b: the planted value is a miss");
	jc_cache_process_stats(b, &s);
	CHECK(s.remote_corrupt == 1, "... counted as a bad remote value");
	CHECK(jc_cache_put(b, &k2, data, 2000, 9) == 0 && jc_cache_flush_remote(b, 10) == 0,
	      "node b compiles and stores");
	CHECK(jc_remote_get(r, 0, &k2, &v, delta) == 1 && v.size == 2000 + JC_ENTRY_HEADER_SIZE,
	      "... which replaced the planted value");
	free(v.payload);
	jc_remote_close(r);
	jc_cache_close(a);
	jc_cache_close(b);
	jc_cache_close(ro);
}

/* N "machines" (caches of their own) in threads, cold on one key at once:
 * the compile-once protocol of shim/compile_once.c, with a 0.2 s compile. */
#define NODES 4
static int compiles;

static void *machine(void *arg)
{
	char name[16];
	snprintf(name, sizeof name, "m%d", (int)(intptr_t)arg);
	struct jc_cache *c = node(name, 0, 10, 0.3);
	struct jc_key k = make_key(3, 1);
	struct jc_entry e;
	char data[5000];
	fill(data, sizeof data, 9);
	if (!c)
		return (void *)1;
	if (jc_cache_get(c, &k, &e) == 0) {
		jc_entry_free(&e);
	} else {
		struct jc_cache_lock *l = jc_cache_lock_key(c, &k);
		if (jc_cache_recheck(c, &k, &e) == 0) {
			jc_entry_free(&e);
		} else {
			__atomic_add_fetch(&compiles, 1, __ATOMIC_RELAXED);
			usleep(600000); /* longer than the lease: renewal keeps it */
			jc_cache_put(c, &k, data, sizeof data, 1);
		}
		jc_cache_unlock(l);
	}
	int ok = jc_cache_get(c, &k, &e) == 0 && e.size == sizeof data;
	if (ok)
		jc_entry_free(&e);
	jc_cache_close(c);
	return (void *)(intptr_t)!ok;
}

static void test_compile_once(void)
{
	pthread_t t[NODES];
	int bad = 0;
	for (int i = 0; i < NODES; i++)
		pthread_create(&t[i], NULL, machine, (void *)(intptr_t)i);
	for (int i = 0; i < NODES; i++) {
		void *rc;
		pthread_join(t[i], &rc);
		bad += rc != NULL;
	}
	CHECK(bad == 0, "%d machines cold at once all got the value", NODES);
	CHECK(compiles == 1, "... compiled once in all (%d), the lease renewed past its 0.3 s",
	      compiles);
}

/* A compile's first look (jc_request_get) takes the lease in the
 * Redis that holds them: a node with two remotes, the first read-only
 * (database 1) or the second (a team's Redis, then a pack read-only).
 * How many keys Redis holds, by name pattern, through a remote of our own. */
static long long lease_keys(void)
{
	char cmd[400];
	snprintf(cmd, sizeof cmd, "redis-cli -s '%s' --scan --pattern '*:lease' | wc -l", sock);
	FILE *f = popen(cmd, "r");
	long long n = -1;
	if (f) {
		if (fscanf(f, "%lld", &n) != 1)
			n = -1;
		pclose(f);
	}
	return n;
}

static struct jc_cache *node_list(const char *name, const char *list)
{
	char dir[256];
	test_path(dir, name);
	struct jc_cache_options o = {
		.dir = dir, .lock_timeout = 5,
		.remote = { .url = list, .connect_timeout = 1, .timeout = 2, .backoff = 30,
			    .lease = 5, .lease_wait = 60, .exit_wait = 5 },
	};
	return jc_cache_open(&o);
}

static void test_lease_in_lookup(void)
{
	char ro_first[800], ro_after[800];
	snprintf(ro_first, sizeof ro_first, "%s?db=1|read-only %s", url, url);
	snprintf(ro_after, sizeof ro_after, "%s %s?db=1|read-only", url, url);
	struct jc_cache *a = node_list("la", ro_first), *b = node_list("lb", ro_after);
	struct jc_key k = make_key(11, 1), k2 = make_key(11, 2);
	struct jc_entry e;
	char data[3000];
	fill(data, sizeof data, 4);
	CHECK(a && b, "two nodes of two remotes each open");
	/* a read-only remote first: the Redis after it leases */
	struct jc_request q;
	jc_request_begin(&q, a, &k);
	CHECK(jc_request_get(&q, &e) != 0, "a compile's first look: a miss");
	CHECK(lease_keys() == 1, "... which took the lease in the writable Redis (%lld)",
	      lease_keys());
	jc_request_lock(&q);
	CHECK(q.lock && jc_request_recheck(&q, &e) != 0, "the lock is had at once, no value");
	CHECK(jc_request_put(&q, data, sizeof data, 1) == 0, "stored");
	jc_request_end(&q);
	CHECK(jc_cache_flush_remote(a, 10) == 0, "... written to Redis");
	CHECK(lease_keys() == 0, "the store released the lease (%lld left)", lease_keys());
	struct jc_cache *c = node("lc", 0, 5, 5);
	CHECK(c && jc_cache_get(c, &k, &e) == 0 && e.size == sizeof data,
	      "another node finds the value in Redis");
	if (c)
		jc_entry_free(&e);
	jc_cache_close(c);

	/* the value in the read-only remote after the Redis: the lease the first
	 * look took there is released by the backfill that writes it back */
	struct jc_remote_options o = { .url = ro_after, .timeout = 1, .connect_timeout = 1 };
	struct jc_remote *r = jc_remote_open(&o, NULL, JC_ENTRY_LIMIT_UNCAPPED, NULL, NULL);
	struct jc_encoded enc;
	uint64_t delta[JC_NCOUNTERS] = { 0 };
	char db1[400];
	snprintf(db1, sizeof db1, "%s?db=1", url);
	struct jc_remote_options o1 = { .url = db1, .timeout = 1, .connect_timeout = 1 };
	struct jc_remote *r1 = jc_remote_open(&o1, NULL, JC_ENTRY_LIMIT_UNCAPPED, NULL, NULL);
	jc_entry_encode(&k2, data, sizeof data, 5, 0, &enc);
	CHECK(r1 && jc_remote_put(r1, &k2, &enc, NULL, delta) == 0 && jc_remote_flush(r1, 10) == 0,
	      "a value only in the read-only remote (database 1)");
	free(enc.owned);
	jc_remote_close(r1);
	jc_request_begin(&q, b, &k2);
	CHECK(jc_request_get(&q, &e) == 0 && e.size == sizeof data,
	      "a compile's first look: the Redis misses (its lease taken), the pack hits");
	jc_entry_free(&e);
	jc_request_end(&q);
	CHECK(jc_cache_flush_remote(b, 10) == 0 && lease_keys() == 0,
	      "... and the lease is released (%lld left)", lease_keys());
	struct jc_remote_value v;
	CHECK(r && jc_remote_get(r, 0, &k2, &v, delta) == 1 && v.size == enc.payload_size + 64,
	      "... by the backfill that wrote the value into the Redis");
	if (r)
		free(v.payload);
	jc_remote_close(r);
	jc_cache_close(a);
	jc_cache_close(b);
}

/* A machine that dies holding a lease: the lease expires, and the next one
 * takes it after about the lease's life, not the lock timeout. */
static void test_dead_holder(void)
{
	struct jc_key k = make_key(4, 1);
	pid_t pid = fork();
	if (pid == 0) {
		struct jc_cache *c = node("dead", 0, 5, 0.5);
		struct jc_cache_lock *l = c ? jc_cache_lock_key(c, &k) : NULL;
		(void)l;
		_exit(l ? 0 : 1); /* dies holding it: nobody releases or renews it */
	}
	int status = 0;
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "a machine took the lease and died");
	struct jc_cache *c = node("heir", 0, 5, 0.5);
	double t0 = now_s();
	struct jc_cache_lock *l = jc_cache_lock_key(c, &k);
	double waited = now_s() - t0;
	struct jc_entry e;
	CHECK(l && jc_cache_recheck(c, &k, &e) != 0, "the next machine gets the lock, no value");
	CHECK(waited > 0.1 && waited < 2, "... once the dead holder's 0.5 s lease expired (%.2f s)",
	      waited);
	jc_cache_unlock(l);
	jc_cache_close(c);
}

/* A waiter is woken by the holder's release, not at its lease's expiry: a
 * lease of 10 s, held 0.3 s. */
struct woken {
	struct jc_cache *c;
	double waited;
	int hit;
};

static void *wait_woken(void *arg)
{
	struct woken *w = arg;
	struct jc_key k = make_key(10, 1);
	struct jc_entry e;
	double t0 = now_s();
	struct jc_cache_lock *l = jc_cache_lock_key(w->c, &k);
	w->waited = now_s() - t0;
	w->hit = jc_cache_recheck(w->c, &k, &e) == 0 && e.size == 3000;
	if (w->hit)
		jc_entry_free(&e);
	jc_cache_unlock(l);
	return NULL;
}

static void test_woken(void)
{
	struct jc_key k = make_key(10, 1);
	struct jc_cache *holder = node("woke-h", 0, 30, 10);
	struct woken w = { .c = node("woke-w", 0, 30, 10) };
	char data[3000];
	fill(data, sizeof data, 4);
	struct jc_cache_lock *hl = jc_cache_lock_key(holder, &k);
	pthread_t t;
	pthread_create(&t, NULL, wait_woken, &w);
	usleep(300000);
	jc_cache_put(holder, &k, data, sizeof data, 1);
	jc_cache_unlock(hl); /* released once the value is written */
	pthread_join(t, NULL);
	CHECK(hl && w.waited > 0.2 && w.waited < 2,
	      "a waiter is woken by the release, not at the 10 s lease's expiry (%.2f s)", w.waited);
	CHECK(w.hit, "... and finds the value");
	jc_cache_close(holder);
	jc_cache_close(w.c);
}

/* A holder that is alive keeps its lease: a waiter gives up at its own
 * lock_timeout and compiles itself. */
static void test_bounded_wait(void)
{
	struct jc_key k = make_key(5, 1);
	struct jc_cache *holder = node("holder", 0, 5, 0.3), *waiter = node("waiter", 0, 0.8, 0.3);
	struct jc_cache_lock *hl = jc_cache_lock_key(holder, &k);
	double t0 = now_s();
	struct jc_cache_lock *wl = jc_cache_lock_key(waiter, &k);
	double waited = now_s() - t0;
	CHECK(hl && wl, "both go on");
	CHECK(waited > 0.7 && waited < 1.5, "the waiter waited its lock_timeout of 0.8 s (%.2f s)",
	      waited);
	jc_cache_unlock(wl);
	jc_cache_unlock(hl);
	jc_cache_close(holder);
	jc_cache_close(waiter);
}

/* Without trusted keys a lease its holder keeps renewing (every third of
 * its 0.3 s) is waited for beyond lease_wait, up to lock_timeout: a compile
 * longer than lease_wait is not repeated on every machine. */
static void test_lease_wait(void)
{
	struct jc_key k = make_key(5, 2);
	struct jc_cache *holder = node("holder-lw", 0, 5, 0.3);
	struct jc_cache *waiter = node_waiting("waiter-lw", 0, 1.5, 0.3, 0.4);
	struct jc_cache_lock *hl = jc_cache_lock_key(holder, &k);
	double t0 = now_s();
	struct jc_cache_lock *wl = jc_cache_lock_key(waiter, &k);
	double waited = now_s() - t0;
	CHECK(hl && wl, "both go on");
	CHECK(waited > 1.4 && waited < 3,
	      "a renewed lease: the waiter waited past its lease_wait of 0.4 s, to its "
	      "lock_timeout of 1.5 s (%.2f s)", waited);
	jc_cache_unlock(wl);
	jc_cache_unlock(hl);
	jc_cache_close(holder);
	jc_cache_close(waiter);
}

/* The server closes a kept connection (its idle timeout, a restart, here
 * CLIENT KILL): the next exchange is made on a new one, not counted as a
 * failure, and the remote is not skipped. */
static void test_idle_closed(void)
{
	struct jc_key k = make_key(9, 1);
	struct jc_entry e;
	struct jc_cache_stats s;
	struct jc_cache *c = node("idle", 0, 2, 1);
	char cmd[400], data[3000];
	fill(data, sizeof data, 4);
	CHECK(c && jc_cache_get(c, &k, &e) != 0, "idle: a connection made and kept");
	snprintf(cmd, sizeof cmd, "redis-cli -s %s CLIENT KILL TYPE normal >/dev/null", sock);
	CHECK(system(cmd) == 0, "idle: the server closed it (CLIENT KILL)");
	CHECK(jc_cache_put(c, &k, data, sizeof data, 1) == 0 && jc_cache_flush_remote(c, 10) == 0,
	      "idle: stored");
	jc_cache_process_stats(c, &s);
	CHECK(s.remote_stores == 1 && s.remote_errors == 0,
	      "... in Redis too, on a new connection, no error (%llu stores, %llu errors)",
	      (unsigned long long)s.remote_stores, (unsigned long long)s.remote_errors);
	jc_cache_close(c);
}

/* A read-only machine takes no lease and never waits on one (a lease is
 * anyone's to set, so waiting on it would let a squatter stall every
 * consumer): it compiles at once, whether a writer holds the lease or not. */
static void test_read_only_never_waits(void)
{
	struct jc_key k = make_key(8, 1), free_key = make_key(8, 2);
	struct jc_cache *w = node("writer", 0, 5, 1), *ro = node("reader", 1, 0.5, 1);
	struct jc_cache_lock *wl = jc_cache_lock_key(w, &k);
	double t0 = now_s();
	struct jc_cache_lock *rl = jc_cache_lock_key(ro, &k);
	double waited = now_s() - t0;
	CHECK(wl && rl && waited < 0.1,
	      "read-only: never waits, not even on a writer's lease (%.3f s)", waited);
	jc_cache_unlock(rl);
	t0 = now_s();
	rl = jc_cache_lock_key(ro, &free_key);
	waited = now_s() - t0;
	CHECK(rl && waited < 0.3, "read-only: no lease held, on at once (%.3f s)", waited);
	jc_cache_unlock(rl);
	jc_cache_unlock(wl);
	jc_cache_close(w);
	jc_cache_close(ro);
}

/* The server goes away while a connection is kept for reuse: the next
 * write meets a closed socket, which raises SIGPIPE; the process (which
 * left SIGPIPE's default action, death) must live on and count one error. */
static struct jc_cache *kept;

static void test_server_gone_before(void)
{
	struct jc_key k = make_key(7, 1);
	struct jc_entry e;
	kept = node("kept", 0, 2, 1);
	CHECK(kept && jc_cache_get(kept, &k, &e) != 0, "a connection made and kept");
}

static void test_server_gone_after(void)
{
	static char data[1 << 20];
	struct jc_key k = make_key(7, 1);
	struct jc_cache_stats s;
	fill(data, sizeof data, 1);
	CHECK(jc_cache_put(kept, &k, data, sizeof data, 1) == 0 &&
	      jc_cache_flush_remote(kept, 10) == 0,
	      "server gone: stored locally, and this process is alive (no SIGPIPE)");
	jc_cache_process_stats(kept, &s);
	CHECK(s.remote_errors == 1 && s.remote_stores == 0, "... one remote error counted");
	jc_cache_close(kept);
}

/* Nothing listens: every call is a quick miss, and after the first failure
 * the remote is not even tried (no more errors counted) until the back-off
 * ends, in this process and in another one of the same directory. */
static void test_absent(void)
{
	char dir[256], dead_url[340];
	test_path(dir, "absent");
	snprintf(dead_url, sizeof dead_url, "redis+unix://%s/none.sock", test_root);
	struct jc_cache_options o = {
		.dir = dir, .lock_timeout = 5,
		.remote = { .url = dead_url, .connect_timeout = 1, .timeout = 1, .backoff = 30,
			    .lease = 1 },
	};
	struct jc_cache *c = jc_cache_open(&o), *c2 = jc_cache_open(&o);
	struct jc_key k = make_key(6, 1);
	struct jc_entry e;
	struct jc_cache_stats s;
	char data[100] = { 0 };
	double t0 = now_s();
	CHECK(jc_cache_get(c, &k, &e) != 0, "no server: a miss");
	struct jc_cache_lock *l = jc_cache_lock_key(c, &k);
	CHECK(l != NULL, "no server: the local lock still works");
	CHECK(jc_cache_put(c, &k, data, sizeof data, 1) == 0, "no server: stored locally");
	jc_cache_unlock(l);
	CHECK(jc_cache_get(c2, &k, &e) == 0, "another process of the directory hits locally");
	jc_entry_free(&e);
	struct jc_key k2 = make_key(6, 2);
	CHECK(jc_cache_get(c2, &k2, &e) != 0, "... and misses another key");
	jc_cache_process_stats(c, &s);
	struct jc_cache_stats s2;
	jc_cache_process_stats(c2, &s2);
	CHECK(s.remote_errors == 1, "one error, then backed off (%llu)",
	      (unsigned long long)s.remote_errors);
	CHECK(s2.remote_errors == 0, "the other process took the back-off from the directory");
	CHECK(now_s() - t0 < 0.5, "all quick (%.3f s)", now_s() - t0);
	jc_cache_close(c);
	jc_cache_close(c2);
}

/* A compile request carried to another thread, as an OpenCL build that
 * the driver ends on its own: that thread stores the value and ends the
 * request, and the lease goes with the value (TSan sees the hand-over). */
struct handed {
	struct jc_request *q;
	char data[2500];
	int stored;
};

static void *finish_elsewhere(void *arg)
{
	struct handed *h = arg;
	h->stored = jc_request_put(h->q, h->data, sizeof h->data, 1) == 0;
	jc_request_end(h->q);
	return NULL;
}

static void test_request_handed_over(void)
{
	struct jc_cache *c = node("handed", 0, 5, 5), *other = node("handed2", 0, 5, 5);
	struct jc_key k = make_key(12, 1);
	struct jc_entry e;
	struct jc_request q;
	struct handed h = { .q = &q };
	fill(h.data, sizeof h.data, 6);
	CHECK(c && other, "two nodes open");
	if (!c || !other) {
		jc_cache_close(other);
		jc_cache_close(c);
		return;
	}
	jc_request_begin(&q, c, &k);
	CHECK(jc_request_get(&q, &e) != 0, "a compile's first look: a miss");
	jc_request_lock(&q);
	CHECK(q.lock && jc_request_recheck(&q, &e) != 0 && lease_keys() == 1,
	      "locked, the lease held (%lld)", lease_keys());
	pthread_t t;
	pthread_create(&t, NULL, finish_elsewhere, &h);
	pthread_join(t, NULL);
	CHECK(h.stored && jc_cache_flush_remote(c, 10) == 0 && lease_keys() == 0,
	      "another thread stored it and ended the request: no lease left (%lld)",
	      lease_keys());
	int found = jc_cache_get(other, &k, &e) == 0;
	CHECK(found && e.size == sizeof h.data, "... and another node finds the value in Redis");
	if (found)
		jc_entry_free(&e);
	jc_cache_close(other);
	jc_cache_close(c);
}

int main(void)
{
	util_init();
	signal(SIGPIPE, SIG_DFL); /* as in a host that never thought of it */
	test_value_check();
	if (start_redis() != 0) {
		CHECK(0, "redis-server started (install redis-server: make deps)");
	} else {
		test_fall_through();
		test_compile_once();
		test_lease_in_lookup();
		test_request_handed_over();
		test_dead_holder();
	test_woken();
		test_bounded_wait();
	test_lease_wait();
		test_read_only_never_waits();
		test_idle_closed();
		test_server_gone_before();
	}
	stop_redis();
	if (kept)
		test_server_gone_after();
	test_absent();
	util_cleanup();
	return check_summary();
}
