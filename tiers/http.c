// SPDX-License-Identifier: MIT
/* http.c — the HTTP(S) and S3 tiers through libcurl, loaded at run time
 * (dlopen) only when such a tier is configured.  See http.h. */
#include "tiers/http.h"

#include "tiers/client.h"
#include "tiers/sigv4.h"
#include "store/fsutil.h"
#include "store/object.h"
#include "config/readfile.h"
#include "config/remote_url.h"
#include "config/log.h"

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>


#ifndef JC_VERSION /* the fuzz targets' builds */
#define JC_VERSION "dev"
#endif

/* ---- libcurl, declared in curl_abi.h: no libcurl headers needed ----- */
#include "tiers/curl_abi.h"

static struct {
	int (*global_init)(long);
	void *(*easy_init)(void);
	int (*easy_setopt)(void *, int, ...);
	int (*easy_perform)(void *);
	int (*easy_getinfo)(void *, int, ...);
	void (*easy_reset)(void *);
	void (*easy_cleanup)(void *);
	const char *(*easy_strerror)(int);
	struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
	void (*slist_free_all)(struct curl_slist *);
	const char *why; /* NULL once loaded */
} curl = { .why = "not tried" };
static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

/* libcurl is never unloaded: a handle may outlive us in a fork()ed child,
 * and unloading TLS libraries inside a host process is asking for trouble. */
typedef void *(*dlsym_fn)(void *, const char *);

static void load_curl(void)
{
	/* glibc's dlsym, not the shim's door of the same name (the library
	 * exports one): dlvsym is not interposed. */
	dlsym_fn find = (dlsym_fn)dlvsym(RTLD_DEFAULT, "dlsym", "GLIBC_2.34");
	if (!find)
		find = (dlsym_fn)dlvsym(RTLD_DEFAULT, "dlsym", "GLIBC_2.2.5");
	void *lib = find ? dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL) : NULL;
	if (!lib) {
		curl.why = "libcurl.so.4 cannot be loaded (install libcurl4)";
		return;
	}
#define SYM(field, name) (*(void **)&curl.field = find(lib, name))
	if (!SYM(global_init, "curl_global_init") || !SYM(easy_init, "curl_easy_init") ||
	    !SYM(easy_setopt, "curl_easy_setopt") || !SYM(easy_perform, "curl_easy_perform") ||
	    !SYM(easy_getinfo, "curl_easy_getinfo") || !SYM(easy_reset, "curl_easy_reset") ||
	    !SYM(easy_cleanup, "curl_easy_cleanup") ||
	    !SYM(easy_strerror, "curl_easy_strerror") ||
	    !SYM(slist_append, "curl_slist_append") ||
	    !SYM(slist_free_all, "curl_slist_free_all")) {
		curl.why = "libcurl.so.4 lacks a function jitcache uses";
		return;
	}
#undef SYM
	if (curl.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		curl.why = "libcurl cannot be initialised";
		return;
	}
	curl.why = NULL;
}

/* ---- the tier ------------------------------------------------------------ */

enum problem { P_CONNECT, P_IO, P_PROTOCOL, P_AUTH, P_SERVER, P_REDIRECT, P_TLS, P_REFUSED,
	       P_LARGE, P_COUNT };

#define MAX_SOCKETS 4

/* A libcurl handle (and the connection it keeps), the process that made it
 * and the sockets it opened: after fork() a child must not talk over its
 * parent's connection, and a program that closes descriptors it did not
 * open may have put a file of its own under a socket's number. */
struct handle {
	void *curl;
	pid_t pid;
	struct {
		int fd;
		dev_t dev;
		ino_t ino;
	} sock[MAX_SOCKETS];
};

struct jc_http {
	char shown[512];       /* the URL, for messages */
	char base[512];        /* scheme://authority */
	char host[300];        /* the authority: Host header, signed for S3 */
	char path[1024];       /* the path objects live under, encoded, no trailing / */
	enum jc_remote_layout layout;
	int s3;
	struct jc_sigv4_creds creds;
	char auth_header[1024]; /* "Authorization: Bearer ..." or "" */
	char userpwd[512];      /* basic auth "USER:PASSWORD" or "" */
	char ca_file[PATH_MAX];
	long connect_ms, timeout_ms;
	double timeout;
	uint64_t limit;
	struct jc_backoff down; /* skipped after a failure (client.h) */
	struct handle *idle[JC_REMOTE_WRITERS + 1]; /* atomic: one per writer thread
						       and the program's */
	int told[P_COUNT];
};

/* ---- problems, once per kind (and back-off: client.h) ------------------- */

__attribute__((format(printf, 4, 5)))
static void problem(struct jc_http *h, enum problem kind, int skip, const char *fmt, ...)
{
	if (skip)
		jc_backoff_start(&h->down);
	va_list ap;
	va_start(ap, fmt);
	jc_remote_problem(&h->told[kind], h->shown, skip ? &h->down : NULL, fmt, ap);
	va_end(ap);
}


/* ---- handles ------------------------------------------------------------- */

static int sock_owned(const struct handle *hd, int i)
{
	struct stat st;
	return hd->sock[i].fd >= 0 && fstat(hd->sock[i].fd, &st) == 0 && S_ISSOCK(st.st_mode) &&
	       st.st_dev == hd->sock[i].dev && st.st_ino == hd->sock[i].ino;
}

static int open_socket(void *data, int purpose, struct curl_sockaddr *a)
{
	struct handle *hd = data;
	int fd = socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0)
		return fd;
	for (int i = 0; i < MAX_SOCKETS; i++)
		if (hd->sock[i].fd < 0) {
			hd->sock[i].fd = fd;
			hd->sock[i].dev = st.st_dev;
			hd->sock[i].ino = st.st_ino;
			break;
		}
	return fd;
}

/* A socket is closed only if it is still ours. */
static int close_socket(void *data, int fd)
{
	struct handle *hd = data;
	for (int i = 0; i < MAX_SOCKETS; i++)
		if (hd->sock[i].fd == fd) {
			int ours = sock_owned(hd, i);
			hd->sock[i].fd = -1;
			return ours ? close(fd) : 0;
		}
	return close(fd);
}

/* Can the handle be used (or freed) by this process?  One made before
 * fork(), or whose socket is no longer ours, is dropped without a word to
 * its connection: freeing it would write to the socket (TLS says goodbye),
 * which is the parent's, or the program's file now.  A little memory is
 * lost instead, once. */
static int handle_sound(const struct handle *hd)
{
	if (hd->pid != getpid())
		return 0;
	for (int i = 0; i < MAX_SOCKETS; i++)
		if (hd->sock[i].fd >= 0 && !sock_owned(hd, i))
			return 0;
	return 1;
}

static void handle_free(struct handle *hd)
{
	if (hd && handle_sound(hd)) {
		curl.easy_cleanup(hd->curl);
		free(hd);
	}
}

static struct handle *checkout(struct jc_http *h)
{
	struct handle *hd;
	for (size_t i = 0; i < sizeof h->idle / sizeof *h->idle; i++) {
		hd = __atomic_exchange_n(&h->idle[i], NULL, __ATOMIC_ACQ_REL);
		if (hd && handle_sound(hd)) {
			curl.easy_reset(hd->curl);
			return hd;
		}
		handle_free(hd);
	}
	hd = calloc(1, sizeof *hd);
	if (!hd)
		return NULL;
	hd->curl = curl.easy_init();
	if (!hd->curl) {
		free(hd);
		return NULL;
	}
	hd->pid = getpid();
	for (int i = 0; i < MAX_SOCKETS; i++)
		hd->sock[i].fd = -1;
	return hd;
}

static void checkin(struct jc_http *h, struct handle *hd)
{
	for (size_t i = 0; i < sizeof h->idle / sizeof *h->idle; i++) {
		struct handle *none = NULL;
		if (__atomic_compare_exchange_n(&h->idle[i], &none, hd, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			return;
	}
	handle_free(hd);
}

/* ---- one request ------------------------------------------------------------ */

/* A non-200 answer's body is read (and dropped) up to this size, so that a
 * 404 keeps its connection; beyond it the transfer stops. */
#define DROPPED_MAX (64 * 1024)

struct xfer {
	struct jc_http *h;
	struct handle *hd;
	const struct jc_key *key;
	long code;
	int64_t expect;          /* Content-Length, or the size the header gives
				    (a body of no stated length), or -1 */
	int started, too_large, bad_start, checked_start, overlong;
	uint8_t *buf;
	size_t len, cap, dropped;
	const uint8_t *up;       /* PUT: the body */
	size_t up_len, up_pos;
	const char *const *extra; /* more request headers, NULL-ended; or NULL */
	struct jc_http_answer *answer; /* jc_http_exchange, jc_http_request: the answer */
	long timeout_ms;          /* jc_http_request: its own bound; 0: the remote's */
	char err[CURL_ERROR_SIZE];
};

/* Could an object of size bytes starting with these be a sound entry for
 * key?  One that cannot is not read further.  A body of no stated length
 * (chunked, or ended by closing) is held to the size its header gives,
 * checked against the limit before any more of it is taken. */
static int sound_start(struct xfer *x)
{
	if (x->expect < 0) {
		uint32_t flags = (uint32_t)(jc_get_le64(x->buf + 8) >> 32);
		uint64_t stored = jc_get_le64(x->buf + 32);
		uint64_t trailer = flags & JC_ENTRY_SIGNED ? JC_SIG_TRAILER_SIZE : 0;
		if (stored > (uint64_t)INT64_MAX / 2)
			stored = (uint64_t)INT64_MAX / 2; /* refused by the limit below */
		x->expect = (int64_t)(JC_ENTRY_HEADER_SIZE + trailer + stored);
	}
	struct jc_entry_header eh;
	const char *why;
	return jc_accept_header(x->buf, (uint64_t)x->expect, x->key, x->h->limit, &eh, &why) ==
	       JC_ENTRY_OK;
}

/* jc_http_request's answer: its first bytes kept, the rest dropped. */
static size_t on_answer(struct xfer *x, const char *data, size_t n)
{
	struct jc_http_answer *a = x->answer;
	size_t room = sizeof a->body - 1 - a->body_len;
	memcpy(a->body + a->body_len, data, n < room ? n : room);
	a->body_len += n < room ? n : room;
	a->body[a->body_len] = '\0';
	x->dropped += n;
	return x->dropped > DROPPED_MAX ? 0 : n;
}


static size_t on_body(char *data, size_t size, size_t nmemb, void *arg)
{
	struct xfer *x = arg;
	size_t n = size * nmemb;
	if (x->answer)
		return on_answer(x, data, n);
	if (!x->started) {
		long code = 0;
		int64_t length = -1;
		x->started = 1;
		curl.easy_getinfo(x->hd->curl, CURLINFO_RESPONSE_CODE, &code);
		curl.easy_getinfo(x->hd->curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
		x->code = code;
		x->expect = length;
		if (code == 200 && length >= 0 && (uint64_t)length > x->h->limit)
			return x->too_large = 1, 0;
		if (code == 200 && length >= 0) {
			x->buf = malloc((size_t)length + 1);
			x->cap = (size_t)length + 1;
			if (!x->buf)
				return 0;
		}
	}
	if (x->code != 200) {
		x->dropped += n;
		return x->dropped > DROPPED_MAX ? 0 : n;
	}
	if (x->len + n > x->h->limit)
		return x->too_large = 1, 0;
	/* more than its header (or Content-Length) said: not this entry, and
	 * not read further (jc_remote_value_check refuses its size) */
	if (x->checked_start && x->len + n > (uint64_t)x->expect)
		return x->overlong = 1, 0;
	if (x->len + n > x->cap) {
		size_t cap = x->cap ? x->cap : 64 * 1024;
		while (cap < x->len + n)
			cap *= 2;
		if (x->checked_start && cap > (uint64_t)x->expect)
			cap = (size_t)x->expect; /* no more than the header said */
		uint8_t *more = realloc(x->buf, cap);
		if (!more)
			return 0;
		x->buf = more;
		x->cap = cap;
	}
	memcpy(x->buf + x->len, data, n);
	x->len += n;
	if (!x->checked_start && x->len >= JC_ENTRY_HEADER_SIZE) {
		x->checked_start = 1;
		if (!sound_start(x))
			return x->bad_start = 1, 0;
		if (x->len > (uint64_t)x->expect)
			return x->overlong = 1, 0;
	}
	return n;
}

static size_t on_upload(char *to, size_t size, size_t nmemb, void *arg)
{
	struct xfer *x = arg;
	size_t n = size * nmemb, left = x->up_len - x->up_pos;
	if (n > left)
		n = left;
	memcpy(to, x->up + x->up_pos, n);
	x->up_pos += n;
	return n;
}

static void object_path(const struct jc_http *h, const struct jc_key *key, char *out, size_t cap)
{
	jc_object_path(h->path, key, h->layout, out, cap);
}

/* "Fri, 27 Nov 2026 08:09:33 GMT" (RFC 9110's IMF-fixdate, which S3
 * sends), without the locale's month names; 0 if not one. */
static time_t http_date(const char *v)
{
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	char mon[4];
	struct tm tm = { 0 };
	if (sscanf(v, "%*3s, %d %3s %d %d:%d:%d", &tm.tm_mday, mon, &tm.tm_year, &tm.tm_hour,
		   &tm.tm_min, &tm.tm_sec) != 6 || strlen(mon) != 3)
		return 0;
	const char *m = strstr(months, mon);
	if (!m || (m - months) % 3)
		return 0;
	tm.tm_mon = (int)(m - months) / 3;
	tm.tm_year -= 1900;
	return timegm(&tm);
}

/* The answer's headers a lease needs (jc_http_exchange, jc_http_request):
 * ETag, Date, Last-Modified (S3's leases) and Lock-Token (WebDAV's). */
static size_t on_header(char *data, size_t size, size_t nmemb, void *arg)
{
	struct jc_http_answer *a = ((struct xfer *)arg)->answer;
	size_t n = size * nmemb;
	char line[256];
	snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line - 1 ? n : sizeof line - 1),
		 data);
	line[strcspn(line, "\r\n")] = '\0';
	const char *colon = strchr(line, ':'), *v = colon ? colon + 1 + strspn(colon + 1, " \t") : "";
	size_t name = colon ? (size_t)(colon - line) : 0;
	if (strncmp(line, "HTTP/", 5) == 0) { /* a new answer (after a 100): forget the last */
		a->etag[0] = a->lock_token[0] = '\0';
		a->date = a->last_modified = 0;
	} else if (name == 4 && strncasecmp(line, "etag", 4) == 0) {
		snprintf(a->etag, sizeof a->etag, "%s", v);
	} else if (name == 4 && strncasecmp(line, "date", 4) == 0) {
		a->date = http_date(v);
	} else if (name == 13 && strncasecmp(line, "last-modified", 13) == 0) {
		a->last_modified = http_date(v);
	} else if (name == 10 && strncasecmp(line, "lock-token", 10) == 0) {
		size_t len = strlen(v);
		while (len && v[len - 1] == ' ')
			len--;
		if (len < sizeof a->lock_token)
			snprintf(a->lock_token, sizeof a->lock_token, "%.*s", (int)len, v);
	}
	return n;
}


/* Set up and run one request; the curl result code. */
static int perform(struct jc_http *h, struct xfer *x, const char *method, const char *path)
{
	char url[sizeof h->base + 1200], agent[64], host_line[sizeof h->host + 8];
	struct curl_slist *headers = NULL;
	void *c = x->hd->curl;
	snprintf(url, sizeof url, "%s%s", h->base, path);
	snprintf(agent, sizeof agent, "jitcache/%s", JC_VERSION);
	curl.easy_setopt(c, CURLOPT_URL, url);
	curl.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl.easy_setopt(c, CURLOPT_PROTOCOLS, CURLPROTO_HTTP | CURLPROTO_HTTPS);
	curl.easy_setopt(c, CURLOPT_REDIR_PROTOCOLS, 0L);
	curl.easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl.easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
	curl.easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
	if (h->ca_file[0])
		curl.easy_setopt(c, CURLOPT_CAINFO, h->ca_file);
	curl.easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, h->connect_ms);
	curl.easy_setopt(c, CURLOPT_TIMEOUT_MS, x->timeout_ms ? x->timeout_ms : h->timeout_ms);
	curl.easy_setopt(c, CURLOPT_MAXCONNECTS, 1L);
	curl.easy_setopt(c, CURLOPT_USERAGENT, agent);
	curl.easy_setopt(c, CURLOPT_ERRORBUFFER, x->err);
	curl.easy_setopt(c, CURLOPT_OPENSOCKETFUNCTION, open_socket);
	curl.easy_setopt(c, CURLOPT_OPENSOCKETDATA, x->hd);
	curl.easy_setopt(c, CURLOPT_CLOSESOCKETFUNCTION, close_socket);
	curl.easy_setopt(c, CURLOPT_CLOSESOCKETDATA, x->hd);
	curl.easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl.easy_setopt(c, CURLOPT_WRITEDATA, x);
	if (strcmp(method, "GET") != 0 && strcmp(method, "PUT") != 0)
		curl.easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	if (strcmp(method, "HEAD") == 0)
		curl.easy_setopt(c, CURLOPT_NOBODY, 1L);
	if (x->answer) {
		curl.easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
		curl.easy_setopt(c, CURLOPT_HEADERDATA, x);
	}
	for (const char *const *line = x->extra; line && *line; line++)
		headers = curl.slist_append(headers, *line);
	if (x->up) {
		curl.easy_setopt(c, CURLOPT_UPLOAD, 1L);
		curl.easy_setopt(c, CURLOPT_READFUNCTION, on_upload);
		curl.easy_setopt(c, CURLOPT_READDATA, x);
		curl.easy_setopt(c, CURLOPT_INFILESIZE_LARGE, (int64_t)x->up_len);
		headers = curl.slist_append(headers, "Expect:"); /* no 100-continue round trip */
	}
	if (h->s3) {
		struct jc_sigv4_headers sig;
		char sha[65] = JC_SIGV4_EMPTY_SHA256;
		if (x->up)
			jc_sigv4_sha256_hex(x->up, x->up_len, sha);
		jc_sigv4_sign(&h->creds, method, h->host, path, sha, time(NULL), &sig);
		snprintf(host_line, sizeof host_line, "Host: %s", h->host);
		headers = curl.slist_append(headers, host_line);
		for (int i = 0; i < sig.n; i++)
			headers = curl.slist_append(headers, sig.line[i]);
	} else if (h->auth_header[0]) {
		headers = curl.slist_append(headers, h->auth_header);
	} else if (h->userpwd[0]) {
		curl.easy_setopt(c, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
		curl.easy_setopt(c, CURLOPT_USERPWD, h->userpwd);
	}
	if (headers)
		curl.easy_setopt(c, CURLOPT_HTTPHEADER, headers);
	struct jc_pipe_guard g;
	jc_pipe_block(&g);
	int rc = curl.easy_perform(c);
	jc_pipe_unblock(&g);
	if (!x->started)
		curl.easy_getinfo(c, CURLINFO_RESPONSE_CODE, &x->code);
	curl.easy_setopt(c, CURLOPT_HTTPHEADER, NULL);
	curl.easy_setopt(c, CURLOPT_ERRORBUFFER, NULL);
	curl.slist_free_all(headers);
	return rc;
}

/* Say why a transfer failed (and skip the remote a while). */
static void transfer_failed(struct jc_http *h, const struct xfer *x, int rc, const char *what)
{
	const char *detail = x->err[0] ? x->err : curl.easy_strerror(rc);
	switch (rc) {
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST:
		problem(h, P_CONNECT, 1, "cannot connect (%s)", detail);
		break;
	case CURLE_OPERATION_TIMEDOUT:
		problem(h, P_IO, 1, "no whole answer to %s within %g s", what, h->timeout);
		break;
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_SSL_CACERT_BADFILE:
		problem(h, P_TLS, 1, "TLS failed, nothing was exchanged (%s)", detail);
		break;
	case CURLE_UNSUPPORTED_PROTOCOL:
	case CURLE_WEIRD_SERVER_REPLY:
	case CURLE_GOT_NOTHING:
		problem(h, P_PROTOCOL, 1, "the answer to %s is not HTTP (%s)", what, detail);
		break;
	default:
		problem(h, P_IO, 1, "%s failed (%s)", what, detail);
		break;
	}
}

/* Say what an HTTP status other than the ones expected means. */
static void status_failed(struct jc_http *h, long code, const char *what)
{
	if (code == 401 || code == 403)
		problem(h, P_AUTH, 1, "%s refused: HTTP %ld (check the credentials%s)", what, code,
			h->s3 ? "" : " in auth_file");
	else if (code >= 300 && code < 400)
		problem(h, P_REDIRECT, 1, "%s answered with a redirect (HTTP %ld), which is not "
			"followed: give the final URL", what, code);
	else if (code >= 500)
		problem(h, P_SERVER, 1, "%s failed on the server: HTTP %ld", what, code);
	else
		problem(h, P_REFUSED, 0, "%s refused: HTTP %ld", what, code);
}

/* Move the object read into v: header copied, the rest moved to the front
 * of the buffer, which becomes v->payload. */
static void take_value(struct xfer *x, struct jc_remote_value *v)
{
	size_t head = x->len < JC_ENTRY_HEADER_SIZE ? x->len : JC_ENTRY_HEADER_SIZE;
	if (head)
		memcpy(v->header, x->buf, head);
	if (x->buf)
		memmove(x->buf, x->buf + head, x->len - head);
	v->payload = x->buf ? x->buf : malloc(1);
	v->size = x->len;
	x->buf = NULL;
}

int jc_http_get(struct jc_http *h, const struct jc_key *key, struct jc_remote_value *v,
		uint64_t delta[JC_NCOUNTERS])
{
	memset(v, 0, sizeof *v);
	if (!h || jc_backoff_active(&h->down) || jc_http_load() != 0)
		return -1;
	struct xfer x = { .h = h, .key = key, .expect = -1 };
	char path[1200];
	if (!(x.hd = checkout(h))) {
		delta[JC_REMOTE_ERRORS]++;
		return -1;
	}
	object_path(h, key, path, sizeof path);
	int rc = perform(h, &x, "GET", path), found = -1;
	if (x.too_large) {
		char size[48] = "an object of no stated size";
		if (x.expect >= 0)
			snprintf(size, sizeof size, "an object of %lld bytes", (long long)x.expect);
		problem(h, P_LARGE, 0, "%s is larger than max_size allows (%llu bytes); not read, "
			"compiling here", size, (unsigned long long)h->limit);
		delta[JC_REMOTE_CORRUPT]++;
		found = 0;
	} else if (x.bad_start || x.overlong) {
		/* Its header already says it is bad, or it is longer than its
		 * header says: the rest is not read. */
		memcpy(v->header, x.buf, JC_ENTRY_HEADER_SIZE);
		v->size = (uint64_t)x.expect + (uint64_t)x.overlong;
		delta[JC_REMOTE_BYTES_IN] += x.len;
		found = 1;
	} else if (rc != CURLE_OK && !(rc == CURLE_WRITE_ERROR && x.code >= 300)) {
		/* (a refusal whose long body was cut short is said by its status) */
		transfer_failed(h, &x, rc, "GET");
		delta[JC_REMOTE_ERRORS]++;
	} else if (x.code == 200) {
		delta[JC_REMOTE_BYTES_IN] += x.len;
		take_value(&x, v);
		found = v->payload ? 1 : -1;
	} else if (x.code == 404 || x.code == 410) {
		found = 0;
	} else {
		status_failed(h, x.code, "GET");
		delta[JC_REMOTE_ERRORS]++;
	}
	free(x.buf);
	checkin(h, x.hd);
	return found;
}

int jc_http_put(struct jc_http *h, const struct jc_key *key, const void *bytes, size_t n,
		uint64_t delta[JC_NCOUNTERS])
{
	if (!h || jc_backoff_active(&h->down) || jc_http_load() != 0)
		return -1;
	struct xfer x = { .h = h, .key = key, .expect = -1, .up = bytes, .up_len = n };
	char path[1200];
	if (!(x.hd = checkout(h))) {
		delta[JC_REMOTE_ERRORS]++;
		return -1;
	}
	object_path(h, key, path, sizeof path);
	int rc = perform(h, &x, "PUT", path), ok = -1;
	if (rc != CURLE_OK && !(rc == CURLE_WRITE_ERROR && x.code >= 300)) {
		transfer_failed(h, &x, rc, "PUT");
		delta[JC_REMOTE_ERRORS]++;
	} else if (x.code == 200 || x.code == 201 || x.code == 204) {
		delta[JC_REMOTE_STORES]++;
		delta[JC_REMOTE_BYTES_OUT] += n;
		ok = 0;
	} else {
		status_failed(h, x.code, "PUT");
		delta[JC_REMOTE_ERRORS]++;
	}
	free(x.buf);
	checkin(h, x.hd);
	return ok;
}

int jc_http_exchange(struct jc_http *h, const struct jc_key *key, const char *suffix,
		     const char *method, const char *const headers[], const void *body, size_t n,
		     struct jc_http_answer *a, uint64_t delta[JC_NCOUNTERS])
{
	memset(a, 0, sizeof *a);
	if (!h || jc_backoff_active(&h->down) || jc_http_load() != 0)
		return -1;
	struct xfer x = { .h = h, .key = key, .expect = -1, .up = body, .up_len = n,
			  .extra = headers, .answer = a };
	char path[1300];
	if (!(x.hd = checkout(h))) {
		delta[JC_REMOTE_ERRORS]++;
		return -1;
	}
	object_path(h, key, path, sizeof path - 64);
	snprintf(path + strlen(path), 64, "%s", suffix);
	int rc = perform(h, &x, method, path), ok = -1;
	if (rc != CURLE_OK) {
		transfer_failed(h, &x, rc, method);
		delta[JC_REMOTE_ERRORS]++;
	} else if (x.code == 401 || x.code == 403 || x.code >= 500 ||
		   (x.code >= 300 && x.code < 400 && x.code != 304)) {
		status_failed(h, x.code, method);
		delta[JC_REMOTE_ERRORS]++;
	} else {
		a->code = x.code;
		delta[JC_REMOTE_BYTES_OUT] += n;
		ok = 0;
	}
	checkin(h, x.hd);
	return ok;
}

/* ---- requests of the WebDAV leases (http_lease.c) ------------------------------ */

int jc_http_request(struct jc_http *h, const char *method, const struct jc_key *key,
		    enum jc_http_target at, const char *const *headers, const void *body,
		    size_t n, struct jc_http_answer *a, uint64_t delta[JC_NCOUNTERS])
{
	memset(a, 0, sizeof *a);
	if (!h || h->s3 || jc_backoff_active(&h->down) || jc_http_load() != 0)
		return -1;
	struct xfer x = { .h = h, .key = key, .expect = -1, .up = body, .up_len = n,
			  .answer = a, .extra = headers,
			  .timeout_ms = h->timeout_ms < JC_WEB_LEASE_TIMEOUT_MS ? h->timeout_ms
						: JC_WEB_LEASE_TIMEOUT_MS };
	char path[1200], hex[2 * JC_KEY_BYTES + 1];
	if (!(x.hd = checkout(h))) {
		delta[JC_REMOTE_ERRORS]++;
		return -1;
	}
	jc_key_hex(key, hex);
	if (at == JC_HTTP_ENTRY)
		object_path(h, key, path, sizeof path);
	else
		snprintf(path, sizeof path, "%s/leases/%s", h->path,
			 at == JC_HTTP_LEASE ? hex : "README");
	int rc = perform(h, &x, method, path);
	if (rc != CURLE_OK && !(rc == CURLE_WRITE_ERROR && x.code >= 300)) {
		/* (a lease request answered slowly is the leases' to judge: the
		 * values' transfers, off the program's path, may still be done) */
		if (rc == CURLE_OPERATION_TIMEDOUT)
			problem(h, P_IO, 0, "no answer to %s (a compile lease) within %ld ms; "
				"compiling without waiting for other machines", method, x.timeout_ms);
		else
			transfer_failed(h, &x, rc, method);
		delta[JC_REMOTE_ERRORS]++;
		x.code = -1;
	}
	a->code = x.code;
	checkin(h, x.hd);
	return (int)x.code;
}

const char *jc_http_url(const struct jc_http *h)
{
	return h ? h->shown : "";
}

/* ---- opening ------------------------------------------------------------------ */

static const char *env(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

/* Where an s3://BUCKET[/PREFIX] remote's objects are: the endpoint, and
 * the path under it. */
static int place_s3(const struct jc_bucket_url *u, struct jc_http *h, const char **why)
{
	if (jc_sigv4_load(&h->creds, why) != 0)
		return -1;
	const char *endpoint = env("AWS_ENDPOINT_URL_S3") ? env("AWS_ENDPOINT_URL_S3")
							 : env("AWS_ENDPOINT_URL");
	char at[sizeof h->path + 80];
	if (endpoint) { /* path-style, as MinIO, Ceph and rclone need */
		struct jc_web_url w;
		if (jc_remote_url_web(endpoint, &w, why) != 0)
			return *why = "AWS_ENDPOINT_URL is not an http:// or https:// URL", -1;
		snprintf(h->base, sizeof h->base, "%s", w.base);
		snprintf(h->host, sizeof h->host, "%s", w.host);
		snprintf(at, sizeof at, "%s/%s", w.path, u->bucket);
	} else if (strchr(u->bucket, '.')) { /* a dotted name breaks the TLS wildcard */
		snprintf(h->host, sizeof h->host, "s3.%s.amazonaws.com", h->creds.region);
		snprintf(at, sizeof at, "/%s", u->bucket);
	} else {
		snprintf(h->host, sizeof h->host, "%s.s3.%s.amazonaws.com", u->bucket,
			 h->creds.region);
		at[0] = '\0';
	}
	if (!endpoint)
		snprintf(h->base, sizeof h->base, "https://%s", h->host);
	int n = snprintf(h->path, sizeof h->path, "%s%s%s", at, u->prefix[0] ? "/" : "",
			 u->prefix);
	if (n < 0 || (size_t)n >= sizeof h->path)
		return *why = "a prefix too long", -1;
	h->s3 = 1;
	return 0;
}

/* An auth file holds one line; anything larger is not one. */
#define AUTH_FILE_MAX 4096

static int read_auth(const char *path, struct jc_http *h, const char **why)
{
	size_t len = 0;
	struct stat st;
	char *text = jc_read_small_file(path, AUTH_FILE_MAX, &len, why);
	if (!text)
		return -1;
	size_t n = strcspn(text, "\r\n");
	text[n] = '\0';
	int rc = -1;
	if (stat(path, &st) == 0 && (st.st_uid != geteuid() || (st.st_mode & 077)))
		*why = "readable by others or not the user's own (chmod 600 it)";
	else if (n > 7 && strncasecmp(text, "Bearer ", 7) == 0 && n < sizeof h->auth_header - 32)
		rc = snprintf(h->auth_header, sizeof h->auth_header, "Authorization: Bearer %s",
			      text + 7) > 0 ? 0 : -1;
	else if (n > 1 && strchr(text, ':') && text[0] != ':' && n < sizeof h->userpwd)
		rc = snprintf(h->userpwd, sizeof h->userpwd, "%s", text) > 0 ? 0 : -1;
	else
		*why = "its first line is neither \"Bearer TOKEN\" nor \"USER:PASSWORD\"";
	explicit_bzero(text, len);
	free(text);
	return rc;
}

/* The URL for messages: a password in it is not shown.  Cut to cap. */
static void show_url(const char *url, char *out, size_t cap)
{
	char whole[JC_REMOTE_URL_MAX + 8];
	const char *auth = strstr(url, "://");
	auth = auth ? auth + 3 : url;
	const char *end = auth + strcspn(auth, "/"), *at = memchr(auth, '@', (size_t)(end - auth));
	if (at)
		snprintf(whole, sizeof whole, "%.*s***%s", (int)(auth - url), url, at);
	else
		snprintf(whole, sizeof whole, "%s", url);
	snprintf(out, cap, "%.*s", (int)cap - 1, whole);
}

static long to_ms(double seconds)
{
	if (!(seconds >= 0.001))
		return 1;
	return seconds > 3600 ? 3600000 : (long)(seconds * 1000);
}

struct jc_http *jc_http_open(const struct jc_http_options *o, const char *state_dir)
{
	const char *why = "";
	if (!o || !o->spec)
		return NULL;
	struct jc_http *h = calloc(1, sizeof *h);
	if (!h)
		return NULL;
	const struct jc_remote_spec *sp = o->spec;
	show_url(sp->url, h->shown, sizeof h->shown);
	int s3 = sp->kind == JC_REMOTE_S3;
	if (!s3 && sp->kind != JC_REMOTE_HTTP) {
		jc_log(JC_LOG_WARN, "remote URL %s is not valid (not http://, https:// or s3://); "
		       "remote tier disabled", h->shown);
		goto fail;
	}
	if (s3 && place_s3(&sp->at.bucket, h, &why) != 0) {
		jc_log(JC_LOG_WARN, "remote URL %s is not valid (%s); remote tier disabled",
		       h->shown, why);
		goto fail;
	}
	if (!s3) {
		snprintf(h->base, sizeof h->base, "%s", sp->at.web.base);
		snprintf(h->host, sizeof h->host, "%s", sp->at.web.host);
		snprintf(h->path, sizeof h->path, "%s", sp->at.web.path);
	}
	const char *auth_file = sp->auth_file;
	if (auth_file[0] && s3) {
		jc_log(JC_LOG_WARN, "remote %s: auth_file is for http(s); S3 takes the AWS "
		       "credentials; remote tier disabled", h->shown);
		goto fail;
	}
	if (auth_file[0] && read_auth(auth_file, h, &why) != 0) {
		jc_log(JC_LOG_WARN, "cannot use the remote's auth file %s (%s); remote tier "
		       "disabled", auth_file, why);
		goto fail;
	}
	h->layout = sp->layout;
	snprintf(h->ca_file, sizeof h->ca_file, "%s", sp->ca_file);
	h->connect_ms = to_ms(o->connect_timeout);
	h->timeout_ms = to_ms(o->timeout);
	h->timeout = (double)h->timeout_ms / 1000;
	h->limit = o->limit;
	char where[sizeof h->base + sizeof h->path + 8];
	snprintf(where, sizeof where, "http:%s%s", h->base, h->path);
	jc_backoff_init(&h->down, state_dir, where, o->backoff);
	return h;
fail:
	explicit_bzero(h, sizeof *h);
	free(h);
	return NULL;
}

int jc_http_load(void)
{
	pthread_once(&curl_once, load_curl);
	if (curl.why) {
		JC_LOG_ONCE(JC_LOG_WARN, "web and S3 remotes: %s; not used", curl.why);
		return -1;
	}
	return 0;
}

int jc_http_is_s3(const struct jc_http *h)
{
	return h && h->s3;
}

void jc_http_close(struct jc_http *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < sizeof h->idle / sizeof *h->idle; i++)
		handle_free(__atomic_exchange_n(&h->idle[i], NULL, __ATOMIC_ACQ_REL));
	explicit_bzero(h, sizeof *h);
	free(h);
}
