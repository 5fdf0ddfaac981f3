// SPDX-License-Identifier: MIT
/*
 * sigv4.h — AWS Signature Version 4 for S3 requests (the S3 tier, http.h),
 * computed here with libsodium's SHA-256 and HMAC-SHA-256, so that nothing
 * depends on the signing support of whichever libcurl the host has.
 *
 *   struct jc_sigv4_creds c;          // from jc_sigv4_load() at open
 *   struct jc_sigv4_headers h;
 *   jc_sigv4_sign(&c, "GET", "host:port", "/bucket/prefix/ab/ab12...",
 *                 JC_SIGV4_EMPTY_SHA256, time(NULL), &h);
 *   // send h.line[0 .. h.n-1] as request headers (Host must be the host given)
 *
 * The S3 tier's requests have no query string; the headers signed are
 * host, x-amz-content-sha256, x-amz-date and, with a session token,
 * x-amz-security-token.  path is already URI-encoded (S3 encodes it once).
 * jc_sigv4_authorization() signs any request (any service, query and
 * headers): tests/unit/test_sigv4.c checks it against AWS's published
 * examples.
 */
#ifndef JITCACHE_SIGV4_H
#define JITCACHE_SIGV4_H

#include <stddef.h>
#include <time.h>

#define JC_SIGV4_EMPTY_SHA256 "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

struct jc_sigv4_creds {
	char access_key[128];
	char secret_key[128];
	char session_token[4096]; /* "" if none */
	char region[64];
};

/* Credentials and region as the AWS CLI finds them, read once:
 * AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, else the
 * keys of profile AWS_PROFILE (default "default") of the credentials file
 * (AWS_SHARED_CREDENTIALS_FILE, default ~/.aws/credentials; its sections
 * are profile names), else of the config file (AWS_CONFIG_FILE, default
 * ~/.aws/config; its sections are [default] and [profile NAME], NAME as a
 * shell word: [profile "my name"]); the region from AWS_REGION, else
 * AWS_DEFAULT_REGION, else the profile's region (credentials file first),
 * else us-east-1.  The files are read with config/inifile.h (names in any
 * case, "#" and ";" comments, values as written: quotes are kept, as the
 * CLI keeps them; a file with a line that is none of these is refused
 * whole, as the CLI refuses it); unlike the CLI, a ';' after a blank
 * starts a comment and a section name is cut at inih's 49 bytes.  0, or
 * -1 with *why set. */
int jc_sigv4_load(struct jc_sigv4_creds *c, const char **why);

struct jc_sigv4_headers {
	char line[4][4200];
	int n;
};

/* The headers that sign the S3 request; payload_sha256 is the lowercase
 * hex SHA-256 of the body (JC_SIGV4_EMPTY_SHA256 for none).  out->n is 0 if
 * it could not be signed (out of memory). */
void jc_sigv4_sign(const struct jc_sigv4_creds *c, const char *method, const char *host,
		   const char *path, const char *payload_sha256, time_t now,
		   struct jc_sigv4_headers *out);

/* One request to sign. */
struct jc_sigv4_request {
	const char *method;          /* "GET" */
	const char *host;            /* the Host header's value: "host[:port]" */
	const char *path;            /* URI-encoded, as sent; "" is "/" */
	const char *query;           /* "b=2&a=1&c", URI-encoded, any order; NULL: none */
	const char *const *headers;  /* more headers to sign, "Name: value", any */
	int n_headers;               /* case and order (a name may repeat) */
	const char *payload_sha256;  /* lowercase hex SHA-256 of the body */
	const char *service;         /* "s3" */
};

/* The Authorization header's value for r sent at now, into out (cap
 * bytes): "AWS4-HMAC-SHA256 Credential=KEY/DATE/REGION/SERVICE/aws4_request,
 * SignedHeaders=..., Signature=...".  Signed are host, x-amz-date (the
 * request must send now as its "x-amz-date: YYYYMMDDTHHMMSSZ") and r's
 * headers: names lowercased and sorted, values trimmed (inner runs of
 * blanks made one space), a repeated name's values joined by ','; the
 * query's parameters sorted, each with its '='.  0, or -1 if a header has
 * no ':', out is too small or memory ran out. */
int jc_sigv4_authorization(const struct jc_sigv4_creds *c, const struct jc_sigv4_request *r,
			   time_t now, char *out, size_t cap);

/* Lowercase hex SHA-256 of n bytes. */
void jc_sigv4_sha256_hex(const void *bytes, size_t n, char out[65]);

#endif
