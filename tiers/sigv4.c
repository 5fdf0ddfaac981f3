// SPDX-License-Identifier: MIT
/* sigv4.c — AWS Signature Version 4 and where S3 credentials come from.
 * See sigv4.h. */
#include "tiers/sigv4.h"

#include "config/readfile.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void hex(const unsigned char *b, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
	out[2 * n] = '\0';
}

void jc_sigv4_sha256_hex(const void *bytes, size_t n, char out[65])
{
	unsigned char d[crypto_hash_sha256_BYTES];
	crypto_hash_sha256(d, bytes, n);
	hex(d, sizeof d, out);
}

static void hmac(unsigned char out[32], const void *key, size_t keylen, const char *msg)
{
	crypto_auth_hmacsha256_state st;
	crypto_auth_hmacsha256_init(&st, key, keylen);
	crypto_auth_hmacsha256_update(&st, (const unsigned char *)msg, strlen(msg));
	crypto_auth_hmacsha256_final(&st, out);
}

void jc_sigv4_sign(const struct jc_sigv4_creds *c, const char *method, const char *host,
		   const char *path, const char *payload_sha256, time_t now,
		   struct jc_sigv4_headers *out)
{
	struct tm tm;
	char amzdate[17], date[9], scope[160], request_hash[65], sig_hex[65];
	gmtime_r(&now, &tm);
	strftime(amzdate, sizeof amzdate, "%Y%m%dT%H%M%SZ", &tm);
	strftime(date, sizeof date, "%Y%m%d", &tm);
	snprintf(scope, sizeof scope, "%s/%s/s3/aws4_request", date, c->region);
	int token = c->session_token[0] != '\0';
	const char *signed_headers = token
		? "host;x-amz-content-sha256;x-amz-date;x-amz-security-token"
		: "host;x-amz-content-sha256;x-amz-date";

	/* The canonical request: method, path, (no) query, headers, their
	 * names, the payload's hash. */
	size_t cap = strlen(path) + strlen(host) + sizeof c->session_token + 512;
	char *canon = malloc(cap);
	if (!canon) {
		out->n = 0;
		return;
	}
	snprintf(canon, cap,
		 "%s\n%s\n\nhost:%s\nx-amz-content-sha256:%s\nx-amz-date:%s\n%s%s%s\n%s\n%s",
		 method, path[0] ? path : "/", host, payload_sha256, amzdate,
		 token ? "x-amz-security-token:" : "", token ? c->session_token : "",
		 token ? "\n" : "", signed_headers, payload_sha256);
	jc_sigv4_sha256_hex(canon, strlen(canon), request_hash);
	free(canon);

	char to_sign[512];
	snprintf(to_sign, sizeof to_sign, "AWS4-HMAC-SHA256\n%s\n%s\n%s", amzdate, scope,
		 request_hash);
	char secret[sizeof c->secret_key + 4];
	unsigned char k[32];
	int slen = snprintf(secret, sizeof secret, "AWS4%s", c->secret_key);
	hmac(k, secret, (size_t)slen, date);
	hmac(k, k, sizeof k, c->region);
	hmac(k, k, sizeof k, "s3");
	hmac(k, k, sizeof k, "aws4_request");
	hmac(k, k, sizeof k, to_sign);
	hex(k, sizeof k, sig_hex);
	sodium_memzero(secret, sizeof secret);

	out->n = 0;
	snprintf(out->line[out->n++], sizeof out->line[0], "x-amz-date: %s", amzdate);
	snprintf(out->line[out->n++], sizeof out->line[0], "x-amz-content-sha256: %s",
		 payload_sha256);
	if (token)
		snprintf(out->line[out->n++], sizeof out->line[0], "x-amz-security-token: %s",
			 c->session_token);
	snprintf(out->line[out->n++], sizeof out->line[0],
		 "Authorization: AWS4-HMAC-SHA256 Credential=%s/%s, SignedHeaders=%s, Signature=%s",
		 c->access_key, scope, signed_headers, sig_hex);
}

/* ---- credentials ------------------------------------------------------- */

static int copy(char *dst, size_t cap, const char *src, size_t n)
{
	if (n == 0 || n >= cap)
		return -1;
	memcpy(dst, src, n);
	dst[n] = '\0';
	return 0;
}

static char *trim(char *s, char *end)
{
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		end--;
	*end = '\0';
	return s;
}

/* The keys of one profile of an ini-style credentials file. */
static int read_profile(struct jc_sigv4_creds *c, const char *path, const char *profile,
			const char **why)
{
	size_t len;
	char *text = jc_read_small_file(path, 256 * 1024, &len, why);
	if (!text)
		return -1;
	int in = 0;
	for (char *line = text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		char *end = next ? next : line + strlen(line);
		if (next)
			next++;
		char *s = trim(line, end);
		if (*s == '[') {
			char *close = strchr(s, ']');
			in = close && (size_t)(close - s - 1) == strlen(profile) &&
			     strncmp(s + 1, profile, strlen(profile)) == 0;
			continue;
		}
		char *eq = strchr(s, '=');
		if (!in || !eq || *s == '#' || *s == ';')
			continue;
		char *name = trim(s, eq), *value = trim(eq + 1, eq + 1 + strlen(eq + 1));
		if (strcasecmp(name, "aws_access_key_id") == 0)
			copy(c->access_key, sizeof c->access_key, value, strlen(value));
		else if (strcasecmp(name, "aws_secret_access_key") == 0)
			copy(c->secret_key, sizeof c->secret_key, value, strlen(value));
		else if (strcasecmp(name, "aws_session_token") == 0)
			copy(c->session_token, sizeof c->session_token, value, strlen(value));
	}
	sodium_memzero(text, len);
	free(text);
	if (!c->access_key[0] || !c->secret_key[0]) {
		*why = "no aws_access_key_id and aws_secret_access_key in the profile";
		return -1;
	}
	return 0;
}

static const char *env(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

int jc_sigv4_load(struct jc_sigv4_creds *c, const char **why)
{
	memset(c, 0, sizeof *c);
	const char *id = env("AWS_ACCESS_KEY_ID"), *secret = env("AWS_SECRET_ACCESS_KEY");
	const char *region = env("AWS_REGION") ? env("AWS_REGION") : env("AWS_DEFAULT_REGION");
	if (copy(c->region, sizeof c->region, region ? region : "us-east-1",
		 strlen(region ? region : "us-east-1")) != 0)
		return *why = "AWS_REGION is too long", -1;
	if (id && secret) {
		const char *token = env("AWS_SESSION_TOKEN");
		if (copy(c->access_key, sizeof c->access_key, id, strlen(id)) != 0 ||
		    copy(c->secret_key, sizeof c->secret_key, secret, strlen(secret)) != 0 ||
		    (token && copy(c->session_token, sizeof c->session_token, token,
				   strlen(token)) != 0))
			return *why = "an AWS_* credential is too long", -1;
		return 0;
	}
	char path[4096];
	const char *file = env("AWS_SHARED_CREDENTIALS_FILE"), *home = env("HOME");
	if (!file && !home)
		return *why = "no AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY and no HOME", -1;
	if (!file) {
		snprintf(path, sizeof path, "%s/.aws/credentials", home);
		file = path;
	}
	const char *profile = env("AWS_PROFILE") ? env("AWS_PROFILE") : "default";
	static char said[600];
	if (read_profile(c, file, profile, why) != 0) {
		snprintf(said, sizeof said, "no AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, and "
			 "profile [%.64s] of %.300s: %.100s", profile, file, *why);
		*why = said;
		return -1;
	}
	return 0;
}
