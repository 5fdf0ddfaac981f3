// SPDX-License-Identifier: MIT
/* redis.c — the Redis remote through hiredis: connections, values and
 * compile leases.  See redis.h. */
#include "tiers/redis.h"
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


/* Longest name: "jitcache:v1:" + 32 hex digits + ":waiting". */
#define NAME_MAX_LEN 64
/* A lease's value: "HOST/PID/NONCE/MS" and, signed, "/" + 144 hex digits. */
#define LEASE_TOKEN_MAX 320
#define LEASE_NOTE "jitcache-lease-v1"

/* A connection and the process that made it: after fork() a child must not
 * talk over its parent's socket.  dev and ino are what its socket is: a
 * program that closes descriptors it did not open and opens its own may
 * have put one of its files under the same number, which must then be
 * neither written nor closed. */
struct conn {
	redisContext *ctx;
	pid_t pid;
	int reused; /* kept from an earlier exchange: the server may have closed it */
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
	struct conn *idle[JC_REMOTE_WRITERS + 1]; /* connections ready for reuse (atomic):
						     one per writer thread and the program's */
	const struct jc_signer *signer; /* signs this node's leases; or NULL */
	const struct jc_trust *trust;  /* with trust_required: the leases waited for */
	int trust_required;
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

/* A lease: ours (taken, renewed by a thread until released), or what a
 * lookup learnt of another's (jc_redis_get_or_lease: watched, or not
 * trusted), handed to jc_redis_wait. */
struct jc_remote_lease {
	struct jc_redis *r;
	char name[NAME_MAX_LEN], wake[NAME_MAX_LEN], waiting[NAME_MAX_LEN];
	char token[LEASE_TOKEN_MAX];
	char holder[96];          /* "HOST/PID/NONCE": the token's first part */
	pid_t pid;
	int ours;                 /* taken: renewed, and released */
	int untrusted;            /* another's, not trusted (trust_required) */
	struct watch wt;          /* another's, as the lookup saw it */
	pthread_t thread;
	int has_thread, stop;
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

/* ---- problems, once per kind, and back-off ------------------------------ */

enum problem { P_CONNECT, P_IO, P_PROTOCOL, P_AUTH, P_REFUSED, P_LEASE, P_COUNT };
static int told[P_COUNT];

/* Why the remote is skipped (the back-off's cause): its login refused. */
#define DOWN_LOGIN 1
/* This thread's exchange met a refused login (the back-off may be 0 s). */
static __thread int login_refused;

__attribute__((format(printf, 4, 5)))
static void problem(struct jc_redis *r, enum problem kind, int skip, const char *fmt, ...)
{
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

static struct conn *connect_now(struct jc_redis *r)
{
	redisContext *c = r->url.is_unix
		? redisConnectUnixWithTimeout(r->url.path, r->connect_tv)
		: redisConnectWithTimeout(r->url.host, r->url.port, r->connect_tv);
	struct conn *cn = c ? malloc(sizeof *cn) : NULL;
	if (!cn || c->err) {
		problem(r, P_CONNECT, 1, "cannot connect (%s)", c ? c->errstr : "out of memory");
		if (c)
			redisFree(c);
		free(cn);
		return NULL;
	}
	struct stat st;
	cn->ctx = c;
	cn->pid = getpid();
	cn->reused = 0;
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

/* Take an idle connection, or make one. */
static struct conn *checkout(struct jc_redis *r)
{
	for (size_t i = 0; i < sizeof r->idle / sizeof *r->idle; i++) {
		struct conn *cn = __atomic_exchange_n(&r->idle[i], NULL, __ATOMIC_ACQ_REL);
		if (cn && cn->pid == getpid() && conn_owned(cn)) {
			cn->reused = 1;
			return cn;
		}
		conn_free(cn); /* inherited through fork() (the parent's, not ours), or
				  closed by the program */
	}
	return connect_now(r);
}

static void checkin(struct jc_redis *r, struct conn *cn)
{
	for (size_t i = 0; i < sizeof r->idle / sizeof *r->idle; i++) {
		struct conn *none = NULL;
		if (__atomic_compare_exchange_n(&r->idle[i], &none, cn, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			return;
	}
	conn_free(cn); /* others' are kept instead */
}

/* ---- one exchange with the server ----------------------------------------- */

struct session {
	struct jc_redis *r;
	struct conn *cn;
	struct jc_pipe_guard pipe;
	uint64_t *delta;
	int broken;
};

static int begin(struct session *s, struct jc_redis *r, uint64_t *delta)
{
	*s = (struct session){ .r = r, .delta = delta };
	if (jc_backoff_active(&r->down))
		return -1;
	jc_pipe_block(&s->pipe);
	s->cn = checkout(r);
	if (!s->cn) {
		delta[JC_REMOTE_ERRORS]++;
		jc_pipe_unblock(&s->pipe);
		return -1;
	}
	return 0;
}

static void end(struct session *s)
{
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

static int send_and_read(const struct jc_redis *r, redisContext *c, int n, struct command *cmd,
			 redisReply **rep, int64_t blocking_ns, size_t most)
{
	int got = 0;
	int64_t deadline = deadline_of(r) + blocking_ns;
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

static int pipeline_blocking(struct session *s, int n, struct command *cmd, redisReply **rep,
			     const char *what, int64_t blocking_ns, size_t most)
{
	if (send_and_read(s->r, s->cn->ctx, n, cmd, rep, blocking_ns, most) == 0)
		return 0;
	if (closed_while_idle(s->cn)) {
		conn_free(s->cn);
		s->cn = connect_now(s->r);
		if (s->cn && send_and_read(s->r, s->cn->ctx, n, cmd, rep, blocking_ns, most) == 0)
			return 0;
	}
	if (s->cn)
		io_failed(s->r, s->cn->ctx, what);
	s->broken = 1;
	s->delta[JC_REMOTE_ERRORS]++;
	return -1;
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
	} else {
		problem(s->r, P_REFUSED, 0, "%s refused (%s)", what, rep->str);
	}
}

static void value_name(const struct jc_key *key, const char *suffix, char out[NAME_MAX_LEN])
{
	char hex[2 * JC_KEY_BYTES + 1];
	jc_key_hex(key, hex);
	snprintf(out, NAME_MAX_LEN, "jitcache:v%d:%s%s", JC_ENTRY_VERSION, hex, suffix);
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
	return r;
}

void jc_redis_close(struct jc_redis *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < sizeof r->idle / sizeof *r->idle; i++)
		conn_free(__atomic_exchange_n(&r->idle[i], NULL, __ATOMIC_ACQ_REL));
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
	if (!r || begin(&s, r, delta) != 0)
		return lookup_failed(r);
	value_name(key, "", name);
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
	if (begin(&s, r, delta) == 0) {
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
 * the first look of a compile (jc_redis_get_or_lease) and every later one
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
	"ab17cd08da138e18ef8ab339cc59525c939b2447",
	"local v = redis.call('getrange', KEYS[2], 0, ARGV[5]) "
	"if v ~= '' then return {0, v} end "
	"local wake, waiting = KEYS[2] .. ':wake', KEYS[2] .. ':waiting' "
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
	"f788549812fd572e29e7bc4afe30cb301bbcade1",
	"redis.call('set', KEYS[1], ARGV[1]) "
	"if redis.call('get', KEYS[2]) ~= ARGV[2] then return 0 end "
	"local wake = KEYS[1] .. ':wake' "
	"redis.call('del', KEYS[2], wake) if redis.call('del', KEYS[1] .. ':waiting') == 1 then "
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
static int lease_script(struct jc_remote_lease *l, const struct script *sc, const char *next,
			const char *what)
{
	uint64_t delta[JC_NCOUNTERS] = { 0 };
	struct session s;
	char ms[32];
	snprintf(ms, sizeof ms, "%lld", lease_ms(l->r));
	if (begin(&s, l->r, delta) != 0)
		return -1;
	const char *renew[] = { l->name, l->token, ms, next };
	const char *release[] = { l->name, l->wake, l->waiting, l->token, ms };
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

static int64_t wall_ms(void)
{
	return jc_wall_ns() / 1000000;
}

/* What a lease's signature covers: the lease's name (so its key), and the
 * first len bytes of its value, "HOST/PID/NONCE/MS".  The length of msg,
 * or -1 if it does not fit. */
static int lease_message(char msg[NAME_MAX_LEN + LEASE_TOKEN_MAX], const char *name,
			 const char *token, int len)
{
	int m = snprintf(msg, NAME_MAX_LEN + LEASE_TOKEN_MAX, "%s\n%.*s", name, len, token);
	return m < 0 || m >= NAME_MAX_LEN + LEASE_TOKEN_MAX ? -1 : m;
}

/* The lease's value: who holds it and since when; with a signing key, the
 * signature of that and the lease's name, so that a node with trusted keys
 * can tell a trusted node's compile from a squatter's value. */
static void make_token(const struct jc_remote_lease *l, const char *holder,
		       char out[LEASE_TOKEN_MAX])
{
	int n = snprintf(out, LEASE_TOKEN_MAX, "%s/%lld", holder, (long long)wall_ms());
	if (!l->r->signer || n < 0 || n >= LEASE_TOKEN_MAX - 2 * JC_SIG_TRAILER_SIZE - 2)
		return;
	char msg[NAME_MAX_LEN + LEASE_TOKEN_MAX];
	int m = lease_message(msg, l->name, out, n);
	if (m < 0)
		return;
	uint8_t sig[JC_SIG_TRAILER_SIZE];
	jc_sign_note(l->r->signer, LEASE_NOTE, msg, (size_t)m, sig);
	char *p = out + n;
	*p++ = '/';
	for (size_t i = 0; i < sizeof sig; i++, p += 2)
		snprintf(p, 3, "%02x", sig[i]);
}

/* Whether a lease's value is a trusted node's, and fresh: signed by a
 * trusted key for this name within a lease time (and 5 s of clock skew)
 * of now.  A squatter's value, or a trusted one copied later, is not. */
static int lease_trusted(const struct jc_redis *r, const char *name, const char *token,
			 const char **why)
{
	const char *slash = strrchr(token, '/');
	uint8_t sig[JC_SIG_TRAILER_SIZE];
	if (!slash || strlen(slash + 1) != 2 * sizeof sig)
		return *why = "not signed", 0;
	for (size_t i = 0; i < sizeof sig; i++) {
		unsigned v;
		if (sscanf(slash + 1 + 2 * i, "%2x", &v) != 1)
			return *why = "not signed", 0;
		sig[i] = (uint8_t)v;
	}
	const char *ms_at = slash;
	while (ms_at > token && ms_at[-1] != '/')
		ms_at--;
	long long since = strtoll(ms_at, NULL, 10), now = (long long)wall_ms();
	char msg[NAME_MAX_LEN + LEASE_TOKEN_MAX];
	int m = lease_message(msg, name, token, (int)(slash - token));
	if (m < 0 || jc_trust_verify_note(r->trust, LEASE_NOTE, msg, (size_t)m, sig, why) != 0)
		return 0;
	if (now - since > lease_ms(r) + 5000 || since - now > 5000)
		return *why = "signed, but not renewed within a lease time", 0;
	return 1;
}

static void *renew_loop(void *arg)
{
	struct jc_remote_lease *l = arg;
	int64_t period_ns = (int64_t)(l->r->lease * 1e9 / 3);
	pthread_mutex_lock(&l->mu);
	while (!l->stop) {
		struct timespec until;
		clock_gettime(CLOCK_MONOTONIC, &until);
		int64_t ns = until.tv_nsec + period_ns;
		until.tv_sec += ns / 1000000000;
		until.tv_nsec = ns % 1000000000;
		while (!l->stop && pthread_cond_timedwait(&l->cv, &l->mu, &until) != ETIMEDOUT) {
		}
		if (l->stop)
			break;
		pthread_mutex_unlock(&l->mu);
		char next[LEASE_TOKEN_MAX];
		if (l->r->signer)
			make_token(l, l->holder, next);
		int renewed = l->r->signer
			? lease_script(l, &resign_script, next, "lease renewal")
			: lease_script(l, &renew_script, NULL, "lease renewal");
		if (renewed > 0 && l->r->signer)
			memcpy(l->token, next, sizeof next);
		if (renewed == 0) {
			if (jc_log_first(&told[P_LEASE]))
				jc_log(JC_LOG_INFO, "remote %s: a compile lease expired before it "
				       "could be renewed; another machine may compile the same "
				       "kernel", l->r->shown);
			pthread_mutex_lock(&l->mu);
			break;
		}
		pthread_mutex_lock(&l->mu);
	}
	pthread_mutex_unlock(&l->mu);
	return NULL;
}

/* The renewal thread takes no signal of the host's. */
static void start_renewal(struct jc_remote_lease *l)
{
	jc_cond_init_mono(&l->cv);
	pthread_mutex_init(&l->mu, NULL);
	l->has_thread = jc_thread_start(&l->thread, renew_loop, l);
	if (!l->has_thread)
		JC_LOG_ONCE(JC_LOG_INFO, "cannot start a thread to renew compile leases; a compile "
			    "longer than the lease may be repeated on another machine");
}

static struct jc_remote_lease *new_lease(struct jc_redis *r, const struct names *nm)
{
	struct jc_remote_lease *l = calloc(1, sizeof *l);
	if (!l)
		return NULL;
	char host[64] = "?";
	uint64_t nonce;
	gethostname(host, sizeof host - 1);
	if (getrandom(&nonce, sizeof nonce, GRND_NONBLOCK) != sizeof nonce)
		nonce = (uint64_t)jc_wall_ns() ^ (uint64_t)getpid() << 32;
	l->r = r;
	l->pid = getpid();
	memcpy(l->name, nm->lease, sizeof l->name);
	memcpy(l->wake, nm->wake, sizeof l->wake);
	memcpy(l->waiting, nm->waiting, sizeof l->waiting);
	snprintf(l->holder, sizeof l->holder, "%s/%d/%016llx", host, (int)l->pid,
		 (unsigned long long)nonce);
	make_token(l, l->holder, l->token);
	return l;
}

/* Stop renewing the lease (ours: its thread joined). */
static void stop_renewal(struct jc_remote_lease *l)
{
	if (!l->has_thread)
		return;
	jc_thread_stop(l->thread, &l->mu, &l->cv, &l->stop);
	l->has_thread = 0;
}

void jc_redis_release(struct jc_remote_lease *l)
{
	if (!l)
		return;
	if (l->pid != getpid() || !l->ours) { /* a fork()ed child's copy (the parent's
						  to release), or another's looked at */
		free(l);
		return;
	}
	stop_renewal(l);
	lease_script(l, &release_script, NULL, "lease release");
	free(l);
}

int jc_redis_put_release(struct jc_redis *r, const struct jc_key *key, const void *value,
			 size_t size, struct jc_remote_lease *l, uint64_t delta[JC_NCOUNTERS])
{
	if (!r || r->read_only || !l || l->r != r || !l->ours || l->pid != getpid()) {
		int rc = jc_redis_put(r, key, value, size, delta);
		jc_redis_release(l);
		return rc;
	}
	stop_renewal(l); /* before the script deletes it: not renewed, nor said lost */
	struct session s;
	struct names nm;
	char ms[32];
	names_of(key, &nm);
	snprintf(ms, sizeof ms, "%lld", lease_ms(r));
	const char *args[] = { nm.value, nm.lease, value, l->token, ms };
	const size_t lens[] = { strlen(nm.value), strlen(nm.lease), size, strlen(l->token),
				strlen(ms) };
	int rc = -1;
	if (begin(&s, r, delta) == 0) {
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
		lease_script(l, &release_script, NULL, "lease release");
	}
	free(l);
	return rc;
}

static void sleep_ns(int64_t ns)
{
	struct timespec ts = { ns / 1000000000, ns % 1000000000 };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
	}
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
	wt->stale = !r->trust_required && now - wt->alive_ns >= (int64_t)(r->lease_wait * 1e9);
}

/* One command: read the value, or else take the lease (or take over a
 * stale one), or note what another's looks like (JC_REMOTE_TIMEOUT).
 * JC_REMOTE_READY with v filled as jc_redis_get() fills it, or empty (size
 * 0) for a value found but refused unread (too large: said once). */
static enum jc_remote_wait take(struct session *s, struct jc_remote_lease *l,
				const struct names *nm, struct watch *wt,
				const struct jc_key *key, struct jc_remote_value *v, const char *what)
{
	char ms[32], stale_pttl[32], value_end[32];
	snprintf(value_end, sizeof value_end, "%zu", first_read(s->r) - 1);
	if (s->r->signer)
		make_token(l, l->holder, l->token); /* signed as of now */
	snprintf(ms, sizeof ms, "%lld", lease_ms(s->r));
	snprintf(stale_pttl, sizeof stale_pttl, "%lld", wt->pttl);
	const char *args[] = { nm->lease, nm->value, l->token, ms, wt->stale ? wt->value : "",
			       stale_pttl, value_end };
	redisReply *rep = script_run(s, &take_script, 2, 7, args, what);
	if (!rep)
		return JC_REMOTE_FAILED;
	enum jc_remote_wait w = JC_REMOTE_FAILED;
	redisReply **e = rep->element;
	const char *why = "";
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
		w = got < 0 ? JC_REMOTE_FAILED : JC_REMOTE_READY;
	} else if (e[0]->integer == 1) {
		w = JC_REMOTE_LEASED;
	} else if (s->r->trust_required && e[2]->len > 0 &&
		   !lease_trusted(s->r, l->name, e[2]->str, &why)) {
		/* With trusted keys, only a trusted node's compile is waited
		 * for: whoever else can write Redis cannot make misses wait. */
		JC_LOG_ONCE(JC_LOG_WARN, "remote %s: a compile lease is not waited for (%s; "
			    "trusted_keys): compiling here", s->r->shown, why);
		w = JC_REMOTE_FREE;
	} else {
		watch_saw(wt, s->r, e[2]->str, e[2]->len, e[1]->integer);
		w = JC_REMOTE_TIMEOUT; /* not yet: keep waiting */
	}
	freeReplyObject(rep);
	return w;
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
	if (!r->trust_required && wt->alive_ns + (int64_t)(r->lease_wait * 1e9) < until)
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

void jc_redis_set_keys(struct jc_redis *r, const struct jc_signer *signer,
			const struct jc_trust *trust, int trust_required)
{
	if (!r)
		return;
	r->signer = signer;
	r->trust = trust;
	r->trust_required = trust_required;
}

int jc_redis_get_or_lease(struct jc_redis *r, const struct jc_key *key,
			  struct jc_remote_value *v, struct jc_remote_lease **look,
			  uint64_t delta[JC_NCOUNTERS])
{
	struct names nm;
	struct session s;
	*look = NULL;
	memset(v, 0, sizeof *v);
	if (!r || r->read_only || __atomic_load_n(&r->no_scripts, __ATOMIC_RELAXED))
		return jc_redis_get(r, key, v, delta);
	names_of(key, &nm);
	struct jc_remote_lease *l = new_lease(r, &nm);
	if (!l)
		return jc_redis_get(r, key, v, delta);
	login_refused = 0;
	if (begin(&s, r, delta) != 0) {
		free(l);
		return lookup_failed(r);
	}
	/* a lookup, as the user sees it */
	enum jc_remote_wait w = take(&s, l, &nm, &l->wt, key, v, "GET");
	int rc = 0;
	if (w == JC_REMOTE_FAILED && !s.broken && !jc_backoff_active(&r->down))
		rc = get_bounded(&s, key, nm.value, v); /* the script refused: a plain lookup */
	else if (w == JC_REMOTE_FAILED)
		rc = -1;
	else if (w == JC_REMOTE_READY)
		rc = v->size ? 1 : 0; /* found, or refused unread (said) */
	end(&s);
	if (rc == 1 && w == JC_REMOTE_FAILED)
		delta[JC_REMOTE_BYTES_IN] += v->size;
	if (w == JC_REMOTE_LEASED) {
		l->ours = 1;
		start_renewal(l);
	}
	l->untrusted = w == JC_REMOTE_FREE;
	if (w == JC_REMOTE_LEASED || w == JC_REMOTE_TIMEOUT || w == JC_REMOTE_FREE)
		*look = l;
	else
		free(l);
	return rc < 0 ? lookup_failed(r) : rc;
}

enum jc_remote_wait jc_redis_wait(struct jc_redis *r, const struct jc_key *key,
				   int64_t deadline_ns, struct jc_remote_lease *look,
				   struct jc_remote_lease **lease, struct jc_remote_value *v,
				   uint64_t delta[JC_NCOUNTERS])
{
	struct names nm;
	*lease = NULL;
	memset(v, 0, sizeof *v);
	if (look && (look->r != r || look->pid != getpid())) {
		jc_redis_release(look);
		look = NULL;
	}
	if (!r) {
		jc_redis_release(look);
		return JC_REMOTE_FAILED;
	}
	if (r->read_only || __atomic_load_n(&r->no_scripts, __ATOMIC_RELAXED)) {
		jc_redis_release(look);
		return JC_REMOTE_FREE; /* never waits: a lease is not its business, or
					* cannot be taken (scripts refused: said) */
	}
	if (look && look->ours) { /* taken by the lookup */
		*lease = look;
		return JC_REMOTE_LEASED;
	}
	if (look && look->untrusted) {
		free(look);
		return JC_REMOTE_FREE;
	}
	names_of(key, &nm);
	struct jc_remote_lease *l = look ? look : new_lease(r, &nm);
	if (!l)
		return JC_REMOTE_FAILED;
	/* A lease is waited for while its holder renews it (every third of a
	 * lease time), until the deadline (lock_timeout): a compile of any
	 * length is done once.  Without trusted keys one not seen renewed for
	 * lease_wait seconds is a dead holder's (or a squatter's) and taken
	 * over; one a squatter keeps renewing costs the deadline at most.
	 * Where Redis cannot block (no_blocking), the lease is looked at every
	 * 5 ms, doubling to 200 ms.  What the lookup saw of another's lease
	 * (look) is the first look: the wait starts by blocking. */
	struct watch wt = look ? look->wt : (struct watch){ .seen = 0 };
	int looked = look != NULL;
	int64_t pause = 5000000;
	enum jc_remote_wait w;
	for (;;) {
		struct session s;
		if (begin(&s, r, delta) != 0) {
			w = JC_REMOTE_FAILED;
			break;
		}
		int took_over = wt.stale;
		w = looked ? JC_REMOTE_TIMEOUT : take(&s, l, &nm, &wt, key, v, "a lease request");
		looked = 0;
		if (w == JC_REMOTE_TIMEOUT)
			w = block(&s, &nm, key, &wt, deadline_ns, v);
		end(&s);
		if (w == JC_REMOTE_LEASED && took_over)
			JC_LOG_ONCE(JC_LOG_INFO, "remote %s: another machine's compile lease "
				    "was waited for %g s (lease_wait) without being renewed: "
				    "taken over, compiling here", r->shown, r->lease_wait);
		if (w != JC_REMOTE_TIMEOUT)
			break;
		int64_t left = deadline_ns - jc_wall_ns();
		if (left <= 0)
			break;
		if (__atomic_load_n(&r->no_blocking, __ATOMIC_RELAXED) && !wt.stale) {
			sleep_ns(pause < left ? pause : left);
			pause = pause * 2 < 200000000 ? pause * 2 : 200000000;
		}
	}
	if (w == JC_REMOTE_LEASED) {
		l->ours = 1;
		start_renewal(l);
		*lease = l;
	} else {
		free(l);
	}
	return w;
}

/* ---- the tier's operations (tier.h) ------------------------------------------ */

static void *tier_open(const struct jc_tier_open *o)
{
	return jc_redis_open(o->opts, o->spec, o->read_only, o->state_dir, o->limit);
}

/* look: the first look of a compile, which takes the lease (the leases
 * are the tier's own handle, tier_leases) or sees who holds it. */
static int tier_get(void *t, const struct jc_key *key, struct jc_remote_value *v,
		    struct jc_remote_lease **look, uint64_t delta[JC_NCOUNTERS])
{
	return look ? jc_redis_get_or_lease(t, key, v, look, delta) : jc_redis_get(t, key, v, delta);
}

/* lease: stored and released in one script (one only looked at: let go). */
static int tier_put(void *t, const struct jc_key *key, const void *bytes, size_t n,
		    struct jc_remote_lease **lease, uint64_t delta[JC_NCOUNTERS])
{
	struct jc_remote_lease *l = lease ? *lease : NULL;
	if (!l)
		return jc_redis_put(t, key, bytes, n, delta);
	*lease = NULL;
	return jc_redis_put_release(t, key, bytes, n, l, delta);
}

static void tier_describe(void *t, char *out, size_t size)
{
	snprintf(out, size, "redis %s", ((struct jc_redis *)t)->shown);
}

static void tier_close(void *t)
{
	jc_redis_close(t);
}

/* The leases are the tier's own: the same handle. */
static void *tier_leases(void *t, const struct jc_remote_options *opts)
{
	(void)opts;
	return t;
}

static void tier_set_keys(void *z, const struct jc_signer *signer, const struct jc_trust *trust,
			  int trust_required)
{
	jc_redis_set_keys(z, signer, trust, trust_required);
}

static enum jc_remote_wait tier_wait(void *z, const struct jc_key *key, int64_t deadline_ns,
				     struct jc_remote_lease *look, struct jc_remote_lease **lease,
				     struct jc_remote_value *v, uint64_t delta[JC_NCOUNTERS])
{
	return jc_redis_wait(z, key, deadline_ns, look, lease, v, delta);
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
	.set_keys = tier_set_keys,
	.wait = tier_wait,
	.release = jc_redis_release,
};
