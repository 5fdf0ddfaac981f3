// SPDX-License-Identifier: MIT
/* What a process that loads jitcache fixes at start (capture.h): moved out
 * of config.c so that the preloaded library captures without the rest of
 * the settings' code. */
#include "config/capture.h"
#include "config/settings.h"
#include "config/remote_url.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The variables a setting is read from: the settings' own, and what
 * "~" and the default directories are made of. */
JC_AT_START static int captured(const char *entry)
{
	static const char *const names[] = { "HOME=", "XDG_CACHE_HOME=", "XDG_CONFIG_HOME=" };
	if (strncmp(entry, "JITCACHE_", 9) == 0)
		return 1;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strncmp(entry, names[i], strlen(names[i])) == 0)
			return 1;
	return 0;
}

/* One path of a setting, as handed on: "~" and "~/x" stay as they are (each
 * process expands them with its own HOME: `sudo -u`, `env HOME=...`), an
 * absolute path too; a relative one gets the starting directory before it. */
static int absolute(const char *text, size_t len, const char *cwd, char *out, size_t size)
{
	const char *sep = "";
	if (text[0] == '/' || (text[0] == '~' && (len == 1 || text[1] == '/'))) {
		cwd = "";
	} else {
		while (len >= 2 && text[0] == '.' && text[1] == '/') {
			size_t skip = 2 + strspn(text + 2, "/");
			skip = skip < len ? skip : len;
			text += skip, len -= skip;
		}
		sep = strcmp(cwd, "/") == 0 || len == 0 ? "" : "/";
	}
	int n = snprintf(out, size, "%s%s%.*s", cwd, sep, (int)len, text);
	return n >= 0 && (size_t)n < size ? n : -1;
}

/* Whether the part p[0..len) of a setting's path is relative: neither
 * absolute nor "~" or "~/x" (each process expands those with its own HOME:
 * `sudo -u`, `env HOME=...`). */
JC_AT_START static int relative(const char *p, size_t len)
{
	return len > 0 && p[0] != '/' && !(p[0] == '~' && (len == 1 || p[1] == '/'));
}

/* setenv(env, v) with each relative path of v (a list if list) made
 * absolute against the starting directory.  Apart from hand_on() so that
 * a process whose settings hold no relative path (nearly every one) never
 * touches the stack these buffers take. */
__attribute__((noinline)) static void make_absolute(const char *env, const char *v, int list)
{
	char cwd[PATH_MAX], out[JC_REMOTE_LIST_MAX];
	size_t used = 0;
	if (!getcwd(cwd, sizeof cwd))
		return; /* read later, it is refused with its reason */
	for (const char *p = v; *p; p += list ? strcspn(p, ":") : strlen(p), p += *p == ':') {
		size_t len = list ? strcspn(p, ":") : strlen(p);
		if (len == 0)
			continue;
		int n = absolute(p, len, cwd, out + used + !!used,
				 sizeof out - used - !!used);
		if (n < 0)
			return; /* too long: refused with its reason when read */
		if (used)
			out[used] = ':';
		used += (size_t)n + !!used;
	}
	setenv(env, out, 1);
}

/* Hands env on with its relative paths made absolute, if it has any. */
JC_AT_START static void hand_on(const char *env, int list)
{
	const char *v = getenv(env);
	for (const char *p = v; p && *p; p += list ? strcspn(p, ":") : strlen(p), p += *p == ':')
		if (relative(p, list ? strcspn(p, ":") : strlen(p))) {
			make_absolute(env, v, list);
			return;
		}
}

JC_AT_START void jc_config_capture_into(struct jc_start_env *start_env)
{
	hand_on("JITCACHE_SYSTEM_CONFIG", 0);
	hand_on("JITCACHE_CONFIG", 0);
#define HAND_ON_PATH(env)  hand_on(env, 0);
#define HAND_ON_PATHS(env) hand_on(env, 1);
#define HAND_ON_FILES(env) hand_on(env, 1);
#define HAND_ON_SIZE(env)
#define HAND_ON_BOOL(env)
#define HAND_ON_SECS(env)
#define HAND_ON_LEVEL(env)
#define HAND_ON_URL(env)
#define X(sec, nm, kind, field, def, env, help) HAND_ON_##kind(env)
	JC_SETTINGS(X)
#undef X
	size_t total = 0;
	int n = 0;
	for (char **e = environ; e && *e; e++)
		if (captured(*e))
			total += strlen(*e) + 1, n++;
	if (n > (int)(sizeof start_env->var / sizeof start_env->var[0]))
		return; /* too many to copy: read with getenv() when needed */
	char *text = start_env->small;
	if (total > sizeof start_env->small && !(text = malloc(total)))
		return;
	start_env->n = 0;
	for (char **e = environ; e && *e; e++) {
		if (!captured(*e))
			continue;
		size_t len = strlen(*e) + 1;
		memcpy(text, *e, len);
		start_env->var[start_env->n++] = text;
		text += len;
	}
	start_env->taken = 1;
}

/* The copy in use: the preloaded library's (handed over), else this
 * library's own (jc_config_capture), else none. */
static const struct jc_start_env *start_env_in_use;

void jc_config_use_start_env(const struct jc_start_env *env)
{
	start_env_in_use = env;
}

void jc_config_capture(void)
{
	static struct jc_start_env own;
	jc_config_capture_into(&own);
	start_env_in_use = &own;
}

/* A secure-execution process (AT_SECURE) reads no setting from its
 * environment (its user's): secure_getenv() answers NULL there.  The
 * preloaded library loads no core in one (shim/preload.c); this is for any
 * other program that reads the settings. */
const char *jc_config_start_getenv(const char *name)
{
	const struct jc_start_env *s = start_env_in_use;
	if (!s || !s->taken)
		return secure_getenv(name);
	size_t len = strlen(name);
	for (int i = 0; i < s->n; i++)
		if (strncmp(s->var[i], name, len) == 0 && s->var[i][len] == '=')
			return s->var[i] + len + 1;
	return NULL;
}
