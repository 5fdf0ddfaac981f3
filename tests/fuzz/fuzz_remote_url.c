// SPDX-License-Identifier: MIT
/* libFuzzer target: the remote URL parser and redaction must survive any
 * text, never read out of bounds, always give a reason when they refuse,
 * and accept only what they can hand to a connection: a host or absolute
 * socket path that fits, a port in range.  And they must agree: the
 * redacted form of a valid URL shows its whole user information (user and
 * password) as "***", so that what is printed never holds either, and with
 * "***" put back as "x:y" it parses to the same address.  The list parser
 * too, which parses every kind's URL into its typed address: any text,
 * a reason for each refusal, and each address it accepts whole (a
 * NUL-ended path that is absolute where it must be). */
#include "config/remote_url.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void list(const char *text)
{
	static struct jc_remote_spec specs[JC_REMOTES_MAX];
	const char *why = NULL;
	int n = -1;
	if (jc_remote_list_parse(text, specs, &n, &why) != 0) {
		if (!why || !*why)
			abort();
		return;
	}
	if (n < 0 || n > JC_REMOTES_MAX)
		abort();
	for (int i = 0; i < n; i++) {
		const struct jc_remote_spec *sp = &specs[i];
		if ((sp->kind == JC_REMOTE_HTTP &&
		     (!memchr(sp->at.web.host, 0, sizeof sp->at.web.host) || !sp->at.web.host[0] ||
		      !memchr(sp->at.web.path, 0, sizeof sp->at.web.path) ||
		      (sp->at.web.path[0] && sp->at.web.path[0] != '/'))) ||
		    (sp->kind == JC_REMOTE_S3 && strlen(sp->at.bucket.bucket) < 3) ||
		    (sp->kind == JC_REMOTE_FILE && sp->at.path.path[0] != '/'))
			abort();
	}
}

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
	list(text);
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
