// SPDX-License-Identifier: MIT
/* Unit tests of the lease engine (tiers/lease.h) over a kind of its own, a
 * lease "server" in shared memory: signed tokens (trusted, another name,
 * changed, unsigned, another key's), a waiter with trusted_keys waiting
 * only for a trusted holder, one renewal thread for every lease held and
 * none once all are let go, and a fork()ed child that neither renews nor
 * releases its parent's lease. */
#include "tiers/lease.h"
#include "config/clock.h"
#include "trust/sign.h"
#include "tests/unit/check.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The server: one lease per key's first byte, its holder's token. */
struct server {
	pthread_mutex_t mu;
	char holder[4][JC_LEASE_TOKEN_MAX];
	int renewals, releases;
};
static struct server *srv;

static void name_of(void *z, const struct jc_key *key, char out[JC_LEASE_NAME_MAX])
{
	(void)z;
	snprintf(out, JC_LEASE_NAME_MAX, "test:%02x", key->bytes[0]);
}

static enum jc_lease_take try_take(void *z, struct jc_lease *l, int first,
				   struct jc_remote_value *v, uint64_t delta[JC_NCOUNTERS])
{
	(void)z, (void)first, (void)v, (void)delta;
	char *h = srv->holder[l->key.bytes[0] & 3];
	pthread_mutex_lock(&srv->mu);
	enum jc_lease_take t = JC_LEASE_HELD;
	if (!h[0])
		snprintf(h, JC_LEASE_TOKEN_MAX, "%s", l->token), t = JC_LEASE_TAKEN;
	else
		snprintf(l->seen, sizeof l->seen, "%s", h);
	pthread_mutex_unlock(&srv->mu);
	return t;
}

static int renew(void *z, struct jc_lease *l, const char *next)
{
	(void)z;
	char *h = srv->holder[l->key.bytes[0] & 3];
	pthread_mutex_lock(&srv->mu);
	int ours = strcmp(h, l->token) == 0;
	if (ours)
		snprintf(h, JC_LEASE_TOKEN_MAX, "%s", next);
	srv->renewals += ours;
	pthread_mutex_unlock(&srv->mu);
	return ours;
}

static void release(void *z, struct jc_lease *l)
{
	(void)z;
	char *h = srv->holder[l->key.bytes[0] & 3];
	pthread_mutex_lock(&srv->mu);
	if (strcmp(h, l->token) == 0)
		h[0] = '\0';
	srv->releases++;
	pthread_mutex_unlock(&srv->mu);
}

static enum jc_remote_wait wait_hint(void *z, struct jc_lease *l, int64_t deadline_ns,
				     struct jc_remote_value *v, uint64_t delta[JC_NCOUNTERS])
{
	(void)z, (void)l, (void)v, (void)delta;
	int64_t left = deadline_ns - jc_wall_ns();
	struct timespec ts = { 0, left < 20000000 ? (left > 0 ? left : 0) : 20000000 };
	nanosleep(&ts, NULL);
	return JC_REMOTE_TIMEOUT;
}

static const struct jc_lease_kind kind = {
	.name = "test", .size = sizeof(struct jc_lease), .name_of = name_of,
	.try_take = try_take, .renew = renew, .release = release, .wait_hint = wait_hint,
};

static char root[] = "/tmp/jc-test-lease-XXXXXX";

static const char *path(const char *name)
{
	static char p[4][256];
	static int i;
	i = (i + 1) % 4;
	snprintf(p[i], sizeof p[i], "%s/%s", root, name);
	return p[i];
}

/* What the server holds for lease i, and its counts, read under its lock
 * (the renewal thread writes them). */
static void holder_of(int i, char out[JC_LEASE_TOKEN_MAX])
{
	pthread_mutex_lock(&srv->mu);
	memcpy(out, srv->holder[i], JC_LEASE_TOKEN_MAX);
	pthread_mutex_unlock(&srv->mu);
}

static int count(const int *n)
{
	pthread_mutex_lock(&srv->mu);
	int v = *n;
	pthread_mutex_unlock(&srv->mu);
	return v;
}

static int threads(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static enum jc_remote_wait wait_for(struct jc_leases *e, int k, double seconds, struct jc_lease **l)
{
	struct jc_key key = { .bytes = { (uint8_t)k } };
	struct jc_remote_value v;
	return jc_lease_wait(e, &key, jc_wall_ns() + (int64_t)(seconds * 1e9), NULL, l, &v, NULL);
}

static void tokens(struct jc_leases *signed_a, struct jc_leases *trusting_a,
		   struct jc_leases *signed_b, struct jc_leases *unsigned_e)
{
	const char *why = "";
	struct jc_key key = { .bytes = { 3 } };
	struct jc_lease *a = jc_lease_new(signed_a, &key), *b = jc_lease_new(signed_b, &key);
	struct jc_lease *u = jc_lease_new(unsigned_e, &key);
	CHECK(jc_lease_trusted(trusting_a, a->name, a->token, &why), "a token signed by a trusted key: trusted");
	CHECK(!jc_lease_trusted(trusting_a, "test:04", a->token, &why),
	      "... not for another lease's name (%s)", why);
	char changed[JC_LEASE_TOKEN_MAX];
	snprintf(changed, sizeof changed, "%s", a->token);
	changed[0] ^= 1; /* another holder */
	CHECK(!jc_lease_trusted(trusting_a, a->name, changed, &why), "... nor changed (%s)", why);
	CHECK(!jc_lease_trusted(trusting_a, u->name, u->token, &why) && strcmp(why, "not signed") == 0,
	      "an unsigned token: not trusted (%s)", why);
	CHECK(!jc_lease_trusted(trusting_a, b->name, b->token, &why),
	      "a token signed by a key not trusted: not trusted (%s)", why);
	jc_lease_free(a);
	jc_lease_free(b);
	jc_lease_free(u);
}

int main(void)
{
	if (!mkdtemp(root))
		return 1;
	srv = mmap(NULL, sizeof *srv, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pthread_mutexattr_t ma;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(&srv->mu, &ma);
	FILE *devnull = fopen("/dev/null", "w");
	jc_keygen(path("a"), NULL, devnull);
	jc_keygen(path("b"), NULL, devnull);
	struct jc_signer *ka = jc_signer_load(path("a")), *kb = jc_signer_load(path("b"));
	struct jc_trust *ta = jc_trust_load(path("a.pub"));
	CHECK(ka && kb && ta, "two signing keys, a trust list of the first");

	/* lease 0.3 s: renewed every 0.1 s */
	struct jc_leases *sa = jc_leases_open(&kind, NULL, "test", 0.3, 1);
	struct jc_leases *wa = jc_leases_open(&kind, NULL, "test", 0.3, 1);
	struct jc_leases *sb = jc_leases_open(&kind, NULL, "test", 0.3, 1);
	struct jc_leases *un = jc_leases_open(&kind, NULL, "test", 0.3, 1);
	jc_leases_set_keys(sa, ka, NULL, 0);
	jc_leases_set_keys(wa, ka, ta, 1);
	jc_leases_set_keys(sb, kb, NULL, 0);
	tokens(sa, wa, sb, un);

	/* ---- a waiter with trusted_keys ---- */
	int base = threads();
	struct jc_lease *held = NULL, *got = NULL;
	CHECK(wait_for(sa, 0, 1, &held) == JC_REMOTE_LEASED && held, "a signed node takes a free lease");
	/* (a thread checker may start one of its own with the first thread) */
	int with = threads();
	CHECK(with > base, "... a renewal thread started (%d, were %d)", with, base);
	CHECK(wait_for(wa, 0, 0.3, &got) == JC_REMOTE_TIMEOUT && !got,
	      "a node with trusted_keys waits for a trusted holder, to the deadline");
	struct jc_lease *other = NULL, *plain = NULL;
	CHECK(wait_for(sb, 1, 1, &other) == JC_REMOTE_LEASED, "a node signing with a key not trusted takes another");
	CHECK(wait_for(un, 2, 1, &plain) == JC_REMOTE_LEASED, "an unsigned node takes a third");
	CHECK(threads() == with, "three leases held: still one renewal thread (%d)", threads());
	CHECK(wait_for(wa, 1, 5, &got) == JC_REMOTE_FREE, "... the node with trusted_keys does not wait for the second");
	CHECK(wait_for(wa, 2, 5, &got) == JC_REMOTE_FREE, "... nor for the unsigned one");
	CHECK(wait_for(un, 2, 0.3, &got) == JC_REMOTE_TIMEOUT, "without trusted_keys the unsigned one is waited for");

	/* ---- renewals: a signed token is dated anew ---- */
	char first[JC_LEASE_TOKEN_MAX], now[JC_LEASE_TOKEN_MAX];
	holder_of(0, first);
	int renewals = count(&srv->renewals);
	for (int i = 0; i < 500 && count(&srv->renewals) < renewals + 6; i++)
		usleep(10000);
	const char *why = "";
	CHECK(count(&srv->renewals) >= renewals + 6, "the held leases are renewed (%d renewals)",
	      count(&srv->renewals) - renewals);
	holder_of(0, now);
	CHECK(strcmp(first, now) != 0 && jc_lease_trusted(wa, held->name, now, &why),
	      "... a signed one re-signed (%s)", why);

	/* ---- fork: the child neither renews nor releases its parent's lease ---- */
	pid_t pid = fork();
	if (pid == 0) {
		int ok = threads() <= with - 1;
		int before = count(&srv->releases);
		jc_lease_release(held); /* its copy: only freed */
		holder_of(0, now);
		ok = ok && count(&srv->releases) == before && now[0];
		_exit(ok ? 0 : 1);
	}
	int status = 0;
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "a fork()ed child: no renewal thread, and its release of the parent's lease lets nothing go");
	holder_of(0, now);
	CHECK(now[0], "... the parent still holds it");

	int releases = count(&srv->releases);
	jc_lease_release(held);
	jc_lease_release(other);
	jc_lease_release(plain);
	CHECK(srv->releases == releases + 3 && !srv->holder[0][0] && !srv->holder[1][0] &&
	      !srv->holder[2][0], "released: let go at the server");
	CHECK(threads() == with - 1, "... and the renewal thread is gone (%d, were %d)", threads(), with);
	CHECK(wait_for(wa, 0, 1, &got) == JC_REMOTE_LEASED, "a lease taken again starts it again");
	CHECK(threads() == with, "... (%d)", threads());
	jc_lease_release(got);
	CHECK(threads() == with - 1, "... and ends it (%d)", threads());

	jc_leases_close(sa);
	jc_leases_close(wa);
	jc_leases_close(sb);
	jc_leases_close(un);
	jc_signer_free(ka);
	jc_signer_free(kb);
	jc_trust_free(ta);
	fclose(devnull);
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	if (system(cmd) != 0)
		return 1;
	return check_summary();
}
