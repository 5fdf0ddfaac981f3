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
 * The request signed has no query string; the headers signed are host,
 * x-amz-content-sha256, x-amz-date and, with a session token,
 * x-amz-security-token.  path is already URI-encoded (S3 encodes it once).
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

/* Credentials and region as the AWS tools find them, read once:
 * AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, else the
 * profile AWS_PROFILE (default "default") of AWS_SHARED_CREDENTIALS_FILE
 * (default ~/.aws/credentials); the region from AWS_REGION, else
 * AWS_DEFAULT_REGION, else us-east-1.  0, or -1 with *why set. */
int jc_sigv4_load(struct jc_sigv4_creds *c, const char **why);

struct jc_sigv4_headers {
	char line[4][4200];
	int n;
};

/* The headers that sign the request; payload_sha256 is the lowercase hex
 * SHA-256 of the body (JC_SIGV4_EMPTY_SHA256 for none). */
void jc_sigv4_sign(const struct jc_sigv4_creds *c, const char *method, const char *host,
		   const char *path, const char *payload_sha256, time_t now,
		   struct jc_sigv4_headers *out);

/* Lowercase hex SHA-256 of n bytes. */
void jc_sigv4_sha256_hex(const void *bytes, size_t n, char out[65]);

#endif
