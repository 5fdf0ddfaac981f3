// SPDX-License-Identifier: MIT
/* redis.c — the Redis remote through hiredis: connections, values and
 * compile leases.  See redis.h. */
#include "tiers/redis.h"
#include "tiers/redis_cluster.h"
#include "tiers/lease.h"
#include "tiers/tier.h"
#include "config/clock.h"

#include "tiers/client.h"
#include "store/fsutil.h"
#include "store/object.h"
#include "config/readfile.h"
#include "config/remote_url.h"
#include "config/log.h"

#include <errno.h>
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>


/* Longest name: "jitcache:{jitcache:v1:" + 32 hex digits + "}:waiting". */
#define NAME_MAX_LEN 80
/* A lease's value: the engine's token (lease.h). */
#define LEASE_TOKEN_MAX JC_LEASE_TOKEN_MAX

/* A connection and the process that made it: after fork() a child must not
 * talk over its parent's socket.  dev and ino are what its socket is: a
 * program that closes descriptors it did not open and opens its own may
 * have put one of its files under the same number, which must then be
 * neither written nor closed. */
struct conn {
	redisContext *ctx;
	pid_t pid;
	int reused; /* kept from an earlier exchange: the server may have closed it */
	int node;   /* the cluster's node it talks to (redis_cluster.h); 0: the URL's */
	dev_t dev;
	ino_t ino;
};

struct jc_redis {
	struct jc_remote_url url;
	char shown[JC_REMOTE_URL_MAX]; /* the URL without its password, for messages */
	int read_only;
	struct timeval connect_tv, op_tv;
	double op_timeout, lease, lease_wait;
	uint64_t limit;                /* largest value read (jc_entry_limit) */
	struct jc_backoff down;        /* skipped after a failure (client.h) */
	struct conn *idle[JC_RCLUSTER_NODES][JC_REMOTE_WRITERS + 1];
	/* connections ready for reuse (atomic), per node: one per writer
	 * thread and the program's */
	struct jc_rcluster cl;         /* a cluster's slot map; off for one server */
	int answered;                  /* the node whose CLUSTER SLOTS was read last (atomic) */
	struct jc_leases *leases;      /* the engine's, over this kind's primitives */
	int no_blocking;               /* BRPOPLPUSH refused: leases polled (atomic) */
	int no_scripts;                /* EVAL refused (an ACL): no leases (atomic) */
};

/* What a waiter saw of another's lease at its last look: its value (no
 * more than a token's length), its PTTL and so when it would expire, and
 * when it was last seen renewed (or first seen).  stale: not seen renewed
 * for lease_wait seconds. */
struct watch {
	char value[LEASE_TOKEN_MAX + 1]; /* GETRANGE 0 LEASE_TOKEN_MAX-1, and a NUL */
	long long pttl;
	int64_t expires_ns, alive_ns;
	int seen, stale;
};

/* A renewal moves a lease's expiry by a third of a lease time at least
 * (33 ms for the shortest, 0.1 s); two looks at a lease nobody renews may
 * put it a few milliseconds apart, from the round trips between. */
#define RENEWED_NS 20000000

/* A lease (the engine's, lease.h): ours, or another's as the last look
 * saw it (watched), and a waiter's pause where Redis cannot block. */
struct redis_lease {
	struct jc_lease l;
	struct watch wt;
	int64_t pause;
};

/* ---- problems, once per kind, and back-off ------------------------------ */

enum problem { P_CONNECT, P_IO, P_PROTOCOL, P_AUTH, P_REFUSED, P_COUNT };
static int told[P_COUNT];

/* Why the remote is skipped (the back-off's cause): its login refused. */
#define DOWN_LOGIN 1
/* This thread's exchange met a refused login (the back-off may be 0 s). */
static __thread int login_refused;
/* This thread asks a cluster's nodes in turn for its slot map: one that
 * does not answer is neither said nor a reason to skip the remote. */
static __thread int quiet;

__attribute__((format(printf, 4, 5)))
static void problem(struct jc_redis *r, enum problem kind, int skip, const char *fmt, ...)
{
	if (quiet)
		return;
	if (kind == P_AUTH)
		login_refused = 1;
	if (skip)
		jc_backoff_start_cause(&r->down, kind == P_AUTH ? DOWN_LOGIN : 0);
	va_list ap;
	va_start(ap, fmt);
	jc_remote_problem(&told[kind], r->shown, skip ? &r->down : NULL, fmt, ap);
	va_end(ap);
}

/* ---- connections ----------------------------------------------------------- */

/* Is cn's descriptor still the socket it connected? */
static int conn_owned(const struct conn *cn)
{
	struct stat st;
	return cn->ctx->fd >= 0 && fstat(cn->ctx->fd, &st) == 0 && S_ISSOCK(st.st_mode) &&
	       st.st_dev == cn->dev && st.st_ino == cn->ino;
}

static void conn_free(struct conn *cn)
{
	if (!cn)
		return;
	if (!conn_owned(cn))
		cn->ctx->fd = -1; /* the number is the program's now: not closed */
	redisFree(cn->ctx); /* closes the socket; sends nothing */
	free(cn);
}

/* A reply, or NULL after saying why (and backing off). */
static redisReply *exchange(struct jc_redis *r, redisContext *c, int argc, const char **argv,
			    const size_t *lens, const char *what);

/* A yes-or-no command at login: 0 if the server said OK. */
static int login_step(struct jc_redis *r, redisContext *c, int argc, const char **argv,
		      enum problem kind, const char *what)
{
	redisReply *rep = exchange(r, c, argc, argv, NULL, argv[0]);
	if (!rep)
		return -1;
	int ok = rep->type == REDIS_REPLY_STATUS;
	if (!ok)
		problem(r, kind, 1, "%s refused (%s)", what,
			rep->type == REDIS_REPLY_ERROR ? rep->str : "unexpected answer");
	freeReplyObject(rep);
	return ok ? 0 : -1;
}

static int login(struct jc_redis *r, redisContext *c)
{
	char db[16];
	snprintf(db, sizeof db, "%d", r->url.db);
	if (r->url.has_password && r->url.user[0] &&
	    login_step(r, c, 3, (const char *[]){ "AUTH", r->url.user, r->url.password },
		       P_AUTH, "login") != 0)
		return -1;
	if (r->url.has_password && !r->url.user[0] &&
	    login_step(r, c, 2, (const char *[]){ "AUTH", r->url.password }, P_AUTH, "login") != 0)
		return -1;
	if (r->url.db && login_step(r, c, 2, (const char *[]){ "SELECT", db }, P_REFUSED,
				    "selecting the database") != 0)
		return -1;
	return 0;
}

/* A connection to node (0: the URL's; another: a cluster's, by TCP). */
static redisContext *dial(struct jc_redis *r, int node)
{
	const struct jc_rcluster_node *n = &r->cl.node[node];
	if (node)
		return redisConnectWithTimeout(n->host, n->port, r->connect_tv);
	return r->url.is_unix ? redisConnectUnixWithTimeout(r->url.path, r->connect_tv)
			      : redisConnectWithTimeout(r->url.host, r->url.port, r->connect_tv);
}

static struct conn *connect_now(struct jc_redis *r, int node)
{
	redisContext *c = dial(r, node);
	struct conn *cn = c ? malloc(sizeof *cn) : NULL;
	if (!cn || c->err) {
		if (node)
			problem(r, P_CONNECT, 1, "cannot connect to the cluster's node %s:%d (%s)",
				r->cl.node[node].host, r->cl.node[node].port,
				c ? c->errstr : "out of memory");
		else
			problem(r, P_CONNECT, 1, "cannot connect (%s)",
				c ? c->errstr : "out of memory");
		if (c)
			redisFree(c);
		free(cn);
		return NULL;
	}
	struct stat st;
	cn->ctx = c;
	cn->pid = getpid();
	cn->reused = 0;
	cn->node = node;
	cn->dev = fstat(c->fd, &st) == 0 ? st.st_dev : 0;
	cn->ino = fstat(c->fd, &st) == 0 ? st.st_ino : 0;
	if (redisSetTimeout(c, r->op_tv) != REDIS_OK) {
		problem(r, P_IO, 1, "cannot set the operation timeout (%s)", c->errstr);
		conn_free(cn);
		return NULL;
	}
	if (login(r, c) != 0) {
		conn_free(cn);
		return NULL;
	}
	return cn;
}

/* Take an idle connection to node, or make one. */
static struct conn *checkout(struct jc_redis *r, int node)
{
	for (size_t i = 0; i < sizeof r->idle[node] / sizeof *r->idle[node]; i++) {
		struct conn *cn = __atomic_exchange_n(&r->idle[node][i], NULL, __ATOMIC_ACQ_REL);
		if (cn && cn->pid == getpid() && conn_owned(cn)) {
			cn->reused = 1;
			return cn;
		}
		conn_free(cn); /* inherited through fork() (the parent's, not ours), or
				  closed by the program */
	}
	return connect_now(r, node);
}

static void checkin(struct jc_redis *r, struct conn *cn)
{
	for (size_t i = 0; cn && i < sizeof r->idle[0] / sizeof *r->idle[0]; i++) {
		struct conn *none = NULL;
		if (__atomic_compare_exchange_n(&r->idle[cn->node][i], &none, cn, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			return;
	}
	conn_free(cn); /* others' are kept instead */
}

/* ---- one exchange with the server ----------------------------------------- */

/* An exchange about one key: all its names are in one hash slot, served
 * by one node of a cluster (the URL's server, for one server). */
struct session {
	struct jc_redis *r;
	struct conn *cn;
	struct jc_pipe_guard pipe;
	uint64_t *delta;
	unsigned slot;
	int broken;
	int asking; /* an ASK followed: each command is sent after ASKING */
};

static void map_refresh(struct jc_redis *r, int first);

static int cluster_on(struct jc_redis *r)
{
	return __atomic_load_n(&r->cl.on, __ATOMIC_ACQUIRE);
}

/* A cluster's node failed or said the cluster is down: its map is asked
 * again before the next exchange (a replica may have taken over). */
static void map_stale(struct jc_redis *r)
{
	if (cluster_on(r))
		__atomic_store_n(&r->cl.stale, 1, __ATOMIC_RELEASE);
}

/* Begin an exchange about the key whose name (any of its names) is given. */
static int begin(struct session *s, struct jc_redis *r, uint64_t *delta, const char *name)
{
	*s = (struct session){ .r = r, .delta = delta, .slot = jc_rcluster_slot(name, strlen(name)) };
	if (jc_backoff_active(&r->down))
		return -1;
	jc_pipe_block(&s->pipe);
	if (cluster_on(r) && __atomic_load_n(&r->cl.stale, __ATOMIC_ACQUIRE))
		map_refresh(r, __atomic_load_n(&r->answered, __ATOMIC_RELAXED));
	s->cn = checkout(r, jc_rcluster_route(&r->cl, s->slot));
	if (!s->cn) {
		map_stale(r);
		delta[JC_REMOTE_ERRORS]++;
		jc_pipe_unblock(&s->pipe);
		return -1;
	}
	return 0;
}

static void end(struct session *s)
{
	if (s->broken)
		map_stale(s->r);
	if (s->broken)
		conn_free(s->cn);
	else
		checkin(s->r, s->cn);
	jc_pipe_unblock(&s->pipe);
}

/* The connection failed: say why once, skip the remote for a while. */
static void io_failed(struct jc_redis *r, redisContext *c, const char *what)
{
	if (c->err == REDIS_ERR_PROTOCOL && strstr(c->errstr, "larger than"))
		problem(r, P_PROTOCOL, 1, "the answer to %s is %s", what, c->errstr);
	else if (c->err == REDIS_ERR_PROTOCOL)
		problem(r, P_PROTOCOL, 1, "the answer to %s is not Redis protocol (%s)", what,
			c->errstr);
	else if (strstr(c->errstr, "temporarily unavailable") || strstr(c->errstr, "timed out"))
		problem(r, P_IO, 1, "no answer to %s within %g s", what, r->op_timeout);
	else
		problem(r, P_IO, 1, "connection lost during %s (%s)", what,
			c->errstr[0] ? c->errstr : "closed by the server");
}

/* hiredis's socket timeout bounds each read(2), not an answer: a server (or
 * a link) that trickles a byte now and then would keep a reader forever.
 * So every read and write is given only the time left until the deadline
 * of the whole answer, and the answer fails once it has passed. */
static int by_deadline(redisContext *c, int64_t deadline)
{
	int64_t left = deadline - jc_mono_ns();
	if (left <= 0) {
		c->err = REDIS_ERR_IO;
		snprintf(c->errstr, sizeof c->errstr, "timed out");
		return -1;
	}
	left += 999; /* whole microseconds, rounded up: never 0 (no timeout) */
	struct timeval tv = { .tv_sec = left / 1000000000,
			      .tv_usec = (left % 1000000000) / 1000 };
	return redisSetTimeout(c, tv) == REDIS_OK ? 0 : -1;
}

/* Send what is buffered and read one reply, all before deadline, and with
 * most (unless 0) bytes at most waiting in the reader: the answer to a
 * blocking call is a list's element, which whoever can write Redis could
 * make as large as Redis allows. */
static int reply_by(redisContext *c, void **reply, int64_t deadline, size_t most)
{
	int done = 0;
	*reply = NULL;
	if (redisGetReplyFromReader(c, reply) != REDIS_OK)
		return -1;
	while (!*reply && !done) {
		if (by_deadline(c, deadline) != 0 || redisBufferWrite(c, &done) != REDIS_OK)
			return -1;
	}
	while (!*reply) {
		if (by_deadline(c, deadline) != 0 || redisBufferRead(c) != REDIS_OK)
			return -1;
		if (most && c->reader->len - c->reader->pos > most) {
			c->err = REDIS_ERR_PROTOCOL;
			snprintf(c->errstr, sizeof c->errstr, "an answer larger than %zu bytes", most);
			return -1;
		}
		if (redisGetReplyFromReader(c, reply) != REDIS_OK)
			return -1;
	}
	return 0;
}

static int64_t deadline_of(const struct jc_redis *r)
{
	return jc_mono_ns() + (int64_t)(r->op_timeout * 1e9);
}

static redisReply *exchange(struct jc_redis *r, redisContext *c, int argc, const char **argv,
			    const size_t *lens, const char *what)
{
	void *reply = NULL;
	if (redisAppendCommandArgv(c, argc, argv, lens) != REDIS_OK ||
	    reply_by(c, &reply, deadline_of(r), 0) != 0 || !reply) {
		io_failed(r, c, what);
		return NULL;
	}
	return reply;
}

/* Send n commands at once (one round trip) and read their n replies, all
 * within the timeout (and blocking_ns more: a command that blocks on the
 * server that long, BRPOPLPUSH), with most bytes at most waiting to be
 * read (0: no bound but the commands').  0, or -1 with the session broken
 * and nothing to free. */
struct command {
	int argc;
	const char *argv[16];
	size_t lens[16];
};

/* ASKING before the commands (asking): its "OK" read and dropped. */
static int send_asking(redisContext *c, int64_t deadline)
{
	void *ok = NULL;
	if (redisAppendCommand(c, "ASKING") != REDIS_OK || reply_by(c, &ok, deadline, 0) != 0 ||
	    !ok)
		return -1;
	freeReplyObject(ok);
	return 0;
}

static int send_and_read(const struct jc_redis *r, redisContext *c, int n, struct command *cmd,
			 redisReply **rep, int64_t blocking_ns, size_t most, int asking)
{
	int got = 0;
	int64_t deadline = deadline_of(r) + blocking_ns;
	if (asking && send_asking(c, deadline) != 0)
		return -1;
	for (int i = 0; i < n; i++)
		if (redisAppendCommandArgv(c, cmd[i].argc, cmd[i].argv, cmd[i].lens) != REDIS_OK)
			return -1;
	for (got = 0; got < n; got++)
		if (reply_by(c, (void **)&rep[got], deadline, most) != 0 || !rep[got])
			break;
	if (got == n)
		return 0;
	while (got > 0)
		freeReplyObject(rep[--got]);
	return -1;
}

/* A kept connection the server closed meanwhile (its idle timeout, a
 * restart): nothing was done on it, so the exchange is tried again on a new
 * one rather than taken for a failure of the remote. */
static int closed_while_idle(const struct conn *cn)
{
	const redisContext *c = cn->ctx;
	return cn->reused && (c->err == REDIS_ERR_EOF ||
			      (c->err == REDIS_ERR_IO && (strstr(c->errstr, "reset by peer") ||
							  strstr(c->errstr, "Broken pipe"))));
}

static int pipeline_once(struct session *s, int n, struct command *cmd, redisReply **rep,
			 const char *what, int64_t blocking_ns, size_t most)
{
	if (send_and_read(s->r, s->cn->ctx, n, cmd, rep, blocking_ns, most, s->asking) == 0)
		return 0;
	if (closed_while_idle(s->cn)) {
		int node = s->cn->node;
		conn_free(s->cn);
		s->cn = connect_now(s->r, node);
		if (s->cn &&
		    send_and_read(s->r, s->cn->ctx, n, cmd, rep, blocking_ns, most, s->asking) == 0)
			return 0;
	}
	if (s->cn)
		io_failed(s->r, s->cn->ctx, what);
	s->broken = 1;
	s->delta[JC_REMOTE_ERRORS]++;
	return -1;
}

/* The slot map as one node sees it (CLUSTER SLOTS): 1 if read. */
static int map_read(struct jc_redis *r, int node)
{
	struct conn *cn = checkout(r, node);
	redisReply *rep = NULL;
	struct command cmd = { 2, { "CLUSTER", "SLOTS" }, { 7, 5 } };
	if (!cn)
		return 0;
	if (send_and_read(r, cn->ctx, 1, &cmd, &rep, 0, 0, 0) != 0) {
		conn_free(cn);
		return 0;
	}
	const char *asked = node ? r->cl.node[node].host : r->url.is_unix ? "" : r->url.host;
	int ok = jc_rcluster_load(&r->cl, rep, asked) > 0;
	freeReplyObject(rep);
	checkin(r, cn);
	if (ok)
		__atomic_store_n(&r->answered, node, __ATOMIC_RELAXED);
	return ok;
}

/* Nodes asked for the map in a row at most: each may cost connect_timeout
 * where hosts are down, and the back-off bounds how often this is tried. */
#define MAP_ASKED 3

/* Ask the cluster's nodes for its slot map, first the one given, then the
 * others in turn until one answers; none that does not is said. */
static void map_refresh(struct jc_redis *r, int first)
{
	int n = __atomic_load_n(&r->cl.reserved, __ATOMIC_ACQUIRE), ok = 0, asked = 0;
	quiet = 1;
	for (int k = -1; k < n && k < JC_RCLUSTER_NODES && !ok && asked < MAP_ASKED; k++) {
		int i = k < 0 ? first : k;
		if ((k < 0 || i != first) && __atomic_load_n(&r->cl.node[i].ready, __ATOMIC_ACQUIRE)) {
			ok = map_read(r, i);
			asked++;
		}
	}
	quiet = 0;
	if (ok)
		__atomic_store_n(&r->cl.stale, 0, __ATOMIC_RELEASE);
}

/* Follow a MOVED (the slot lives on another node now: the whole map is
 * asked again, the server being a cluster's) or an ASK (the slot is being
 * moved there: that node is asked, after ASKING, for the rest of this
 * exchange).  0, or -1 with the session left without a connection. */
static int follow(struct session *s, const struct jc_rcluster_redirect *to)
{
	struct jc_redis *r = s->r;
	int node = jc_rcluster_node(&r->cl, to->host, to->port);
	if (node < 0)
		return -1;
	if (!to->ask) {
		__atomic_store_n(&r->cl.on, 1, __ATOMIC_RELEASE);
		map_refresh(r, node);
		__atomic_store_n(&r->cl.slot[to->slot], (uint8_t)node, __ATOMIC_RELEASE);
	}
	s->asking = to->ask;
	if (s->cn->node == node)
		return 0;
	checkin(r, s->cn);
	s->cn = checkout(r, node);
	return s->cn ? 0 : -1;
}

/* Redirections followed for one command at most: a slot moves once at a
 * time (MOVED, then an ASK while it migrates). */
#define REDIRECTIONS 5

static int pipeline_blocking(struct session *s, int n, struct command *cmd, redisReply **rep,
			     const char *what, int64_t blocking_ns, size_t most)
{
	struct jc_rcluster_redirect to;
	for (int hops = 0;; hops++) {
		if (pipeline_once(s, n, cmd, rep, what, blocking_ns, most) != 0)
			return -1;
		if (n != 1 || rep[0]->type != REDIS_REPLY_ERROR || !rep[0]->str ||
		    !jc_rcluster_redirect(rep[0]->str, &to))
			return 0;
		if (hops == REDIRECTIONS) /* the reply, an error: the caller's to say */
			return 0;
		freeReplyObject(rep[0]);
		if (follow(s, &to) != 0) {
			s->broken = 1;
			s->delta[JC_REMOTE_ERRORS]++;
			return -1;
		}
	}
}

static int pipeline(struct session *s, int n, struct command *cmd, redisReply **rep,
		    const char *what)
{
	return pipeline_blocking(s, n, cmd, rep, what, 0, 0);
}

static void command_set(struct command *cmd, int argc, ...)
{
	va_list ap;
	va_start(ap, argc);
	cmd->argc = argc;
	for (int i = 0; i < argc; i++) {
		cmd->argv[i] = va_arg(ap, const char *);
		cmd->lens[i] = va_arg(ap, size_t);
	}
	va_end(ap);
}

#define ARG(s) (s), strlen(s)

/* An answer Redis would not give: a refusal (out of memory, read-only
 * replica, no permission) is said once and counted, and costs nothing more;
 * a login problem or an answer of the wrong kind also skips the remote. */
static void unexpected(struct session *s, const redisReply *rep, const char *what)
{
	s->delta[JC_REMOTE_ERRORS]++;
	if (rep->type != REDIS_REPLY_ERROR) {
		problem(s->r, P_PROTOCOL, 1, "unexpected answer to %s (type %d)", what, rep->type);
		s->broken = 1;
	} else if (strncmp(rep->str, "NOAUTH", 6) == 0 || strncmp(rep->str, "WRONGPASS", 9) == 0 ||
		   strncmp(rep->str, "NOPERM", 6) == 0) {
		problem(s->r, P_AUTH, 1, "%s refused (%s)", what, rep->str);
	} else if (strncmp(rep->str, "CLUSTERDOWN", 11) == 0) {
		/* a node down, the cluster deciding: an outage like a node
		 * that does not answer (said as one), its map read again after */
		map_stale(s->r);
		problem(s->r, P_CONNECT, 1, "%s refused by the cluster (%s)", what, rep->str);
	} else {
		problem(s->r, P_REFUSED, 0, "%s refused (%s)", what, rep->str);
	}
}

/* A key's value is "jitcache:v<format>:<hex>", its other names (suffix)
 * "jitcache:{jitcache:v<format>:<hex>}<suffix>": the value's whole name as
 * their hash tag, which hashes to the value's own slot (a name without a
 * tag is hashed whole), so that a cluster serves all of a key's names from
 * one node and a lease's script may touch them together.  The value's name
 * is the one jitcache always used (a server's entries stay hits), and
 * every name still starts "jitcache:" (an ACL's ~jitcache:* covers them). */
static void value_name(const struct jc_key *key, const char *suffix, char out[NAME_MAX_LEN])
{
	char hex[2 * JC_KEY_BYTES + 1];
	jc_key_hex(key, hex);
	if (suffix[0])
		snprintf(out, NAME_MAX_LEN, "jitcache:{jitcache:v%d:%s}%s", JC_ENTRY_VERSION, hex,
			 suffix);
	else
		snprintf(out, NAME_MAX_LEN, "jitcache:v%d:%s", JC_ENTRY_VERSION, hex);
}

/* ---- opening ----------------------------------------------------------------- */

/* A password file holds one line; anything larger is not one. */
#define PASSWORD_FILE_MAX 4096

static int read_password(const char *path, struct jc_remote_url *u, const char **why)
{
	size_t len = 0;
	char *text = jc_read_small_file(path, PASSWORD_FILE_MAX, &len, why);
	if (!text)
		return -1;
	size_t n = strcspn(text, "\r\n");
	int ok = n > 0 && n < sizeof u->password;
	if (ok) {
		memcpy(u->password, text, n);
		u->password[n] = '\0';
		u->has_password = 1;
	} else {
		*why = len ? "empty first line, or longer than 255 bytes" : "empty file";
	}
	explicit_bzero(text, len);
	free(text);
	return ok ? 0 : -1;
}

static struct timeval to_timeval(double seconds)
{
	if (!(seconds >= 0.001))
		seconds = 0.001;
	if (seconds > 3600)
		seconds = 3600;
	long long us = (long long)(seconds * 1e6);
	return (struct timeval){ .tv_sec = us / 1000000, .tv_usec = us % 1000000 };
}

struct jc_redis *jc_redis_open(const struct jc_remote_options *opts,
			       const struct jc_remote_spec *spec, int read_only,
			       const char *state_dir, uint64_t limit)
{
	const char *why = "";
	struct jc_redis *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	jc_remote_url_redact(spec->url, r->shown, sizeof r->shown);
	r->url = spec->at.redis;
	if (opts->password_file && opts->password_file[0] &&
	    read_password(opts->password_file, &r->url, &why) != 0) {
		jc_log(JC_LOG_WARN, "cannot read the remote's password file %s (%s); "
		       "remote tier disabled", opts->password_file, why);
		free(r);
		return NULL;
	}
	if (r->url.user[0] && !r->url.has_password) { /* redis://USER@HOST, no password_file */
		jc_log(JC_LOG_WARN, "remote %s: its user needs a password ([remote] password_file, "
		       "or redis://USER:PASSWORD@HOST); remote tier disabled", r->shown);
		free(r);
		return NULL;
	}
	r->read_only = read_only;
	r->connect_tv = to_timeval(opts->connect_timeout);
	r->op_tv = to_timeval(opts->timeout);
	r->op_timeout = opts->timeout > 0.001 ? opts->timeout : 0.001;
	r->limit = limit;
	r->lease = opts->lease > 0.1 ? opts->lease : 0.1;
	r->lease_wait = opts->lease_wait > 0 ? opts->lease_wait : 0; /* also NaN */
	if (r->lease_wait > 1e6)
		r->lease_wait = 1e6;
	char where[sizeof r->url.host + sizeof r->url.path + 32];
	snprintf(where, sizeof where, "%s:%d:%s:%d", r->url.host, r->url.port, r->url.path,
		 r->url.db);
	jc_backoff_init(&r->down, state_dir, where, opts->backoff);
	/* node 0, the URL's server: a redirection to its address is to it */
	snprintf(r->cl.node[0].host, sizeof r->cl.node[0].host, "%s",
		 r->url.is_unix ? "" : r->url.host);
	r->cl.node[0].port = r->url.is_unix ? 0 : r->url.port;
	r->cl.node[0].ready = 1;
	r->cl.reserved = 1;
	return r;
}

void jc_redis_close(struct jc_redis *r)
{
	if (!r)
		return;
	for (size_t n = 0; n < JC_RCLUSTER_NODES; n++)
		for (size_t i = 0; i < sizeof r->idle[n] / sizeof *r->idle[n]; i++)
			conn_free(__atomic_exchange_n(&r->idle[n][i], NULL, __ATOMIC_ACQ_REL));
	free(r);
}

/* ---- values ---------------------------------------------------------------------- */

/* A lookup is one GETRANGE of a value's first FIRST_READ bytes: a value up
 * to that size comes whole with it (a hit is one command), and the header
 * of a larger one says its size, so that the rest is fetched only if that
 * is within the limit and the header sound. */
#define FIRST_READ (1024 * 1024)

/* Take a value out of its reply: header copied, the rest moved to the
 * front of the reply's own buffer, which becomes v->payload (no copy of a
 * large value). */
static void take_value(redisReply *rep, struct jc_remote_value *v)
{
	size_t n = rep->len, head = n < JC_ENTRY_HEADER_SIZE ? n : JC_ENTRY_HEADER_SIZE;
	memcpy(v->header, rep->str, head);
	memmove(rep->str, rep->str + head, n - head);
	v->payload = rep->str;
	v->size = n;
	rep->str = NULL;
}

/* A value whose header already shows it bad: not fetched further (payload
 * NULL), and refused by jc_remote_value_check() from the header. */
static int refuse_unread(const redisReply *first, uint64_t size, struct jc_remote_value *v)
{
	memcpy(v->header, first->str, JC_ENTRY_HEADER_SIZE);
	v->size = size;
	return 1;
}

/* A larger value is read in pieces of this size into one buffer of its
 * size: the memory it costs is its size and a piece, not the two or three
 * copies a whole reply passes through in hiredis. */
#define PIECE (4 * 1024 * 1024)

/* The value of size bytes whose first ones are in first: the rest, piece by
 * piece (each answer within the timeout), the last piece asked one byte
 * further, so that a value longer than its header says is seen.  1 read
 * (or refused unread), 0 changed meanwhile (then a miss), -1 failed. */
static int get_rest(struct session *s, const char *name, size_t size, const redisReply *first,
		    struct jc_remote_value *v)
{
	char *buf = malloc(size + 1);
	size_t have = first->len;
	if (!buf)
		return 0;
	memcpy(buf, first->str, have);
	while (have < size) {
		struct command cmd;
		redisReply *rep;
		char from[32], to[32];
		size_t want = size - have < PIECE ? size - have : PIECE;
		int last = have + want == size;
		snprintf(from, sizeof from, "%zu", have);
		snprintf(to, sizeof to, "%zu", have + want - 1 + last);
		command_set(&cmd, 4, ARG("GETRANGE"), ARG(name), ARG(from), ARG(to));
		if (pipeline(s, 1, &cmd, &rep, "GET") != 0) {
			free(buf);
			return -1;
		}
		int ok = rep->type == REDIS_REPLY_STRING && rep->len == want;
		int longer = rep->type == REDIS_REPLY_STRING && rep->len > want;
		if (ok)
			memcpy(buf + have, rep->str, want);
		else if (rep->type != REDIS_REPLY_STRING)
			unexpected(s, rep, "GET");
		freeReplyObject(rep);
		if (longer) { /* its header does not say its size */
			free(buf);
			return refuse_unread(first, size + 1, v);
		}
		if (!ok) {
			free(buf);
			return 0; /* shortened or gone meanwhile: a miss */
		}
		have += want;
	}
	memcpy(v->header, buf, JC_ENTRY_HEADER_SIZE);
	memmove(buf, buf + JC_ENTRY_HEADER_SIZE, size - JC_ENTRY_HEADER_SIZE);
	v->payload = buf;
	v->size = size;
	return 1;
}

/* The size of the entry whose header starts first (its payload, and its
 * signature if signed); 0 if it cannot be one. */
static uint64_t claimed_size(const redisReply *first)
{
	const uint8_t *raw = (const uint8_t *)first->str;
	uint64_t stored = jc_get_le64(raw + 32);
	uint32_t flags = (uint32_t)(jc_get_le64(raw + 8) >> 32);
	uint64_t trailer = flags & JC_ENTRY_SIGNED ? JC_SIG_TRAILER_SIZE : 0;
	if (stored > UINT64_MAX - JC_ENTRY_HEADER_SIZE - trailer)
		return 0;
	return JC_ENTRY_HEADER_SIZE + stored + trailer;
}

/* GETRANGE name 0 first_read(r)-1: with a limit below FIRST_READ, one byte
 * more than the limit, so that a value over it shows so. */
static size_t first_read(const struct jc_redis *r)
{
	return r->limit < FIRST_READ ? (size_t)r->limit + 1 : FIRST_READ;
}

/* The rest of a lookup whose first GETRANGE (of first_read(r) bytes)
 * answered first: 1 found (v filled), 0 absent or refused as too large
 * (said once), -1 failed.  first is the caller's to free. */
static int get_finish(struct session *s, const struct jc_key *key, const char *name,
		      redisReply *first, struct jc_remote_value *v)
{
	const uint64_t limit = s->r->limit;
	if (first->type != REDIS_REPLY_STRING) {
		unexpected(s, first, "GET");
		return -1;
	}
	if (first->len == 0)
		return 0;
	if (first->len < first_read(s->r)) { /* the whole value */
		take_value(first, v);
		return 1;
	}
	/* Longer than what was asked, or exactly as long: its header says. */
	uint64_t size = first->len >= JC_ENTRY_HEADER_SIZE ? claimed_size(first) : 0;
	if (first->len > limit || size > limit) {
		JC_LOG_ONCE(JC_LOG_WARN, "remote %s: a value of %llu bytes or more is larger than "
			    "max_size allows (%llu bytes); not read, compiling here", s->r->shown,
			    (unsigned long long)(size > first->len ? size : first->len),
			    (unsigned long long)limit);
		s->delta[JC_REMOTE_CORRUPT]++;
		return 0;
	}
	if (size < first->len) { /* longer than its header says, or no header */
		take_value(first, v);
		return 1; /* refused by the check: its size does not match */
	}
	struct jc_entry_header h;
	const char *why;
	if (jc_accept_header((const uint8_t *)first->str, size, key, limit, &h, &why) != JC_ENTRY_OK)
		return refuse_unread(first, size, v);
	return get_rest(s, name, (size_t)size, first, v);
}

static void first_command(const struct jc_redis *r, const char *name, struct command *cmd,
			  char last[32])
{
	snprintf(last, 32, "%zu", first_read(r) - 1);
	command_set(cmd, 4, ARG("GETRANGE"), ARG(name), ARG("0"), ARG(last));
}

/* One GETRANGE, and the rest only for a value larger than FIRST_READ.
 * 1 found, 0 absent or refused as too large (said once), -1 failed. */
static int get_bounded(struct session *s, const struct jc_key *key, const char *name,
		       struct jc_remote_value *v)
{
	struct command cmd;
	redisReply *rep;
	char last[32];
	first_command(s->r, name, &cmd, last);
	if (pipeline(s, 1, &cmd, &rep, "GET") != 0)
		return -1;
	int rc = get_finish(s, key, name, rep, v);
	freeReplyObject(rep);
	return rc;
}

/* A lookup's failure: JC_REMOTE_REFUSED when its login was refused, now
 * or by the exchange (any process's) that started the back-off. */
static int lookup_failed(struct jc_redis *r)
{
	int refused = login_refused || (r && jc_backoff_cause(&r->down) == DOWN_LOGIN);
	login_refused = 0;
	return refused ? JC_REMOTE_REFUSED : -1;
}

int jc_redis_get(struct jc_redis *r, const struct jc_key *key, struct jc_remote_value *v,
		  uint64_t delta[JC_NCOUNTERS])
{
	struct session s;
	char name[NAME_MAX_LEN];
	memset(v, 0, sizeof *v);
	login_refused = 0;
	if (r)
		value_name(key, "", name);
	if (!r || begin(&s, r, delta, name) != 0)
		return lookup_failed(r);
	int rc = get_bounded(&s, key, name, v);
	if (rc == 1)
		delta[JC_REMOTE_BYTES_IN] += v->size;
	end(&s);
	return rc < 0 ? lookup_failed(r) : rc;
}

int jc_redis_put(struct jc_redis *r, const struct jc_key *key, const void *value, size_t size,
		 uint64_t delta[JC_NCOUNTERS])
{
	struct session s;
	struct command cmd;
	redisReply *rep;
	char name[NAME_MAX_LEN];
	if (!r || r->read_only)
		return -1;
	value_name(key, "", name);
	command_set(&cmd, 3, ARG("SET"), ARG(name), (const char *)value, size);
	int rc = -1;
	if (begin(&s, r, delta, name) == 0) {
		if (pipeline(&s, 1, &cmd, &rep, "SET") == 0) {
			if (rep->type == REDIS_REPLY_STATUS) {
				delta[JC_REMOTE_STORES]++;
				delta[JC_REMOTE_BYTES_OUT] += size;
				rc = 0;
			} else {
				unexpected(&s, rep, "SET");
			}
			freeReplyObject(rep);
		}
		end(&s);
	}
	return rc;
}

/* ---- leases ------------------------------------------------------------------------ */

/* A key's lease is "<value's name>:lease"; its holder's store (or release)
 * wakes the nodes waiting for it through "<value's name>:wake", a list of
 * one element, the value (or "1"), that lives a lease time: a waiter
 * blocks on it (BRPOPLPUSH from and to the list, which leaves the element
 * for the next waiter) with a timeout
 * of when the lease would expire, so that a waiter costs a few commands
 * however long the compile, and a holder that dies without waking anyone
 * is taken over once its lease has expired.  The names of a key: */
struct names {
	char value[NAME_MAX_LEN], lease[NAME_MAX_LEN], wake[NAME_MAX_LEN], waiting[NAME_MAX_LEN];
};

static void names_of(const struct jc_key *key, struct names *nm)
{
	value_name(key, "", nm->value);
	value_name(key, ":lease", nm->lease);
	value_name(key, ":wake", nm->wake);
	value_name(key, ":waiting", nm->waiting);
}

/* A Lua script, sent by its SHA-1 (EVALSHA): a server that does not have
 * it (new, restarted, SCRIPT FLUSH) answers NOSCRIPT, and is sent its text
 * once (EVAL), which keeps it for everyone's next EVALSHA.  sha is
 * `printf %s "$text" | sha1sum`: a wrong one costs an EVAL each time, which
 * tests/integration/fleet_redis.sh counts. */
struct script {
	const char *sha, *text;
};

/* Compare-and-renew and compare-and-delete: a lease that expired and was
 * taken by another machine is not ours to extend or remove. */
static const struct script renew_script = {
	"9136fcf51831e5cf49f109b6e9c97d5b675280d6",
	"if redis.call('get', KEYS[1]) == ARGV[1] then "
	"return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end"
};
/* A signed lease is renewed with a new value: its signature dates it. */
static const struct script resign_script = {
	"75e34a168c7115067ff24cd3c9ad245d42063bf7",
	"if redis.call('get', KEYS[1]) == ARGV[1] then "
	"return redis.call('set', KEYS[1], ARGV[3], 'PX', ARGV[2]) and 1 or 0 else return 0 end"
};
/* Read the value, or else take the lease if it is free, in one command:
 * the first look of a compile (get_or_lease) and every later one
 * of a wait.  Every lease jitcache sets expires within its lease time (PX,
 * renewed to the same), so one without an expiry, or with more than ten
 * lease times left, is not a compile in progress but a squatter's (or a
 * leftover of something else): it is removed and the lease taken, instead
 * of making every miss wait lock_timeout for it.  A lease the waiter saw go
 * unrenewed for lease_wait seconds (ARGV[3], its value's first
 * LEASE_TOKEN_MAX bytes then, and ARGV[4], its PTTL then) is removed too,
 * unless it was renewed since: a renewal raises its PTTL or, signed,
 * changes its value.  While a lease is held the wake list is emptied: its
 * element says "released", of an earlier lease (or one a node of an older
 * jitcache released without waking anyone), and would wake waiters at
 * once.  A waiter notes that it waits ("...:waiting", for two lease
 * times), so that a release with nobody waiting leaves no wake list
 * behind.  KEYS: the lease, the value (the wake list and the note are
 * named after it: a server refuses a client that has not logged in yet
 * more than 10 arguments, and says so in a way that hides its NOAUTH);
 * ARGV[1], ARGV[2]: our lease's value and PX; ARGV[5]: the last byte of
 * the value read (a GETRANGE as a lookup's).  The answer: {0, the value's
 * first bytes} the value exists; {1} taken; {2, PTTL, value} another's. */
_Static_assert(LEASE_TOKEN_MAX == 320, "take_script reads a lease's first 320 bytes");
static const struct script take_script = {
	"b113fce9c623d82c46c7e0c018c224a9556c1f78",
	"local v = redis.call('getrange', KEYS[2], 0, ARGV[5]) "
	"if v ~= '' then return {0, v} end "
	"local wake = 'jitcache:{' .. KEYS[2] .. '}:wake' "
	"local waiting = 'jitcache:{' .. KEYS[2] .. '}:waiting' "
	"local t = redis.call('pttl', KEYS[1]) "
	"if t == -1 or t > 10 * tonumber(ARGV[2]) or (ARGV[3] ~= '' and t >= 0 and "
	"t <= tonumber(ARGV[4]) and redis.call('getrange', KEYS[1], 0, 319) == ARGV[3]) then "
	"redis.call('del', KEYS[1]) end "
	"local taken = redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) "
	"redis.call('del', wake) if taken then return {1} end "
	"redis.call('set', waiting, '1', 'PX', 2 * tonumber(ARGV[2])) "
	"return {2, redis.call('pttl', KEYS[1]), redis.call('getrange', KEYS[1], 0, 319)}"
};
/* Delete the lease if still ours, and wake its waiters, if any noted that
 * they wait: the wake list's one element, for a lease time.  A lease that
 * is no longer ours wakes nobody: its new holder will.  KEYS: the lease,
 * the wake list, the note. */
static const struct script release_script = {
	"37f87d8abc0098f39c817f1ded4b9f59126b0869",
	"if redis.call('get', KEYS[1]) ~= ARGV[1] then return 0 end "
	"redis.call('del', KEYS[1], KEYS[2]) if redis.call('del', KEYS[3]) == 1 then "
	"redis.call('rpush', KEYS[2], '1') redis.call('pexpire', KEYS[2], ARGV[2]) end return 1"
};

/* The holder's store: the value written, the lease deleted if still ours,
 * and its waiters, if any noted that they wait, woken with the value
 * itself as the wake list's one element (for a lease time), so that a
 * waiter's blocking wait brings the value; a value longer than a lookup's
 * first read (FIRST_READ - 1 bytes) wakes them with "1" instead, and they
 * read it.  A lease that is no longer ours wakes nobody: its new holder
 * will.  KEYS: the value, the lease; ARGV: the value, our lease's value,
 * PX.  The answer: 1 released, 0 the lease was not ours (stored either
 * way). */
_Static_assert(FIRST_READ - 1 == 1048575, "store_script pushes values of a first read");
static const struct script store_script = {
	"c624d53b705a0d51a859cbad5ac261ffd1dff4ef",
	"redis.call('set', KEYS[1], ARGV[1]) "
	"if redis.call('get', KEYS[2]) ~= ARGV[2] then return 0 end "
	"local wake = 'jitcache:{' .. KEYS[1] .. '}:wake' "
	"redis.call('del', KEYS[2], wake) "
	"if redis.call('del', 'jitcache:{' .. KEYS[1] .. '}:waiting') == 1 then "
	"redis.call('rpush', wake, #ARGV[1] <= 1048575 and ARGV[1] or '1') "
	"redis.call('pexpire', wake, ARGV[3]) end return 1"
};

/* Run sc with nkeys keys then the other arguments (n in all; lens: their
 * lengths, or NULL for strings): its reply, or NULL (the session broken). */
static redisReply *script_run_n(struct session *s, const struct script *sc, int nkeys, int n,
				const char *const *args, const size_t *lens, const char *what)
{
	struct command cmd;
	char keys[16];
	redisReply *rep = NULL;
	snprintf(keys, sizeof keys, "%d", nkeys);
	for (int pass = 0; pass < 2; pass++) {
		command_set(&cmd, 3, ARG(pass ? "EVAL" : "EVALSHA"), ARG(pass ? sc->text : sc->sha),
			    ARG(keys));
		for (int i = 0; i < n && cmd.argc < (int)(sizeof cmd.argv / sizeof *cmd.argv); i++) {
			cmd.argv[cmd.argc] = args[i];
			cmd.lens[cmd.argc++] = lens ? lens[i] : strlen(args[i]);
		}
		if (pipeline(s, 1, &cmd, &rep, what) != 0)
			return NULL;
		if (pass || rep->type != REDIS_REPLY_ERROR || strncmp(rep->str, "NOSCRIPT", 8) != 0)
			break;
		freeReplyObject(rep);
		rep = NULL;
	}
	return rep;
}

static redisReply *script_run(struct session *s, const struct script *sc, int nkeys, int n,
			      const char *const *args, const char *what)
{
	return script_run_n(s, sc, nkeys, n, args, NULL, what);
}

static long long lease_ms(const struct jc_redis *r)
{
	return (long long)(r->lease * 1000);
}

/* Run a lease's own script (renew, resign with next: its new value, or
 * release); 1 if it acted, 0 if the lease is not ours, -1. */
static int lease_script(struct jc_redis *r, struct jc_lease *l, const struct script *sc,
			const char *next, const char *what)
{
	uint64_t delta[JC_NCOUNTERS] = { 0 };
	struct session s;
	struct names nm;
	char ms[32];
	names_of(&l->key, &nm);
	snprintf(ms, sizeof ms, "%lld", lease_ms(r));
	if (begin(&s, r, delta, nm.lease) != 0)
		return -1;
	const char *renew[] = { nm.lease, l->token, ms, next };
	const char *release[] = { nm.lease, nm.wake, nm.waiting, l->token, ms };
	redisReply *rep = sc == &release_script ? script_run(&s, sc, 3, 5, release, what)
						: script_run(&s, sc, 1, next ? 4 : 3, renew, what);
	int rc = -1;
	if (rep) {
		if (rep->type == REDIS_REPLY_INTEGER)
			rc = rep->integer > 0;
		else
			unexpected(&s, rep, what);
		freeReplyObject(rep);
	}
	end(&s);
	return rc;
}

/* ---- the lease engine's primitives (lease.h) ----------------------------------------- */

/* A signed lease is renewed with a new value (its signature dates it);
 * another, its expiry moved. */
static int redis_renew(void *z, struct jc_lease *l, const char *next)
{
	return strcmp(next, l->token) != 0
		? lease_script(z, l, &resign_script, next, "lease renewal")
		: lease_script(z, l, &renew_script, NULL, "lease renewal");
}

static void redis_release(void *z, struct jc_lease *l)
{
	lease_script(z, l, &release_script, NULL, "lease release");
}

static void redis_name_of(void *z, const struct jc_key *key, char out[JC_LEASE_NAME_MAX])
{
	(void)z;
	_Static_assert(NAME_MAX_LEN <= JC_LEASE_NAME_MAX, "a lease's name fits the engine's");
	value_name(key, ":lease", out);
}

/* Note what one look saw of the lease: a later expiry than the last look's,
 * or another value, is a renewal (or a new holder). */
static void watch_saw(struct watch *wt, const struct jc_redis *r, const char *value,
		      size_t len, long long pttl)
{
	int64_t now = jc_wall_ns(), expires = now + (int64_t)pttl * 1000000;
	if (len >= sizeof wt->value)
		len = sizeof wt->value - 1;
	if (!wt->seen || expires > wt->expires_ns + RENEWED_NS || strlen(wt->value) != len ||
	    memcmp(wt->value, value, len) != 0)
		wt->alive_ns = now;
	memcpy(wt->value, value, len);
	wt->value[len] = '\0';
	wt->pttl = pttl;
	wt->expires_ns = expires;
	wt->seen = 1;
	/* With trusted keys a lease is judged by its signed date instead. */
	wt->stale = !jc_leases_trust_required(r->leases) && now - wt->alive_ns >= (int64_t)(r->lease_wait * 1e9);
}

/* One command: read the value, or else take the lease (or take over a
 * stale one), or note what another's looks like (its value: the engine
 * judges its token).  JC_LEASE_READY with v filled as jc_redis_get() fills
 * it, or empty (size 0) for a value found but refused unread (too large:
 * said once). */
static enum jc_lease_take take(struct session *s, struct redis_lease *rl,
			       const struct names *nm, const struct jc_key *key,
			       struct jc_remote_value *v, const char *what)
{
	char ms[32], stale_pttl[32], value_end[32];
	struct watch *wt = &rl->wt;
	snprintf(value_end, sizeof value_end, "%zu", first_read(s->r) - 1);
	snprintf(ms, sizeof ms, "%lld", lease_ms(s->r));
	snprintf(stale_pttl, sizeof stale_pttl, "%lld", wt->pttl);
	const char *args[] = { nm->lease, nm->value, rl->l.token, ms, wt->stale ? wt->value : "",
			       stale_pttl, value_end };
	redisReply *rep = script_run(s, &take_script, 2, 7, args, what);
	if (!rep)
		return JC_LEASE_FAILED;
	enum jc_lease_take t = JC_LEASE_FAILED;
	redisReply **e = rep->element;
	if (rep->type == REDIS_REPLY_ERROR && strncmp(rep->str, "NOPERM", 6) == 0) {
		/* An ACL without scripting (-@scripting): the values are still
		 * read and written with plain commands; only leases need a
		 * script, and none is taken or waited for from now on. */
		__atomic_store_n(&s->r->no_scripts, 1, __ATOMIC_RELAXED);
		s->delta[JC_REMOTE_ERRORS]++;
		JC_LOG_ONCE(JC_LOG_WARN, "remote %s: scripts refused (%s); no compile leases "
			    "(machines that miss together each compile), lookups and stores go on",
			    s->r->shown, rep->str);
	} else if (rep->type != REDIS_REPLY_ARRAY || rep->elements < 1 || e[0]->type != REDIS_REPLY_INTEGER ||
	    (e[0]->integer == 0 && (rep->elements != 2 || e[1]->type != REDIS_REPLY_STRING)) ||
	    (e[0]->integer == 2 && (rep->elements != 3 || e[1]->type != REDIS_REPLY_INTEGER ||
				    e[2]->type != REDIS_REPLY_STRING))) {
		unexpected(s, rep, what);
	} else if (e[0]->integer == 0) {
		int got = get_finish(s, key, nm->value, e[1], v);
		if (got == 1)
			s->delta[JC_REMOTE_BYTES_IN] += v->size;
		t = got < 0 ? JC_LEASE_FAILED : JC_LEASE_READY;
	} else if (e[0]->integer == 1) {
		t = JC_LEASE_TAKEN;
	} else {
		size_t n = e[2]->len < LEASE_TOKEN_MAX ? e[2]->len : LEASE_TOKEN_MAX - 1;
		memcpy(rl->l.seen, e[2]->str, n);
		rl->l.seen[n] = '\0';
		watch_saw(wt, s->r, e[2]->str, e[2]->len, e[1]->integer);
		t = JC_LEASE_HELD; /* not yet: keep waiting */
	}
	freeReplyObject(rep);
	return t;
}

/* A blocking wait is given this long past the lease's expiry, which Redis
 * sees to within a millisecond, and lasts 10 ms at least (0 would be for
 * ever). */
#define EXPIRED_NS 10000000
#define BLOCK_MIN_NS 10000000

/* Block until the holder wakes us (its value written and its lease
 * released: the wake list's element is the value itself, or "1" for one
 * larger than a first read, then read), its lease would have expired or
 * gone stale, or the deadline.  JC_REMOTE_READY with v filled (or empty:
 * refused unread), JC_REMOTE_TIMEOUT (not woken: look again), or FAILED. */
static enum jc_remote_wait block(struct session *s, const struct names *nm,
				 const struct jc_key *key, const struct watch *wt,
				 int64_t deadline_ns, struct jc_remote_value *v)
{
	struct jc_redis *r = s->r;
	int64_t until = wt->expires_ns + EXPIRED_NS;
	if (!jc_leases_trust_required(r->leases) && wt->alive_ns + (int64_t)(r->lease_wait * 1e9) < until)
		until = wt->alive_ns + (int64_t)(r->lease_wait * 1e9);
	if (deadline_ns < until)
		until = deadline_ns;
	int64_t ns = until - jc_wall_ns();
	if (ns <= 0 || wt->stale || __atomic_load_n(&r->no_blocking, __ATOMIC_RELAXED))
		return JC_REMOTE_TIMEOUT;
	if (ns < BLOCK_MIN_NS)
		ns = BLOCK_MIN_NS;
	struct command cmd;
	redisReply *rep;
	char secs[32];
	snprintf(secs, sizeof secs, "%.3f", (double)((ns + 999999) / 1000000) / 1e3);
	command_set(&cmd, 4, ARG("BRPOPLPUSH"), ARG(nm->wake), ARG(nm->wake), ARG(secs));
	/* The wake list's element: a value of FIRST_READ - 1 bytes at most,
	 * whatever this node's limit (get_finish refuses one over it). */
	if (pipeline_blocking(s, 1, &cmd, &rep, "a lease wait", ns, FIRST_READ + 4096) != 0)
		return JC_REMOTE_FAILED;
	int got = 0;
	if (rep->type == REDIS_REPLY_ERROR) {
		/* Before Redis 6 (a timeout in seconds only), or refused by
		 * its ACL: waiters look again every 200 ms instead. */
		__atomic_store_n(&r->no_blocking, 1, __ATOMIC_RELAXED);
		JC_LOG_ONCE(JC_LOG_INFO, "remote %s: BRPOPLPUSH refused (%s); waiting for compile "
			    "leases by looking every 200 ms instead", r->shown, rep->str);
	} else if (rep->type == REDIS_REPLY_STRING && rep->len >= JC_ENTRY_HEADER_SIZE) {
		got = get_finish(s, key, nm->value, rep, v); /* the value: checked as a GET's */
		got = got < 0 ? -1 : 1;
	} else if (rep->type == REDIS_REPLY_STRING) { /* "1": woken, the value to read */
		got = get_bounded(s, key, nm->value, v);
	} else if (rep->type != REDIS_REPLY_NIL) {
		unexpected(s, rep, "a lease wait");
		got = -1;
	}
	if (got == 1 && v->size)
		s->delta[JC_REMOTE_BYTES_IN] += v->size;
	freeReplyObject(rep);
	return got > 0 ? JC_REMOTE_READY : got < 0 ? JC_REMOTE_FAILED : JC_REMOTE_TIMEOUT;
}

/* Try-take: one command (take). */
static enum jc_lease_take redis_try_take(void *z, struct jc_lease *l, int first,
					 struct jc_remote_value *v, uint64_t delta[JC_NCOUNTERS])
{
	struct jc_redis *r = z;
	struct redis_lease *rl = (struct redis_lease *)l;
	struct names nm;
	struct session s;
	(void)first;
	if (r->read_only || __atomic_load_n(&r->no_scripts, __ATOMIC_RELAXED))
		return JC_LEASE_NONE; /* never waits: a lease is not its business, or
				       * cannot be taken (scripts refused: said) */
	names_of(&l->key, &nm);
	if (begin(&s, r, delta, nm.value) != 0)
		return JC_LEASE_FAILED;
	int took_over = rl->wt.stale;
	enum jc_lease_take t = take(&s, rl, &nm, &l->key, v, "a lease request");
	end(&s);
	if (t == JC_LEASE_TAKEN && took_over)
		JC_LOG_ONCE(JC_LOG_INFO, "remote %s: another machine's compile lease "
			    "was waited for %g s (lease_wait) without being renewed: "
			    "taken over, compiling here", r->shown, r->lease_wait);
	return t;
}

/* Wait-hint: block until woken (block), or, where Redis cannot block,
 * look again after 5 ms, doubling to 200 ms. */
static enum jc_remote_wait redis_wait_hint(void *z, struct jc_lease *l, int64_t deadline_ns,
					   struct jc_remote_value *v,
					   uint64_t delta[JC_NCOUNTERS])
{
	struct jc_redis *r = z;
	struct redis_lease *rl = (struct redis_lease *)l;
	struct names nm;
	struct session s;
	names_of(&l->key, &nm);
	if (begin(&s, r, delta, nm.value) != 0)
		return JC_REMOTE_FAILED;
	enum jc_remote_wait w = block(&s, &nm, &l->key, &rl->wt, deadline_ns, v);
	end(&s);
	int64_t left = deadline_ns - jc_wall_ns();
	if (w == JC_REMOTE_TIMEOUT && left > 0 &&
	    __atomic_load_n(&r->no_blocking, __ATOMIC_RELAXED) && !rl->wt.stale) {
		if (!rl->pause)
			rl->pause = 5000000;
		jc_lease_sleep(rl->pause < left ? rl->pause : left);
		rl->pause = rl->pause * 2 < 200000000 ? rl->pause * 2 : 200000000;
	}
	return w;
}

static const struct jc_lease_kind redis_kind = {
	.name = "Redis",
	.size = sizeof(struct redis_lease),
	.name_of = redis_name_of,
	.try_take = redis_try_take,
	.renew = redis_renew,
	.release = redis_release,
	.wait_hint = redis_wait_hint,
};

/* ---- the first look, and the store that releases ----------------------------------- */

/* The first look of a compile: as jc_redis_get(), but where the value is
 * absent the same command (the lease's take) takes the key's lease, or
 * sees who holds it; *look is then what it learnt (NULL if nothing), for
 * the engine's wait, which starts from it.  A read-only server, or one
 * that refused scripts: jc_redis_get(). */
static int get_or_lease(struct jc_redis *r, const struct jc_key *key, struct jc_remote_value *v,
			struct jc_lease **look, uint64_t delta[JC_NCOUNTERS])
{
	struct names nm;
	struct session s;
	*look = NULL;
	memset(v, 0, sizeof *v);
	if (!r || r->read_only || __atomic_load_n(&r->no_scripts, __ATOMIC_RELAXED))
		return jc_redis_get(r, key, v, delta);
	names_of(key, &nm);
	struct jc_lease *l = jc_lease_new(r->leases, key);
	if (!l)
		return jc_redis_get(r, key, v, delta);
	login_refused = 0;
	if (begin(&s, r, delta, nm.value) != 0) {
		jc_lease_free(l);
		return lookup_failed(r);
	}
	/* a lookup, as the user sees it */
	enum jc_lease_take t = take(&s, (struct redis_lease *)l, &nm, key, v, "GET");
	int rc = 0;
	if (t == JC_LEASE_FAILED && !s.broken && !jc_backoff_active(&r->down))
		rc = get_bounded(&s, key, nm.value, v); /* the script refused: a plain lookup */
	else if (t == JC_LEASE_FAILED)
		rc = -1;
	else if (t == JC_LEASE_READY)
		rc = v->size ? 1 : 0; /* found, or refused unread (said) */
	end(&s);
	if (rc == 1 && t == JC_LEASE_FAILED)
		delta[JC_REMOTE_BYTES_IN] += v->size;
	if (t == JC_LEASE_TAKEN || t == JC_LEASE_HELD) {
		jc_lease_looked(l, t); /* taken: renewed from now on */
		*look = l;
	} else {
		jc_lease_free(l);
	}
	return rc < 0 ? lookup_failed(r) : rc;
}

/* jc_redis_put(), then the lease's release, in one command (the store
 * script) where the lease is this server's and ours: the waiters are
 * woken with the value.  The lease is freed.  0 if stored. */
static int put_release(struct jc_redis *r, const struct jc_key *key, const void *value,
		       size_t size, struct jc_lease *l, uint64_t delta[JC_NCOUNTERS])
{
	if (!r || r->read_only || !l || l->e != r->leases || !jc_lease_ours(l)) {
		int rc = jc_redis_put(r, key, value, size, delta);
		jc_lease_release(l);
		return rc;
	}
	jc_lease_stop(l); /* before the script deletes it: not renewed, nor said lost */
	struct session s;
	struct names nm;
	char ms[32];
	names_of(key, &nm);
	snprintf(ms, sizeof ms, "%lld", lease_ms(r));
	const char *args[] = { nm.value, nm.lease, value, l->token, ms };
	const size_t lens[] = { strlen(nm.value), strlen(nm.lease), size, strlen(l->token),
				strlen(ms) };
	int rc = -1;
	if (begin(&s, r, delta, nm.value) == 0) {
		redisReply *rep = script_run_n(&s, &store_script, 2, 5, args, lens, "SET");
		if (rep && rep->type == REDIS_REPLY_INTEGER) {
			delta[JC_REMOTE_STORES]++;
			delta[JC_REMOTE_BYTES_OUT] += size;
			rc = 0;
		} else if (rep) {
			unexpected(&s, rep, "a store script");
		}
		if (rep)
			freeReplyObject(rep);
		end(&s);
	}
	if (rc != 0 && !jc_backoff_active(&r->down)) { /* refused (scripts, memory): as before */
		rc = jc_redis_put(r, key, value, size, delta);
		redis_release(r, l);
	}
	jc_lease_free(l);
	return rc;
}

/* ---- the tier's operations (tier.h) ------------------------------------------ */

static void *tier_open(const struct jc_tier_open *o)
{
	struct jc_redis *r = jc_redis_open(o->opts, o->spec, o->read_only, o->state_dir, o->limit);
	if (r && !(r->leases = jc_leases_open(&redis_kind, r, r->shown, r->lease, r->lease_wait))) {
		jc_redis_close(r);
		r = NULL;
	}
	return r;
}

/* look: the first look of a compile, which takes the lease (the engine's
 * leases over this tier, tier_leases) or sees who holds it. */
static int tier_get(void *t, const struct jc_key *key, struct jc_remote_value *v,
		    struct jc_remote_lease **look, uint64_t delta[JC_NCOUNTERS])
{
	return look ? get_or_lease(t, key, v, (struct jc_lease **)look, delta)
		    : jc_redis_get(t, key, v, delta);
}

/* lease: stored and released in one script (one only looked at: let go). */
static int tier_put(void *t, const struct jc_key *key, const void *bytes, size_t n,
		    struct jc_remote_lease **lease, uint64_t delta[JC_NCOUNTERS])
{
	struct jc_lease *l = lease ? (struct jc_lease *)*lease : NULL;
	if (!l)
		return jc_redis_put(t, key, bytes, n, delta);
	*lease = NULL;
	return put_release(t, key, bytes, n, l, delta);
}

static void tier_describe(void *t, char *out, size_t size)
{
	snprintf(out, size, "redis %s", ((struct jc_redis *)t)->shown);
}

static void tier_close(void *t)
{
	struct jc_redis *r = t;
	if (r)
		jc_leases_close(r->leases);
	jc_redis_close(r);
}

/* The leases are the engine's over this tier. */
static void *tier_leases(void *t, const struct jc_remote_options *opts)
{
	(void)opts;
	return ((struct jc_redis *)t)->leases;
}

const struct jc_tier_ops jc_tier_redis = {
	.name = "redis",
	.slot = JC_SLOT_REDIS,
	.wait_looks = 1,
	.open = tier_open,
	.get = tier_get,
	.put = tier_put,
	.describe = tier_describe,
	.close = tier_close,
	.lease_order = 1,
	.leases_open = tier_leases,
	.set_keys = jc_leases_tier_set_keys,
	.wait = jc_leases_tier_wait,
	.release = jc_leases_tier_release,
};
