// SPDX-License-Identifier: MIT
/*
 * remote_url.h — the addresses of the remote tiers: parsing and redacting
 * the list of remotes ([remote] url, JITCACHE_REMOTE).  Each URL is parsed
 * here, once, into the typed value its tier opens with (struct
 * jc_remote_spec's `at`); the tiers parse nothing.  Pure string work: no
 * I/O, no allocation, no logging.
 *
 * The list: remotes separated by spaces, asked in that order; each is a URL
 * followed by attributes, each after a '|' (ccache's form):
 *
 *   redis://cache.lan s3://team-bucket/jc|layout=flat https://packs.example/a770|read-only
 *
 *   redis://...  redis+unix://...   Redis (below); compile-once across machines
 *   http://HOST[:PORT][/PATH]  https://...   a web server (WebDAV PUT)
 *   s3://BUCKET[/PREFIX]       an S3 bucket (AWS variables and files)
 *   file:///PATH               a directory shared by the caches (NFS, a
 *                              mounted volume); PATH must exist
 *   oci://HOST[:PORT]/REPOSITORY   an OCI registry (Distribution API over
 *                              HTTPS): lookups and stores only, no lease
 *
 *   |read-only          entries are read, never written (also [remote] read_only)
 *   |layout=subdirs     http, s3 and file: PATH/<2 hex>/<key>, as a cache directory (default)
 *   |layout=flat        http, s3 and file: PATH/<key>
 *   |layout=bazel       http, s3 and file: PATH/ac/<64 hex>, as bazel-remote serves
 *   |auth-file=/PATH    http: a file holding the credentials (never the URL)
 *   |ca-file=/PATH      https and oci: trust this CA (default: the system's CA store)
 *   |connect-timeout=S  seconds to connect (TLS included for https), this remote only
 *   |timeout=S          seconds for each whole answer, this remote only
 *
 * Paths in attributes must be absolute.  An http(s) URL with user info is
 * refused: credentials go in auth-file.
 *
 * Accepted forms (scheme case-insensitive):
 *
 *   redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]        TCP; HOST may be [IPv6]
 *   redis+unix://[[USER]:PASSWORD@]/PATH[?db=DB]      a unix socket
 *
 * PORT defaults to 6379 and DB to 0.  In USER and PASSWORD, %XX stands for
 * the byte XX: write '@' as %40, '%' as %25 and '/' as %2F.  The user info
 * ends at the last '@' of the URL.  An empty USER with a PASSWORD means
 * Redis's "default" user (AUTH PASSWORD); a USER without a PASSWORD
 * (redis://USER@HOST) takes its password from [remote] password_file, and
 * the Redis tier refuses it without one (it cannot log in as USER).
 *
 *   struct jc_remote_url u;
 *   const char *why;
 *   if (jc_remote_url_parse(text, &u, &why) != 0) log("bad url: %s", why);
 *
 *   char shown[512];
 *   jc_remote_url_redact(text, shown, sizeof shown);  // user info -> "***"
 *
 * Error convention: jc_remote_url_parse() returns 0, or -1 with *why a
 * short static reason; *out is then unspecified.
 */
#ifndef JITCACHE_REMOTE_URL_H
#define JITCACHE_REMOTE_URL_H

#include <stddef.h>

#define JC_REMOTE_URL_MAX 1024  /* one URL */
#define JC_REMOTE_LIST_MAX 4096 /* the whole list, attributes included */
#define JC_REMOTES_MAX 8

struct jc_remote_url {
	int is_unix;             /* 1: path is a unix socket; 0: host and port */
	char host[256];
	int port;
	char path[108];          /* sizeof sockaddr_un.sun_path */
	int db;
	char user[256];          /* "" for the default user */
	char password[256];      /* "" for none */
	int has_password;        /* 0: none in the URL (USER@ or no user info) */
};

int jc_remote_url_parse(const char *text, struct jc_remote_url *out, const char **why);

/* text with its user info (user name and password, whatever is before the
 * last '@') replaced by "***", for messages and for `jitcache config`; cut
 * to size bytes.  Works on any text, valid or not, of any scheme. */
void jc_remote_url_redact(const char *text, char *out, size_t size);

/* The kinds of remote tier, one line each (docs/design.md, "Adding a
 * tier"): X(NAME, name, shape, schemes...) gives JC_REMOTE_NAME here, puts
 * the operations jc_tier_name (tiers/tier.h) that its file defines in the
 * table of kinds, parses its URL as `shape` says into the spec's typed
 * address `at` (remote_url.c: redis, web: http(s)://HOST/PATH, bucket:
 * BUCKET/PREFIX, path: an absolute path) and names the URL prefixes (the
 * schemes, case-insensitive) that select it. */
#define JC_REMOTE_KINDS_LIST(X)                               \
	X(REDIS, redis, redis, "redis://", "redis+unix://")   \
	X(HTTP, http, web, "http://", "https://")             \
	X(S3, s3, bucket, "s3://")                            \
	X(FILE, file, path, "file://")                        \
	X(OCI, oci, registry, "oci://")

enum jc_remote_kind {
#define X(NAME, name, ...) JC_REMOTE_##NAME,
	JC_REMOTE_KINDS_LIST(X)
#undef X
	JC_REMOTE_KINDS
};
enum jc_remote_layout { JC_LAYOUT_SUBDIRS, JC_LAYOUT_FLAT, JC_LAYOUT_BAZEL };

/* An http(s) URL, split as its requests use it. */
struct jc_web_url {
	char base[512];   /* scheme://AUTHORITY, the scheme as written */
	char host[300];   /* AUTHORITY: HOST[:PORT] (the Host header) */
	char path[1024];  /* PATH, encoded, without trailing '/'; "" for none */
};

/* SCHEME://BUCKET[/PREFIX] (s3://): its bucket and prefix (for S3 the
 * endpoint is the AWS variables'). */
struct jc_bucket_url {
	char bucket[64];
	char prefix[1024]; /* without the leading and trailing '/'; "" for none */
};

/* oci://HOST[:PORT]/REPOSITORY[:TAG]: a registry, always over HTTPS, and
 * a repository in it (lower-case letters, digits, and . _ - / between
 * them, as the Distribution spec's names); the tag is for `jitcache push`
 * and `pull` (a remote takes none).  Credentials are never in the URL:
 * the registry clients' files (tiers/registry.h). */
struct jc_registry_url {
	char base[512];  /* https://HOST[:PORT] */
	char host[300];  /* HOST[:PORT], as the credential files name it */
	char repo[256];
	char tag[129];   /* "" for none */
};

/* SCHEME:///PATH (file:///PATH): an absolute path on this machine. */
struct jc_path_url {
	char path[1024]; /* absolute, without trailing '/' ("/" stays) */
};

struct jc_remote_spec {
	enum jc_remote_kind kind;
	char url[JC_REMOTE_URL_MAX];  /* the URL alone, attributes removed */
	union {                       /* the URL parsed, by its kind's shape: */
		struct jc_remote_url redis;
		struct jc_web_url web;
		struct jc_bucket_url bucket;
		struct jc_path_url path;
		struct jc_registry_url registry;
	} at;
	int read_only;
	enum jc_remote_layout layout;
	char auth_file[1024];         /* "" : none */
	char ca_file[1024];           /* "" : the system's CA store */
	double connect_timeout;       /* seconds; 0: not given (the [remote] settings') */
	double timeout;               /* seconds; 0: not given */
};

/* An http:// or https:// URL (a remote's, or AWS_ENDPOINT_URL) into w.
 * 0, or -1 with *why a short static reason. */
int jc_remote_url_web(const char *text, struct jc_web_url *w, const char **why);

/* An oci:// URL into o (a tag allowed).  0, or -1 with *why. */
int jc_remote_url_oci(const char *text, struct jc_registry_url *o, const char **why);

/* Parse the list into out[0..*n-1] (at most JC_REMOTES_MAX).  "" and "off"
 * are no remote (*n = 0).  0, or -1 with *why a short static reason. */
int jc_remote_list_parse(const char *text, struct jc_remote_spec out[JC_REMOTES_MAX], int *n,
			 const char **why);

/* Whether the n bytes of a URL's path hold a "." or ".." segment (also
 * written %2e): libcurl and servers remove them, so that a path or an S3
 * prefix with one leads outside the one given (another bucket). */
int jc_url_dot_segment(const char *path, size_t n);

/* The list with each URL's user info replaced by "***", cut to size bytes. */
void jc_remote_list_redact(const char *text, char *out, size_t size);

#endif
