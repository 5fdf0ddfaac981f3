// SPDX-License-Identifier: MIT
/* Unit tests of the Redis remote against a Redis Cluster this test starts
 * on the loopback (3 primaries, a replica each, Debian's redis-server) and
 * stops after: the URL names one node, the others are found by the
 * redirections they answer.  Keys spread over the slots of every primary,
 * machines cold at once compile once, a slot moved (ASK while it migrates,
 * MOVED after) under a machine that knew the old map, and a primary killed
 * (its replica takes over) under a running machine.  Skipped where
 * redis-server is not installed.  Never a system Redis. */
#include "tiers/remote.h"
#include "tiers/redis_cluster.h"
#include "tests/unit/cache_util.h"
#include "store/stats.h"

#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>

#define SERVERS 6
static int port[SERVERS];
static pid_t pid[SERVERS];
static char url[64];

/* ---- the cluster -------------------------------------------------------------- */

static int port_free(int p)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7f000001),
				 .sin_port = htons((uint16_t)p) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int ok = fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0;
	if (fd >= 0)
		close(fd);
	return ok;
}

/* A port nobody listens on, nor on its cluster bus port (10000 higher),
 * both below the ephemeral ports (32768 and up) that connections take. */
static int free_port(void)
{
	for (int t = 0; t < 1000; t++) {
		int p = 12000 + (int)((unsigned)rand() % 10000);
		if (port_free(p) && port_free(p + 10000))
			return p;
	}
	return 0;
}

static pid_t start_server(int i)
{
	char dir[256], p[16];
	snprintf(dir, sizeof dir, "%s/redis%d", test_root, i);
	mkdir(dir, 0700);
	snprintf(p, sizeof p, "%d", port[i]);
	pid_t child = fork();
	if (child == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		execlp("redis-server", "redis-server", "--bind", "127.0.0.1", "--port", p,
		       "--cluster-enabled", "yes", "--cluster-node-timeout", "1000",
		       "--cluster-replica-validity-factor", "0", "--save", "", "--appendonly", "no",
		       "--dir", dir, (char *)NULL);
		_exit(127);
	}
	return child;
}

/* The first line redis-cli prints for ARGS on node i ("" if none). */
static void cli(int i, char *out, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void cli(int i, char *out, size_t size, const char *fmt, ...)
{
	char args[512], cmd[700];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(args, sizeof args, fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof cmd, "redis-cli -p %d %s 2>&1", port[i], args);
	FILE *f = popen(cmd, "r");
	out[0] = '\0';
	if (f) {
		if (!fgets(out, (int)size, f))
			out[0] = '\0';
		pclose(f);
	}
	out[strcspn(out, "\r\n")] = '\0';
}

static int cluster_ok(int i)
{
	char line[256];
	cli(i, line, sizeof line, "CLUSTER INFO");
	return strcmp(line, "cluster_state:ok") == 0;
}

/* Replicas whose link to their primary is up (synced): one that never
 * synced would not take over. */
static int replicas_up(void)
{
	int n = 0;
	for (int i = 0; i < SERVERS; i++) {
		char cmd[200];
		snprintf(cmd, sizeof cmd, "redis-cli -p %d INFO replication 2>/dev/null | "
			 "grep -q '^master_link_status:up'", port[i]);
		n += system(cmd) == 0;
	}
	return n;
}

/* Whether node i's port is served by the server this test started there:
 * a port found free may be taken before that server binds it (by another
 * test's server, started at once), and the server then exits. */
static int serves(int i)
{
	char cmd[200];
	snprintf(cmd, sizeof cmd, "redis-cli -p %d INFO server 2>/dev/null | "
		 "grep -q '^process_id:%d.\\?$'", port[i], (int)pid[i]);
	return system(cmd) == 0;
}

/* Node i on a free port, answering; another port tried if it was taken
 * meanwhile.  One at a time: a port is only taken once its server has
 * bound it, so two nodes started at once could be given the same one. */
static int start_node(int i)
{
	for (int tries = 0; tries < 5; tries++) {
		port[i] = free_port();
		pid[i] = start_server(i);
		int ended = 0;
		for (int t = 0; t < 500 && !ended; t++, usleep(10000)) {
			ended = waitpid(pid[i], NULL, WNOHANG) == pid[i]; /* could not bind */
			if (!ended && serves(i))
				return 0;
		}
		if (!ended) {
			kill(pid[i], SIGKILL);
			waitpid(pid[i], NULL, 0);
		}
		pid[i] = 0;
	}
	return -1;
}

static int start_cluster(void)
{
	char cmd[600];
	int n = snprintf(cmd, sizeof cmd, "redis-cli --cluster create");
	for (int i = 0; i < SERVERS; i++) {
		if (start_node(i) != 0)
			return -1;
		n += snprintf(cmd + n, sizeof cmd - (size_t)n, " 127.0.0.1:%d", port[i]);
	}
	snprintf(cmd + n, sizeof cmd - (size_t)n,
		 " --cluster-replicas 1 --cluster-yes >/dev/null 2>&1");
	if (system(cmd) != 0)
		return -1;
	for (int t = 0; t < 3000; t++, usleep(10000)) {
		int ok = 1;
		for (int i = 0; i < SERVERS; i++)
			ok &= cluster_ok(i);
		if (ok && replicas_up() == SERVERS / 2)
			return 0;
	}
	return -1;
}

static void stop_cluster(void)
{
	for (int i = 0; i < SERVERS; i++)
		if (pid[i] > 0) {
			kill(pid[i], SIGTERM);
			waitpid(pid[i], NULL, 0);
		}
}

/* The node serving a name's slot, by asking node 0 (the URL's). */
static int owner(const char *name)
{
	char line[256];
	for (int i = 0; i < SERVERS; i++) {
		if (pid[i] <= 0)
			continue;
		char role[64];
		cli(i, role, sizeof role, "ROLE");
		if (strcmp(role, "master") != 0)
			continue;
		cli(i, line, sizeof line, "EXISTS %s", name); /* 0 or 1, else an error */
		if (strcmp(line, "0") == 0 || strcmp(line, "1") == 0)
			return i;
	}
	return -1;
}

static void name_of(const struct jc_key *k, char out[64])
{
	char hex[2 * JC_KEY_BYTES + 1];
	jc_key_hex(k, hex);
	snprintf(out, 64, "jitcache:v%d:%s", JC_ENTRY_VERSION, hex);
}

/* ---- machines ----------------------------------------------------------------- */

static struct jc_cache *node(const char *name, double backoff)
{
	char dir[256];
	test_path(dir, name);
	struct jc_cache_options o = {
		.dir = dir, .lock_timeout = 10,
		.remote = { .url = url, .connect_timeout = 1, .timeout = 2, .backoff = backoff,
			    .lease = 0.3, .lease_wait = 60, .exit_wait = 5 },
	};
	return jc_cache_open(&o);
}

static int remote_hit(struct jc_cache *c, const struct jc_key *k, size_t size)
{
	struct jc_entry e;
	struct jc_cache_stats before, after;
	jc_cache_process_stats(c, &before);
	if (jc_cache_get(c, k, &e) != 0)
		return 0;
	int ok = e.size == size;
	jc_entry_free(&e);
	jc_cache_process_stats(c, &after);
	return ok && after.remote_hits == before.remote_hits + 1;
}

static int store(struct jc_cache *c, const struct jc_key *k, size_t size)
{
	char data[4000];
	fill(data, size, 5);
	return jc_cache_put(c, k, data, size, 1) == 0 && jc_cache_flush_remote(c, 10) == 0 ? 0 : -1;
}

/* Keys spread over the slots: each primary holds some, and a machine that
 * names node 0 alone reads them all. */
#define SPREAD 24
static struct jc_key spread_key(unsigned i)
{
	return make_key((int)(i * 37 % 256), i * 2654435761u); /* not a few bits apart */
}

static void test_spread(void)
{
	struct jc_cache *a = node("spread-a", 30), *b = node("spread-b", 30);
	int stored = 0, hits = 0, on[SERVERS] = { 0 }, primaries = 0;
	for (unsigned i = 0; i < SPREAD; i++) {
		struct jc_key k = spread_key(i);
		char name[64];
		stored += store(a, &k, 1000) == 0;
		name_of(&k, name);
		int o = owner(name);
		if (o >= 0)
			on[o]++;
	}
	for (unsigned i = 0; i < SPREAD; i++) {
		struct jc_key k = spread_key(i);
		hits += remote_hit(b, &k, 1000);
	}
	for (int i = 0; i < SERVERS; i++)
		primaries += on[i] > 0;
	CHECK(stored == SPREAD, "%d keys stored through node 0's URL (%d)", SPREAD, stored);
	CHECK(primaries == 3, "... spread over the 3 primaries' slots (%d)", primaries);
	CHECK(hits == SPREAD, "another machine: %d remote hits of %d", hits, SPREAD);
	jc_cache_close(a);
	jc_cache_close(b);
}

/* N machines cold at once on a key served by another node than the URL's. */
#define NODES 4
static int compiles;
static struct jc_key once_key;

static void *machine(void *arg)
{
	char name[16];
	snprintf(name, sizeof name, "m%d", (int)(intptr_t)arg);
	struct jc_cache *c = node(name, 30);
	struct jc_entry e;
	char data[3000];
	fill(data, sizeof data, 9);
	if (!c)
		return (void *)1;
	if (jc_cache_get(c, &once_key, &e) == 0) {
		jc_entry_free(&e);
	} else {
		struct jc_cache_lock *l = jc_cache_lock_key(c, &once_key);
		if (jc_cache_recheck(c, &once_key, &e) == 0) {
			jc_entry_free(&e);
		} else {
			__atomic_add_fetch(&compiles, 1, __ATOMIC_RELAXED);
			usleep(600000); /* longer than the lease: renewal keeps it */
			jc_cache_put(c, &once_key, data, sizeof data, 1);
		}
		jc_cache_unlock(l);
	}
	int ok = jc_cache_get(c, &once_key, &e) == 0 && e.size == sizeof data;
	if (ok)
		jc_entry_free(&e);
	jc_cache_close(c);
	return (void *)(intptr_t)!ok;
}

/* A key of make_key(first, ...) whose slot node `not` (or -1) does not serve. */
static struct jc_key key_away(int first, int not, char name[64])
{
	for (unsigned i = 0;; i++) {
		struct jc_key k = make_key(first, i);
		name_of(&k, name);
		if (owner(name) != not || i > 100)
			return k;
	}
}

static void test_compile_once(void)
{
	char name[64];
	pthread_t t[NODES];
	int bad = 0;
	once_key = key_away(12, 0, name);
	int at = owner(name);
	for (int i = 0; i < NODES; i++)
		pthread_create(&t[i], NULL, machine, (void *)(intptr_t)i);
	for (int i = 0; i < NODES; i++) {
		void *rc;
		pthread_join(t[i], &rc);
		bad += rc != NULL;
	}
	CHECK(bad == 0, "%d machines cold at once (the key on node %d, the URL node 0's): "
	      "all got the value", NODES, at);
	CHECK(compiles == 1, "... compiled once in all (%d)", compiles);
	char line[256];
	cli(at, line, sizeof line, "KEYS *:lease");
	CHECK(line[0] == '\0', "... and no lease left behind (%s)", line);
}

/* Two keys of one slot, its primary not the URL's node. */
static void two_in_a_slot(struct jc_key *k1, struct jc_key *k2, int *from)
{
	char name[64];
	*k1 = key_away(13, 0, name);
	unsigned slot = jc_rcluster_slot(name, strlen(name));
	*from = owner(name);
	for (unsigned i = 0;; i++) {
		*k2 = make_key(14, i);
		name_of(k2, name);
		if (jc_rcluster_slot(name, strlen(name)) == slot)
			return;
	}
}

static void node_id(int i, char id[64])
{
	cli(i, id, 64, "CLUSTER MYID");
}

/* A slot moved from one primary to another, under a machine that learnt
 * the map before: ASK while the slot migrates, MOVED once it has. */
static void test_resharded(void)
{
	struct jc_key k1, k2, k3;
	char n1[64], n2[64], line[256], from_id[64], to_id[64];
	int from, to = -1;
	two_in_a_slot(&k1, &k2, &from);
	k3 = make_key(15, 0);
	name_of(&k1, n1);
	name_of(&k2, n2);
	unsigned slot = jc_rcluster_slot(n1, strlen(n1));
	for (int i = 0; i < SERVERS && to < 0; i++) {
		char role[64];
		cli(i, role, sizeof role, "ROLE");
		if (i != from && strcmp(role, "master") == 0)
			to = i;
	}
	struct jc_cache *a = node("moved-a", 30), *c = node("moved-c", 30);
	CHECK(store(a, &k1, 2000) == 0 && store(a, &k2, 2100) == 0 && store(a, &k3, 2200) == 0,
	      "two keys of slot %u stored (node %d), and another", slot, from);
	CHECK(remote_hit(c, &k3, 2200), "a machine read one: it knows the map");
	node_id(from, from_id);
	node_id(to, to_id);
	cli(to, line, sizeof line, "CLUSTER SETSLOT %u IMPORTING %s", slot, from_id);
	cli(from, line, sizeof line, "CLUSTER SETSLOT %u MIGRATING %s", slot, to_id);
	cli(from, line, sizeof line, "MIGRATE 127.0.0.1 %d %s 0 5000", port[to], n1);
	CHECK(strcmp(line, "OK") == 0, "slot %u migrating from node %d to %d, one key moved (%s)",
	      slot, from, to, line);
	CHECK(remote_hit(c, &k1, 2000), "... the moved key read (ASK followed, after ASKING)");
	cli(from, line, sizeof line, "MIGRATE 127.0.0.1 %d %s 0 5000", port[to], n2);
	for (int i = 0; i < SERVERS; i++)
		cli(i, line, sizeof line, "CLUSTER SETSLOT %u NODE %s", slot, to_id);
	CHECK(owner(n2) == to, "the slot moved to node %d", to);
	CHECK(remote_hit(c, &k2, 2100), "... the other key read (MOVED followed)");
	jc_cache_close(a);
	jc_cache_close(c);
}

/* Whether a replica holds name (replication is asynchronous: a value its
 * primary did not pass on before it died is lost, and compiled again). */
static int replicated(const char *name)
{
	for (int i = 0; i < SERVERS; i++) {
		char cmd[300], role[64];
		snprintf(cmd, sizeof cmd, "printf 'READONLY\\nEXISTS %s\\n' | "
			 "redis-cli -p %d 2>/dev/null | grep -qx 1", name, port[i]);
		if (pid[i] <= 0)
			continue;
		cli(i, role, sizeof role, "ROLE");
		if (strcmp(role, "slave") == 0 && system(cmd) == 0)
			return 1;
	}
	return 0;
}

/* A primary killed under a running machine: it keeps working (misses)
 * until the replica takes over, then reads and stores again. */
static void test_failover(void)
{
	char name[64];
	struct jc_key k = key_away(16, 0, name);
	struct jc_cache *a = node("fail-a", 1), *c = node("fail-c", 1);
	int victim = owner(name);
	CHECK(store(a, &k, 1500) == 0, "a key stored on node %d", victim);
	int copied = 0;
	for (int t = 0; t < 500 && !copied; t++, usleep(10000))
		copied = replicated(name);
	CHECK(copied, "... and on its replica");
	struct jc_key other = make_key(17, 0);
	CHECK(remote_hit(c, &other, 1) == 0, "a machine running (a miss elsewhere)");
	/* what jitcache says meanwhile, into a file */
	char said_path[256];
	test_path(said_path, "said");
	int said = open(said_path, O_WRONLY | O_CREAT | O_TRUNC, 0600), saved = dup(2);
	fflush(stderr);
	dup2(said, 2);
	kill(pid[victim], SIGKILL);
	waitpid(pid[victim], NULL, 0);
	pid[victim] = 0;
	struct jc_entry e;
	double t0 = now_s(), took;
	int missed = jc_cache_get(c, &k, &e) != 0;
	took = now_s() - t0;
	int promoted = 0, misses = missed, back = 0;
	/* The running machine may read the key again before this test sees
	 * the promotion (through redis-cli, late on a busy machine): that one
	 * remote hit is kept in its local store, and every lookup after it is
	 * a local hit, no remote one.  It is back from then; not asked again. */
	for (int t = 0; t < 300 && !promoted; t++, usleep(100000)) {
		int alive = victim ? 0 : 1;
		promoted = owner(name) >= 0 && cluster_ok(alive);
		if (!back && !(back = remote_hit(c, &k, 1500)))
			misses++; /* the outage: lookups go on */
	}
	double over = now_s() - t0;
	/* The other nodes learn of the promotion by gossip, late on a busy
	 * machine: a map read meanwhile may still name the dead node, and the
	 * remote is then skipped for its back-off (1 s) again. */
	for (int t = 0; t < 1500 && !back; t++, usleep(20000))
		back = remote_hit(c, &k, 1500);
	double back_took = now_s() - t0;
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(said);
	CHECK(missed, "its primary killed: a miss (the driver compiles)");
	CHECK(took < 5, "... at once (%.2f s)", took);
	CHECK(promoted, "a replica took over (node %d) after %.1f s, %d lookups missed meanwhile",
	      owner(name), over, misses);
	char cmd[700], line[256] = "";
	snprintf(cmd, sizeof cmd, "cat '%s'; grep -c . '%s'", said_path, said_path);
	FILE *f = popen(cmd, "r");
	int lines = -1;
	while (f && fgets(line, sizeof line, f))
		lines = atoi(line);
	if (f)
		pclose(f);
	CHECK(lines == 1, "... said in one line (%d)", lines);
	CHECK(back, "the running machine reads the key again (by %.1f s after the kill)", back_took);
	struct jc_key fresh = key_away(18, 0, name);
	CHECK(store(c, &fresh, 1200) == 0 && remote_hit(a, &fresh, 1200),
	      "... and stores: another machine reads what it stored");
	jc_cache_close(a);
	jc_cache_close(c);
}

int main(void)
{
	util_init();
	signal(SIGPIPE, SIG_DFL);
	srand((unsigned)getpid());
	if (system("command -v redis-server >/dev/null && command -v redis-cli >/dev/null") != 0) {
		printf("skip: redis-server or redis-cli not installed\n");
		util_cleanup();
		return 0;
	}
	snprintf(url, sizeof url, "redis://127.0.0.1:%d", 0);
	if (start_cluster() != 0) {
		CHECK(0, "a 3-primary cluster started on the loopback");
	} else {
		snprintf(url, sizeof url, "redis://127.0.0.1:%d", port[0]);
		test_spread();
		test_compile_once();
		test_resharded();
		test_failover();
	}
	stop_cluster();
	util_cleanup();
	return check_summary();
}
