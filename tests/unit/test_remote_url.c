// SPDX-License-Identifier: MIT
/* Unit tests of config/remote_url.c: the forms of a Redis URL the remote
 * tier accepts, the one-line reasons for those it refuses, and redaction of
 * passwords in what jitcache prints. */
#include "config/remote_url.h"
#include "tests/unit/check.h"

#include <string.h>

static struct jc_remote_url u;
static const char *why;

static int ok(const char *text)
{
	why = "";
	return jc_remote_url_parse(text, &u, &why) == 0;
}

static int refused(const char *text, const char *reason_part)
{
	why = "";
	return jc_remote_url_parse(text, &u, &why) != 0 && strstr(why, reason_part) != NULL;
}

static int redacts(const char *text, const char *expect)
{
	char out[JC_REMOTE_URL_MAX];
	jc_remote_url_redact(text, out, sizeof out);
	return strcmp(out, expect) == 0;
}

static void tcp_forms(void)
{
	CHECK(ok("redis://localhost") && !u.is_unix && strcmp(u.host, "localhost") == 0 &&
	      u.port == 6379 && u.db == 0 && !u.has_password, "host alone: port 6379, db 0");
	CHECK(ok("redis://10.0.0.7:7000/3") && strcmp(u.host, "10.0.0.7") == 0 && u.port == 7000 &&
	      u.db == 3, "host, port and database");
	CHECK(ok("redis://h/") && u.db == 0, "an empty database is 0");
	CHECK(ok("REDIS://Cache.Example:1") && strcmp(u.host, "Cache.Example") == 0 && u.port == 1,
	      "scheme in capitals");
	CHECK(ok("redis://[::1]:6380/2") && strcmp(u.host, "::1") == 0 && u.port == 6380 && u.db == 2,
	      "IPv6 address in brackets");
	CHECK(ok("redis://:s3cret@h") && u.has_password && strcmp(u.password, "s3cret") == 0 &&
	      u.user[0] == '\0', "password only: the default user");
	CHECK(ok("redis://ci:pa:ss@h:9/1") && strcmp(u.user, "ci") == 0 &&
	      strcmp(u.password, "pa:ss") == 0 && u.port == 9 && u.db == 1,
	      "user and a password holding ':'");
	CHECK(ok("redis://u:p%40ss%25@h") && strcmp(u.password, "p@ss%") == 0,
	      "percent escapes decode (40 is '@', 25 is '%%')");
	CHECK(ok("redis://u:p@ss@h") && strcmp(u.password, "p@ss") == 0 && strcmp(u.host, "h") == 0,
	      "the user info ends at the last '@'");
	CHECK(ok("redis://:@h") && u.has_password && u.password[0] == '\0',
	      "an empty password is still a password");
}

static void unix_forms(void)
{
	CHECK(ok("redis+unix:///run/redis/redis.sock") && u.is_unix &&
	      strcmp(u.path, "/run/redis/redis.sock") == 0 && u.db == 0, "unix socket");
	CHECK(ok("redis+unix:///tmp/r.sock?db=4") && u.is_unix && u.db == 4, "unix socket with ?db=");
	/* the password in password_file (issue 45): the tier checks it is there */
	CHECK(ok("redis://bob@h") && !strcmp(u.user, "bob") && !u.has_password && !u.password[0],
	      "a user, its password from password_file");
	CHECK(ok("redis+unix://:pw@/tmp/r.sock") && u.is_unix && strcmp(u.password, "pw") == 0 &&
	      strcmp(u.path, "/tmp/r.sock") == 0, "unix socket with a password");
}

static void refusals(void)
{
	char long_path[200] = "redis+unix:///";
	memset(long_path + 14, 'a', 150);
	long_path[164] = '\0';
	CHECK(refused("http://h", "expected redis://"), "another scheme");
	CHECK(refused("redis:/h", "expected redis://"), "one slash");
	CHECK(refused("", "expected redis://"), "empty text");
	CHECK(refused("redis://", "no host"), "no host");
	CHECK(refused("redis://:6379", "no host"), "port but no host");
	CHECK(refused("redis://h:0", "port"), "port 0");
	CHECK(refused("redis://h:65536", "port"), "port too large");
	CHECK(refused("redis://h:12ab", "port"), "port not a number");
	CHECK(refused("redis://h:", "port"), "empty port");
	CHECK(refused("redis://h/x", "database"), "database not a number");
	CHECK(refused("redis://h/1/2", "database"), "two databases");
	CHECK(refused("redis://h?db=1", "unexpected text"), "a query on TCP");
	CHECK(refused("redis://h o", "bad character"), "space in the host");
	CHECK(refused("redis://[::1", "unclosed"), "unclosed IPv6 bracket");
	CHECK(refused("redis://:%zz@h", "password"), "bad escape in the password");
	CHECK(refused("redis://:%4@h", "password"), "short escape in the password");
	CHECK(refused("redis://:%00@h", "password"), "escaped NUL in the password");
	CHECK(refused("redis+unix://tmp/r.sock", "absolute"), "relative socket path");
	CHECK(refused("redis+unix:///tmp/r.sock?db=x", "?db="), "bad ?db=");
	CHECK(refused("redis+unix:///tmp/r.sock?x=1", "?db="), "other query");
	CHECK(refused(long_path, "too long"), "socket path longer than sun_path");
}

static void redaction(void)
{
	/* the user info whole, never a part of it (issue 35: a token is often
	 * the user name alone) */
	CHECK(redacts("redis://u:secret@h:1/2", "redis://***@h:1/2"), "user and password hidden");
	CHECK(redacts("redis://:secret@h", "redis://***@h"), "default user's password hidden");
	CHECK(redacts("redis://u:se@cret@h", "redis://***@h"), "a password with '@' hidden whole");
	CHECK(redacts("redis+unix://:pw@/tmp/s", "redis+unix://***@/tmp/s"), "unix form");
	CHECK(redacts("redis://h:1/2", "redis://h:1/2"), "no user info: unchanged");
	CHECK(redacts("redis://PASSWORD@h", "redis://***@h"), "a password without ':' hidden");
	CHECK(redacts("https://TOKEN@host/c", "https://***@host/c"), "an https token hidden");
	CHECK(redacts("https://TOKEN:x-oauth-basic@host/", "https://***@host/"),
	      "a token as the user name hidden");
	CHECK(redacts("http://u:p@host:8080/c", "http://***@host:8080/c"), "http user info hidden");
	CHECK(redacts("s3://X@bucket/p", "s3://***@bucket/p"), "s3 user info hidden");
	CHECK(redacts("HTTPS://T@h", "HTTPS://***@h"), "any case of scheme");
	CHECK(redacts("https://TOK/EN@h/", "https://***@h/"), "a '/' in it hides more, never less");
	CHECK(redacts("not a url@all", "not a url@all"), "text without a scheme: unchanged");
	CHECK(redacts("512M", "512M"), "not a URL: unchanged");
	char small[12];
	jc_remote_url_redact("redis://u:secret@host", small, sizeof small);
	CHECK(strstr(small, "secret") == NULL && strlen(small) == 11, "cut to the buffer, still hidden");
}

/* The list of remotes: kinds, order, attributes, and one-line refusals. */
static struct jc_remote_spec specs[JC_REMOTES_MAX];
static int nspecs;

static int list_ok(const char *text)
{
	why = "";
	return jc_remote_list_parse(text, specs, &nspecs, &why) == 0;
}

static int list_refused(const char *text, const char *reason_part)
{
	why = "";
	return jc_remote_list_parse(text, specs, &nspecs, &why) != 0 &&
	       strstr(why, reason_part) != NULL;
}

static void lists(void)
{
	CHECK(list_ok("") && nspecs == 0, "empty list: no remote");
	CHECK(list_ok("off") && nspecs == 0, "off: no remote");
	CHECK(list_ok("redis://a  s3://team-bucket/jc|layout=flat\thttps://packs.example/a770|read-only|ca-file=/etc/ca.pem") &&
	      nspecs == 3, "three remotes, any blanks between them");
	CHECK(specs[0].kind == JC_REMOTE_REDIS && !specs[0].read_only &&
	      strcmp(specs[0].url, "redis://a") == 0, "... first Redis");
	CHECK(specs[1].kind == JC_REMOTE_S3 && specs[1].layout == JC_LAYOUT_FLAT &&
	      strcmp(specs[1].url, "s3://team-bucket/jc") == 0, "... then S3, flat layout");
	CHECK(specs[2].kind == JC_REMOTE_HTTP && specs[2].read_only &&
	      specs[2].layout == JC_LAYOUT_SUBDIRS && strcmp(specs[2].ca_file, "/etc/ca.pem") == 0 &&
	      strcmp(specs[2].url, "https://packs.example/a770") == 0,
	      "... then https, read-only, its CA, subdirs by default");
	CHECK(list_ok("http://127.0.0.1:8080/c|layout=bazel|auth-file=/run/token") &&
	      specs[0].layout == JC_LAYOUT_BAZEL && strcmp(specs[0].auth_file, "/run/token") == 0,
	      "bazel layout and an auth file");
	CHECK(list_ok("s3://bucket|timeout=30|connect-timeout=1.5 redis://r") &&
	      specs[0].timeout == 30 && specs[0].connect_timeout == 1.5 && specs[1].timeout == 0,
	      "a remote's own timeouts (the others keep [remote]'s)");
	CHECK(list_refused("http://h/c|timeout=0", "more than 0"), "a timeout of 0 refused");
	/* the refusal of an unknown scheme names every kind's, from the list */
#define X(NAME, name, shape, ...)                                                         \
	for (const char *const *p = (const char *const[]){ __VA_ARGS__, NULL }; *p; p++) \
		CHECK(list_refused("ftp://h/c", *p), "an unknown scheme: %s named", *p);
	JC_REMOTE_KINDS_LIST(X)
#undef X
	CHECK(list_refused("ftp://h/c", " or oci://"), "an unknown scheme: the last after \"or\"");
	/* oci://HOST[:PORT]/REPOSITORY: HTTPS to the registry, its repository */
	CHECK(list_ok("oci://reg.lan:5000/team/jc|ca-file=/etc/ca.pem|read-only") &&
	      nspecs == 1 && specs[0].kind == JC_REMOTE_OCI &&
	      strcmp(specs[0].at.registry.base, "https://reg.lan:5000") == 0 &&
	      strcmp(specs[0].at.registry.host, "reg.lan:5000") == 0 &&
	      strcmp(specs[0].at.registry.repo, "team/jc") == 0 && specs[0].read_only &&
	      strcmp(specs[0].ca_file, "/etc/ca.pem") == 0, "an oci remote parsed");
	CHECK(list_refused("oci://reg.lan/team/jc:v1", "names no tag"), "an oci remote's tag refused");
	CHECK(list_refused("oci://reg.lan", "names a repository"), "an oci URL without repository");
	CHECK(list_refused("oci://u:p@reg.lan/jc", "credentials"), "credentials in an oci URL refused");
	CHECK(list_refused("oci://reg.lan/Team", "lower-case"), "an upper-case repository refused");
	CHECK(list_refused("oci://reg.lan/jc|layout=flat", "layout="), "layout= is not an oci's");
	struct jc_registry_url ou;
	CHECK(jc_remote_url_oci("oci://127.0.0.1:5000/packs/llama:b580-v2", &ou, &why) == 0 &&
	      strcmp(ou.repo, "packs/llama") == 0 && strcmp(ou.tag, "b580-v2") == 0,
	      "push and pull's URL: a repository and a tag");
	CHECK(list_refused("http://h/c|connect-timeout=soon", "number of seconds"),
	      "a timeout that is not a number refused");
	CHECK(list_refused("http://u:p@h/c", "auth-file"), "credentials in an http URL refused");
	CHECK(list_refused("http://h/c|auth-file=token", "absolute"), "a relative auth file refused");
	CHECK(list_refused("s3://AB", "bucket"), "a bad bucket name refused");
	CHECK(list_refused("s3://team-bucket/../other", "leave the bucket"),
	      "an S3 prefix with '..' refused (it would leave the bucket)");
	CHECK(list_refused("s3://team-bucket/a/../../other/x", "leave the bucket") &&
	      list_refused("s3://team-bucket/./x", "leave the bucket") &&
	      list_refused("s3://team-bucket/%2e%2E/x", "leave the bucket") &&
	      list_refused("s3://team-bucket/..", "leave the bucket"),
	      "... anywhere in it, '.' too, and written %%2e");
	CHECK(list_refused("http://h/c/../x", "'..'") && list_refused("https://h/./c", "'..'"),
	      "an http path with a dot segment refused");
	CHECK(list_ok("s3://team-bucket/v1..2/a.b/.x/..y") && list_ok("http://h/v1.2/..c/c.."),
	      "dots inside a segment are fine");
	CHECK(list_refused("ftp://h/c", "expected"), "an unknown scheme refused");
	CHECK(list_refused("redis://h|layout=flat", "http and s3"), "layout on Redis refused");
	CHECK(list_refused("http://h/c|compress", "unknown remote attribute"),
	      "an unknown attribute refused");
	CHECK(list_refused("http://h/c?x=1", "query"), "a query refused");
	CHECK(list_refused("redis://a redis://a", "twice"), "a remote named twice refused");
	CHECK(list_refused("redis://a redis://b redis://c redis://d redis://e redis://f redis://g "
			   "redis://h redis://i", "more than 8"), "a ninth remote refused");
	char shown[256];
	jc_remote_list_redact("redis://:pw@a  https://h/x|read-only", shown, sizeof shown);
	CHECK(strcmp(shown, "redis://***@a  https://h/x|read-only") == 0,
	      "the list shown with each password hidden (%s)", shown);
	jc_remote_list_redact("https://TOKEN@h/c redis://PW@r s3://KEY@bucket", shown, sizeof shown);
	CHECK(strcmp(shown, "https://***@h/c redis://***@r s3://***@bucket") == 0 &&
	      !strstr(shown, "TOKEN") && !strstr(shown, "PW") && !strstr(shown, "KEY"),
	      "every URL's user info hidden in a list, whatever its scheme (%s)", shown);
}

/* Each URL parsed once, into the typed address its tier opens with. */
static void addresses(void)
{
	CHECK(list_ok("redis://:pw@cache.lan:6380/2 redis+unix:///run/r.sock?db=3") &&
	      strcmp(specs[0].at.redis.host, "cache.lan") == 0 && specs[0].at.redis.port == 6380 &&
	      specs[0].at.redis.db == 2 && strcmp(specs[0].at.redis.password, "pw") == 0 &&
	      specs[1].at.redis.is_unix && strcmp(specs[1].at.redis.path, "/run/r.sock") == 0 &&
	      specs[1].at.redis.db == 3, "Redis: host, port, db, password; a unix socket");
	CHECK(list_ok("https://[::1]:8443/team/jc/ http://packs.example") &&
	      strcmp(specs[0].at.web.base, "https://[::1]:8443") == 0 &&
	      strcmp(specs[0].at.web.host, "[::1]:8443") == 0 &&
	      strcmp(specs[0].at.web.path, "/team/jc") == 0 &&
	      strcmp(specs[1].at.web.host, "packs.example") == 0 && specs[1].at.web.path[0] == 0,
	      "http(s): base, authority, path without its trailing '/'");
	CHECK(list_refused("http://h:99999/c", "port") && list_refused("http://h/a\"b", "path"),
	      "http(s): a bad port or path character refused with the list");
	CHECK(list_ok("s3://team-bucket/jc/a770/ s3://b.dotted") &&
	      strcmp(specs[0].at.bucket.bucket, "team-bucket") == 0 &&
	      strcmp(specs[0].at.bucket.prefix, "jc/a770") == 0 &&
	      strcmp(specs[1].at.bucket.bucket, "b.dotted") == 0 && specs[1].at.bucket.prefix[0] == 0,
	      "s3: bucket and prefix");
	CHECK(list_refused("s3://team-bucket/a+b", "prefix"), "s3: a prefix character refused");
	CHECK(list_ok("file:///mnt/jc/ FILE:///|read-only|layout=flat") &&
	      specs[0].kind == JC_REMOTE_FILE && strcmp(specs[0].at.path.path, "/mnt/jc") == 0 &&
	      specs[1].read_only && specs[1].layout == JC_LAYOUT_FLAT &&
	      strcmp(specs[1].at.path.path, "/") == 0,
	      "file: an absolute path, without its trailing '/'");
	CHECK(list_refused("file://host/mnt", "absolute") && list_refused("file://rel", "absolute"),
	      "file: a host or a relative path refused");
	CHECK(list_refused("file:///mnt/../etc", "'..'") && list_refused("file:///mnt/a%20b", "%"),
	      "file: dot segments and escapes refused");
}

int main(void)
{
	tcp_forms();
	unix_forms();
	refusals();
	redaction();
	lists();
	addresses();
	return check_summary();
}
