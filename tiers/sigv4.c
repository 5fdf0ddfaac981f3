// SPDX-License-Identifier: MIT
/* sigv4.c — AWS Signature Version 4 and where S3 credentials come from.
 * See sigv4.h. */
#include "tiers/sigv4.h"

#include "config/buf.h"
#include "config/hex.h"
#include "config/inifile.h"
#include "config/readfile.h"

#include <ctype.h>
#include <errno.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void jc_sigv4_sha256_hex(const void *bytes, size_t n, char out[65])
{
	unsigned char d[crypto_hash_sha256_BYTES];
	crypto_hash_sha256(d, bytes, n);
	jc_hex(d, sizeof d, out);
}

static void hmac(unsigned char out[32], const void *key, size_t keylen, const char *msg)
{
	crypto_auth_hmacsha256_state st;
	crypto_auth_hmacsha256_init(&st, key, keylen);
	crypto_auth_hmacsha256_update(&st, (const unsigned char *)msg, strlen(msg));
	crypto_auth_hmacsha256_final(&st, out);
}

/* ---- the canonical request ----------------------------------------------- */

/* One header or query parameter: its name and value, and where it stood
 * (so that sorting keeps repeated names in the order given). */
struct field {
	const char *name, *value;
	size_t name_len, value_len;
	int at;
};

/* Byte order, a prefix first. */
static int compare(const char *a, size_t alen, const char *b, size_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);
	return c ? c : alen < blen ? -1 : alen > blen;
}

/* Headers sort by name; a repeated name's values stay in the order given. */
static int by_name(const void *pa, const void *pb)
{
	const struct field *a = pa, *b = pb;
	int c = compare(a->name, a->name_len, b->name, b->name_len);
	return c ? c : a->at - b->at;
}

/* Query parameters sort by name, then value (names repeat: a=2&a=1). */
static int by_name_value(const void *pa, const void *pb)
{
	const struct field *a = pa, *b = pb;
	int c = compare(a->name, a->name_len, b->name, b->name_len);
	return c ? c : compare(a->value, a->value_len, b->value, b->value_len);
}

/* "b=2&a=1&c" -> "a=1&b=2&c=": the parameters (URI-encoded already) sorted,
 * each with its '='. */
static void canonical_query(struct jc_buf *t, const char *query)
{
	size_t n = 0, len = query ? strlen(query) : 0;
	if (!len)
		return;
	for (size_t i = 0; i < len; i++)
		n += query[i] == '&';
	struct field *f = calloc(n + 1, sizeof *f);
	if (!f) {
		t->failed = 1;
		return;
	}
	n = 0;
	for (const char *p = query; p <= query + len;) {
		size_t plen = strcspn(p, "&");
		const char *eq = memchr(p, '=', plen);
		if (plen) {
			f[n].name = p, f[n].name_len = eq ? (size_t)(eq - p) : plen;
			f[n].value = eq ? eq + 1 : "", f[n].value_len = eq ? plen - (size_t)(eq + 1 - p) : 0;
			f[n].at = (int)n, n++;
		}
		p += plen + 1;
	}
	qsort(f, n, sizeof *f, by_name_value);
	for (size_t i = 0; i < n; i++) {
		if (i)
			jc_buf_put(t, "&", 1);
		jc_buf_put(t, f[i].name, f[i].name_len);
		jc_buf_put(t, "=", 1);
		jc_buf_put(t, f[i].value, f[i].value_len);
	}
	free(f);
}

/* A header's value as signed: blanks around it dropped, each run of blanks
 * inside it one space. */
static void put_trimmed(struct jc_buf *t, const char *v, size_t n)
{
	size_t i = 0;
	while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
		n--;
	while (i < n && (v[i] == ' ' || v[i] == '\t'))
		i++;
	while (i < n) {
		size_t run = strcspn(v + i, " \t");
		run = run < n - i ? run : n - i;
		jc_buf_put(t, v + i, run);
		i += run;
		if (i < n)
			jc_buf_put(t, " ", 1);
		while (i < n && (v[i] == ' ' || v[i] == '\t'))
			i++;
	}
}

/* The canonical headers ("name:value\n" each, names lowercase and sorted,
 * a repeated name's values joined by ',') into t, their names ("a;b;c")
 * into names.  -1 if a header line has no ':'. */
static int canonical_headers(struct jc_buf *t, struct jc_buf *names, const char *const *lines,
			     int n)
{
	struct field *f = calloc((size_t)n + 1, sizeof *f);
	char *lower = NULL;
	size_t room = 0;
	if (!f)
		return t->failed = 1, -1;
	for (int i = 0; i < n; i++)
		room += strcspn(lines[i], ":") + 1;
	lower = malloc(room + 1);
	if (!lower) {
		free(f);
		return t->failed = 1, -1;
	}
	char *l = lower;
	for (int i = 0; i < n; i++) {
		const char *colon = strchr(lines[i], ':');
		if (!colon) {
			free(f);
			free(lower);
			return -1;
		}
		size_t len = (size_t)(colon - lines[i]);
		for (size_t k = 0; k < len; k++)
			l[k] = (char)tolower((unsigned char)lines[i][k]);
		f[i] = (struct field){ l, colon + 1, len, strlen(colon + 1), i };
		l += len + 1;
	}
	qsort(f, (size_t)n, sizeof *f, by_name);
	for (int i = 0; i < n; i++) {
		if (i > 0 && compare(f[i].name, f[i].name_len, f[i - 1].name, f[i - 1].name_len) == 0) {
			jc_buf_put(t, ",", 1);
		} else {
			if (i) {
				jc_buf_put(t, "\n", 1);
				jc_buf_put(names, ";", 1);
			}
			jc_buf_put(t, f[i].name, f[i].name_len);
			jc_buf_put(t, ":", 1);
			jc_buf_put(names, f[i].name, f[i].name_len);
		}
		put_trimmed(t, f[i].value, f[i].value_len);
	}
	jc_buf_put(t, "\n", 1);
	free(f);
	free(lower);
	return 0;
}

int jc_sigv4_authorization(const struct jc_sigv4_creds *c, const struct jc_sigv4_request *r,
			   time_t now, char *out, size_t cap)
{
	struct tm tm;
	char amzdate[17], date[9], scope[256], request_hash[65], sig_hex[65];
	gmtime_r(&now, &tm);
	strftime(amzdate, sizeof amzdate, "%Y%m%dT%H%M%SZ", &tm);
	strftime(date, sizeof date, "%Y%m%d", &tm);
	int n = snprintf(scope, sizeof scope, "%s/%s/%s/aws4_request", date, c->region, r->service);
	if (n < 0 || (size_t)n >= sizeof scope)
		return -1;

	/* Host and x-amz-date are always signed, beside the caller's. */
	char host[320], stamp[32];
	n = snprintf(host, sizeof host, "host:%s", r->host);
	snprintf(stamp, sizeof stamp, "x-amz-date:%s", amzdate);
	const char **lines = n > 0 && (size_t)n < sizeof host
		? calloc((size_t)r->n_headers + 2, sizeof *lines) : NULL;
	if (!lines)
		return -1;
	for (int i = 0; i < r->n_headers; i++)
		lines[i] = r->headers[i];
	lines[r->n_headers] = host;
	lines[r->n_headers + 1] = stamp;

	/* The canonical request: method, path, query, headers, their names,
	 * the payload's hash. */
	struct jc_buf canon = { 0 }, names = { 0 };
	jc_buf_puts(&canon, r->method);
	jc_buf_puts(&canon, "\n");
	jc_buf_puts(&canon, r->path[0] ? r->path : "/");
	jc_buf_puts(&canon, "\n");
	canonical_query(&canon, r->query);
	jc_buf_puts(&canon, "\n");
	int bad = canonical_headers(&canon, &names, lines, r->n_headers + 2);
	free(lines);
	jc_buf_puts(&canon, "\n");
	jc_buf_puts(&canon, names.s ? names.s : "");
	jc_buf_puts(&canon, "\n");
	jc_buf_puts(&canon, r->payload_sha256);
	if (bad || canon.failed || names.failed) {
		free(canon.s);
		free(names.s);
		return -1;
	}
	jc_sigv4_sha256_hex(canon.s, canon.n, request_hash);
	free(canon.s);

	char to_sign[512];
	snprintf(to_sign, sizeof to_sign, "AWS4-HMAC-SHA256\n%s\n%s\n%s", amzdate, scope,
		 request_hash);
	char secret[sizeof c->secret_key + 4];
	unsigned char k[32];
	int slen = snprintf(secret, sizeof secret, "AWS4%s", c->secret_key);
	hmac(k, secret, (size_t)slen, date);
	hmac(k, k, sizeof k, c->region);
	hmac(k, k, sizeof k, r->service);
	hmac(k, k, sizeof k, "aws4_request");
	hmac(k, k, sizeof k, to_sign);
	jc_hex(k, sizeof k, sig_hex);
	sodium_memzero(secret, sizeof secret);
	sodium_memzero(k, sizeof k);

	n = snprintf(out, cap, "AWS4-HMAC-SHA256 Credential=%s/%s, SignedHeaders=%s, Signature=%s",
		     c->access_key, scope, names.s, sig_hex);
	free(names.s);
	return n >= 0 && (size_t)n < cap ? 0 : -1;
}

void jc_sigv4_sign(const struct jc_sigv4_creds *c, const char *method, const char *host,
		   const char *path, const char *payload_sha256, time_t now,
		   struct jc_sigv4_headers *out)
{
	const size_t size = sizeof out->line[0];
	struct tm tm;
	char amzdate[17];
	gmtime_r(&now, &tm);
	strftime(amzdate, sizeof amzdate, "%Y%m%dT%H%M%SZ", &tm);
	out->n = 0;
	snprintf(out->line[out->n++], size, "x-amz-date: %s", amzdate);
	snprintf(out->line[out->n++], size, "x-amz-content-sha256: %s", payload_sha256);
	if (c->session_token[0])
		snprintf(out->line[out->n++], size, "x-amz-security-token: %s", c->session_token);
	const char *signed_lines[] = { out->line[1], out->line[2] };
	struct jc_sigv4_request r = {
		.method = method, .host = host, .path = path, .query = NULL,
		.headers = signed_lines, .n_headers = out->n - 1,
		.payload_sha256 = payload_sha256, .service = "s3",
	};
	char auth[sizeof out->line[0] - 16];
	if (jc_sigv4_authorization(c, &r, now, auth, sizeof auth) != 0) {
		out->n = 0;
		return;
	}
	snprintf(out->line[out->n++], size, "Authorization: %s", auth);
}

/* ---- credentials ------------------------------------------------------- */

static int copy(char *dst, size_t cap, const char *src)
{
	size_t n = strlen(src);
	if (n == 0 || n >= cap)
		return -1;
	memcpy(dst, src, n + 1);
	return 0;
}

/* The profile a section of the config file names, as the AWS CLI takes it:
 * "default", or "profile NAME" split as a shell splits words (NAME may be
 * quoted: [profile "my name"]).  0 and the name in out, or -1. */
static int config_profile(const char *section, char *out, size_t cap)
{
	if (strcmp(section, "default") == 0)
		return copy(out, cap, section);
	if (strncmp(section, "profile", 7) != 0)
		return -1;
	int words = 0;
	size_t o = 0;
	for (const char *s = section; *s;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		words++;
		char quote = 0;
		for (; *s && (quote || (*s != ' ' && *s != '\t')); s++) {
			if (quote && *s == quote) {
				quote = 0;
			} else if (!quote && (*s == '"' || *s == '\'')) {
				quote = *s;
			} else {
				if (*s == '\\' && quote != '\'' && s[1] &&
				    (!quote || s[1] == '"' || s[1] == '\\'))
					s++;
				if (words == 2 && o + 1 >= cap)
					return -1; /* too long: not cut into another name */
				if (words == 2)
					out[o++] = *s;
			}
		}
		if (quote)
			return -1; /* unbalanced: shlex refuses it, and so the CLI */
	}
	out[o] = '\0';
	return words == 2 && o > 0 ? 0 : -1;
}

/* What one file's reading is after, and what it found. */
struct aws_file {
	const char *profile;
	int config;                  /* ~/.aws/config, not credentials */
	char access_key[128], secret_key[128], session_token[4096], region[64];
	int too_long;
	char problem[128];           /* the first line it could not read */
};

static void on_aws_value(void *user, int line, const char *section, const char *name,
			 const char *value)
{
	struct aws_file *f = user;
	char profile[128];
	if (f->config ? config_profile(section, profile, sizeof profile) != 0
		      : copy(profile, sizeof profile, section) != 0)
		return;
	if (strcmp(profile, f->profile) != 0)
		return;
	char *to = NULL;
	size_t cap = 0;
	/* Names are case-insensitive, as Python's configparser takes them. */
	if (strcasecmp(name, "aws_access_key_id") == 0)
		to = f->access_key, cap = sizeof f->access_key;
	else if (strcasecmp(name, "aws_secret_access_key") == 0)
		to = f->secret_key, cap = sizeof f->secret_key;
	else if (strcasecmp(name, "aws_session_token") == 0)
		to = f->session_token, cap = sizeof f->session_token;
	else if (strcasecmp(name, "region") == 0)
		to = f->region, cap = sizeof f->region;
	if (to && *value && copy(to, cap, value) != 0)
		f->too_long = 1;
}

/* A line it cannot read makes the file unreadable, as the AWS CLI takes
 * it (and else a line of keys after a section line too long for inih would
 * count as the previous profile's). */
static void on_aws_error(void *user, int line, const char *why)
{
	struct aws_file *f = user;
	if (!f->problem[0])
		snprintf(f->problem, sizeof f->problem, "line %d: %s", line, why);
}

/* Read one of the AWS files; 0, or -1 with *why if it is there but cannot
 * be read.  A missing file is an empty one. */
static int read_aws_file(struct aws_file *f, const char *path, const char **why)
{
	size_t len;
	errno = 0; /* not every refusal sets it */
	char *text = jc_read_small_file(path, 256 * 1024, &len, why);
	if (!text)
		return errno == ENOENT ? 0 : -1;
	FILE *in = len ? fmemopen(text, len, "r") : NULL;
	int rc = 0;
	if (in) {
		setvbuf(in, NULL, _IONBF, 0); /* no copy of the secrets in a buffer */
		rc = jc_ini_parse_long_values(in, on_aws_value, on_aws_error, f);
		fclose(in);
	} else if (len) {
		rc = -1;
	}
	sodium_memzero(text, len);
	free(text);
	if (rc != 0)
		*why = "cannot be read";
	else if (f->problem[0])
		*why = f->problem;
	else if (f->too_long)
		*why = "holds a value too long";
	return rc == 0 && !f->problem[0] && !f->too_long ? 0 : -1;
}

static const char *env(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

/* path: the environment's name for it, else ~/.aws/NAME.  -1 if neither. */
static int aws_path(char *path, size_t cap, const char *var, const char *name)
{
	const char *file = env(var), *home = env("HOME");
	int n = file ? snprintf(path, cap, "%s", file)
		: home ? snprintf(path, cap, "%s/.aws/%s", home, name) : -1;
	return n >= 0 && (size_t)n < cap ? 0 : -1;
}

int jc_sigv4_load(struct jc_sigv4_creds *c, const char **why)
{
	static char said[1024];
	memset(c, 0, sizeof *c);
	const char *profile = env("AWS_PROFILE") ? env("AWS_PROFILE") : "default";
	const char *id = env("AWS_ACCESS_KEY_ID"), *secret = env("AWS_SECRET_ACCESS_KEY");
	const char *region = env("AWS_REGION") ? env("AWS_REGION") : env("AWS_DEFAULT_REGION");

	/* The files, read as the AWS CLI reads them: the credentials file's
	 * profile before the config file's [profile NAME]. */
	struct aws_file *files = calloc(2, sizeof *files);
	char paths[2][4096];
	char bad_why[160] = "";
	int bad = -1;
	if (!files)
		return *why = "out of memory", -1;
	files[0].profile = files[1].profile = profile;
	files[1].config = 1;
	int have_paths = aws_path(paths[0], sizeof paths[0], "AWS_SHARED_CREDENTIALS_FILE",
				  "credentials") == 0;
	have_paths &= aws_path(paths[1], sizeof paths[1], "AWS_CONFIG_FILE", "config") == 0;
	for (int i = 0; i < 2 && have_paths && !(id && secret && region); i++) {
		const char *file_why = "";
		if (read_aws_file(&files[i], paths[i], &file_why) == 0 || bad >= 0)
			continue;
		bad = i;
		snprintf(bad_why, sizeof bad_why, "%s", file_why);
		sodium_memzero(&files[i], sizeof files[i]); /* none of it counts */
	}
	struct aws_file *from = files[0].access_key[0] ? &files[0] : &files[1];

	int rc = -1;
	*why = NULL;
	if (!region)
		region = files[0].region[0] ? files[0].region
			 : files[1].region[0] ? files[1].region : "us-east-1";
	if (copy(c->region, sizeof c->region, region) != 0) {
		*why = "the region is too long";
	} else if (id && secret) {
		const char *token = env("AWS_SESSION_TOKEN");
		if (copy(c->access_key, sizeof c->access_key, id) != 0 ||
		    copy(c->secret_key, sizeof c->secret_key, secret) != 0 ||
		    (token && copy(c->session_token, sizeof c->session_token, token) != 0))
			*why = "an AWS_* credential is too long";
		else
			rc = 0;
	} else if (bad >= 0) {
		snprintf(said, sizeof said, "no AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, and "
			 "%.300s: %s", paths[bad], bad_why);
		*why = said;
	} else if (!have_paths) {
		*why = "no AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY and no HOME";
	} else if (!from->access_key[0] || !from->secret_key[0]) {
		snprintf(said, sizeof said, "no AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, and no "
			 "aws_access_key_id and aws_secret_access_key in profile %.64s of "
			 "%.300s or %.300s", profile, paths[0], paths[1]);
		*why = said;
	} else {
		memcpy(c->access_key, from->access_key, sizeof c->access_key);
		memcpy(c->secret_key, from->secret_key, sizeof c->secret_key);
		memcpy(c->session_token, from->session_token, sizeof c->session_token);
		rc = 0;
	}
	sodium_memzero(files, 2 * sizeof *files);
	free(files);
	return rc;
}
