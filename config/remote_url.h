/*
 * remote_url.h — the address of the remote tier: parsing and redacting a
 * Redis URL.  Pure string work: no I/O, no allocation, no logging.
 *
 * Accepted forms (scheme case-insensitive):
 *
 *   redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]        TCP; HOST may be [IPv6]
 *   redis+unix://[[USER]:PASSWORD@]/PATH[?db=DB]      a unix socket
 *
 * PORT defaults to 6379 and DB to 0.  In USER and PASSWORD, %XX stands for
 * the byte XX: write '@' as %40, '%' as %25 and '/' as %2F.  The user info
 * ends at the last '@' of the URL.  An empty USER with a PASSWORD means
 * Redis's "default" user (AUTH PASSWORD); a USER without a PASSWORD is an
 * error, since Redis has no way to log in as it without one.
 *
 *   struct jc_remote_url u;
 *   const char *why;
 *   if (jc_remote_url_parse(text, &u, &why) != 0) log("bad url: %s", why);
 *
 *   char shown[512];
 *   jc_remote_url_redact(text, shown, sizeof shown);  // password -> "***"
 *
 * Error convention: jc_remote_url_parse() returns 0, or -1 with *why a
 * short static reason; *out is then unspecified.
 */
#ifndef JITCACHE_REMOTE_URL_H
#define JITCACHE_REMOTE_URL_H

#include <stddef.h>

#define JC_REMOTE_URL_MAX 1024

struct jc_remote_url {
	int is_unix;             /* 1: path is a unix socket; 0: host and port */
	char host[256];
	int port;
	char path[108];          /* sizeof sockaddr_un.sun_path */
	int db;
	char user[256];          /* "" for the default user */
	char password[256];      /* "" for none */
	int has_password;
};

int jc_remote_url_parse(const char *text, struct jc_remote_url *out, const char **why);

/* text with its password (if any) replaced by "***", for messages and for
 * `jitcache config`; cut to size bytes.  Works on any text, valid or not. */
void jc_remote_url_redact(const char *text, char *out, size_t size);

#endif
