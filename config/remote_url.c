// SPDX-License-Identifier: MIT
/* remote_url.c — parsing and redacting the remote tiers' URLs, each into
 * the typed value its tier opens with (remote_url.h). */
#include "config/remote_url.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int fail(const char **why, const char *reason)
{
	*why = reason;
	return -1;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Copy [s, s+n) to out (size bytes), decoding %XX.  A decoded NUL would cut
 * the string short, so it is refused like a bad escape. */
static int decode(const char *s, size_t n, char *out, size_t size)
{
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		int c = (unsigned char)s[i];
		if (c == '%') {
			if (i + 2 >= n)
				return -1;
			int a = hex_digit(s[i + 1]), b = hex_digit(s[i + 2]);
			if (a < 0 || b < 0 || (a | b) == 0)
				return -1;
			c = a << 4 | b;
			i += 2;
		}
		if (o + 1 >= size)
			return -1;
		out[o++] = (char)c;
	}
	out[o] = '\0';
	return 0;
}

/* A decimal number in [lo, hi] filling [s, s+n) exactly. */
static int number(const char *s, size_t n, long lo, long hi, int *out)
{
	long v = 0;
	if (n == 0 || n > 10)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	if (v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

/* "[USER]:PASSWORD" (n bytes) into u. */
static int userinfo(const char *s, size_t n, struct jc_remote_url *u, const char **why)
{
	const char *colon = memchr(s, ':', n);
	size_t user_len = colon ? (size_t)(colon - s) : n;
	if (decode(s, user_len, u->user, sizeof u->user) != 0)
		return fail(why, "bad or too long user name (write '@' as %40, '%' as %25)");
	if (!colon) /* its password comes from password_file (jc_redis_open checks) */
		return 0;
	if (decode(colon + 1, n - user_len - 1, u->password, sizeof u->password) != 0)
		return fail(why, "bad or too long password (write '@' as %40, '%' as %25)");
	u->has_password = 1;
	return 0;
}

/* HOST[:PORT][/DB] */
static int tcp_rest(const char *s, struct jc_remote_url *u, const char **why)
{
	const char *host = s, *end;
	size_t host_len;
	if (*s == '[') { /* [IPv6] */
		end = strchr(s, ']');
		if (!end)
			return fail(why, "unclosed '[' in the host");
		host = s + 1;
		host_len = (size_t)(end - host);
		end++;
	} else {
		end = s + strcspn(s, ":/?#");
		host_len = (size_t)(end - s);
	}
	if (host_len == 0)
		return fail(why, "no host");
	if (host_len >= sizeof u->host)
		return fail(why, "host name too long");
	for (size_t i = 0; i < host_len; i++)
		if (!isalnum((unsigned char)host[i]) && !strchr(".-_:%", host[i]))
			return fail(why, "bad character in the host");
	memcpy(u->host, host, host_len);
	u->host[host_len] = '\0';
	if (*end == ':') {
		const char *port = end + 1;
		end = port + strcspn(port, "/?#");
		if (number(port, (size_t)(end - port), 1, 65535, &u->port) != 0)
			return fail(why, "port must be a number from 1 to 65535");
	}
	if (*end == '/') {
		const char *db = end + 1;
		end = db + strlen(db);
		if (end > db && number(db, (size_t)(end - db), 0, 1000000, &u->db) != 0)
			return fail(why, "database must be a number (redis://HOST/DB)");
	}
	if (*end != '\0')
		return fail(why, "unexpected text after the host (expected [:PORT][/DB])");
	return 0;
}

/* /PATH[?db=DB] */
static int unix_rest(const char *s, struct jc_remote_url *u, const char **why)
{
	if (*s != '/')
		return fail(why, "the socket path must be absolute (redis+unix:///PATH)");
	const char *end = strchr(s, '?');
	size_t n = end ? (size_t)(end - s) : strlen(s);
	if (n >= sizeof u->path)
		return fail(why, "socket path too long");
	memcpy(u->path, s, n);
	u->path[n] = '\0';
	if (end) {
		if (strncmp(end, "?db=", 4) != 0 ||
		    number(end + 4, strlen(end + 4), 0, 1000000, &u->db) != 0)
			return fail(why, "expected ?db=NUMBER after the socket path");
	}
	return 0;
}

int jc_remote_url_parse(const char *text, struct jc_remote_url *u, const char **why)
{
	static const char tcp[] = "redis://", unx[] = "redis+unix://";
	memset(u, 0, sizeof *u);
	u->port = 6379;
	if (!text || strlen(text) >= JC_REMOTE_URL_MAX)
		return fail(why, "URL missing or too long");
	const char *rest;
	if (strncasecmp(text, tcp, sizeof tcp - 1) == 0)
		rest = text + sizeof tcp - 1;
	else if (strncasecmp(text, unx, sizeof unx - 1) == 0)
		rest = text + sizeof unx - 1, u->is_unix = 1;
	else
		return fail(why, "expected redis://HOST[:PORT][/DB] or redis+unix:///PATH");
	const char *at = strrchr(rest, '@');
	if (at) {
		if (userinfo(rest, (size_t)(at - rest), u, why) != 0)
			return -1;
		rest = at + 1;
	}
	return u->is_unix ? unix_rest(rest, u, why) : tcp_rest(rest, u, why);
}

void jc_remote_url_redact(const char *text, char *out, size_t size)
{
	if (!size)
		return;
	/* The user info is all of it: a token is often the user name alone
	 * (https://TOKEN@host/, GitHub's TOKEN:x-oauth-basic@), so nothing
	 * before the '@' is shown.  The last '@' of the text: the user info of
	 * a Redis URL ends there, and cutting more of a text that is not a
	 * URL (an '@' in a path or an attribute) only hides more. */
	const char *scheme_end = text ? strstr(text, "://") : NULL;
	const char *at = text ? strrchr(text, '@') : NULL;
	if (!scheme_end || !at || at <= scheme_end + 3) { /* none, or empty: nothing to hide */
		snprintf(out, size, "%s", text ? text : "");
		return;
	}
	snprintf(out, size, "%.*s***%s", (int)(scheme_end + 3 - text), text, at);
}

/* ---- the list of remotes ------------------------------------------------- */

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

int jc_url_dot_segment(const char *path, size_t n)
{
	const char *p = path, *end = path + n;
	while (p < end) {
		const char *seg_end = memchr(p, '/', (size_t)(end - p));
		if (!seg_end)
			seg_end = end;
		int dots = 0, other = 0;
		for (const char *q = p; q < seg_end; q++) {
			if (*q == '.')
				dots++;
			else if (*q == '%' && seg_end - q >= 3 && q[1] == '2' && (q[2] == 'e' || q[2] == 'E'))
				dots++, q += 2;
			else
				other = 1;
		}
		if (!other && (dots == 1 || dots == 2))
			return 1;
		p = seg_end + 1;
	}
	return 0;
}

/* http(s)://HOST[:PORT][/PATH]: checked, not split (the tier does that). */
static int http_url(const char *s, size_t n, const char **why)
{
	size_t scheme = strncasecmp(s, "https://", 8) == 0 ? 8 : 7;
	const char *host = s + scheme, *end = s + n;
	const char *host_end = host;
	while (host_end < end && *host_end != '/')
		host_end++;
	if (memchr(host, '@', (size_t)(host_end - host)))
		return fail(why, "no credentials in an http URL: put them in a file named by "
			    "|auth-file=/PATH");
	if (host_end == host || *host == ':')
		return fail(why, "no host in the http URL");
	for (const char *p = host; p < host_end; p++)
		if (!isalnum((unsigned char)*p) && !strchr(".-_:[]", *p))
			return fail(why, "bad character in the http URL's host");
	for (const char *p = host_end; p < end; p++)
		if (*p == '?' || *p == '#' || (unsigned char)*p <= ' ')
			return fail(why, "an http URL takes no query, fragment or spaces");
	if (jc_url_dot_segment(host_end, (size_t)(end - host_end)))
		return fail(why, "an http URL's path has no '.' or '..' segment");
	return 0;
}

/* s3://BUCKET[/PREFIX] (any scheme) */
static int s3_url(const char *s, size_t n, const char **why)
{
	const char *bucket = strstr(s, "://") + 3, *end = s + n;
	const char *slash = memchr(bucket, '/', (size_t)(end - bucket));
	size_t len = (size_t)((slash ? slash : end) - bucket);
	if (len < 3 || len > 63)
		return fail(why, "an S3 bucket name has 3 to 63 characters (s3://BUCKET[/PREFIX])");
	for (size_t i = 0; i < len; i++)
		if (!islower((unsigned char)bucket[i]) && !isdigit((unsigned char)bucket[i]) &&
		    !strchr(".-", bucket[i]))
			return fail(why, "an S3 bucket name has only a-z, 0-9, '.' and '-'");
	for (const char *p = bucket + len; p < end; p++)
		if (*p == '?' || *p == '#' || (unsigned char)*p <= ' ')
			return fail(why, "an S3 URL takes no query, fragment or spaces");
	/* libcurl removes dot segments: s3://team/../other would be another
	 * bucket's objects */
	if (jc_url_dot_segment(bucket + len, (size_t)(end - bucket - len)))
		return fail(why, "an S3 prefix has no '.' or '..' segment (it would leave the bucket)");
	return 0;
}

/* A character a path may hold as it is (RFC 3986 pchar, '/' and '%'). */
static int path_char(int ch)
{
	return isalnum(ch) || strchr("-._~!$&'()*+,;=:@/%", ch);
}

int jc_remote_url_web(const char *url, struct jc_web_url *w, const char **why)
{
	memset(w, 0, sizeof *w);
	size_t skip = strncasecmp(url, "http://", 7) == 0 ? 7
		    : strncasecmp(url, "https://", 8) == 0 ? 8 : 0;
	if (!skip)
		return fail(why, "not http://, https:// or s3://");
	const char *auth = url + skip, *slash = strchr(auth, '/');
	size_t alen = slash ? (size_t)(slash - auth) : strlen(auth);
	if (alen == 0 || alen >= sizeof w->host)
		return fail(why, "no host, or a host name too long");
	if (memchr(auth, '@', alen))
		return fail(why, "credentials in a URL are not read (put them in auth_file)");
	for (size_t i = 0; i < alen; i++)
		if (!isalnum((unsigned char)auth[i]) && !strchr("-._:[]", auth[i]))
			return fail(why, "a host with characters a host name cannot hold");
	const char *colon = auth[0] == '[' ? memchr(auth, ']', alen) : auth;
	colon = colon ? memchr(colon, ':', alen - (size_t)(colon - auth)) : NULL;
	if (colon) {
		char *end;
		long port = strtol(colon + 1, &end, 10);
		if (end != auth + alen || port < 1 || port > 65535)
			return fail(why, "a port that is not a number from 1 to 65535");
	}
	memcpy(w->host, auth, alen);
	w->host[alen] = '\0';
	snprintf(w->base, sizeof w->base, "%.*s%s", (int)skip, url, w->host);
	const char *p = slash ? slash : "";
	size_t plen = strlen(p);
	while (plen && p[plen - 1] == '/')
		plen--;
	if (plen >= sizeof w->path)
		return fail(why, "a path too long");
	for (size_t i = 0; i < plen; i++)
		if (!path_char((unsigned char)p[i]))
			return fail(why, "a path with characters a URL path cannot hold (no query, "
				    "no fragment)");
	if (jc_url_dot_segment(p, plen))
		return fail(why, "a path with a '.' or '..' segment");
	memcpy(w->path, p, plen);
	w->path[plen] = '\0';
	return 0;
}

/* ---- each scheme's URL into sp->at --------------------------------------- */

static int shape_redis(struct jc_remote_spec *sp, const char **why)
{
	return jc_remote_url_parse(sp->url, &sp->at.redis, why);
}

static int shape_web(struct jc_remote_spec *sp, const char **why)
{
	if (http_url(sp->url, strlen(sp->url), why) != 0)
		return -1;
	return jc_remote_url_web(sp->url, &sp->at.web, why);
}

static int shape_bucket(struct jc_remote_spec *sp, const char **why)
{
	if (s3_url(sp->url, strlen(sp->url), why) != 0)
		return -1;
	const char *bucket = strstr(sp->url, "://") + 3, *slash = strchr(bucket, '/');
	size_t blen = slash ? (size_t)(slash - bucket) : strlen(bucket);
	const char *prefix = slash ? slash + 1 : "";
	size_t plen = strlen(prefix);
	while (plen && prefix[plen - 1] == '/')
		plen--;
	for (size_t i = 0; i < plen; i++)
		if (!isalnum((unsigned char)prefix[i]) && !strchr("-._~/", prefix[i]))
			return fail(why, "a prefix of letters, digits and -._~/ only");
	if (plen >= sizeof sp->at.bucket.prefix)
		return fail(why, "a prefix too long");
	snprintf(sp->at.bucket.bucket, sizeof sp->at.bucket.bucket, "%.*s", (int)blen, bucket);
	snprintf(sp->at.bucket.prefix, sizeof sp->at.bucket.prefix, "%.*s", (int)plen, prefix);
	return 0;
}

/* SCHEME:///PATH (file:///PATH): an absolute path, as it is (no %XX, no
 * '.' or '..'). */
static int shape_path(struct jc_remote_spec *sp, const char **why)
{
	const char *p = strstr(sp->url, "://") + 3;
	size_t n = strlen(p);
	if (*p != '/')
		return fail(why, "a file URL names an absolute path on this machine (file:///PATH)");
	while (n > 1 && p[n - 1] == '/')
		n--;
	if (n >= sizeof sp->at.path.path)
		return fail(why, "a file URL's path is too long");
	for (size_t i = 0; i < n; i++)
		if (strchr("%?#", p[i]) || (unsigned char)p[i] <= ' ')
			return fail(why, "a file URL's path is written as it is (no %, ?, # or spaces)");
	if (jc_url_dot_segment(p, n))
		return fail(why, "a file URL's path has no '.' or '..' segment");
	memcpy(sp->at.path.path, p, n);
	sp->at.path.path[n] = '\0';
	return 0;
}

/* The kinds, from remote_url.h's list: each one's shape of address and
 * schemes. */
static const struct {
	enum jc_remote_kind kind;
	int (*parse)(struct jc_remote_spec *sp, const char **why);
	const char *const *schemes; /* NULL-ended */
} kinds[] = {
#define X(NAME, name, shape, ...) \
	{ JC_REMOTE_##NAME, shape_##shape, (const char *const[]){ __VA_ARGS__, NULL } },
	JC_REMOTE_KINDS_LIST(X)
#undef X
};

/* The kind whose scheme starts url: its index in kinds[], or -1. */
static int kind_of(const char *url)
{
	for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
		for (const char *const *p = kinds[k].schemes; *p; p++)
			if (strncasecmp(url, *p, strlen(*p)) == 0)
				return (int)k;
	return -1;
}

/* "expected redis://, ... or file://": every kind's schemes, in the list's
 * order, so that a new kind's line says its own. */
static char expected[256];

static void make_expected(void)
{
	size_t used = (size_t)snprintf(expected, sizeof expected, "expected");
	int n = 0, total = 0;
	for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
		for (const char *const *p = kinds[k].schemes; *p; p++)
			total++;
	for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
		for (const char *const *p = kinds[k].schemes; *p && used < sizeof expected; p++, n++)
			used += (size_t)snprintf(expected + used, sizeof expected - used, "%s%s",
						 n == 0 ? " " : n == total - 1 ? " or " : ", ", *p);
}

static const char *schemes_expected(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, make_expected);
	return expected;
}

static int attr_path(const char *value, size_t n, char *out, size_t size, const char **why)
{
	if (n == 0 || value[0] != '/')
		return fail(why, "a path in a remote's attribute must be absolute");
	if (n >= size)
		return fail(why, "a path in a remote's attribute is too long");
	memcpy(out, value, n);
	out[n] = '\0';
	return 0;
}

/* SECS: a number of seconds, more than 0 and at most an hour. */
static int attr_seconds(const char *value, size_t n, double *out, const char **why)
{
	char buf[32], *end;
	if (n == 0 || n >= sizeof buf)
		return fail(why, "a timeout is a number of seconds");
	memcpy(buf, value, n);
	buf[n] = '\0';
	double v = strtod(buf, &end);
	if (*end || !(v > 0 && v <= 3600))
		return fail(why, "a timeout is a number of seconds, more than 0 and at most 3600");
	*out = v;
	return 0;
}

static int attribute(const char *a, size_t n, struct jc_remote_spec *sp, const char **why)
{
#define IS(name) (n >= sizeof name - 1 && strncmp(a, name, sizeof name - 1) == 0)
#define VALUE(name) (a + sizeof name - 1), (n - (sizeof name - 1))
	int web = sp->kind != JC_REMOTE_REDIS;
	if (n == 9 && strncmp(a, "read-only", 9) == 0)
		sp->read_only = 1;
	else if (web && n == 14 && strncmp(a, "layout=subdirs", 14) == 0)
		sp->layout = JC_LAYOUT_SUBDIRS;
	else if (web && n == 11 && strncmp(a, "layout=flat", 11) == 0)
		sp->layout = JC_LAYOUT_FLAT;
	else if (web && n == 12 && strncmp(a, "layout=bazel", 12) == 0)
		sp->layout = JC_LAYOUT_BAZEL;
	else if (IS("layout="))
		return fail(why, web ? "layout is subdirs, flat or bazel"
				     : "layout= is for http and s3 remotes (and file://)");
	else if (sp->kind == JC_REMOTE_HTTP && IS("auth-file="))
		return attr_path(VALUE("auth-file="), sp->auth_file, sizeof sp->auth_file, why);
	else if (sp->kind == JC_REMOTE_HTTP && IS("ca-file="))
		return attr_path(VALUE("ca-file="), sp->ca_file, sizeof sp->ca_file, why);
	else if (IS("connect-timeout="))
		return attr_seconds(VALUE("connect-timeout="), &sp->connect_timeout, why);
	else if (IS("timeout="))
		return attr_seconds(VALUE("timeout="), &sp->timeout, why);
	else
		return fail(why, "unknown remote attribute (read-only, layout=, auth-file=, ca-file=, "
			    "connect-timeout=, timeout=)");
	return 0;
#undef IS
#undef VALUE
}

/* One remote: URL[|ATTR...] in [s, s+n). */
static int one_remote(const char *s, size_t n, struct jc_remote_spec *sp, const char **why)
{
	const char *bar = memchr(s, '|', n);
	size_t url_len = bar ? (size_t)(bar - s) : n;
	memset(sp, 0, sizeof *sp);
	if (url_len >= sizeof sp->url)
		return fail(why, "URL too long");
	memcpy(sp->url, s, url_len);
	sp->url[url_len] = '\0';
	int k = kind_of(sp->url);
	if (k >= 0) {
		sp->kind = kinds[k].kind;
		if (kinds[k].parse(sp, why) != 0)
			return -1;
	} else if (strncasecmp(s, "redis", 5) == 0) { /* Redis's own reason */
		sp->kind = JC_REMOTE_REDIS;
		return shape_redis(sp, why);
	} else {
		return fail(why, schemes_expected());
	}
	while (bar) {
		const char *a = bar + 1, *next = memchr(a, '|', (size_t)(s + n - a));
		size_t len = (size_t)((next ? next : s + n) - a);
		if (attribute(a, len, sp, why) != 0)
			return -1;
		bar = next;
	}
	return 0;
}

int jc_remote_list_parse(const char *text, struct jc_remote_spec out[JC_REMOTES_MAX], int *n,
			 const char **why)
{
	*n = 0;
	if (!text)
		return 0;
	if (strlen(text) >= JC_REMOTE_LIST_MAX)
		return fail(why, "the list of remotes is too long");
	while (is_space(*text))
		text++;
	if (!*text || strcasecmp(text, "off") == 0)
		return 0;
	for (const char *s = text; *s;) {
		while (is_space(*s))
			s++;
		if (!*s)
			break;
		size_t len = 0;
		while (s[len] && !is_space(s[len]))
			len++;
		if (*n == JC_REMOTES_MAX)
			return fail(why, "more than 8 remotes");
		if (one_remote(s, len, &out[*n], why) != 0)
			return -1;
		for (int i = 0; i < *n; i++)
			if (strcmp(out[i].url, out[*n].url) == 0)
				return fail(why, "a remote is named twice");
		(*n)++;
		s += len;
	}
	return 0;
}

void jc_remote_list_redact(const char *text, char *out, size_t size)
{
	size_t o = 0;
	if (!size)
		return;
	out[0] = '\0';
	for (const char *s = text ? text : ""; *s && o + 1 < size;) {
		if (is_space(*s)) {
			out[o++] = *s++;
			out[o] = '\0';
			continue;
		}
		size_t len = 0;
		while (s[len] && !is_space(s[len]))
			len++;
		char one[JC_REMOTE_LIST_MAX], shown[JC_REMOTE_LIST_MAX];
		snprintf(one, sizeof one, "%.*s", (int)len, s);
		jc_remote_url_redact(one, shown, sizeof shown);
		o += (size_t)snprintf(out + o, size - o, "%s", shown);
		if (o >= size)
			o = size - 1;
		s += len;
	}
}
