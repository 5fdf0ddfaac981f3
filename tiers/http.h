// SPDX-License-Identifier: MIT
/*
 * http.h — the HTTP(S) and S3 tiers: entries shared through a web server
 * (WebDAV, bazel-remote, any server that answers GET and takes PUT) or an
 * S3 bucket: the client of the two web kinds of tier, whose operations
 * (jc_tier_http, jc_tier_s3: tier.h) are in web.c.
 *
 * One object per entry, its bytes exactly an entry file's (header + stored
 * payload, entry.h), so an object read is verified exactly like a file
 * (jc_remote_value_check).  Where an entry lives under the URL's path:
 *
 *   subdirs (default)  PATH/<2 hex>/<32 hex>   as the cache directory and a
 *                                              layer (servable as it is)
 *   flat               PATH/<32 hex>
 *   bazel              PATH/ac/<64 hex>        ccache's bazel layout: the 32
 *                                              hex digits twice
 *
 * URLs: http://HOST[:PORT]/PATH, https://HOST[:PORT]/PATH (certificates
 * verified against the system's CA store, or ca_file), s3://BUCKET[/PREFIX]
 * (Signature V4; credentials, region and endpoint from the AWS variables
 * and ~/.aws/credentials, sigv4.h; with AWS_ENDPOINT_URL (or
 * AWS_ENDPOINT_URL_S3) path-style requests to that endpoint, else
 * https://BUCKET.s3.REGION.amazonaws.com).  No credentials in a URL: for
 * http(s), auth_file's first line is "Bearer TOKEN" or "USER:PASSWORD"
 * (basic); the file must be the user's own and not readable by others.
 *
 * libcurl (libcurl.so.4, and so TLS) is loaded with dlopen() by the first
 * get or put (or jc_http_load()), not by jc_http_open(), which only reads
 * the settings (URL, auth file, AWS variables and files): a program with
 * no such tier, or one that never asks it, never maps it.
 *
 * Calling sequence (web.c, and tests/helpers/jc_http_tool.c):
 *
 *   struct jc_http *h = jc_http_open(&opts, cache_dir);   // NULL: one line said why
 *   jc_http_get(h, key, &v, delta)       1 found (v filled), 0 absent, -1 failed
 *   jc_http_put(h, key, bytes, n, delta) 0 stored, -1 failed
 *   jc_http_close(h)
 *
 * Failure is never fatal and never slow, as for Redis: connecting, and each
 * whole answer however slowly its bytes come, are bounded (connect_timeout,
 * timeout); an object larger than limit is never read (its Content-Length
 * is checked before any byte of it is taken; a body of no stated length,
 * chunked or ended by closing, is held to the size its first 64 bytes give,
 * checked the same way); one whose first 64 bytes show it is not the key's
 * entry is not read further, however it is framed; no redirect is followed; after a failure (no connection,
 * a timeout, a 5xx, an answer that is not HTTP, refused credentials, a
 * certificate that does not verify) the remote is skipped for `backoff`
 * seconds by this process and every process of the same cache directory (a
 * small file there says until when).  Each kind of problem is logged once
 * per remote.  SIGPIPE is kept from the host process.
 *
 * Counting: get and put add remote errors, bad values (too large), bytes
 * in and out, and stores to delta; hits and misses are the caller's.
 * Thread-safe: each call takes a kept libcurl handle (up to one per writer
 * thread and one more are kept for reuse, with their connections) or makes
 * one; none is used across fork().
 */
#ifndef JITCACHE_HTTP_H
#define JITCACHE_HTTP_H

#include "tiers/remote.h"
#include "config/remote_url.h"

#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct jc_http_options {
	const struct jc_remote_spec *spec; /* the URL parsed (http://, https:// or s3://,
					      above), its layout, auth and CA files */
	double connect_timeout;     /* seconds */
	double timeout;             /* seconds, for each whole answer */
	double backoff;             /* seconds the remote is skipped after a failure */
	uint64_t limit;             /* an object larger than this is never read */
};

struct jc_http;

/* NULL after one log line if the auth file or (S3) the credentials or
 * AWS_ENDPOINT_URL are not usable.  The URL comes parsed (o->spec->at).
 * state_dir (the cache directory) holds the back-off file; NULL: none. */
struct jc_http *jc_http_open(const struct jc_http_options *o, const char *state_dir);

/* Load libcurl (once per process; it registers TLS's exit handler): 0, or
 * -1 after one line if it cannot be loaded (then every get and put fails). */
int jc_http_load(void);

/* v is filled as jc_remote_get() fills it (remote.h): the first 64 bytes
 * in header, the rest malloc'd in payload (the caller frees it), the
 * object's size.  An object whose header already shows it bad is not read
 * further (payload NULL; jc_remote_value_check refuses it). */
int jc_http_get(struct jc_http *h, const struct jc_key *key, struct jc_remote_value *v,
		uint64_t delta[JC_NCOUNTERS]);

/* Store n bytes (an encoded entry file's bytes) as key's object. */
int jc_http_put(struct jc_http *h, const struct jc_key *key, const void *bytes, size_t n,
		uint64_t delta[JC_NCOUNTERS]);

/* One small request about key's object, its name followed by suffix (""
 * or ".lease"): method (GET, HEAD, PUT or DELETE), more request headers
 * (NULL-ended, or NULL), a body of n bytes (PUT).  0 with a filled if the
 * server answered with a status of its own (2xx, 304, 4xx but 401 and
 * 403: a->code); -1 if not (no answer, refused credentials, a redirect, a
 * 5xx: said, and the back-off started, as for a get).  For the S3 leases
 * (s3_lease.h). */
/* What jc_http_exchange() and jc_http_request() keep of an answer. */
struct jc_http_answer {
	long code;
	char etag[80];              /* as sent, quotes included; "" if none */
	time_t date, last_modified; /* the server's clock; 0 if not sent */
	char lock_token[128];       /* WebDAV's "<urn:...>", or "" */
	char body[1024];            /* the body's first bytes, NUL-ended */
	size_t body_len;
};
int jc_http_exchange(struct jc_http *h, const struct jc_key *key, const char *suffix,
		     const char *method, const char *const headers[], const void *body, size_t n,
		     struct jc_http_answer *a, uint64_t delta[JC_NCOUNTERS]);

/* Any request, for a registry's client (tiers/registry.c), whose
 * requests are not entries': method on target (a path under the URL's
 * base, "/v2/...", or a whole https:// URL, a token service's), more
 * request headers (NULL-ended, or NULL; the caller's Authorization), a
 * body of n bytes; the answer's body kept whole up to max bytes (more:
 * r->too_large, not read further), redirects followed (HTTPS only, 3 at
 * most) if follow.  The HTTP status (r->code), whatever it is below 500,
 * for the caller to judge; -1 without one (no answer, a timeout, a 5xx:
 * said once, and the remote skipped for backoff seconds).  r->body: the
 * caller's to free (NULL if none). */
struct jc_http_reply {
	long code;
	char www_authenticate[1024];
	char location[1024];
	char digest[80];      /* Docker-Content-Digest */
	uint8_t *body;        /* NUL-ended */
	size_t len;
	int too_large;
};
int jc_http_call(struct jc_http *h, const char *method, const char *target,
		 const char *const headers[], const void *body, size_t n, uint64_t max,
		 int follow, struct jc_http_reply *r, uint64_t delta[JC_NCOUNTERS]);
/* Say that a request was refused (code 401, 403, or another status the
 * caller cannot use), once, as a get's refusal is said (401 and 403 start
 * the back-off). */
void jc_http_refused(struct jc_http *h, long code, const char *what);
/* The path requests go under: the URL's (an oci remote's, /v2/REPOSITORY). */
const char *jc_http_path(const struct jc_http *h);

int jc_http_is_s3(const struct jc_http *h);
void jc_http_close(struct jc_http *h);
/* The URL, for messages (no credentials). */
const char *jc_http_url(const struct jc_http *h);

/* ---- compile leases through WebDAV LOCK (http_lease.c) ----------------------
 *
 * The WebDAV kind of the lease engine (lease.h), which renews, waits and
 * signs as for every kind.  While one machine compiles a key it holds an
 * exclusive write lock (RFC 4918) on PATH/leases/<32 hex>: it LOCKs that
 * file (made by the LOCK), writes who holds it into it (a line for people,
 * then the engine's token: signed with a signing key), renews the lock
 * (LOCK with If: (<token>); signed, the file written again with the new
 * token) every third of the lease time (or of the server's, if shorter),
 * and DELETEs the file with the token once the value is stored (UNLOCK if
 * DELETE is not allowed).  Another machine's LOCK is then answered 423
 * Locked: it waits, asking for the value (a GET, which brings it once
 * stored: one request a look) with a pause growing from 50 ms to a
 * twentieth of the lease (0.5 s by default; 1 s at most), and for the lock
 * again every fifth of the lease (0.2 s at least), until the value exists
 * (JC_REMOTE_READY with v filled, as jc_http_get() fills it), the lock is
 * free (a dead holder's expires by the server's timeout) or the deadline.
 * With trust_required (trusted_keys) each 423 is followed by a GET of the
 * lease file, whose token must be signed by a trusted key (lease.h; the
 * signature covers "webdav:leases/<32 hex>"); one not (yet) written is
 * read again for up to a second.  Before its first LOCK a process PUTs
 * PATH/leases/README, which makes the directory: nginx's dav-ext adds a
 * lock before creating its file and keeps it when that fails (409), for
 * nobody, for its timeout.  A server that refuses the README or LOCK (a
 * 4xx other than 409, 412 and 423, or 501: a plain web server, or one that
 * does not allow LOCK) has no leases: said once, and every miss compiles
 * at once.  One that cannot be reached, or does not answer a lease request
 * within JC_WEB_LEASE_TIMEOUT_MS: JC_REMOTE_FAILED (compile here), and no
 * lease is asked for backoff seconds (by this process).  Not for S3.
 *
 *   struct jc_leases *e = jc_http_leases_open(h, lease, backoff, lease_wait);  // NULL: none
 *   jc_lease_wait(e, key, deadline, NULL, &lease, &v, delta)   lease.h
 *   jc_lease_release(lease)        after the value's PUT; NULL is fine
 *   jc_http_leases_close(e)
 */
struct jc_leases;
struct jc_leases *jc_http_leases_open(struct jc_http *h, double lease, double backoff,
				      double lease_wait);
void jc_http_leases_close(struct jc_leases *e);

/* The most a lease request waits for its whole answer (unless the remote's
 * timeout is shorter): it holds the program up, and its answer is small. */
#define JC_WEB_LEASE_TIMEOUT_MS 2000L

/* One request of the leases' (not for S3): method on the key's entry
 * (JC_HTTP_ENTRY, where the layout puts it), its lease file (JC_HTTP_LEASE,
 * PATH/leases/<32 hex>) or PATH/leases/README (JC_HTTP_README), with more
 * header lines (NULL ended; NULL: none) and a body (NULL: none), bounded by
 * JC_WEB_LEASE_TIMEOUT_MS.  The HTTP status, whatever it is (the caller
 * judges it), or -1 without an answer (said once; the remote skipped for
 * backoff seconds, unless the answer was only slow).  a: the answer's
 * Lock-Token and first bytes. */
enum jc_http_target { JC_HTTP_ENTRY, JC_HTTP_LEASE, JC_HTTP_README };
int jc_http_request(struct jc_http *h, const char *method, const struct jc_key *key,
		    enum jc_http_target at, const char *const *headers, const void *body,
		    size_t n, struct jc_http_answer *a, uint64_t delta[JC_NCOUNTERS]);

#endif
