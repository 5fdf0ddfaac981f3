// SPDX-License-Identifier: MIT
/* libFuzzer target: the remote URL parser and redaction must survive any
 * text, never read out of bounds, always give a reason when they refuse,
 * and accept only what they can hand to a connection: a host or absolute
 * socket path that fits, a port in range.  And they must agree: the
 * redacted form of a valid URL shows its whole user information (user and
 * password) as "***", so that what is printed never holds either, and with
 * "***" put back as "x:y" it parses to the same address. */
#include "config/remote_url.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char text[JC_REMOTE_URL_MAX + 64], shown[JC_REMOTE_URL_MAX];
	struct jc_remote_url u;
	const char *why = NULL;
	if (size >= sizeof text)
		size = sizeof text - 1;
	memcpy(text, data, size);
	text[size] = '\0';
	jc_remote_url_redact(text, shown, sizeof shown);
	if (jc_remote_url_parse(text, &u, &why) != 0) {
		if (!why || !*why)
			abort();
		return 0;
	}
	if (u.is_unix ? u.path[0] != '/' || strlen(u.path) >= sizeof u.path
		      : !u.host[0] || u.port < 1 || u.port > 65535)
		abort();
	if (u.db < 0 || (!u.has_password && u.password[0]))
		abort();
	struct jc_remote_url r;
	if (size > JC_REMOTE_URL_MAX - 8) /* the redacted form may be cut */
		return 0;
	int secret = u.user[0] || u.has_password;
	char *star = strstr(shown, "***@");
	if (secret != (star != NULL))
		abort();
	if (star)
		memcpy(star, "x:y", 3);
	if (jc_remote_url_parse(shown, &r, &why) != 0 || r.is_unix != u.is_unix ||
	    strcmp(r.host, u.host) != 0 || strcmp(r.path, u.path) != 0 || r.port != u.port ||
	    r.db != u.db || (secret && (strcmp(r.user, "x") != 0 || strcmp(r.password, "y") != 0)))
		abort();
	return 0;
}
