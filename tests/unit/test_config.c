// SPDX-License-Identifier: MIT
/* Unit tests of config/: defaults, ini files, environment overrides, and the
 * one-line messages for bad input. */
#include "config/capture.h"
#include "config/config.h"
#include "config/inifile.h"
#include "config/log.h"
#include "tests/unit/check.h"

#include <limits.h>

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[160]; /* $TMPDIR/jitcache-config-test.XXXXXX */
static char messages[65536];

static const char *const our_env[] = {
#define X(sec, name, kind, field, def, env, help) env,
	JC_SETTINGS(X)
#undef X
	"JITCACHE_CONFIG", "JITCACHE_SYSTEM_CONFIG", "XDG_CONFIG_HOME", "XDG_CACHE_HOME",
};

static void clean_env(void)
{
	for (size_t i = 0; i < sizeof our_env / sizeof *our_env; i++)
		unsetenv(our_env[i]);
	setenv("HOME", dir, 1);
	setenv("XDG_CONFIG_HOME", dir, 1); /* no jitcache/jitcache.ini there */
	setenv("JITCACHE_SYSTEM_CONFIG", "/dev/null", 1); /* not the host's /etc/jitcache.ini */
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(2);
	}
	fputs(text, f);
	fclose(f);
}

/* Load the config with stderr captured into messages[]. */
static void load(struct jc_config *cfg)
{
	char path[256];
	snprintf(path, sizeof path, "%s/stderr", dir);
	fflush(stderr);
	int saved = dup(2);
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
	dup2(fd, 2);
	close(fd);
	jc_config_load(cfg);
	dup2(saved, 2);
	close(saved);
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(messages, 1, sizeof messages - 1, f) : 0;
	messages[n] = '\0';
	if (f)
		fclose(f);
}

static int count_lines(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void test_defaults(void)
{
	struct jc_config cfg;
	clean_env();
	load(&cfg);
	char want[512];
	snprintf(want, sizeof want, "%s/.cache/jitcache", dir);
	CHECK(strcmp(cfg.cache_dir, want) == 0, "default dir is ~/.cache/jitcache (%s)", cfg.cache_dir);
	CHECK(cfg.max_size == 4ull << 30, "default max_size is 4G");
	CHECK(cfg.disable == 0 && cfg.log_level == JC_LOG_WARN, "defaults: enabled, warn");
	CHECK(strcmp(cfg.max_size_from, "default") == 0, "origin of a default is 'default'");
	CHECK(messages[0] == '\0', "no messages without config (got: %s)", messages);

	setenv("XDG_CACHE_HOME", "/var/tmp/xdg", 1);
	load(&cfg);
	CHECK(strcmp(cfg.cache_dir, "/var/tmp/xdg/jitcache") == 0, "XDG_CACHE_HOME is honoured");
}

static void test_ini_and_env(void)
{
	struct jc_config cfg;
	char ini[256], xdg_ini[256];
	clean_env();
	snprintf(ini, sizeof ini, "%s/a.ini", dir);
	write_file(ini, "; comment\n[cache]\ndir = ~/somewhere\nmax_size = 512M\n[log]\nlevel = debug\n");
	setenv("JITCACHE_CONFIG", ini, 1);
	load(&cfg);
	char want[512];
	snprintf(want, sizeof want, "%s/somewhere", dir);
	CHECK(strcmp(cfg.cache_dir, want) == 0, "ini dir with ~ expanded (%s)", cfg.cache_dir);
	CHECK(cfg.max_size == 512ull << 20, "ini max_size 512M");
	CHECK(cfg.log_level == JC_LOG_DEBUG, "ini log level");
	char from[300];
	snprintf(from, sizeof from, "%s:4", ini);
	CHECK(strcmp(cfg.max_size_from, from) == 0, "origin names file and line (%s)", cfg.max_size_from);

	setenv("JITCACHE_MAX_SIZE", "2G", 1);
	setenv("JITCACHE_DIR", "/x/y", 1);
	setenv("JITCACHE_DISABLE", "1", 1);
	setenv("JITCACHE_LOG", "error", 1);
	load(&cfg);
	CHECK(cfg.max_size == 2ull << 30 && strcmp(cfg.cache_dir, "/x/y") == 0 &&
	      cfg.disable == 1 && cfg.log_level == JC_LOG_ERROR, "environment overrides the ini file");
	CHECK(strcmp(cfg.max_size_from, "env JITCACHE_MAX_SIZE") == 0, "origin of an env value");

	/* Without JITCACHE_CONFIG the XDG file is found. */
	clean_env();
	snprintf(xdg_ini, sizeof xdg_ini, "%s/jitcache", dir);
	mkdir(xdg_ini, 0700);
	snprintf(xdg_ini, sizeof xdg_ini, "%s/jitcache/jitcache.ini", dir);
	write_file(xdg_ini, "[cache]\nmax_size = 100K\n");
	load(&cfg);
	CHECK(cfg.max_size == 100ull << 10 && strcmp(cfg.files[JC_CONFIG_USER].path, xdg_ini) == 0 &&
	      cfg.files[JC_CONFIG_USER].state == JC_FILE_READ,
	      "$XDG_CONFIG_HOME/jitcache/jitcache.ini is read");
	setenv("JITCACHE_CONFIG", ini, 1);
	load(&cfg);
	CHECK(cfg.max_size == 512ull << 20, "$JITCACHE_CONFIG overrides the XDG file");
	unlink(xdg_ini);
}

/* The system file, the user's, $JITCACHE_CONFIG, then the environment, each
 * overriding the one before: a user's file no longer hides the system's
 * other settings (its remote, its trusted keys). */
static void test_layers_of_files(void)
{
	struct jc_config cfg;
	char sys[256], user[256], expl[256], from[300];
	clean_env();
	snprintf(sys, sizeof sys, "%s/system.ini", dir);
	snprintf(user, sizeof user, "%s/jitcache", dir);
	mkdir(user, 0700);
	snprintf(user, sizeof user, "%s/jitcache/jitcache.ini", dir);
	snprintf(expl, sizeof expl, "%s/explicit.ini", dir);
	write_file(sys, "[cache]\nmax_size = 1G\nlock_timeout = 5\n[remote]\nurl = redis://sys\n"
			"[log]\nlevel = info\n");
	write_file(user, "[cache]\nmax_size = 2G\nlock_timeout = 6\n");
	write_file(expl, "[cache]\nlock_timeout = 7\n");
	setenv("JITCACHE_SYSTEM_CONFIG", sys, 1);
	load(&cfg);
	snprintf(from, sizeof from, "%s:5", sys);
	CHECK(strcmp(cfg.remote_url, "redis://sys") == 0 && strcmp(cfg.remote_url_from, from) == 0,
	      "the system file's remote stays beside a user file (%s)", cfg.remote_url_from);
	snprintf(from, sizeof from, "%s:2", user);
	CHECK(cfg.max_size == 2ull << 30 && strcmp(cfg.max_size_from, from) == 0,
	      "the user's file overrides the system file");
	CHECK(cfg.files[JC_CONFIG_SYSTEM].state == JC_FILE_READ &&
	      cfg.files[JC_CONFIG_USER].state == JC_FILE_READ &&
	      cfg.files[JC_CONFIG_EXPLICIT].path[0] == '\0' && cfg.problems == 0,
	      "both files read, none named by JITCACHE_CONFIG, no problem");
	setenv("JITCACHE_CONFIG", expl, 1);
	setenv("JITCACHE_LOG", "error", 1);
	load(&cfg);
	snprintf(from, sizeof from, "%s:2", expl);
	CHECK(cfg.lock_timeout == 7 && strcmp(cfg.lock_timeout_from, from) == 0 &&
	      cfg.max_size == 2ull << 30 && strcmp(cfg.remote_url, "redis://sys") == 0,
	      "$JITCACHE_CONFIG overrides both, for its settings only");
	CHECK(cfg.log_level == JC_LOG_ERROR, "the environment overrides every file");
	setenv("JITCACHE_CONFIG", user, 1);
	load(&cfg);
	CHECK(cfg.files[JC_CONFIG_EXPLICIT].state == JC_FILE_SAME && cfg.lock_timeout == 6,
	      "$JITCACHE_CONFIG naming the user's file: read once");
	unsetenv("JITCACHE_CONFIG");
	unsetenv("JITCACHE_LOG");

	/* A missing file is skipped quietly unless a variable named it. */
	unlink(user);
	setenv("JITCACHE_SYSTEM_CONFIG", "/nonexistent/system.ini", 1);
	load(&cfg);
	CHECK(strstr(messages, "/nonexistent/system.ini: cannot read config") != NULL &&
	      count_lines(messages) == 1 && cfg.problems == 1 &&
	      cfg.files[JC_CONFIG_SYSTEM].state == JC_FILE_UNREADABLE &&
	      cfg.files[JC_CONFIG_USER].state == JC_FILE_ABSENT,
	      "a missing JITCACHE_SYSTEM_CONFIG: one line; a missing user file: none (%s)", messages);
	unlink(sys);
	unlink(expl);
}

/* A misspelt name in an ini file: one line naming the closest setting. */
static void test_did_you_mean(void)
{
	struct jc_config cfg;
	char ini[256], want[400];
	const struct jc_setting *near = NULL, *s;
	const char *why = NULL;
	clean_env();
	snprintf(ini, sizeof ini, "%s/typo.ini", dir);
	write_file(ini, "[cache]\nmax_szie = 1G\nurl = redis://x\nfrobnicate = 1\n");
	setenv("JITCACHE_CONFIG", ini, 1);
	load(&cfg);
	snprintf(want, sizeof want, "%s:2: unknown setting [cache] max_szie (did you mean [cache] "
		 "max_size?); ignored", ini);
	CHECK(strstr(messages, want) != NULL, "a swapped pair of letters: the setting named");
	snprintf(want, sizeof want, "%s:3: unknown setting [cache] url (did you mean [remote] url?)",
		 ini);
	CHECK(strstr(messages, want) != NULL, "the right name in the wrong section: the section named");
	snprintf(want, sizeof want, "%s:4: unknown setting [cache] frobnicate; ignored", ini);
	CHECK(strstr(messages, want) != NULL, "nothing near: no guess");
	CHECK(count_lines(messages) == 3 && cfg.problems == 3, "one line each, three problems");

	s = jc_config_find("max_size", &near, &why);
	CHECK(s && strcmp(s->section, "cache") == 0, "find: a name of one section");
	s = jc_config_find("remote.compress", &near, &why);
	CHECK(s && strcmp(s->section, "remote") == 0, "find: section.name");
	s = jc_config_find("compress", &near, &why);
	CHECK(!s && strcmp(why, "ambiguous") == 0 && near, "find: a name of two sections is ambiguous");
	s = jc_config_find("max_sise", &near, &why);
	CHECK(!s && strcmp(why, "unknown") == 0 && near && strcmp(near->name, "max_size") == 0,
	      "find: a typo gives the closest");
	s = jc_config_find("cache.timeout", &near, &why);
	CHECK(!s && near && strcmp(near->name, "timeout") == 0 && strcmp(near->section, "remote") == 0,
	      "find: the wrong section gives the right one");
	char text[PATH_MAX];
	s = jc_config_find("max_size", &near, &why);
	CHECK(jc_config_check(s, "20G", text, sizeof text, &why) == 0 && strcmp(text, "20G") == 0,
	      "check: a good size is written as given");
	CHECK(jc_config_check(s, "lots", text, sizeof text, &why) != 0 && why, "check: a bad size");
	s = jc_config_find("dir", &near, &why);
	char cwd[PATH_MAX - 16], want_dir[PATH_MAX];
	CHECK(getcwd(cwd, sizeof cwd) != NULL, "getcwd");
	snprintf(want_dir, sizeof want_dir, "%s/rel", cwd);
	CHECK(jc_config_check(s, "./rel", text, sizeof text, &why) == 0 && strcmp(text, want_dir) == 0,
	      "check: a relative path is made absolute against the current directory (%s)", text);
	unlink(ini);
}

static void test_bad_input(void)
{
	struct jc_config cfg;
	char ini[256];
	clean_env();
	snprintf(ini, sizeof ini, "%s/bad.ini", dir);
	write_file(ini, "[cache]\nmax_size = lots\ncolour = blue\nthis line is broken\n"
			"[log]\nlevel = verbose\n[cache]\ndir = /ok/dir\n");
	setenv("JITCACHE_CONFIG", ini, 1);
	load(&cfg);
	CHECK(cfg.max_size == 4ull << 30, "bad size keeps the default");
	CHECK(strcmp(cfg.cache_dir, "/ok/dir") == 0, "lines after errors still apply");
	char want[300];
	snprintf(want, sizeof want, "%s:2: bad value 'lots'", ini);
	CHECK(strstr(messages, want) != NULL, "bad value names file and line 2");
	snprintf(want, sizeof want, "%s:3: unknown setting [cache] colour", ini);
	CHECK(strstr(messages, want) != NULL, "unknown key names file and line 3");
	snprintf(want, sizeof want, "%s:4: syntax error", ini);
	CHECK(strstr(messages, want) != NULL, "syntax error names line 4");
	snprintf(want, sizeof want, "%s:6: bad value 'verbose'", ini);
	CHECK(strstr(messages, want) != NULL, "bad log level names line 6");
	CHECK(count_lines(messages) == 4 && cfg.problems == 4, "one line per problem (%d lines)", count_lines(messages));

	setenv("JITCACHE_CONFIG", "/nonexistent/jitcache.ini", 1);
	load(&cfg);
	CHECK(strstr(messages, "/nonexistent/jitcache.ini: cannot read config") != NULL &&
	      count_lines(messages) == 1 && cfg.problems == 1, "missing explicit config file: one line");

	clean_env();
	setenv("JITCACHE_MAX_SIZE", "-5G", 1);
	setenv("JITCACHE_DISABLE", "maybe", 1);
	load(&cfg);
	CHECK(cfg.max_size == 4ull << 30 && cfg.disable == 0, "bad env values are ignored");
	CHECK(strstr(messages, "JITCACHE_MAX_SIZE='-5G' is not valid") != NULL &&
	      strstr(messages, "JITCACHE_DISABLE='maybe' is not valid") != NULL &&
	      count_lines(messages) == 2, "each bad env value gets one line");

	clean_env();
	setenv("JITCACHE_LOG", "off", 1);
	setenv("JITCACHE_MAX_SIZE", "-5G", 1);
	load(&cfg);
	CHECK(messages[0] == '\0', "JITCACHE_LOG=off silences warnings");
}

/* A line of n characters: prefix, then 'x's up to n. */
static char *line_of(const char *prefix, size_t n)
{
	char *s = malloc(n + 1);
	size_t p = strlen(prefix);
	memcpy(s, prefix, p);
	memset(s + p, 'x', n - p);
	s[n] = '\0';
	return s;
}

/* Debian's inih cut lines at 200 bytes and parsed the rest as a new line: a
 * 215-character dir became a 193-character one, and the following settings
 * were reported on the wrong lines.  Lines inih can take (JC_INI_MAX_LINE
 * bytes) are read whole; a longer line is refused in one line naming file
 * and line, the setting keeps its value, and later lines keep their numbers. */
static void test_long_lines(void)
{
	struct jc_config cfg;
	char ini[256], want[512], *text = malloc(32768);
	clean_env();
	snprintf(ini, sizeof ini, "%s/long.ini", dir);
	setenv("JITCACHE_CONFIG", ini, 1);

	const size_t room = JC_INI_MAX_LINE - strlen("dir = ");
	const size_t whole[] = { 150, room - 1, room };
	for (size_t i = 0; i < sizeof whole / sizeof *whole; i++) {
		size_t n = whole[i];
		char *path = line_of("/", n);
		snprintf(text, 32768, "[cache]\ndir = %s\nmax_size = 1M\n", path);
		write_file(ini, text);
		load(&cfg);
		snprintf(want, sizeof want, "%s:3", ini);
		CHECK(strlen(cfg.cache_dir) == n && strcmp(cfg.cache_dir, path) == 0,
		      "a %zu-character dir is read whole (got %zu)", n, strlen(cfg.cache_dir));
		CHECK(cfg.max_size == 1 << 20 && strcmp(cfg.max_size_from, want) == 0,
		      "... and the next setting is on line 3 (%s)", cfg.max_size_from);
		CHECK(messages[0] == '\0', "... without a message (got: %.200s)", messages);
		free(path);
	}

	const size_t refused[] = { room + 1, 215, 1000, PATH_MAX - 1, PATH_MAX + 10 };
	for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
		size_t n = refused[i];
		char *path = line_of("/", n);
		snprintf(text, 32768, "[cache]\ndir = %s\nmax_size = 1M\n", path);
		write_file(ini, text);
		load(&cfg);
		snprintf(want, sizeof want, "%s:2: line too long", ini);
		CHECK(strstr(cfg.cache_dir, "/.cache/jitcache") && strstr(messages, want) &&
		      count_lines(messages) == 1,
		      "a %zu-character dir: one line naming file and line 2, default kept (%.200s)", n,
		      messages);
		snprintf(want, sizeof want, "%s:3", ini);
		CHECK(cfg.max_size == 1 << 20 && strcmp(cfg.max_size_from, want) == 0,
		      "... and the next setting is on line 3 (%s)", cfg.max_size_from);
		free(path);
	}

	/* Longer than any setting can be: refused whole, line numbers stay true. */
	char *comment = line_of("; ", 300);
	char *huge = line_of("dir = /", JC_INI_MAX_LINE + 100);
	snprintf(text, 32768, "%s\n[cache]\n%s\nmax_size = 2M\n", comment, huge);
	write_file(ini, text);
	load(&cfg);
	snprintf(want, sizeof want, "%s:3: line too long", ini);
	CHECK(strstr(messages, want) && count_lines(messages) == 1,
	      "a line over %d bytes: one line naming file and line 3 (%.200s)", JC_INI_MAX_LINE,
	      messages);
	CHECK(strstr(cfg.cache_dir, "/.cache/jitcache") != NULL, "... and dir keeps its default");
	snprintf(want, sizeof want, "%s:4", ini);
	CHECK(cfg.max_size == 2 << 20 && strcmp(cfg.max_size_from, want) == 0,
	      "... and the next setting is on line 4 (%s)", cfg.max_size_from);
	free(comment);
	free(huge);

	/* The rest of inih's grammar. */
	write_file(ini, "\xEF\xBB\xBF[cache] ; c\r\n  max_size : 3M ; three\r\n"
			"dir = /a;b #c ; d\n\tshared = 1\n");
	load(&cfg);
	CHECK(cfg.max_size == 3 << 20 && strcmp(cfg.cache_dir, "/a;b #c") == 0 && cfg.shared == 1 &&
	      messages[0] == '\0', "BOM, CRLF, ':' , inline ' ;' comments, indented lines (%s)",
	      cfg.cache_dir);
	free(text);
}

static void test_parsers(void)
{
	static const struct { const char *text; uint64_t want; } good[] = {
		{ "0", 0 }, { "123", 123 }, { "1K", 1024 }, { "1.5M", 1572864 },
		{ "4G", 4ull << 30 }, { "4GiB", 4ull << 30 }, { "2gb", 2ull << 30 }, { "1T", 1ull << 40 },
	};
	static const char *const bad[] = { "", "G", "-1", "1X", "1GG", "nan", "1e30" };
	for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
		uint64_t v = 7;
		const char *why = NULL;
		CHECK(jc_config_parse_size(good[i].text, &v, &why) == 0 && v == good[i].want,
		      "size '%s' = %llu", good[i].text, (unsigned long long)good[i].want);
	}
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		uint64_t v;
		const char *why = NULL;
		CHECK(jc_config_parse_size(bad[i], &v, &why) == -1 && why, "size '%s' rejected", bad[i]);
	}
	int b = -1;
	const char *why;
	CHECK(jc_config_parse_bool("yes", &b, &why) == 0 && b == 1, "bool yes");
	CHECK(jc_config_parse_bool("OFF", &b, &why) == 0 && b == 0, "bool OFF");
	CHECK(jc_config_parse_bool("2", &b, &why) == -1, "bool 2 rejected");
}

/* [cache] layers: a list of paths, each with ~ expanded, empty parts dropped. */
static void test_layers(void)
{
	struct jc_config cfg;
	char ini[256], want[600];
	clean_env();
	load(&cfg);
	CHECK(cfg.layers[0] == '\0', "no layers by default");
	snprintf(ini, sizeof ini, "%s/layers.ini", dir);
	write_file(ini, "[cache]\nlayers = ~/a::/opt/jitcache-layer/:~\n");
	setenv("JITCACHE_CONFIG", ini, 1);
	load(&cfg);
	snprintf(want, sizeof want, "%s/a:/opt/jitcache-layer/:%s", dir, dir);
	CHECK(strcmp(cfg.layers, want) == 0, "ini layers, each ~ expanded (%s)", cfg.layers);
	setenv("JITCACHE_LAYERS", "/x:/y", 1);
	load(&cfg);
	CHECK(strcmp(cfg.layers, "/x:/y") == 0 && strcmp(cfg.layers_from, "env JITCACHE_LAYERS") == 0,
	      "JITCACHE_LAYERS overrides the ini file");
}

static void test_sizes(void)
{
	static const struct { uint64_t v; const char *text, *round; } sizes[] = {
		{ 0, "0", "0 bytes" }, { 1, "1", "1 byte" }, { 1000, "1000", "1000 bytes" }, { 1024, "1K", "1K" },
		{ 1536, "1536", "1.5K" }, { 4ull << 30, "4G", "4G" }, { 1536ull << 20, "1536M", "1.5G" },
		{ (4ull << 30) + 1, "4294967297", "4.0G" }, { 12900000, "12900000", "12.3M" },
		{ 3ull << 40, "3T", "3T" }, { 5000ull << 40, "5000T", "5000T" },
	};
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		char a[32], b[32];
		uint64_t back = 0;
		const char *why;
		CHECK(strcmp(jc_config_size_text(sizes[i].v, a), sizes[i].text) == 0 &&
		      strcmp(jc_config_size_round(sizes[i].v, b), sizes[i].round) == 0,
		      "%llu bytes shown as %s (exactly) and %s (rounded): got %s, %s",
		      (unsigned long long)sizes[i].v, sizes[i].text, sizes[i].round, a, b);
		CHECK(jc_config_parse_size(a, &back, &why) == 0 && back == sizes[i].v,
		      "... and %s reads back as %llu", a, (unsigned long long)sizes[i].v);
	}
}

static void test_show(void)
{
	struct jc_config cfg;
	char path[256];
	clean_env();
	setenv("JITCACHE_MAX_SIZE", "1G", 1);
	load(&cfg);
	snprintf(path, sizeof path, "%s/show", dir);
	FILE *f = fopen(path, "w+");
	jc_config_show(&cfg, f);
	rewind(f);
	char text[4096];
	size_t n = fread(text, 1, sizeof text - 1, f);
	text[n] = '\0';
	fclose(f);
	CHECK(strstr(text, "cache.max_size         = 1G    (env JITCACHE_MAX_SIZE") != NULL,
	      "show gives value (a size as written: 1G) and origin");
	CHECK(strstr(text, "log.level              = warn    (default") != NULL, "show gives defaults");
}

/* The [remote] settings: the URL is checked as it is read (a bad one named
 * with its file and line, keeping the previous value), an empty or "off"
 * JITCACHE_REMOTE turns the remote off over the file, and no message or
 * `jitcache config` output ever holds the password. */
static void test_remote(void)
{
	struct jc_config cfg;
	char ini[256], out[4096] = "";
	clean_env();
	load(&cfg);
	CHECK(cfg.remote_url[0] == '\0' && cfg.remote_read_only == 0 && cfg.remote_timeout > 0 &&
	      cfg.remote_connect_timeout > 0 && cfg.remote_backoff > 0 && cfg.remote_lease > 0,
	      "defaults: no remote, small timeouts, a back-off and a lease");
	snprintf(ini, sizeof ini, "%s/r.ini", dir);
	write_file(ini, "[remote]\nurl = redis://ci:Hunter2pw@cache:7000/3\nread_only = 1\n"
			"timeout = 0.25\nurl = redis://ci:Hunter2pw@cache:99999\n");
	setenv("JITCACHE_CONFIG", ini, 1);
	load(&cfg);
	CHECK(strcmp(cfg.remote_url, "redis://ci:Hunter2pw@cache:7000/3") == 0 &&
	      cfg.remote_read_only == 1 && cfg.remote_timeout == 0.25, "[remote] read from the file");
	CHECK(count_lines(messages) == 1 && strstr(messages, ":5: bad value") &&
	      strstr(messages, "port must be"), "a bad URL: one line naming file:line (%s)", messages);
	CHECK(strstr(messages, "Hunter2pw") == NULL, "... without the password");
	FILE *f = fmemopen(out, sizeof out - 1, "w");
	jc_config_show(&cfg, f);
	fclose(f);
	CHECK(strstr(out, "remote.url             = redis://***@cache:7000/3") != NULL,
	      "config shows the URL with the password as ***");
	CHECK(strstr(out, "Hunter2pw") == NULL, "... and nowhere else");
	setenv("JITCACHE_REMOTE", "", 1);
	load(&cfg);
	CHECK(cfg.remote_url[0] == '\0' && strcmp(cfg.remote_url_from, "env JITCACHE_REMOTE") == 0,
	      "an empty JITCACHE_REMOTE turns the file's remote off");
	setenv("JITCACHE_REMOTE", "OFF", 1);
	load(&cfg);
	CHECK(cfg.remote_url[0] == '\0', "JITCACHE_REMOTE=off too");
	setenv("JITCACHE_REMOTE", "redis+unix:///run/r.sock?db=2", 1);
	load(&cfg);
	CHECK(strcmp(cfg.remote_url, "redis+unix:///run/r.sock?db=2") == 0, "a unix socket URL");
	setenv("JITCACHE_REMOTE", "redis://:Hunter2pw@", 1);
	load(&cfg);
	CHECK(strstr(messages, "JITCACHE_REMOTE='redis://***@' is not valid: no host") &&
	      strcmp(cfg.remote_url, "redis://ci:Hunter2pw@cache:7000/3") == 0,
	      "a bad JITCACHE_REMOTE: one line, the file's value kept (%s)", messages);
}

/* What a process that loads jitcache fixes at start (jc_config_capture):
 * relative path settings made absolute against the starting directory, in
 * the environment too; "~" left for each process's own HOME; the settings
 * then read from a copy of the environment, whatever the program does to
 * it later.  Last: from here on this process reads the copy. */
static void test_capture(void)
{
	struct jc_config cfg;
	char want[2 * PATH_MAX + 200], cwd[PATH_MAX];
	clean_env();
	if (chdir(dir) != 0 || !getcwd(cwd, sizeof cwd)) {
		perror(dir);
		exit(2);
	}
	setenv("JITCACHE_DIR", "./rel/cache", 1);
	setenv("JITCACHE_LAYERS", "~/a:lay::/abs", 1);
	setenv("JITCACHE_STATS_LOG", "~/stats.log", 1);
	setenv("JITCACHE_MAX_SIZE", "1G", 1);
	jc_config_capture();
	snprintf(want, sizeof want, "%s/rel/cache", cwd);
	CHECK(strcmp(getenv("JITCACHE_DIR"), want) == 0, "a relative JITCACHE_DIR is handed on "
	      "absolute (%s)", getenv("JITCACHE_DIR"));
	snprintf(want, sizeof want, "~/a:%s/lay:/abs", cwd);
	CHECK(strcmp(getenv("JITCACHE_LAYERS"), want) == 0, "each relative layer is made absolute, "
	      "~ left for each process's HOME (%s)", getenv("JITCACHE_LAYERS"));
	CHECK(strcmp(getenv("JITCACHE_STATS_LOG"), "~/stats.log") == 0,
	      "a ~ path is handed on as it was");
	CHECK(strcmp(getenv("JITCACHE_MAX_SIZE"), "1G") == 0, "other settings are left alone");
	/* The program changes its environment and directory: nothing moves. */
	setenv("JITCACHE_DIR", "/elsewhere", 1);
	setenv("HOME", "/nonexistent-home", 1);
	setenv("JITCACHE_MAX_SIZE", "2G", 1);
	if (chdir("/") != 0)
		exit(2);
	load(&cfg);
	snprintf(want, sizeof want, "%s/rel/cache", cwd);
	CHECK(strcmp(cfg.cache_dir, want) == 0, "the settings are read as they were at start (%s)",
	      cfg.cache_dir);
	snprintf(want, sizeof want, "%s/a:%s/lay:/abs", dir, cwd);
	CHECK(strcmp(cfg.layers, want) == 0, "~ is the HOME of the start (%s)", cfg.layers);
	CHECK(cfg.max_size == 1ull << 30, "JITCACHE_MAX_SIZE as it was at start");
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	if (!tmp || !*tmp || strlen(tmp) > 100)
		tmp = "/tmp";
	snprintf(dir, sizeof dir, "%s/jitcache-config-test.XXXXXX", tmp);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 2;
	}
	test_defaults();
	test_ini_and_env();
	test_layers_of_files();
	test_did_you_mean();
	test_bad_input();
	test_long_lines();
	test_parsers();
	test_layers();
	test_sizes();
	test_show();
	test_remote();
	test_capture(); /* last: the settings are read from its copy from then on */
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return check_summary();
}
