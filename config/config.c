// SPDX-License-Identifier: MIT
#include "config/config.h"
#include "config/capture.h"
#include "config/inifile.h"
#include "config/log.h"

#include "config/readfile.h"
#include "config/remote_url.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

int jc_config_parse_size(const char *text, uint64_t *out, const char **why)
{
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	if (end == text || errno || !(v >= 0) || !isfinite(v)) {
		*why = "expected a size such as 512M or 4G";
		return -1;
	}
	while (*end == ' ')
		end++;
	double mult = 1;
	switch (toupper((unsigned char)*end)) {
	case 'K': mult = 1024.0; end++; break;
	case 'M': mult = 1024.0 * 1024; end++; break;
	case 'G': mult = 1024.0 * 1024 * 1024; end++; break;
	case 'T': mult = 1024.0 * 1024 * 1024 * 1024; end++; break;
	default: break;
	}
	if (toupper((unsigned char)*end) == 'I')
		end++;
	if (toupper((unsigned char)*end) == 'B')
		end++;
	if (*end != '\0') {
		*why = "expected a size such as 512M or 4G";
		return -1;
	}
	if (v * mult > 1.8e19) {
		*why = "size too large";
		return -1;
	}
	*out = (uint64_t)(v * mult);
	return 0;
}

int jc_config_parse_bool(const char *text, int *out, const char **why)
{
	static const char *const yes[] = { "1", "true", "yes", "on" };
	static const char *const no[] = { "0", "false", "no", "off", "" };
	for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
		if (strcasecmp(text, yes[i]) == 0)
			return *out = 1, 0;
	for (size_t i = 0; i < sizeof no / sizeof *no; i++)
		if (strcasecmp(text, no[i]) == 0)
			return *out = 0, 0;
	*why = "expected 1/0, true/false, yes/no or on/off";
	return -1;
}

static int parse_secs(const char *text, double *out, const char **why)
{
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	if (end == text || *end != '\0' || errno || !(v >= 0) || !isfinite(v)) {
		*why = "expected a number of seconds";
		return -1;
	}
	*out = v;
	return 0;
}

static int parse_level(const char *text, int *out, const char **why)
{
	int level = jc_log_parse_level(text);
	if (level < 0) {
		*why = "expected error, warn, info, debug or off";
		return -1;
	}
	*out = level;
	return 0;
}

/* Where a relative path is taken from: the directory of the ini file being
 * read, else ("") the current directory when the settings are read.  They
 * are read once, so a program that changes directory later changes nothing;
 * a relative path in the environment was made absolute at start
 * (jc_config_capture), for this process and its children alike. */
static char relative_base[PATH_MAX];

/* The variables the settings are read from, as they were at start
 * (jc_config_capture, config/capture.c): copies, so that a program that
 * changes its environment later, or from another thread while the settings
 * are read, changes nothing.  Not taken (a process that never loaded
 * jitcache as a library, such as jitcache-admin): getenv() at the time of
 * reading. */
static const char *env_get(const char *name)
{
	return jc_config_start_getenv(name);
}

/* "~/x" -> "$HOME/x"; a relative path -> "BASE/path" (above); an absolute
 * one is copied.  A path too long for out leaves out as it was (a bad value
 * keeps the previous one). */
static int parse_path(const char *text, char *out, const char **why)
{
	const char *home = env_get("HOME");
	const char *head = "", *sep = "";
	char cwd[PATH_MAX];
	if (text[0] == '~' && (text[1] == '/' || text[1] == '\0') && home && *home) {
		head = home, text++;
	} else if (text[0] != '/' && text[0] != '\0') {
		while (text[0] == '.' && text[1] == '/')
			text += 2 + strspn(text + 2, "/");
		head = relative_base[0] ? relative_base : getcwd(cwd, sizeof cwd);
		if (!head) {
			*why = "a relative path, and the current directory cannot be read";
			return -1;
		}
		sep = strcmp(head, "/") == 0 || text[0] == '\0' ? "" : "/";
	}
	if (strlen(head) + strlen(sep) + strlen(text) >= PATH_MAX) {
		*why = "path too long";
		return -1;
	}
	int n = snprintf(out, PATH_MAX, "%s%s%s", head, sep, text);
	return n >= 0 && n < PATH_MAX ? 0 : (*why = "path too long", -1);
}

/* "DIR[:DIR...]", each DIR as parse_path() takes it ("~/x" too).  The list
 * is taken whole or not at all: a bad one leaves out as it was. */
static int parse_paths(const char *text, char *result, const char **why)
{
	char one[PATH_MAX], expanded[PATH_MAX], out[PATH_MAX];
	size_t used = 0;
	out[0] = '\0';
	for (const char *p = text; *p; p += strcspn(p, ":"), p += *p == ':') {
		size_t len = strcspn(p, ":");
		if (len == 0)
			continue;
		if (len >= sizeof one)
			return *why = "path too long", -1;
		memcpy(one, p, len);
		one[len] = '\0';
		if (parse_path(one, expanded, why) != 0)
			return -1;
		int n = snprintf(out + used, PATH_MAX - used, "%s%s", used ? ":" : "", expanded);
		if (n < 0 || (size_t)n >= PATH_MAX - used)
			return *why = "list of paths too long", -1;
		used += (size_t)n;
	}
	memcpy(result, out, used + 1);
	return 0;
}

/* "FILE[:FILE...]", as parse_paths() takes it, naming at least one file:
 * a list given but empty (say "$A:$B" with both unset) is refused, so that
 * the setting it is (trusted_keys) fails closed.  Only the built-in default
 * may be empty. */
static int parse_files(const char *text, char *result, int is_default, const char **why)
{
	char out[PATH_MAX];
	if (parse_paths(text, out, why) != 0)
		return -1;
	if (!out[0] && !is_default)
		return *why = "names no file", -1;
	memcpy(result, out, strlen(out) + 1);
	return 0;
}

/* The list of remotes, checked now so that a bad one is reported with its
 * file and line; "off" and "" mean none. */
static int parse_url(const char *text, char out[JC_REMOTE_LIST_MAX], const char **why)
{
	int n;
	struct jc_remote_spec *specs = calloc(JC_REMOTES_MAX, sizeof *specs);
	if (!specs)
		return *why = "out of memory", -1;
	int rc = jc_remote_list_parse(text, specs, &n, why);
	free(specs);
	if (rc != 0)
		return -1;
	snprintf(out, JC_REMOTE_LIST_MAX, "%s", n ? text : "");
	return 0;
}

#define PARSE_URL(text, field, why)   parse_url(text, field, why)
#define PARSE_PATH(text, field, why)  parse_path(text, field, why)
#define PARSE_PATHS(text, field, why) parse_paths(text, field, why)
/* (expanded in set_setting(), whose `from` says whether this is the default) */
#define PARSE_FILES(text, field, why) parse_files(text, field, !strcmp(from, "default"), why)
#define PARSE_SIZE(text, field, why)  jc_config_parse_size(text, &(field), why)
#define PARSE_BOOL(text, field, why)  jc_config_parse_bool(text, &(field), why)
#define PARSE_SECS(text, field, why)  parse_secs(text, &(field), why)
#define PARSE_LEVEL(text, field, why) parse_level(text, &(field), why)

/* Set section.name from text; 1 if set, 0 if bad value (*why), -1 if unknown. */
static int set_setting(struct jc_config *cfg, const char *section, const char *name,
		       const char *text, const char *from, const char **why)
{
#define X(sec, nm, kind, field, def, env, help)                                   \
	if (strcasecmp(section, #sec) == 0 && strcasecmp(name, #nm) == 0) {         \
		if (PARSE_##kind(text, cfg->field, why) != 0)                       \
			return 0;                                                   \
		snprintf(cfg->field##_from, sizeof cfg->field##_from, "%s", from);  \
		return 1;                                                           \
	}
	JC_SETTINGS(X)
#undef X
	return -1;
}

/* A bad value for section.name from `from` was ignored: say so where
 * `jitcache config` shows where the value came from. */
static void mark_ignored(struct jc_config *cfg, const char *section, const char *name,
			 const char *from, const char *why)
{
#define X(sec, nm, kind, field, def, env, help)                                   \
	if (strcasecmp(section, #sec) == 0 && strcasecmp(name, #nm) == 0) {         \
		size_t n = strlen(cfg->field##_from);                               \
		snprintf(cfg->field##_from + n, sizeof cfg->field##_from - n,       \
			 "; INVALID value in %s ignored: %s", from, why);           \
		return;                                                             \
	}
	JC_SETTINGS(X)
#undef X
}

/* What a bad value of section.name leaves: the previous value, except for
 * a list of key files, which then refuses everything. */
static int guards(const char *section, const char *name)
{
#define GUARDS_FILES 1
#define GUARDS_OTHER 0
#define GUARDS_PATH GUARDS_OTHER
#define GUARDS_PATHS GUARDS_OTHER
#define GUARDS_SIZE GUARDS_OTHER
#define GUARDS_BOOL GUARDS_OTHER
#define GUARDS_SECS GUARDS_OTHER
#define GUARDS_LEVEL GUARDS_OTHER
#define GUARDS_URL GUARDS_OTHER
#define X(sec, nm, kind, field, def, env, help)                                   \
	if (strcasecmp(section, #sec) == 0 && strcasecmp(name, #nm) == 0)           \
		return GUARDS_##kind;
	JC_SETTINGS(X)
#undef X
	return 0;
}
#define FAIL_CLOSED "nothing from Redis, layers or archives is accepted (fail closed)"

/* ---- settings by name: `jitcache set`, and "did you mean" ---------------- */

static const struct jc_setting table[] = {
#define X(sec, nm, kind, field, def, env, help) { #sec, #nm, env, def, help },
	JC_SETTINGS(X)
#undef X
};
#define N_SETTINGS (sizeof table / sizeof *table)

int jc_config_distance(const char *a, const char *b)
{
	enum { MAX = 40 };
	int d[MAX + 1][MAX + 1];
	size_t n = strlen(a), m = strlen(b);
	if (n > MAX || m > MAX)
		return MAX;
	for (size_t i = 0; i <= n; i++)
		d[i][0] = (int)i;
	for (size_t j = 0; j <= m; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= n; i++)
		for (size_t j = 1; j <= m; j++) {
			int cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
			int v = d[i - 1][j - 1] + cost;
			v = d[i - 1][j] + 1 < v ? d[i - 1][j] + 1 : v;
			v = d[i][j - 1] + 1 < v ? d[i][j - 1] + 1 : v;
			if (i > 1 && j > 1 && tolower((unsigned char)a[i - 1]) ==
			    tolower((unsigned char)b[j - 2]) && tolower((unsigned char)a[i - 2]) ==
			    tolower((unsigned char)b[j - 1]) && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[n][m];
}

/* The setting nearest to [section] name (section NULL: any), if near
 * enough to be a typo: a few edits of the name, or the right name in
 * another section. */
static const struct jc_setting *closest(const char *section, const char *name)
{
	const struct jc_setting *best = NULL;
	int best_d = 1 + (int)strlen(name) / 4;
	for (size_t i = 0; i < N_SETTINGS; i++) {
		int d = jc_config_distance(name, table[i].name) +
			(section && strcasecmp(section, table[i].section) != 0);
		if (d < best_d || (d == best_d && !best))
			best = &table[i], best_d = d;
	}
	return best;
}

const struct jc_setting *jc_config_find(const char *name, const struct jc_setting **near,
					const char **why)
{
	const struct jc_setting *found = NULL;
	const char *dot = strchr(name, '.');
	int matches = 0;
	for (size_t i = 0; i < N_SETTINGS; i++) {
		const struct jc_setting *t = &table[i];
		if (dot ? (strncasecmp(name, t->section, (size_t)(dot - name)) == 0 &&
			   !t->section[dot - name] && strcasecmp(dot + 1, t->name) == 0)
			: strcasecmp(name, t->name) == 0)
			found = t, matches++;
	}
	if (matches == 1)
		return found;
	char section[32] = "";
	if (dot)
		snprintf(section, sizeof section, "%.*s", (int)(dot - name), name);
	*near = matches ? found : closest(dot ? section : NULL, dot ? dot + 1 : name);
	*why = matches ? "ambiguous" : "unknown";
	return NULL;
}

int jc_config_check(const struct jc_setting *t, const char *value, char *text, size_t size,
		    const char **why)
{
	struct jc_config *cfg = calloc(1, sizeof *cfg);
	int rc = -1;
	*why = "out of memory";
	if (cfg && set_setting(cfg, t->section, t->name, value, "check", why) == 1) {
		rc = 0;
		snprintf(text, size, "%s", value);
#define TEXT_PATH(field)  snprintf(text, size, "%s", cfg->field);
#define TEXT_PATHS(field) snprintf(text, size, "%s", cfg->field);
#define TEXT_FILES(field) snprintf(text, size, "%s", cfg->field);
#define TEXT_SIZE(field)
#define TEXT_BOOL(field)
#define TEXT_SECS(field)
#define TEXT_LEVEL(field)
#define TEXT_URL(field)
#define X(sec, nm, kind, field, def, env, help)                                   \
		if (strcmp(t->section, #sec) == 0 && strcmp(t->name, #nm) == 0) {   \
			TEXT_##kind(field)                                           \
		}
		JC_SETTINGS(X)
#undef X
	}
	free(cfg);
	return rc;
}

int jc_config_refused(const char *from)
{
	return strstr(from, "; INVALID value in ") != NULL;
}

/* How much of a bad value a message quotes: log lines are short. */
#define SHOWN 64

/* An ini file larger than this is refused whole: settings take a few
 * hundred bytes, and the file is read before the host's main(). */
#define INI_MAX_BYTES (64 * 1024)

/* The most problems said about one file; the rest are counted in one line,
 * so that no file can flood the host's stderr. */
#define INI_MAX_PROBLEMS 5

struct ini_reading {
	struct jc_config *cfg;
	const char *path;
	int problems;
};

/* Say this problem unless the file has had its share: 1 if it may be said. */
static int may_say(struct ini_reading *r)
{
	return ++r->problems <= INI_MAX_PROBLEMS;
}

static void on_ini_value(void *user, int line, const char *section, const char *name,
			 const char *value)
{
	struct ini_reading *r = user;
	char from[PATH_MAX + 16];
	const char *why = NULL;
	snprintf(from, sizeof from, "%s:%d", r->path, line);
	int rc = set_setting(r->cfg, section, name, value, from, &why);
	if (rc == 0)
		mark_ignored(r->cfg, section, name, from, why);
	if (rc <= 0)
		r->cfg->problems++;
	if (rc <= 0 && !may_say(r))
		return;
	if (rc < 0) {
		const struct jc_setting *near = closest(section, name);
		char hint[128] = "";
		if (near)
			snprintf(hint, sizeof hint, " (did you mean [%s] %s?)", near->section,
				 near->name);
		jc_log(JC_LOG_WARN, "%s: unknown setting [%s] %s%s; ignored", from, section, name,
		       hint);
	} else if (rc == 0) {
		char shown[JC_REMOTE_LIST_MAX];
		jc_remote_list_redact(value, shown, sizeof shown); /* never print a password */
		jc_log(JC_LOG_WARN, "%s: bad value '%.*s%s' for [%s] %s: %s; %s", from,
		       SHOWN, shown, strlen(shown) > SHOWN ? "..." : "", section, name, why,
		       guards(section, name) ? FAIL_CLOSED : "using the previous value");
	}
}

/* One bad line does not spoil the rest: it is reported and skipped. */
static void on_ini_error(void *user, int line, const char *why)
{
	struct ini_reading *r = user;
	r->cfg->problems++;
	if (may_say(r))
		jc_log(JC_LOG_WARN, "%s:%d: %s; line ignored", r->path, line, why);
}

/* The file is read whole first (a regular file of bounded size only: never
 * a FIFO, device or directory, which could block or never end), then
 * parsed from memory.  path is absolute (see find_files). */
static int read_ini(struct jc_config *cfg, const char *path)
{
	struct ini_reading r = { .cfg = cfg, .path = path };
	size_t len = 0;
	const char *why = "";
	char *text = jc_read_small_file(path, INI_MAX_BYTES, &len, &why);
	FILE *f = text ? fmemopen(text, len ? len : 1, "r") : NULL;
	if (!f) {
		cfg->problems++;
		jc_log(JC_LOG_WARN, "%s: cannot read config (%s); its settings are not used", path,
		       text ? strerror(errno) : why);
		free(text);
		return JC_FILE_UNREADABLE;
	}
	/* Its relative paths are relative to the file's directory. */
	snprintf(relative_base, sizeof relative_base, "%s", path);
	char *slash = strrchr(relative_base, '/');
	if (slash)
		*slash = '\0'; /* else a path too long to resolve: the current directory */
	if (slash && !relative_base[0])
		strcpy(relative_base, "/");
	if (len && jc_ini_parse(f, on_ini_value, on_ini_error, &r) != 0)
		jc_log(JC_LOG_WARN, "%s: cannot read config (%s); using what was read",
		       path, strerror(errno));
	relative_base[0] = '\0';
	if (r.problems > INI_MAX_PROBLEMS)
		jc_log(JC_LOG_WARN, "%s: %d more problems not shown", path,
		       r.problems - INI_MAX_PROBLEMS);
	fclose(f);
	free(text);
	return JC_FILE_READ;
}

const char *jc_config_user_file(char *buf, size_t size)
{
	const char *xdg = env_get("XDG_CONFIG_HOME");
	const char *home = env_get("HOME");
	if (xdg && *xdg)
		snprintf(buf, size, "%s/jitcache/jitcache.ini", xdg);
	else if (home && *home)
		snprintf(buf, size, "%s/.config/jitcache/jitcache.ini", home);
	else
		return NULL;
	return buf;
}

/* Which file each of cfg->files is, made absolute (against the current
 * directory); 1 in named[i] if a variable named it, so that a typo there is
 * said rather than silently skipped. */
static void find_files(struct jc_config *cfg, int named[JC_CONFIG_FILES])
{
	char buf[PATH_MAX];
	const char *sys = env_get("JITCACHE_SYSTEM_CONFIG");
	const char *path[JC_CONFIG_FILES] = {
		[JC_CONFIG_SYSTEM] = sys && *sys ? sys : "/etc/jitcache.ini",
		[JC_CONFIG_USER] = jc_config_user_file(buf, sizeof buf),
		[JC_CONFIG_EXPLICIT] = env_get("JITCACHE_CONFIG"),
	};
	named[JC_CONFIG_SYSTEM] = sys && *sys;
	named[JC_CONFIG_USER] = 0;
	named[JC_CONFIG_EXPLICIT] = 1;
	for (int i = 0; i < JC_CONFIG_FILES; i++) {
		const char *why = NULL;
		char *out = cfg->files[i].path;
		if (path[i] && *path[i] && parse_path(path[i], out, &why) != 0)
			snprintf(out, PATH_MAX, "%s", path[i]);
		else if (!path[i] || !*path[i])
			out[0] = '\0';
	}
}

/* Each file in turn, a later one overriding an earlier one. */
static void read_files(struct jc_config *cfg)
{
	int named[JC_CONFIG_FILES];
	find_files(cfg, named);
	for (int i = 0; i < JC_CONFIG_FILES; i++) {
		struct jc_config_file *f = &cfg->files[i];
		f->state = JC_FILE_ABSENT;
		if (!f->path[0] || (!named[i] && access(f->path, F_OK) != 0))
			continue;
		for (int j = 0; j < i && f->state == JC_FILE_ABSENT; j++)
			if (strcmp(cfg->files[j].path, f->path) == 0)
				f->state = JC_FILE_SAME;
		if (f->state == JC_FILE_ABSENT)
			f->state = read_ini(cfg, f->path);
	}
}

/* One variable: an empty one is ignored unless empty_ok (it then means
 * "none", e.g. no remote). */
static void apply_one_env(struct jc_config *cfg, const char *sec, const char *name,
			  const char *env, int empty_ok)
{
	const char *v = env_get(env), *why = NULL;
	char from[64], shown[JC_REMOTE_LIST_MAX];
	snprintf(from, sizeof from, "env %s", env);
	if (v && (*v || empty_ok) && set_setting(cfg, sec, name, v, from, &why) == 0) {
		mark_ignored(cfg, sec, name, from, why);
		cfg->problems++;
		jc_remote_list_redact(v, shown, sizeof shown); /* never print a password */
		jc_log(JC_LOG_WARN, "%s='%.*s%s' is not valid: %s; %s", env, SHOWN, shown,
		       strlen(shown) > SHOWN ? "..." : "", why,
		       guards(sec, name) ? FAIL_CLOSED : "ignored");
	}
}

static void apply_env(struct jc_config *cfg)
{
#define X(sec, nm, kind, field, def, env, help) apply_one_env(cfg, #sec, #nm, env, JC_EMPTY_OK_##kind);
	JC_SETTINGS(X)
#undef X
}

static void default_cache_dir(struct jc_config *cfg)
{
	const char *xdg = env_get("XDG_CACHE_HOME");
	const char *home = env_get("HOME");
	if (xdg && *xdg)
		snprintf(cfg->cache_dir, sizeof cfg->cache_dir, "%s/jitcache", xdg);
	else if (home && *home)
		snprintf(cfg->cache_dir, sizeof cfg->cache_dir, "%s/.cache/jitcache", home);
	/* Else none: a fixed name in a directory everyone can write (such as
	 * /tmp/jitcache-UID) could be taken by someone else first. */
}

void jc_config_load(struct jc_config *cfg)
{
	const char *why = NULL;
	memset(cfg, 0, sizeof *cfg);
#define X(sec, nm, kind, field, def, env, help) \
	set_setting(cfg, #sec, #nm, def, "default", &why);
	JC_SETTINGS(X)
#undef X
	/* The log level applies while the file itself is read. */
	jc_log_set_level((enum jc_log_level)cfg->log_level);
	const char *env_level = env_get("JITCACHE_LOG");
	if (env_level && jc_log_parse_level(env_level) >= 0)
		jc_log_set_level((enum jc_log_level)jc_log_parse_level(env_level));

	read_files(cfg);
	apply_env(cfg);
	if (cfg->cache_dir[0] == '\0')
		default_cache_dir(cfg);
	jc_log_set_level((enum jc_log_level)cfg->log_level);
}

static const char size_units[] = "KMGT";

/* The largest unit (1 = K ... 4 = T) not above bytes, or 0. */
static int size_unit(uint64_t bytes)
{
	int u = 0;
	while (u < 4 && bytes >> (10 * (u + 1)))
		u++;
	return u;
}

const char *jc_config_size_text(uint64_t bytes, char buf[32])
{
	int u = size_unit(bytes);
	while (u > 0 && bytes % (1ull << (10 * u)) != 0)
		u--;
	if (u == 0)
		snprintf(buf, 32, "%llu", (unsigned long long)bytes);
	else
		snprintf(buf, 32, "%llu%c", (unsigned long long)(bytes >> (10 * u)), size_units[u - 1]);
	return buf;
}

const char *jc_config_size_round(uint64_t bytes, char buf[32])
{
	int u = size_unit(bytes);
	if (u == 0)
		snprintf(buf, 32, "%llu byte%s", (unsigned long long)bytes, bytes == 1 ? "" : "s");
	else if (bytes % (1ull << (10 * u)) == 0)
		jc_config_size_text(bytes, buf);
	else
		snprintf(buf, 32, "%.1f%c", (double)bytes / (double)(1ull << (10 * u)),
			 size_units[u - 1]);
	return buf;
}

static void show_value(FILE *out, const char *s)          { fprintf(out, "%s", *s ? s : "none"); }
static void show_size(FILE *out, uint64_t v)             { char b[32]; fputs(jc_config_size_text(v, b), out); }
static void show_int(FILE *out, int v)                   { fprintf(out, "%d", v); }
static void show_double(FILE *out, double v)             { fprintf(out, "%g", v); }
static void show_url(FILE *out, const char *url)
{
	char shown[JC_REMOTE_LIST_MAX];
	jc_remote_list_redact(url, shown, sizeof shown);
	fprintf(out, "%s", shown[0] ? shown : "off");
}
/* Key files: what they do, not only what they are.  A refused value
 * leaves the list refusing everything, whatever it held before. */
static void show_files(FILE *out, const char *list, const char *from)
{
	if (jc_config_refused(from))
		fputs("INVALID: nothing from Redis, layers or archives is accepted", out);
	else
		show_value(out, list);
}
#define SHOW_PATH(out, v, from)  show_value(out, v)
#define SHOW_PATHS(out, v, from) show_value(out, v)
#define SHOW_FILES(out, v, from) show_files(out, v, from)
#define SHOW_SIZE(out, v, from)  show_size(out, v)
#define SHOW_BOOL(out, v, from)  show_int(out, v)
#define SHOW_SECS(out, v, from)  show_double(out, v)
#define SHOW_LEVEL(out, v, from) show_value(out, jc_log_level_name((enum jc_log_level)(v)))
#define SHOW_URL(out, v, from)   show_url(out, v)

void jc_config_show(const struct jc_config *cfg, FILE *out)
{
#define X(sec, nm, kind, field, def, env, help)                             \
	fprintf(out, "%-22s = ", #sec "." #nm);                             \
	SHOW_##kind(out, cfg->field, cfg->field##_from);                    \
	fprintf(out, "    (%s; override: %s)\n", cfg->field##_from, env);
	JC_SETTINGS(X)
#undef X
	static const char *const role[] = { "system file", "user file", "JITCACHE_CONFIG" };
	static const char *const state[] = { [JC_FILE_ABSENT] = "not there",
		[JC_FILE_READ] = "read", [JC_FILE_UNREADABLE] = "INVALID: cannot be read",
		[JC_FILE_SAME] = "the same file as above" };
	for (int i = 0; i < JC_CONFIG_FILES; i++) {
		const struct jc_config_file *f = &cfg->files[i];
		if (f->path[0])
			fprintf(out, "%-22s = %s    (%s)\n", role[i], f->path, state[f->state]);
		else
			fprintf(out, "%-22s = none\n", role[i]);
	}
}

/* What a value of each kind looks like, for help. */
#define JC_FORM_PATH  "PATH"
#define JC_FORM_PATHS "DIR:..."
#define JC_FORM_FILES "FILE:..."
#define JC_FORM_URL   "URL"
#define JC_FORM_SIZE  "SIZE"
#define JC_FORM_BOOL  "0|1"
#define JC_FORM_SECS  "SECS"
#define JC_FORM_LEVEL "LEVEL"

/* "  JITCACHE_DIR=PATH   [cache] dir: HELP (default D)", HELP wrapped at 79
 * columns under itself. */
static void help_text(FILE *out, const char *sec, const char *name, const char *form,
		      const char *def, const char *env, const char *help)
{
	char head[64], text[512];
	snprintf(head, sizeof head, "%s=%s", env, form);
	snprintf(text, sizeof text, "[%s] %s: %s%s%s%s", sec, name, help, *def ? " (default " : "",
		 def, *def ? ")" : "");
	fprintf(out, "  %-28s", head);
	if (strlen(head) > 27)
		fprintf(out, "\n%30s", "");
	int col = 30;
	for (const char *w = text; *w;) {
		size_t n = strcspn(w, " ");
		if (col > 30 && col + 1 + (int)n > 79) {
			fprintf(out, "\n%30s", "");
			col = 30;
		} else if (col > 30) {
			fputc(' ', out);
			col++;
		}
		fprintf(out, "%.*s", (int)n, w);
		col += (int)n;
		w += n;
		w += strspn(w, " ");
	}
	fputc('\n', out);
}

static void help_markdown(FILE *out, const char *sec, const char *name, const char *def,
			  const char *env, const char *help)
{
	/* An empty default is "none", unless the meaning says what it is. */
	const char *none = strstr(help, "default") ? "(see meaning)" : "none";
	fprintf(out, "| `%s` | `[%s] %s` | %s%s%s | %s |\n", env, sec, name, *def ? "`" : "",
		*def ? def : none, *def ? "`" : "", help);
}

/* One .TP entry of the man page's SETTINGS section; the text escaped for
 * groff (backslashes, and a line starting with a dot or quote). */
static void man_escaped(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\e", out);
		else if (*s == '-')
			fputs("\\-", out);
		else
			fputc(*s, out);
	}
}

static void help_man(FILE *out, const char *sec, const char *name, const char *form,
		     const char *def, const char *env, const char *help)
{
	fprintf(out, ".TP\n.BR %s =\\fI%s\\fR\n", env, form);
	fprintf(out, "ini: \\fB[%s] %s\\fR", sec, name);
	if (*def) {
		fputs("; default: \\fB", out);
		man_escaped(out, def);
		fputs("\\fR", out);
	}
	fputs("\n.br\n\\&", out);
	man_escaped(out, help);
	fputc('\n', out);
}

void jc_config_help(FILE *out, int format)
{
	if (format == JC_HELP_MARKDOWN)
		fputs("| variable | ini name | default | meaning |\n|---|---|---|---|\n", out);
#define X(sec, nm, kind, field, def, env, help)                                  \
	if (format == JC_HELP_MARKDOWN)                                          \
		help_markdown(out, #sec, #nm, def, env, help);                   \
	else if (format == JC_HELP_MAN)                                          \
		help_man(out, #sec, #nm, JC_FORM_##kind, def, env, help);        \
	else                                                                     \
		help_text(out, #sec, #nm, JC_FORM_##kind, def, env, help);
	JC_SETTINGS(X)
#undef X
}
