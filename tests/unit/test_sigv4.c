// SPDX-License-Identifier: MIT
/* AWS Signature Version 4 (tiers/sigv4.h) against AWS's published examples,
 * so that signing is checked without a server, and where the S3 tier's
 * credentials come from (~/.aws/credentials and ~/.aws/config, read as the
 * AWS CLI reads them).
 *
 * The known answers, and where they are published:
 *   [suite] AWS's Signature Version 4 test suite, aws-sig-v4-test-suite.zip
 *           of https://docs.aws.amazon.com/general/latest/gr/signature-v4-test-suite.html
 *           (each case's .req and .authz files): key AKIDEXAMPLE, secret
 *           wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY, us-east-1, service
 *           "service", 20150830T123600Z.  The same requests and
 *           Authorization values are in aws/aws-sdk-js-v3,
 *           packages/signature-v4/src/suite.fixture.ts (all but
 *           post-sts-header-before, which is the suite's
 *           post-sts-token/post-sts-header-before/post-sts-header-before.authz).
 *   [s3]    "Examples of signature calculations" of
 *           https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html:
 *           key AKIAIOSFODNN7EXAMPLE, secret
 *           wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY, us-east-1, service
 *           "s3", 20130524T000000Z, host examplebucket.s3.amazonaws.com.
 *           The page writes "Credential=...,SignedHeaders=...,Signature=..."
 *           with no blank after the commas; jitcache sends ", " (as the
 *           suite does; S3 takes both), so those are compared part by part.
 */
#include "tiers/sigv4.h"
#include "tests/unit/check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define EMPTY JC_SIGV4_EMPTY_SHA256

static const time_t SUITE_TIME = 1440938160; /* 2015-08-30T12:36:00Z */
static const time_t S3_TIME = 1369353600;    /* 2013-05-24T00:00:00Z */

static struct jc_sigv4_creds creds(const char *key, const char *secret, const char *token)
{
	struct jc_sigv4_creds c = { .region = "us-east-1" };
	snprintf(c.access_key, sizeof c.access_key, "%s", key);
	snprintf(c.secret_key, sizeof c.secret_key, "%s", secret);
	snprintf(c.session_token, sizeof c.session_token, "%s", token ? token : "");
	return c;
}

/* The suite's example session token (its post-sts-token cases). */
#define SUITE_TOKEN                                                                              \
	"AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQWLWsKWHGBuFqwAeMicRXmxf" \
	"pSPfIeoIYRqTflfKD8YUuwthAx7mSEI/qkPpKPi/kMcGdQrmGdeehM4IC1NtBmUpp2wUE8phUZampKsburEDy0KPk" \
	"yQDYwT7WZ0wq5VSXDvp75YU9HFvlRd8Tx6q6fE8YQcHNVXAkiY9q6d+xo0rKwT38xVqr7ZD0u0iPPkUL64lIZbqBA" \
	"z+scqKmlzm8FDrypNC9Yjc8fPOLn9FX9KSYvKTr4rvx3iSIlTJabIQwj2ICCR/oLxBA=="

#define SUITE_SCOPE "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "

struct example {
	const char *name;
	const char *method, *path, *query;
	const char *headers[4];
	const char *want; /* the published Authorization */
};

/* [suite]: the request line and headers of each case's .req (Host and
 * X-Amz-Date are the signer's own), and its .authz. */
static const struct example suite[] = {
	{ "get-vanilla", "GET", "/", NULL, { NULL },
	  SUITE_SCOPE "SignedHeaders=host;x-amz-date, "
		      "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31" },
	{ "post-vanilla", "POST", "/", NULL, { NULL },
	  SUITE_SCOPE "SignedHeaders=host;x-amz-date, "
		      "Signature=5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b" },
	{ "get-vanilla-query-order-key-case", "GET", "/", "Param2=value2&Param1=value1", { NULL },
	  SUITE_SCOPE "SignedHeaders=host;x-amz-date, "
		      "Signature=b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500" },
	{ "get-vanilla-empty-query-key", "GET", "/", "Param1=value1", { NULL },
	  SUITE_SCOPE "SignedHeaders=host;x-amz-date, "
		      "Signature=a67d582fa61cc504c4bae71f336f98b97f1ea3c7a6bfe1b6e45aec72011b9aeb" },
	{ "get-unreserved", "GET",
	  "/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", NULL, { NULL },
	  SUITE_SCOPE "SignedHeaders=host;x-amz-date, "
		      "Signature=07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f" },
	{ "post-header-key-sort", "POST", "/", NULL, { "My-Header1:value1" },
	  SUITE_SCOPE "SignedHeaders=host;my-header1;x-amz-date, "
		      "Signature=c5410059b04c1ee005303aed430f6e6645f61f4dc9e1461ec8f8916fdf18852c" },
	{ "post-header-value-case", "POST", "/", NULL, { "My-Header1:VALUE1" },
	  SUITE_SCOPE "SignedHeaders=host;my-header1;x-amz-date, "
		      "Signature=cdbc9802e29d2942e5e10b5bccfdd67c5f22c7c4e8ae67b53629efa58b974b7d" },
	{ "get-header-value-trim", "GET", "/", NULL,
	  { "My-Header1: value1", "My-Header2: \"a   b   c\"" },
	  SUITE_SCOPE "SignedHeaders=host;my-header1;my-header2;x-amz-date, "
		      "Signature=acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736" },
	{ "get-header-key-duplicate", "GET", "/", NULL,
	  { "My-Header1:value2", "My-Header1:value2", "My-Header1:value1" },
	  SUITE_SCOPE "SignedHeaders=host;my-header1;x-amz-date, "
		      "Signature=c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea" },
	{ "get-header-value-order", "GET", "/", NULL,
	  { "My-Header1:value4", "My-Header1:value1", "My-Header1:value3", "My-Header1:value2" },
	  SUITE_SCOPE "SignedHeaders=host;my-header1;x-amz-date, "
		      "Signature=08c7e5a9acfcfeb3ab6b2185e75ce8b1deb5e634ec47601a50643f830c755c01" },
	{ "post-sts-header-before", "POST", "/", NULL, { "X-Amz-Security-Token:" SUITE_TOKEN },
	  SUITE_SCOPE "SignedHeaders=host;x-amz-date;x-amz-security-token, "
		      "Signature=85d96828115b5dc0cfc3bd16ad9e210dd772bbebba041836c64533a82be05ead" },
};

static int count(const char *const *h)
{
	int n = 0;
	while (n < 4 && h[n])
		n++;
	return n;
}

static void check_suite(void)
{
	struct jc_sigv4_creds c = creds("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
					NULL);
	for (size_t i = 0; i < sizeof suite / sizeof suite[0]; i++) {
		const struct example *e = &suite[i];
		struct jc_sigv4_request r = {
			.method = e->method, .host = "example.amazonaws.com", .path = e->path,
			.query = e->query, .headers = e->headers, .n_headers = count(e->headers),
			.payload_sha256 = EMPTY, .service = "service",
		};
		char got[1024] = "";
		int rc = jc_sigv4_authorization(&c, &r, SUITE_TIME, got, sizeof got);
		CHECK(rc == 0 && strcmp(got, e->want) == 0, "suite %s: the published signature%s%s",
		      e->name, rc == 0 && strcmp(got, e->want) ? "; got " : "",
		      rc == 0 && strcmp(got, e->want) ? got : "");
	}
}

/* [s3]: the four examples; want_headers and want_signature as published. */
static void s3_example(const char *name, const char *method, const char *path,
		       const char *query, const char *const *headers, const char *payload,
		       const char *want_headers, const char *want_signature)
{
	struct jc_sigv4_creds c = creds("AKIAIOSFODNN7EXAMPLE",
					"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", NULL);
	struct jc_sigv4_request r = {
		.method = method, .host = "examplebucket.s3.amazonaws.com", .path = path,
		.query = query, .headers = headers, .n_headers = count(headers),
		.payload_sha256 = payload, .service = "s3",
	};
	char got[1024] = "", want[1024];
	snprintf(want, sizeof want,
		 "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
		 "SignedHeaders=%s, Signature=%s", want_headers, want_signature);
	int rc = jc_sigv4_authorization(&c, &r, S3_TIME, got, sizeof got);
	CHECK(rc == 0 && strcmp(got, want) == 0, "S3 %s: the published signature%s%s", name,
	      rc == 0 && strcmp(got, want) ? "; got " : "", rc == 0 && strcmp(got, want) ? got : "");
}

static void check_s3(void)
{
	const char *get[] = { "Range: bytes=0-9", "x-amz-content-sha256: " EMPTY, NULL };
	s3_example("GET Object (bytes 0-9 of test.txt)", "GET", "/test.txt", NULL, get, EMPTY,
		   "host;range;x-amz-content-sha256;x-amz-date",
		   "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");

	char body_sha[65];
	jc_sigv4_sha256_hex("Welcome to Amazon S3.", 21, body_sha);
	CHECK(!strcmp(body_sha, "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072"),
	      "S3 PUT Object: the published SHA-256 of its body (%s)", body_sha);
	char content[100];
	snprintf(content, sizeof content, "x-amz-content-sha256: %s", body_sha);
	const char *put[] = { "Date: Fri, 24 May 2013 00:00:00 GMT", content,
			      "x-amz-storage-class: REDUCED_REDUNDANCY", NULL };
	s3_example("PUT Object (test$file.text, x-amz-storage-class)", "PUT", "/test%24file.text",
		   NULL, put, body_sha, "date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class",
		   "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");

	const char *plain[] = { "x-amz-content-sha256: " EMPTY, NULL };
	s3_example("GET Bucket Lifecycle (?lifecycle)", "GET", "/", "lifecycle", plain, EMPTY,
		   "host;x-amz-content-sha256;x-amz-date",
		   "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543");
	s3_example("Get Bucket, List Objects (?max-keys=2&prefix=J)", "GET", "/",
		   "prefix=J&max-keys=2", plain, EMPTY, "host;x-amz-content-sha256;x-amz-date",
		   "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
}

/* What the S3 tier sends (jc_sigv4_sign) is the general signer's answer for
 * its headers: host, x-amz-content-sha256, x-amz-date, and the token. */
static void check_tier_headers(void)
{
	struct jc_sigv4_creds c = creds("AKIAIOSFODNN7EXAMPLE",
					"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", NULL);
	for (int token = 0; token < 2; token++) {
		if (token)
			snprintf(c.session_token, sizeof c.session_token, "%s", SUITE_TOKEN);
		struct jc_sigv4_headers h;
		jc_sigv4_sign(&c, "PUT", "127.0.0.1:9000", "/bucket/ab/ab12", EMPTY, S3_TIME, &h);
		const char *mine[] = { "x-amz-content-sha256:" EMPTY,
				       "x-amz-security-token:" SUITE_TOKEN };
		struct jc_sigv4_request r = {
			.method = "PUT", .host = "127.0.0.1:9000", .path = "/bucket/ab/ab12",
			.headers = mine, .n_headers = 1 + token, .payload_sha256 = EMPTY,
			.service = "s3",
		};
		char auth[1024], want[1100];
		jc_sigv4_authorization(&c, &r, S3_TIME, auth, sizeof auth);
		snprintf(want, sizeof want, "Authorization: %s", auth);
		CHECK(h.n == 3 + token && !strcmp(h.line[0], "x-amz-date: 20130524T000000Z") &&
			      !strcmp(h.line[1], "x-amz-content-sha256: " EMPTY) &&
			      (!token || !strcmp(h.line[2], "x-amz-security-token: " SUITE_TOKEN)) &&
			      !strcmp(h.line[h.n - 1], want),
		      "the S3 tier's headers%s: x-amz-date, x-amz-content-sha256%s, Authorization "
		      "signing host;x-amz-content-sha256;x-amz-date%s", token ? " with a token" : "",
		      token ? ", x-amz-security-token" : "", token ? ";x-amz-security-token" : "");
	}
}

/* ---- credentials ---------------------------------------------------------- */

static char dir[] = "/tmp/jitcache-test.sigv4.XXXXXX";

static void write_file(const char *name, const char *text)
{
	char path[256];
	snprintf(path, sizeof path, "%s/.aws/%s", dir, name);
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

static int load(struct jc_sigv4_creds *c, const char **why)
{
	*why = "";
	return jc_sigv4_load(c, why);
}

static void check_files(void)
{
	static const char *vars[] = { "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
				      "AWS_SESSION_TOKEN", "AWS_REGION", "AWS_DEFAULT_REGION",
				      "AWS_PROFILE", "AWS_SHARED_CREDENTIALS_FILE",
				      "AWS_CONFIG_FILE" };
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
		unsetenv(vars[i]);
	if (!mkdtemp(dir))
		return;
	char aws[300];
	snprintf(aws, sizeof aws, "%s/.aws", dir);
	mkdir(aws, 0700);
	setenv("HOME", dir, 1);

	struct jc_sigv4_creds c;
	const char *why;
	CHECK(load(&c, &why) != 0 && strstr(why, "profile default"),
	      "no keys anywhere: refused, saying which profile (%s)", why);

	/* A token of 1000 bytes: longer than inih's lines (200). */
	char token[1001];
	memset(token, 'T', 1000);
	token[1000] = '\0';
	char credentials[2048];
	snprintf(credentials, sizeof credentials,
		 "# a comment\n"
		 "; another\n"
		 "[default]\n"
		 "AWS_Access_Key_ID = AKIDDEFAULT\n"
		 "aws_secret_access_key=secret/default+key\n"
		 "aws_session_token = %s\n"
		 "\n"
		 "[work]\n"
		 "aws_access_key_id = \"AKIDQUOTED\"\n"
		 "aws_secret_access_key = secret ; a comment after a blank\n"
		 "region = eu-west-3\n", token);
	write_file("credentials", credentials);
	write_file("config", "[default]\n"
			     "region = ap-south-1\n"
			     "[profile work]\n"
			     "region = us-west-2\n"
			     "[profile \"my team\"]\n"
			     "aws_access_key_id = AKIDTEAM\n"
			     "aws_secret_access_key = teamsecret\n"
			     "region = ca-central-1\n"
			     "[team]\n"
			     "aws_access_key_id = AKIDNOTAPROFILE\n"
			     "[profile   'it''s'  ]\n"
			     "aws_access_key_id = AKIDSHELL\n"
			     "aws_secret_access_key = shellsecret\n");

	CHECK(load(&c, &why) == 0 && !strcmp(c.access_key, "AKIDDEFAULT") &&
		      !strcmp(c.secret_key, "secret/default+key") && !strcmp(c.session_token, token),
	      "[default] of credentials: names in any case, '#' and ';' comments, a token of "
	      "1000 bytes read whole (%s)", c.access_key);
	CHECK(!strcmp(c.region, "ap-south-1"), "the region from [default] of config (%s)", c.region);

	setenv("AWS_PROFILE", "work", 1);
	CHECK(load(&c, &why) == 0 && !strcmp(c.access_key, "\"AKIDQUOTED\"") &&
		      !strcmp(c.secret_key, "secret") && !c.session_token[0],
	      "AWS_PROFILE=work: quotes kept as the CLI keeps them, ' ;' starts a comment (%s, %s)",
	      c.access_key, c.secret_key);
	CHECK(!strcmp(c.region, "eu-west-3"), "the credentials file's region before config's "
	      "[profile work] (%s)", c.region);

	setenv("AWS_PROFILE", "my team", 1);
	CHECK(load(&c, &why) == 0 && !strcmp(c.access_key, "AKIDTEAM") &&
		      !strcmp(c.region, "ca-central-1"),
	      "keys and region from config's [profile \"my team\"] (%s)", c.access_key);

	setenv("AWS_PROFILE", "its", 1);
	CHECK(load(&c, &why) == 0 && !strcmp(c.access_key, "AKIDSHELL"),
	      "[profile   'it''s'  ]: the name as a shell reads it, its (%s)", c.access_key);

	setenv("AWS_PROFILE", "team", 1);
	CHECK(load(&c, &why) != 0, "config's [team] is no profile: refused (%s)", why);

	setenv("AWS_PROFILE", "work", 1);
	setenv("AWS_REGION", "sa-east-1", 1);
	setenv("AWS_ACCESS_KEY_ID", "AKIDENV", 1);
	setenv("AWS_SECRET_ACCESS_KEY", "envsecret", 1);
	CHECK(load(&c, &why) == 0 && !strcmp(c.access_key, "AKIDENV") &&
		      !strcmp(c.region, "sa-east-1"),
	      "AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_REGION before the files");
	unsetenv("AWS_REGION");
	CHECK(load(&c, &why) == 0 && !strcmp(c.access_key, "AKIDENV") &&
		      !strcmp(c.region, "eu-west-3"),
	      "keys from the environment, the region from the profile (%s)", c.region);

	unsetenv("AWS_ACCESS_KEY_ID");
	unsetenv("AWS_SECRET_ACCESS_KEY");
	char other[300];
	snprintf(other, sizeof other, "%s/.aws/other", dir);
	write_file("other", "[work]\naws_access_key_id = AKIDOTHER\naws_secret_access_key = s\n");
	setenv("AWS_SHARED_CREDENTIALS_FILE", other, 1);
	CHECK(load(&c, &why) == 0 && !strcmp(c.access_key, "AKIDOTHER"),
	      "AWS_SHARED_CREDENTIALS_FILE names the credentials file");
	setenv("AWS_SHARED_CREDENTIALS_FILE", dir, 1);
	CHECK(load(&c, &why) != 0 && strstr(why, dir) && strstr(why, "a directory"),
	      "a credentials file that is a directory: refused, naming it (%s)", why);

	write_file("other", "[work]\naws_access_key_id = AKIDOTHER\naws_secret_access_key\n");
	setenv("AWS_SHARED_CREDENTIALS_FILE", other, 1);
	CHECK(load(&c, &why) != 0 && strstr(why, other) && strstr(why, "line 3: syntax error"),
	      "a line that is no name = value: the file refused, as the AWS CLI refuses it, "
	      "saying where (%s)", why);

	char cmd[400];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		printf("note: %s left behind\n", dir);
}

int main(void)
{
	check_suite();
	check_s3();
	check_tier_headers();
	check_files();
	return check_summary();
}
