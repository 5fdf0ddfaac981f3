// SPDX-License-Identifier: MIT
/* registry.c — an OCI registry's client over http.c.  See registry.h. */
#include "tiers/registry.h"

#include "tiers/client.h"
#include "tiers/sigv4.h"
#include "config/readfile.h"
#include "config/log.h"

#include <ctype.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A manifest, a token's answer, a credential file: small. */
#define SMALL_MAX (256 * 1024)

enum problem { P_DIGEST, P_TOKEN, P_LOCATION, P_STATUS, P_COUNT };

struct jc_registry {
	struct jc_http *h;
	char shown[700];       /* oci://HOST/REPO */
	char base[512];        /* https://HOST[:PORT] */
	char repo[256];
	char basic[1024];      /* "Authorization: Basic ..." or "" */
	char helper[64];       /* the credential helper docker's config names, if no auth */
	pthread_mutex_t mu;
	char bearer[8192];     /* "Authorization: Bearer ..." or "": under mu */
	int basic_works;       /* the registry took basic: sent first (atomic) */
	int told[P_COUNT];
	struct jc_registry *next; /* the open ones', under opened_mu */
};

/* ---- fork ------------------------------------------------------------------------ */

/* Every open registry: a child forked while another thread held one's mu
 * (a request reading or setting the token) would wait for it for ever,
 * the holder being only in the parent.  fork() takes every mu first, as
 * remote.c and lease.c do theirs; mu is never held across a wait. */
static pthread_mutex_t opened_mu = PTHREAD_MUTEX_INITIALIZER;
static struct jc_registry *opened;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static void fork_prepare(void)
{
	pthread_mutex_lock(&opened_mu);
	for (struct jc_registry *g = opened; g; g = g->next)
		pthread_mutex_lock(&g->mu);
}

/* In the parent and in the child alike: taken by fork_prepare() on this
 * very thread, so unlocked, not made anew (a checker, TSan, sees them
 * released). */
static void fork_done(void)
{
	for (struct jc_registry *g = opened; g; g = g->next)
		pthread_mutex_unlock(&g->mu);
	pthread_mutex_unlock(&opened_mu);
}

static void register_fork(void)
{
	pthread_atfork(fork_prepare, fork_done, fork_done);
}

static void list_open(struct jc_registry *g)
{
	pthread_once(&fork_once, register_fork);
	pthread_mutex_lock(&opened_mu);
	g->next = opened;
	opened = g;
	pthread_mutex_unlock(&opened_mu);
}

static void unlist(struct jc_registry *g)
{
	pthread_mutex_lock(&opened_mu);
	for (struct jc_registry **p = &opened; *p; p = &(*p)->next)
		if (*p == g) {
			*p = g->next;
			break;
		}
	pthread_mutex_unlock(&opened_mu);
}

/* ---- a loose JSON reader ------------------------------------------------------- */

/* Just after "name" : (whitespace allowed), or NULL. */
static const char *after_name(const char *from, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = from; (p = strchr(p, '"')); p++) {
		if (strncmp(p + 1, name, n) != 0 || p[1 + n] != '"')
			continue;
		const char *q = p + 2 + n;
		q += strspn(q, " \t\r\n");
		if (*q == ':')
			return q + 1 + strspn(q + 1, " \t\r\n");
	}
	return NULL;
}

int jc_oci_json_string(const char *from, const char *name, char *out, size_t cap)
{
	const char *v = from ? after_name(from, name) : NULL;
	if (!v || *v != '"')
		return -1;
	const char *end = strchr(v + 1, '"');
	if (!end || (size_t)(end - v - 1) >= cap || memchr(v + 1, '\\', (size_t)(end - v - 1)))
		return -1;
	snprintf(out, cap, "%.*s", (int)(end - v - 1), v + 1);
	return 0;
}

int64_t jc_oci_json_number(const char *from, const char *name)
{
	const char *v = from ? after_name(from, name) : NULL;
	if (!v || !isdigit((unsigned char)*v))
		return -1;
	return strtoll(v, NULL, 10);
}

/* ---- credentials ---------------------------------------------------------------- */

/* The "auth" of the auths entry for host in a credential file's text
 * (base64 USER:PASSWORD) into out; 0 if found. */
static int auth_in(const char *text, const char *host, char *out, size_t cap)
{
	const char *auths = strstr(text, "\"auths\"");
	if (!auths)
		return -1;
	static const char *const scheme[] = { "", "https://", "http://", "https://", "https://" };
	static const char *const tail[] = { "", "", "", "/v2/", "/v1/" };
	for (size_t i = 0; i < sizeof scheme / sizeof *scheme; i++) {
		char name[400];
		snprintf(name, sizeof name, "%s%s%s", scheme[i], host, tail[i]);
		const char *v = after_name(auths, name), *end = v ? strchr(v, '}') : NULL;
		if (!v || *v != '{' || !end)
			continue;
		char entry[4096];
		snprintf(entry, sizeof entry, "%.*s", (int)(end - v), v);
		if (jc_oci_json_string(entry, "auth", out, cap) == 0 && *out &&
		    strspn(out, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=") ==
			    strlen(out))
			return 0;
	}
	return -1;
}

static int auth_from(const char *path, const char *host, char *out, size_t cap)
{
	size_t len = 0;
	const char *why;
	char *text = jc_read_small_file(path, SMALL_MAX, &len, &why);
	if (!text)
		return -1;
	int rc = auth_in(text, host, out, cap);
	explicit_bzero(text, len);
	free(text);
	return rc;
}

/* The credential helper a docker config's text names for host
 * (credHelpers, else credsStore) into out; 0 if one is named. */
static int helper_in(const char *text, const char *host, char *out, size_t cap)
{
	const char *h = strstr(text, "\"credHelpers\"");
	const char *end = h ? strchr(h, '}') : NULL;
	if (h && end) {
		char *helpers = strndup(h, (size_t)(end - h));
		int found = helpers && jc_oci_json_string(helpers, host, out, cap) == 0;
		free(helpers);
		if (found && *out)
			return 0;
	}
	if (jc_oci_json_string(text, "credsStore", out, cap) != 0 || !*out)
		return -1;
	return 0;
}

/* A helper's name is part of a program's name: docker-credential-NAME. */
static int helper_name_ok(const char *name)
{
	return *name && strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				     "0123456789._-") == strlen(name) && name[0] != '.';
}

static void find_helper(struct jc_registry *g, const char *docker_config, const char *host)
{
	size_t len = 0;
	const char *why;
	char name[sizeof g->helper];
	char *text = jc_read_small_file(docker_config, SMALL_MAX, &len, &why);
	if (text && helper_in(text, host, name, sizeof name) == 0 && helper_name_ok(name))
		snprintf(g->helper, sizeof g->helper, "%s", name);
	if (text)
		explicit_bzero(text, len);
	free(text);
}

/* The credentials registry clients keep for host (registry.h's order). */
static void find_credentials(struct jc_registry *g, const char *host)
{
	const char *v;
	char path[4][4096], auth[900];
	int n = 0;
	if ((v = getenv("REGISTRY_AUTH_FILE")) && *v)
		snprintf(path[n++], sizeof path[0], "%s", v);
	if ((v = getenv("XDG_RUNTIME_DIR")) && *v)
		snprintf(path[n++], sizeof path[0], "%s/containers/auth.json", v);
	const char *home = getenv("HOME");
	if (home && *home)
		snprintf(path[n++], sizeof path[0], "%s/.config/containers/auth.json", home);
	int docker = n;
	if ((v = getenv("DOCKER_CONFIG")) && *v)
		snprintf(path[n++], sizeof path[0], "%s/config.json", v);
	else if (home && *home)
		snprintf(path[n++], sizeof path[0], "%s/.docker/config.json", home);
	for (int i = 0; i < n; i++)
		if (auth_from(path[i], host, auth, sizeof auth) == 0) {
			snprintf(g->basic, sizeof g->basic, "Authorization: Basic %s", auth);
			jc_log(JC_LOG_DEBUG, "remote %s: credentials from %s", g->shown, path[i]);
			break;
		}
	explicit_bzero(auth, sizeof auth);
	if (!g->basic[0] && docker < n)
		find_helper(g, path[docker], host);
}

const char *jc_registry_helper(const struct jc_registry *g)
{
	return g ? g->helper : "";
}

/* base64 of n bytes into out (4 * ((n + 2) / 3) + 1 bytes at most). */
static void base64(const uint8_t *in, size_t n, char *out, size_t cap)
{
	static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t o = 0;
	for (size_t i = 0; i < n && o + 5 < cap; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) |
			     (i + 2 < n ? in[i + 2] : 0);
		out[o++] = abc[v >> 18 & 63];
		out[o++] = abc[v >> 12 & 63];
		out[o++] = i + 1 < n ? abc[v >> 6 & 63] : '=';
		out[o++] = i + 2 < n ? abc[v & 63] : '=';
	}
	out[o] = '\0';
}

int jc_registry_set_credentials(struct jc_registry *g, const char *user, const char *secret)
{
	char pair[600], b64[820];
	int n = snprintf(pair, sizeof pair, "%s:%s", user, secret);
	if (n < 0 || (size_t)n >= sizeof pair || strchr(user, ':')) {
		explicit_bzero(pair, sizeof pair);
		return -1;
	}
	base64((const uint8_t *)pair, (size_t)n, b64, sizeof b64);
	snprintf(g->basic, sizeof g->basic, "Authorization: Basic %s", b64);
	explicit_bzero(pair, sizeof pair);
	explicit_bzero(b64, sizeof b64);
	return 0;
}

/* ---- opening ------------------------------------------------------------------- */

struct jc_registry *jc_registry_open(const struct jc_http_options *o, const char *state_dir)
{
	struct jc_registry *g = calloc(1, sizeof *g);
	if (!g)
		return NULL;
	const struct jc_registry_url *u = &o->spec->at.registry;
	snprintf(g->shown, sizeof g->shown, "oci://%s/%s", u->host, u->repo);
	snprintf(g->base, sizeof g->base, "%s", u->base);
	snprintf(g->repo, sizeof g->repo, "%s", u->repo);
	if (!(g->h = jc_http_open(o, state_dir))) {
		free(g);
		return NULL;
	}
	pthread_mutex_init(&g->mu, NULL);
	find_credentials(g, u->host);
	list_open(g);
	return g;
}

void jc_registry_close(struct jc_registry *g)
{
	if (!g)
		return;
	unlist(g);
	jc_http_close(g->h);
	pthread_mutex_destroy(&g->mu);
	explicit_bzero(g, sizeof *g);
	free(g);
}

const char *jc_registry_url(const struct jc_registry *g)
{
	return g ? g->shown : "";
}

void jc_registry_problem(struct jc_registry *g, int *told, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	jc_remote_problem(told, g->shown, NULL, fmt, ap);
	va_end(ap);
}

/* ---- bearer tokens --------------------------------------------------------------- */

/* One parameter of a challenge (name="value") into out; 0 if there. */
static int challenge_param(const char *c, const char *name, char *out, size_t cap)
{
	size_t n = strlen(name);
	for (const char *p = c; (p = strcasestr(p, name)); p += n) {
		if ((p > c && (isalnum((unsigned char)p[-1]) || p[-1] == '_')) || p[n] != '=' ||
		    p[n + 1] != '"')
			continue;
		const char *end = strchr(p + n + 2, '"');
		if (!end || (size_t)(end - p - n - 2) >= cap)
			return -1;
		snprintf(out, cap, "%.*s", (int)(end - p - n - 2), p + n + 2);
		return 0;
	}
	return -1;
}

static void url_encode(const char *s, char *out, size_t cap)
{
	size_t o = 0;
	for (; *s && o + 4 < cap; s++) {
		unsigned char ch = (unsigned char)*s;
		if (isalnum(ch) || strchr("-._~", ch))
			out[o++] = (char)ch;
		else
			o += (size_t)snprintf(out + o, cap - o, "%%%02X", ch);
	}
	out[o] = '\0';
}

/* Get a token as the challenge asks (from its realm, an https:// URL),
 * keeping it for the next requests.  0, or -1 (said). */
static int get_token(struct jc_registry *g, const char *challenge, int push,
		     uint64_t delta[JC_NCOUNTERS])
{
	char realm[1024], service[256] = "", scope[512], s1[800], s2[1600], url[3500];
	if (challenge_param(challenge, "realm", realm, sizeof realm) != 0 ||
	    strncmp(realm, "https://", 8) != 0) {
		jc_registry_problem(g, &g->told[P_TOKEN], "its Bearer challenge names no https:// "
				    "realm to get a token from");
		return -1;
	}
	challenge_param(challenge, "service", service, sizeof service);
	if (challenge_param(challenge, "scope", scope, sizeof scope) != 0)
		snprintf(scope, sizeof scope, "repository:%s:%s", g->repo,
			 push ? "pull,push" : "pull");
	url_encode(service, s1, sizeof s1);
	url_encode(scope, s2, sizeof s2);
	snprintf(url, sizeof url, "%s%sservice=%s&scope=%s", realm, strchr(realm, '?') ? "&" : "?",
		 s1, s2);
	const char *headers[] = { g->basic[0] ? g->basic : NULL, NULL };
	struct jc_http_reply r;
	char token[sizeof g->bearer - 32];
	int code = jc_http_call(g->h, "GET", url, headers, NULL, 0, SMALL_MAX, 0, &r, delta);
	int ok = code == 200 && r.body &&
		 (jc_oci_json_string((char *)r.body, "token", token, sizeof token) == 0 ||
		  jc_oci_json_string((char *)r.body, "access_token", token, sizeof token) == 0);
	free(r.body);
	if (!ok) {
		if (code >= 0)
			jc_http_refused(g->h, code == 200 ? 401 : code, "the token request");
		return -1;
	}
	pthread_mutex_lock(&g->mu);
	snprintf(g->bearer, sizeof g->bearer, "Authorization: Bearer %s", token);
	pthread_mutex_unlock(&g->mu);
	explicit_bzero(token, sizeof token);
	return 0;
}

/* ---- requests -------------------------------------------------------------------- */

#define MAX_HEADERS 6

/* One request with the credentials the registry asked for: a 401 is
 * answered once (a token, or Basic), then judged. */
static int call(struct jc_registry *g, const char *method, const char *target,
		const char *const extra[], const void *body, size_t n, uint64_t max, int follow,
		struct jc_http_reply *r, uint64_t delta[JC_NCOUNTERS])
{
	char authz[sizeof g->bearer];
	int basic_only = __atomic_load_n(&g->basic_works, __ATOMIC_RELAXED);
	for (int attempt = 0;; attempt++) {
		const char *headers[MAX_HEADERS + 2];
		int k = 0;
		pthread_mutex_lock(&g->mu);
		snprintf(authz, sizeof authz, "%s", g->bearer[0] && !basic_only ? g->bearer
						     : basic_only ? g->basic : "");
		pthread_mutex_unlock(&g->mu);
		for (; extra && extra[k] && k < MAX_HEADERS; k++)
			headers[k] = extra[k];
		headers[k++] = authz[0] ? authz : NULL;
		headers[k] = NULL;
		int code = jc_http_call(g->h, method, target, headers, body, n, max, follow, r,
					delta);
		explicit_bzero(authz, sizeof authz);
		if (code != 401 && code != 403) {
			if (basic_only && code >= 0)
				__atomic_store_n(&g->basic_works, 1, __ATOMIC_RELAXED);
			return code;
		}
		int bearer = strncasecmp(r->www_authenticate, "Bearer", 6) == 0;
		if (attempt == 0 && code == 401 && bearer) {
			int push = strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0;
			char challenge[sizeof r->www_authenticate];
			snprintf(challenge, sizeof challenge, "%s", r->www_authenticate);
			free(r->body);
			r->body = NULL;
			if (get_token(g, challenge, push, delta) != 0)
				return JC_REMOTE_REFUSED;
			continue;
		}
		if (attempt == 0 && code == 401 && g->basic[0]) {
			free(r->body);
			r->body = NULL;
			basic_only = 1;
			continue;
		}
		jc_http_refused(g->h, code, method);
		delta[JC_REMOTE_ERRORS]++;
		return JC_REMOTE_REFUSED;
	}
}

int jc_registry_manifest(struct jc_registry *g, const char *ref, struct jc_http_reply *r,
			 uint64_t delta[JC_NCOUNTERS])
{
	char target[700];
	const char *headers[] = { "Accept: " JC_OCI_MANIFEST ", " JC_OCI_INDEX, NULL };
	snprintf(target, sizeof target, "%s/manifests/%s", jc_http_path(g->h), ref);
	return call(g, "GET", target, headers, NULL, 0, SMALL_MAX, 0, r, delta);
}

int jc_registry_blob(struct jc_registry *g, const char *digest, uint64_t max,
		     struct jc_http_reply *r, uint64_t delta[JC_NCOUNTERS])
{
	char target[700], got[65];
	snprintf(target, sizeof target, "%s/blobs/%s", jc_http_path(g->h), digest);
	/* a registry may send the bytes from elsewhere (a CDN): followed,
	 * over HTTPS only, and checked by their digest */
	int code = call(g, "GET", target, NULL, NULL, 0, max, 1, r, delta);
	if (code != 200 || r->too_large)
		return r->too_large ? 0 : code;
	jc_sigv4_sha256_hex(r->body ? r->body : (const uint8_t *)"", r->len, got);
	if (strncmp(digest, "sha256:", 7) == 0 && strcmp(digest + 7, got) == 0)
		return code;
	jc_registry_problem(g, &g->told[P_DIGEST], "blob %.20s... is not what its digest says "
			    "(sha256:%.12s... read): refused", digest, got);
	delta[JC_REMOTE_CORRUPT]++;
	free(r->body);
	r->body = NULL;
	return 0;
}

void jc_registry_digest(const void *bytes, size_t n, char out[80])
{
	char hex[65];
	jc_sigv4_sha256_hex(n ? bytes : "", n, hex);
	snprintf(out, 80, "sha256:%s", hex);
}

/* Where to PUT an upload: the Location the registry gave (a path, or a URL
 * of this registry), with the digest. */
static int upload_target(struct jc_registry *g, const char *location, const char *digest,
			 char *out, size_t cap)
{
	size_t base = strlen(g->base);
	if (strncmp(location, g->base, base) == 0 && location[base] == '/')
		location += base;
	if (location[0] != '/') {
		jc_registry_problem(g, &g->told[P_LOCATION], "an upload was sent elsewhere (%.80s): "
				    "not followed", location);
		return -1;
	}
	int n = snprintf(out, cap, "%s%sdigest=%s", location, strchr(location, '?') ? "&" : "?",
			 digest);
	return n > 0 && (size_t)n < cap ? 0 : -1;
}

static int status_unexpected(struct jc_registry *g, int code, const char *what,
			     uint64_t delta[JC_NCOUNTERS])
{
	if (code >= 0 && code != JC_REMOTE_REFUSED) {
		jc_registry_problem(g, &g->told[P_STATUS], "%s answered HTTP %d", what, code);
		delta[JC_REMOTE_ERRORS]++;
	}
	return -1;
}

int jc_registry_put_blob(struct jc_registry *g, const void *bytes, size_t n, char digest[80],
			 uint64_t delta[JC_NCOUNTERS])
{
	char hex[65], target[2400];
	struct jc_http_reply r;
	jc_sigv4_sha256_hex(bytes, n, hex);
	snprintf(digest, 80, "sha256:%s", hex);
	snprintf(target, sizeof target, "%s/blobs/%s", jc_http_path(g->h), digest);
	int code = call(g, "HEAD", target, NULL, NULL, 0, 0, 0, &r, delta);
	free(r.body);
	if (code == 200)
		return 0; /* there already */
	snprintf(target, sizeof target, "%s/blobs/uploads/", jc_http_path(g->h));
	code = call(g, "POST", target, NULL, NULL, 0, SMALL_MAX, 0, &r, delta);
	free(r.body);
	if (code != 202 || upload_target(g, r.location, digest, target, sizeof target) != 0)
		return status_unexpected(g, code == 202 ? -1 : code, "a blob upload", delta);
	const char *headers[] = { "Content-Type: application/octet-stream", NULL };
	code = call(g, "PUT", target, headers, bytes, n, SMALL_MAX, 0, &r, delta);
	free(r.body);
	return code == 201 ? 0 : status_unexpected(g, code, "a blob's PUT", delta);
}

int jc_registry_put_manifest(struct jc_registry *g, const char *tag, const char *json,
			     size_t n, uint64_t delta[JC_NCOUNTERS])
{
	return jc_registry_put(g, tag, JC_OCI_MANIFEST, json, n, delta);
}

int jc_registry_put(struct jc_registry *g, const char *ref, const char *type, const char *json,
		    size_t n, uint64_t delta[JC_NCOUNTERS])
{
	char target[700], content_type[160];
	struct jc_http_reply r;
	snprintf(content_type, sizeof content_type, "Content-Type: %s", type);
	const char *headers[] = { content_type, NULL };
	snprintf(target, sizeof target, "%s/manifests/%s", jc_http_path(g->h), ref);
	int code = call(g, "PUT", target, headers, json, n, SMALL_MAX, 0, &r, delta);
	free(r.body);
	return code == 201 ? 0 : status_unexpected(g, code, "a manifest's PUT", delta);
}
