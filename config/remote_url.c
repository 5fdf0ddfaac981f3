/* remote_url.c — parsing and redacting the remote tier's Redis URL. */
#include "config/remote_url.h"

#include <ctype.h>
#include <stdio.h>
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
	if (!colon)
		return fail(why, "a user name needs a password (redis://USER:PASSWORD@HOST)");
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
	const char *scheme_end = text ? strstr(text, "://") : NULL;
	const char *at = text ? strrchr(text, '@') : NULL;
	if (!scheme_end || !at || at < scheme_end) {
		snprintf(out, size, "%s", text ? text : "");
		return;
	}
	const char *info = scheme_end + 3;
	const char *colon = memchr(info, ':', (size_t)(at - info));
	if (!colon) {
		snprintf(out, size, "%s", text);
		return;
	}
	snprintf(out, size, "%.*s:***%s", (int)(colon - text), text, at);
}
