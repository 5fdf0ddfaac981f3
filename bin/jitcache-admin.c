// SPDX-License-Identifier: MIT
/*
 * jitcache-admin — every command of `jitcache` but `run` (bin/jitcache
 * hands them on): one table below, each command's usage and summary
 * beside it, `jitcache --help` (one line per command), `help --all` (every
 * usage and setting), and `--version`.
 * Settings come from jc_config_load(), as in the library.  Exit status
 * (admin.h): 0 on success, 1 when the cache cannot be used (or verify found
 * bad entries, or config an invalid setting or a cache directory it
 * cannot use), 2 on bad usage.
 */
#include "bin/admin.h"
#include "config/clock.h"
#include "bin/enable.h"
#include "bin/warm.h"
#include "config/escape.h"
#include "config/ini_write.h"
#include "config/log.h"
#include "config/remote_url.h"
#include "key/explain.h"
#include "shim/exports.h"
#include "shim/preload.h"
#include "store/fsutil.h"
#include "store/misses.h"
#include "store/stats.h"
#include "tiers/archive.h"
#include "trust/sign.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

/* ---- what the commands share (admin.h) --------------------------------------- */

int jc_admin_usage_error(const char *cmd, const char *why)
{
	fprintf(stderr, "jitcache: %s%s%s (see jitcache %s%s--help)\n", cmd ? cmd : "",
		cmd ? ": " : "", why, cmd ? cmd : "", cmd ? " " : "");
	return JC_EXIT_USAGE;
}

const char *jc_admin_closest(const char *word, const char *const *words, size_t n)
{
	const char *best = NULL;
	int best_d = 1 + (int)strlen(word) / 4;
	for (size_t i = 0; i < n; i++) {
		int d = jc_config_distance(word, words[i]);
		if (d < best_d || (d == best_d && !best))
			best = words[i], best_d = d;
	}
	return best;
}

int jc_admin_bad_option(const char *cmd, int opt, char **argv, const struct option *longopts)
{
	const char *arg = argv[optind - 1], *names[32];
	char why[200], shown[64];
	size_t n = 0;
	if (optopt && arg[0] == '-' && arg[1] != '-')
		snprintf(shown, sizeof shown, "-%c", optopt);
	else
		snprintf(shown, sizeof shown, "%.*s", (int)strcspn(arg, "="), arg);
	for (; longopts[n].name && n < sizeof names / sizeof *names; n++)
		names[n] = longopts[n].name;
	const char *near = jc_admin_closest(shown + strspn(shown, "-"), names, n);
	if (opt == ':')
		snprintf(why, sizeof why, "%s needs a value", shown);
	else if (near)
		snprintf(why, sizeof why, "unknown option '%s' (did you mean --%s?)", shown, near);
	else
		snprintf(why, sizeof why, "unknown option '%s'", shown);
	return jc_admin_usage_error(cmd, why);
}

const char *jc_admin_count(uint64_t n, const char *one, const char *many, char buf[64])
{
	snprintf(buf, 64, "%llu %s", (unsigned long long)n, n == 1 ? one : many);
	return buf;
}

const char *jc_admin_date(int64_t ns, char buf[32])
{
	time_t t = (time_t)(ns / 1000000000);
	struct tm tm;
	if (!ns || !localtime_r(&t, &tm) || !strftime(buf, 32, "%Y-%m-%d %H:%M:%S", &tm))
		return "unknown (counted by an older jitcache)";
	return buf;
}

/* Take no option (but --help, answered before): operands only, at most max. */
static int operands(const char *cmd, int argc, char **argv, int min, int max, const char *what)
{
	static const struct option none[] = { { NULL, 0, NULL, 0 } };
	opterr = 0;
	int opt = getopt_long(argc, argv, ":", none, NULL);
	if (opt != -1)
		return jc_admin_bad_option(cmd, opt, argv, none);
	if (argc - optind < min || argc - optind > max)
		return jc_admin_usage_error(cmd, what);
	return 0;
}

static const char *human(uint64_t bytes, char buf[32])
{
	return jc_config_size_round(bytes, buf);
}

static int read_stats(struct jc_cache *c, struct jc_cache_stats *s)
{
	if (jc_cache_shared_stats(c, s) == 0)
		return 0;
	fprintf(stderr, "jitcache: cannot read the statistics in %s\n", jc_cache_dir(c));
	return -1;
}

static uint64_t minus(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* "12 entries", or "1 entry and 1 recipe" where there are recipes
 * (cache.h): a recipe is an entry file but no compiled result. */
static const char *counted(uint64_t entries, uint64_t recipes, char buf[160])
{
	char a[64], b[64];
	jc_admin_count(entries, "entry", "entries", a);
	if (recipes)
		snprintf(buf, 160, "%s and %s", a, jc_admin_count(recipes, "recipe", "recipes", b));
	else
		snprintf(buf, 160, "%s", a);
	return buf;
}

/* A cache function's log (the archive's members refused, the reason it
 * failed): each line as "jitcache: LINE", the last with tail added. */
struct log {
	FILE *f;
	char *text;
	size_t size;
};

static FILE *log_open(struct log *l)
{
	*l = (struct log){ .f = open_memstream(&l->text, &l->size) };
	return l->f ? l->f : stderr;
}

static void log_close(struct log *l, const char *tail)
{
	if (!l->f)
		return;
	fclose(l->f);
	for (const char *p = l->text; p && *p;) {
		size_t n = strcspn(p, "\n");
		int last = p[n] == '\0' || p[n + 1] == '\0';
		fprintf(stderr, "jitcache: %.*s%s\n", (int)n, p, last && tail ? tail : "");
		p += n + (p[n] == '\n');
	}
	free(l->text);
}

/* ---- clear, trim, verify ----------------------------------------------------- */

/* "removed 12 entries and 12 recipes (3.4M); 5 entries and 5 recipes
 * (1.0M) left" */
static int report_removal(struct jc_cache *c, const struct jc_cache_stats *before, int rc)
{
	struct jc_cache_stats after;
	char a[32], b[32], n[160], m[160];
	if (read_stats(c, &after) != 0)
		return JC_EXIT_FAILED;
	printf("removed %s (%s); %s (%s) left\n",
	       counted(minus(before->entries, after.entries), minus(before->recipes, after.recipes), n),
	       human(minus(before->size, after.size), a),
	       counted(after.entries, after.recipes, m), human(after.size, b));
	if (rc != 0)
		fprintf(stderr, "jitcache: some entries could not be removed (see above)\n");
	return rc != 0;
}

static void clear_usage(FILE *out)
{
	fputs("       jitcache clear                 remove every entry\n", out);
}

static int cmd_clear(const struct jc_config *cfg, struct jc_cache *c, int argc, char **argv)
{
	struct jc_cache_stats before;
	int rc = operands("clear", argc, argv, 0, 0, "takes no argument");
	(void)cfg;
	if (rc)
		return rc;
	if (read_stats(c, &before) != 0)
		return JC_EXIT_FAILED;
	return report_removal(c, &before, jc_cache_clear(c));
}

static void trim_usage(FILE *out)
{
	fputs("       jitcache trim [SIZE] [--older-than AGE]\n"
	      "                                      evict least recently used entries down to\n"
	      "                                      SIZE (default: max_size), and those unused\n"
	      "                                      for AGE (30d, 12h, 45m, 90s; 0: no limit,\n"
	      "                                      as max_size 0 is no cap; clear empties)\n",
	      out);
}

/* AGE: a number and s, m, h, d or w (days if none): nanoseconds, or -1. */
static int64_t parse_age(const char *text)
{
	static const struct { char unit; int64_t s; } units[] = {
		{ 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 }, { 'w', 7 * 86400 },
	};
	char *end;
	double v = strtod(text, &end);
	int64_t mult = 86400;
	if (end == text || !(v >= 0) || v > 1e6 * 86400)
		return -1;
	if (*end) {
		mult = 0;
		for (size_t i = 0; i < sizeof units / sizeof *units; i++)
			if (*end == units[i].unit)
				mult = units[i].s;
		if (!mult || end[1])
			return -1;
	}
	return (int64_t)(v * (double)mult * 1e9);
}

static int cmd_trim(const struct jc_config *cfg, struct jc_cache *c, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "older-than", required_argument, NULL, 'o' }, { NULL, 0, NULL, 0 },
	};
	struct jc_cache_stats before;
	uint64_t size = cfg->max_size;
	int64_t age = -1;
	const char *why = NULL, *arg;
	int opt, rc = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		if (opt != 'o')
			return jc_admin_bad_option("trim", opt, argv, longopts);
		if ((age = parse_age(optarg)) < 0)
			return jc_admin_usage_error("trim", "--older-than takes an age such as 30d, "
						    "12h, 45m or 90s");
	}
	if (argc - optind > 1)
		return jc_admin_usage_error("trim", "takes at most one SIZE");
	arg = optind < argc ? argv[optind] : NULL;
	if (arg && jc_config_parse_size(arg, &size, &why) != 0) {
		fprintf(stderr, "jitcache: trim: bad size '%s': %s\n", arg, why);
		return JC_EXIT_USAGE;
	}
	if (age >= 0 && !arg)
		size = 0; /* the age alone */
	if (size == 0 && age <= 0) {
		printf("%s: nothing to trim (0 is no limit; `jitcache clear` empties the cache)\n",
		       arg || age == 0 ? "no limit given" : "max_size is 0 (no cap) and no SIZE given");
		return JC_EXIT_OK;
	}
	if (read_stats(c, &before) != 0)
		return JC_EXIT_FAILED;
	if (age > 0)
		rc = jc_cache_trim_unused(c, jc_wall_ns() - age);
	if (size && jc_cache_trim(c, size) != 0)
		rc = -1;
	return report_removal(c, &before, rc);
}

static void verify_usage(FILE *out)
{
	fputs("       jitcache verify                check every entry; remove and list bad ones\n"
	      "                                      (exit status 1 if it found any)\n",
	      out);
}

static int cmd_verify(const struct jc_config *cfg, struct jc_cache *c, int argc, char **argv)
{
	int rc = operands("verify", argc, argv, 0, 0, "takes no argument");
	(void)cfg;
	return rc ? rc : jc_cache_verify(c, stdout) != 0 ? JC_EXIT_FAILED : JC_EXIT_OK;
}

/* ---- export, import ---------------------------------------------------------- */

/* DATE as YYYY-MM-DD[THH:MM[:SS]] (or with a space for T), local time, or
 * @SECONDS since 1970: nanoseconds since 1970, or -1. */
static int64_t parse_date(const char *text)
{
	static const char *const formats[] = {
		"%Y-%m-%d", "%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M",
		"%Y-%m-%d %H:%M:%S",
	};
	char *end;
	if (text[0] == '@') {
		long long s = strtoll(text + 1, &end, 10);
		return end != text + 1 && *end == '\0' && s >= 0 ? s * 1000000000LL : -1;
	}
	for (size_t i = 0; i < sizeof formats / sizeof *formats; i++) {
		struct tm tm = { .tm_isdst = -1 };
		end = strptime(text, formats[i], &tm);
		if (end && *end == '\0') {
			time_t t = mktime(&tm);
			return t == (time_t)-1 ? -1 : (int64_t)t * 1000000000LL;
		}
	}
	return -1;
}

static void export_usage(FILE *out)
{
	fputs("       jitcache export FILE [--since DATE]\n"
	      "                                      write every valid entry (or those used since\n"
	      "                                      DATE: YYYY-MM-DD[THH:MM[:SS]] local time, or\n"
	      "                                      @SECONDS) to FILE, a zstd-compressed tar\n",
	      out);
}

static int cmd_export(const struct jc_config *cfg, struct jc_cache *c, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "since", required_argument, NULL, 's' }, { NULL, 0, NULL, 0 },
	};
	struct jc_transfer t;
	int64_t since = 0;
	int opt;
	char a[32], b[32], n[160];
	(void)cfg;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		if (opt != 's')
			return jc_admin_bad_option("export", opt, argv, longopts);
		if ((since = parse_date(optarg)) < 0) {
			fprintf(stderr, "jitcache: export: bad date '%s' (expected "
				"YYYY-MM-DD[THH:MM[:SS]] or @SECONDS)\n", optarg);
			return JC_EXIT_USAGE;
		}
	}
	if (argc - optind != 1)
		return jc_admin_usage_error("export", argc > optind ? "takes one FILE" : "needs a FILE");
	const char *file = argv[optind];
	struct log log;
	int rc = jc_cache_export(c, file, since, log_open(&log), &t);
	log_close(&log, rc < 0 ? "; nothing exported" : NULL);
	if (rc < 0) {
		if (!log.size)
			fprintf(stderr, "jitcache: export failed; %s not written\n", file);
		return JC_EXIT_FAILED;
	}
	printf("exported %s, %s, to %s (%s compressed)", counted(t.entries, t.recipes, n),
	       human(t.bytes, a), file, human(t.archive_bytes, b));
	if (t.refused)
		printf("; %s skipped", jc_admin_count(t.refused, "bad entry", "bad entries", n));
	printf("\n");
	return rc;
}

static void import_usage(FILE *out)
{
	fputs("       jitcache import FILE           check each entry of FILE and add the good ones\n",
	      out);
}

static int cmd_import(const struct jc_config *cfg, struct jc_cache *c, int argc, char **argv)
{
	struct jc_transfer t;
	char a[32], n[160], m[160];
	int rc = operands("import", argc, argv, 1, 1, "takes one FILE");
	(void)cfg;
	if (rc)
		return rc;
	const char *file = argv[optind];
	struct log log;
	rc = jc_cache_import(c, file, log_open(&log), &t);
	log_close(&log, rc < 0 ? "; nothing imported" : NULL);
	if (rc < 0) {
		if (!log.size)
			fprintf(stderr, "jitcache: nothing imported from %s\n", file);
		return JC_EXIT_FAILED;
	}
	printf("imported %s, %s, from %s; ", counted(t.entries, t.recipes, n), human(t.bytes, a),
	       file);
	if (t.present_recipes)
		printf("%s already present", counted(t.present, t.present_recipes, m));
	else
		printf("%llu already present", (unsigned long long)t.present);
	printf("; %llu refused", (unsigned long long)t.refused);
	if (t.evicted)
		printf("; %s evicted to stay under max_size",
		       counted(t.evicted - t.evicted_recipes, t.evicted_recipes, m));
	printf("\n");
	return rc;
}

/* ---- explain ----------------------------------------------------------------- */

static int hex_prefix(const char *s)
{
	size_t n = strlen(s);
	if (n < 4 || n > 2 * JC_KEY_BYTES)
		return 0;
	for (const char *p = s; *p; p++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return 0;
	return 1;
}

static void explain_usage(FILE *out)
{
	fputs("       jitcache explain [--last | PROGRAM | KEY] [--json]\n"
	      "                                      why each recorded miss missed, one line each\n"
	      "                                      (the last run's, a program's or a key's;\n"
	      "                                      --program NAME or --key HEX: that one only)\n",
	      out);
}

/* Does miss m (key hex) match what explain was asked for?  A word that
 * could be either (a program named in hex digits) matches both. */
enum { ANY, PROGRAM, KEY };
static int wanted(const struct jc_miss *m, const char *hex, const char *which, int kind)
{
	if (!which)
		return 1;
	int key = kind != PROGRAM && hex_prefix(which) && !strncmp(hex, which, strlen(which));
	return key || (kind != KEY && !strcmp(m->program, which));
}

static int cmd_explain(const struct jc_config *cfg, struct jc_cache *c, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' }, { "last", no_argument, NULL, 'l' },
		{ "program", required_argument, NULL, 'p' }, { "key", required_argument, NULL, 'k' },
		{ NULL, 0, NULL, 0 },
	};
	const char *which = NULL;
	int json = 0, last = 0, opt, kind = ANY;
	(void)cfg;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		if (opt == 'j')
			json = 1;
		else if (opt == 'l')
			last = 1;
		else if ((opt == 'p' || opt == 'k') && !which)
			kind = opt == 'p' ? PROGRAM : KEY, which = optarg;
		else
			return jc_admin_bad_option("explain", opt, argv, longopts);
	}
	if (argc - optind > (which ? 0 : 1) || (last && (which || argc > optind)))
		return jc_admin_usage_error("explain", "takes --last, a PROGRAM or a KEY");
	if (kind == KEY && !hex_prefix(which))
		return jc_admin_usage_error("explain", "--key takes 4 to 32 hex digits");
	if (!which)
		which = optind < argc ? argv[optind] : NULL;
	struct jc_miss *v = NULL;
	size_t n = 0;
	if (jc_cache_misses(c, &v, &n) != 0)
		n = 0; /* no miss recorded yet */
	/* --last: the misses of the newest run (process) recorded */
	uint32_t last_pid = n ? v[n - 1].pid : 0;
	char last_prog[sizeof v->program] = "";
	if (n)
		memcpy(last_prog, v[n - 1].program, sizeof last_prog);
	if (json)
		printf("[");
	int shown = 0;
	char asked[1024];
	for (size_t i = 0; i < n; i++) {
		char hex[2 * JC_KEY_BYTES + 1], why[2200], when[32], prog[4 * sizeof v->program];
		jc_key_hex(&v[i].key, hex);
		if (last && (v[i].pid != last_pid || strcmp(v[i].program, last_prog)))
			continue;
		if (!wanted(&v[i], hex, which, kind))
			continue;
		const char *what = jc_explain(&v[i], v, n, why, sizeof why);
		if (json) {
			printf("%s\n {\"time\": %lld, \"program\": ", shown ? "," : "",
			       (long long)(v[i].when_ns / 1000000000));
			jc_json_string(stdout, v[i].program);
			printf(", \"pid\": %u, \"key\": \"%s\", \"cause\": \"%s\", \"build_failed\": %s, "
			       "\"explanation\": ", v[i].pid, hex, what,
			       v[i].flags & JC_MISS_BUILD_FAILED ? "true" : "false");
			jc_json_string(stdout, why);
			printf("}");
		} else {
			jc_escape_text(prog, sizeof prog, v[i].program, strlen(v[i].program));
			printf("%s %s[%u] %s: %s\n", jc_admin_date(v[i].when_ns, when), prog, v[i].pid,
			       hex, why);
		}
		shown++;
	}
	if (json)
		printf("%s]\n", shown ? "\n" : "");
	else if (!shown)
		printf("no miss recorded%s%s in %s\n", which ? " for " : "",
		       which ? jc_escape_text(asked, sizeof asked, which, strlen(which)) : "",
		       jc_cache_dir(c));
	free(v);
	return JC_EXIT_OK;
}

/* ---- keygen, warm ------------------------------------------------------------ */

static void keygen_usage(FILE *out)
{
	fputs("       jitcache keygen FILE [COMMENT] make a signing key pair: FILE (private, 0600)\n"
	      "                                      and FILE.pub (see trusted_keys)\n",
	      out);
}

static int cmd_keygen(const struct jc_config *cfg, struct jc_cache *c, int argc, char **argv)
{
	int rc = operands("keygen", argc, argv, 1, 2, "takes a FILE and perhaps a COMMENT");
	(void)cfg, (void)c;
	if (rc)
		return rc;
	return jc_keygen(argv[optind], optind + 1 < argc ? argv[optind + 1] : NULL, stdout) == 0
		       ? JC_EXIT_OK : JC_EXIT_FAILED;
}

static int cmd_warm(const struct jc_config *cfg, struct jc_cache *c, int argc, char **argv)
{
	return jc_warm_main(cfg, c, argc - 1, argv + 1);
}

/* ---- config, set, settings --------------------------------------------------- */

static void config_usage(FILE *out)
{
	fputs("       jitcache config                every effective setting and the file (or\n"
	      "                                      variable) it came from (exit status 1 if\n"
	      "                                      one is invalid, or the cache directory\n"
	      "                                      cannot be written)\n",
	      out);
}

static int cmd_config(const struct jc_config *cfg, struct jc_cache *c, int argc, char **argv)
{
	int rc = operands("config", argc, argv, 0, 0, "takes no argument");
	(void)c;
	if (rc)
		return rc;
	jc_config_show(cfg, stdout);
	const char *shut = cfg->disable ? NULL : jc_admin_dir_unwritable(cfg->cache_dir);
	if (shut) { /* the programs would say so in one line each, and cache nothing */
		fflush(stdout);
		fprintf(stderr, "jitcache: config: cannot use the cache directory %s (%s): programs "
			"would store and count nothing there\n", cfg->cache_dir, shut);
	}
	if (!cfg->problems)
		return shut ? JC_EXIT_FAILED : JC_EXIT_OK;
	fflush(stdout);
	fprintf(stderr, "jitcache: config: %d problem%s in the settings (INVALID above%s)\n",
		cfg->problems, cfg->problems == 1 ? "" : "s",
		jc_log_enabled(JC_LOG_WARN) ? ", and said before it" : "");
	return JC_EXIT_FAILED;
}

static void set_usage(FILE *out)
{
	fputs("       jitcache set NAME VALUE        write a setting (max_size, or cache.max_size\n"
	      "                                      where two sections have the name) into the\n"
	      "                                      user's ini file, keeping its other lines\n",
	      out);
}

/* Where the value of the setting named s comes from now. */
static const char *origin_of(const struct jc_config *cfg, const struct jc_setting *s)
{
#define X(sec, nm, kind, field, def, env, help)                                    \
	if (!strcmp(s->section, #sec) && !strcmp(s->name, #nm))                     \
		return cfg->field##_from;
	JC_SETTINGS(X)
#undef X
	return "";
}

/* A value as `set` echoes it: the user info of any URL in it (a password, a
 * token) as "***", as `jitcache config` and every log line show it; the
 * file gets the value as given. */
static const char *shown_value(const char *value, char *out, size_t size)
{
	jc_remote_list_redact(value, out, size);
	return out;
}

/* Before a value with a password is written: the ini file readable by its
 * owner alone (made so, or made empty so), since jc_ini_set() keeps the
 * file's mode.  0, or -1 with errno. */
static int keep_private(const char *file)
{
	struct stat st;
	if (stat(file, &st) == 0)
		return (st.st_mode & 077) ? chmod(file, st.st_mode & 07700) : 0;
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s", file);
	char *slash = strrchr(dir, '/');
	if (errno != ENOENT || !slash)
		return -1;
	*slash = '\0';
	if (jc_fs_mkdir_p(dir, 0700) != 0)
		return -1;
	int fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	return fd >= 0 ? close(fd) : errno == EEXIST ? keep_private(file) : -1;
}

/* "cache.compress or remote.compress": every setting called name. */
static const char *sections_of(const char *name, char *out, size_t size)
{
	size_t n = 0;
	out[0] = '\0';
#define X(sec, nm, kind, field, def, env, help)                                    \
	if (!strcmp(name, #nm) && n < size)                                         \
		n += (size_t)snprintf(out + n, size - n, "%s%s.%s", n ? " or " : "", #sec, #nm);
	JC_SETTINGS(X)
#undef X
	return out;
}

static int cmd_set(const struct jc_config *cfg, struct jc_cache *c, int argc, char **argv)
{
	const struct jc_setting *s, *near = NULL;
	const char *why = NULL;
	char file[PATH_MAX], text[PATH_MAX], msg[300], shown[JC_REMOTE_LIST_MAX];
	int rc = operands("set", argc, argv, 2, 2, "takes a NAME and a VALUE");
	(void)cfg, (void)c;
	if (rc)
		return rc;
	const char *name = argv[optind], *value = argv[optind + 1];
	if (!(s = jc_config_find(name, &near, &why))) {
		if (near && !strcmp(why, "ambiguous"))
			snprintf(msg, sizeof msg, "'%s' is in several sections: name one (%s)", name,
				 sections_of(name, text, sizeof text));
		else if (near)
			snprintf(msg, sizeof msg, "unknown setting '%s' (did you mean %s?)", name,
				 near->name);
		else
			snprintf(msg, sizeof msg, "unknown setting '%s' (jitcache settings lists them)",
				 name);
		return jc_admin_usage_error("set", msg);
	}
	if (jc_config_check(s, value, text, sizeof text, &why) != 0 ||
	    !jc_ini_value_ok(text, &why)) {
		fprintf(stderr, "jitcache: set: bad value '%s' for %s: %s\n",
			shown_value(value, shown, sizeof shown), s->name, why);
		return JC_EXIT_USAGE;
	}
	if (!jc_config_user_file(file, sizeof file)) {
		fprintf(stderr, "jitcache: set: no user ini file: neither XDG_CONFIG_HOME nor HOME "
			"is set\n");
		return JC_EXIT_FAILED;
	}
	int secret = strcmp(shown_value(text, shown, sizeof shown), text) != 0;
	if (secret && keep_private(file) != 0) {
		fprintf(stderr, "jitcache: set: cannot make %s private for a value with a password "
			"(%s); nothing changed\n", file, strerror(errno));
		return JC_EXIT_FAILED;
	}
	if (jc_ini_set(file, s->section, s->name, text, &why) != 0) {
		fprintf(stderr, "jitcache: set: %s; nothing changed\n", why);
		return JC_EXIT_FAILED;
	}
	printf("[%s] %s = %s written to %s\n", s->section, s->name,
	       shown_value(text, shown, sizeof shown), file);
	fflush(stdout);
	/* The settings as they are now (a problem of the file is said here),
	 * and whether a later file or the environment has the last word. */
	struct jc_config *now = malloc(sizeof *now);
	if (now) {
		jc_config_load(now);
		const char *from = origin_of(now, s);
		if (strncmp(from, file, strlen(file)) != 0 || from[strlen(file)] != ':')
			fprintf(stderr, "jitcache: set: %s is still overridden by %s\n", s->name, from);
		free(now);
	}
	return JC_EXIT_OK;
}

static void settings_usage(FILE *out)
{
	fputs("       jitcache settings [--markdown | --man]\n"
	      "                                      every setting, its default and variable\n",
	      out);
}

static int cmd_settings(const struct jc_config *cfg, struct jc_cache *c, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "markdown", no_argument, NULL, JC_HELP_MARKDOWN },
		{ "man", no_argument, NULL, JC_HELP_MAN }, { NULL, 0, NULL, 0 },
	};
	int format = JC_HELP_TEXT, opt;
	(void)cfg, (void)c;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		if (opt != JC_HELP_MARKDOWN && opt != JC_HELP_MAN)
			return jc_admin_bad_option("settings", opt, argv, longopts);
		format = opt;
	}
	if (optind < argc)
		return jc_admin_usage_error("settings", "takes only --markdown or --man");
	jc_config_help(stdout, format);
	return JC_EXIT_OK;
}

/* ---- man --------------------------------------------------------------------- */

static void man_usage(FILE *out)
{
	fputs("       jitcache man [--path]          this manual page, jitcache(1), from the\n"
	      "                                      copy installed with this command (pipx\n"
	      "                                      puts none where man looks); --path: its\n"
	      "                                      file\n",
	      out);
}

/* The page installed with this program, found from where this program is:
 * beside it (a build directory), ../share/man/man1 (the wheel's package
 * jitcache/), ../../share/man/man1 (make install's and the .deb's
 * PREFIX/libexec/jitcache), compressed or not.  0 if none is there. */
static int installed_page(char page[PATH_MAX])
{
	static const char *const where[] = { "", "/../share/man/man1", "/../../share/man/man1" };
	char self[PATH_MAX], path[PATH_MAX + 64];
	ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
	if (k <= 0)
		return 0;
	self[k] = '\0';
	*strrchr(self, '/') = '\0';
	for (size_t i = 0; i < sizeof where / sizeof *where; i++)
		for (int gz = 0; gz < 2; gz++) {
			snprintf(path, sizeof path, "%s%s/jitcache.1%s", self, where[i], gz ? ".gz" : "");
			if (access(path, R_OK) == 0 && realpath(path, page))
				return 1;
		}
	return 0;
}

static int cmd_man(const struct jc_config *cfg, struct jc_cache *c, int argc, char **argv)
{
	static const struct option longopts[] = { { "path", no_argument, NULL, 'p' },
						  { NULL, 0, NULL, 0 } };
	int path_only = 0, opt;
	char page[PATH_MAX];
	(void)cfg, (void)c;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		if (opt != 'p')
			return jc_admin_bad_option("man", opt, argv, longopts);
		path_only = 1;
	}
	if (optind < argc)
		return jc_admin_usage_error("man", "takes only --path");
	if (!installed_page(page)) {
		if (path_only) {
			fprintf(stderr, "jitcache: man: no jitcache.1 installed with this command\n");
			return JC_EXIT_FAILED;
		}
		execlp("man", "man", "jitcache", (char *)NULL); /* installed elsewhere */
		fprintf(stderr, "jitcache: man: cannot run man: %s (apt-get install man-db)\n",
			strerror(errno));
		return JC_EXIT_FAILED;
	}
	if (path_only) {
		printf("%s\n", page);
		return JC_EXIT_OK;
	}
	fflush(stdout);
	execlp("man", "man", "-l", page, (char *)NULL);
	fprintf(stderr, "jitcache: man: cannot run man: %s (apt-get install man-db; the page: %s)\n",
		strerror(errno), page);
	return JC_EXIT_FAILED;
}

static int cmd_enable(const struct jc_config *cfg, struct jc_cache *c, int argc, char **argv)
{
	(void)cfg, (void)c;
	return jc_enable_main(argc, argv);
}

/* ---- the table --------------------------------------------------------------- */

/* What a command needs before it runs. */
enum { NEEDS_NOTHING, NEEDS_SETTINGS, NEEDS_CACHE };

static const struct command {
	const char *name;
	int needs;
	int (*run)(const struct jc_config *cfg, struct jc_cache *c, int argc, char **argv);
	void (*usage)(FILE *out);
	const char *summary; /* its line in `jitcache --help` */
} commands[] = {
	{ "stats",    NEEDS_CACHE,    jc_stats_main, jc_stats_usage,
	  "hits by tier, misses by cause, size against the cap, time saved" },
	{ "explain",  NEEDS_CACHE,    cmd_explain,   explain_usage,
	  "why each recorded miss missed (the last run's, a program's)" },
	{ "verify",   NEEDS_CACHE,    cmd_verify,    verify_usage,
	  "check every entry; remove and list the bad ones" },
	{ "trim",     NEEDS_CACHE,    cmd_trim,      trim_usage,
	  "evict down to a size, or what was unused for an age" },
	{ "clear",    NEEDS_CACHE,    cmd_clear,     clear_usage,   "remove every entry" },
	{ "export",   NEEDS_CACHE,    cmd_export,    export_usage,
	  "write the valid entries to an archive" },
	{ "import",   NEEDS_CACHE,    cmd_import,    import_usage,
	  "check an archive's entries and add the good ones" },
	{ "keygen",   NEEDS_NOTHING,  cmd_keygen,    keygen_usage,  "make a signing key pair" },
	{ "warm",     NEEDS_CACHE,    cmd_warm,      jc_warm_usage,
	  "compile recorded requests ahead of a first run, also for other GPUs" },
	{ "enable",   NEEDS_NOTHING,  cmd_enable,    jc_enable_usage,
	  "leave it on: in your shell, a systemd service or a Jupyter kernel" },
	{ "disable",  NEEDS_NOTHING,  cmd_enable,    jc_disable_usage, "undo what enable did" },
	{ "config",   NEEDS_SETTINGS, cmd_config,    config_usage,
	  "every effective setting and where it came from" },
	{ "set",      NEEDS_NOTHING,  cmd_set,       set_usage,
	  "write a setting into your ini file" },
	{ "settings", NEEDS_NOTHING,  cmd_settings,  settings_usage,
	  "every setting, its default and variable" },
	{ "man",      NEEDS_NOTHING,  cmd_man,       man_usage,
	  "this manual page, wherever pip or pipx installed it" },
};
#define N_COMMANDS (sizeof commands / sizeof *commands)

/* `jitcache --help`: one line per command, as git's overview; the rest is
 * each command's (help COMMAND, COMMAND --help) and `help --all`'s. */
static void overview(FILE *out)
{
	fputs("usage: jitcache COMMAND [ARGS...]\n\n", out);
	fprintf(out, "  %-9s %s\n", "run", "run a program with its GPU kernel JIT compilations cached");
	for (size_t i = 0; i < N_COMMANDS; i++)
		fprintf(out, "  %-9s %s\n", commands[i].name, commands[i].summary);
	fputs("\n'jitcache help COMMAND' or 'jitcache COMMAND --help': a command's usage;\n"
	      "'jitcache help --all': every command's usage and every setting;\n"
	      "'jitcache --version': the version, what this build can do, the ini files read.\n",
	      out);
}

/* `jitcache help --all`: every command's usage (bin/jitcache prints its
 * own `run` first), then every setting from config/config.h. */
static void usage(FILE *out)
{
	for (size_t i = 0; i < N_COMMANDS; i++)
		commands[i].usage(out);
	fputs("       jitcache help [--all | COMMAND]\n"
	      "                                      the commands, one line each; every\n"
	      "                                      command's usage and the settings; or\n"
	      "                                      one command's usage\n"
	      "       jitcache --version             the version, what this build can do and\n"
	      "                                      the ini files read\n"
	      "\n"
	      "Settings: from /etc/jitcache.ini (or $JITCACHE_SYSTEM_CONFIG), then\n"
	      "$XDG_CONFIG_HOME/jitcache/jitcache.ini (else ~/.config/jitcache/jitcache.ini),\n"
	      "then $JITCACHE_CONFIG, then the environment, each overriding the one before:\n",
	      out);
	jc_config_help(out, JC_HELP_TEXT);
}

/* One command's usage: its lines, the first as "usage: jitcache ...". */
static void command_usage(const struct command *cmd, FILE *out)
{
	char *text = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&text, &n);
	if (!m)
		return;
	cmd->usage(m);
	if (fclose(m) == 0 && n > 7)
		fprintf(out, "usage: %s", text + 7);
	free(text);
}

/* ---- --version --------------------------------------------------------------- */

/* The library `jitcache run` preloads: bin/jitcache passes it on, else the
 * one beside this program. */
static const char *library(char buf[PATH_MAX + 32])
{
	char self[PATH_MAX];
	const char *l = getenv("JITCACHE_LIB");
	ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
	if (l && *l)
		return l;
	if (k <= 0)
		return NULL;
	self[k] = '\0';
	*strrchr(self, '/') = '\0';
	snprintf(buf, PATH_MAX + 32, "%s/libjitcache.so", self);
	return buf;
}

static void version(const struct jc_config *cfg)
{
	char lib[PATH_MAX + 32];
	int ze = 0, cl = 0;
	printf("jitcache %s\n", JC_VERSION);
#define X(api, name) ze += !strcmp(#api, "ze"), cl += !strncmp(#api, "cl", 2);
	JC_EXPORTS(X)
#undef X
	printf("%-14s Level Zero (%d entry points: linked, through dlsym and through the\n"
	       "%-14s loader's dispatch tables), OpenCL (%d entry points: linked, through\n"
	       "%-14s dlsym and clGetExtensionFunctionAddress)\n", "APIs", ze, "", cl, "");
	printf("%-14s", "tiers");
	const char *sep = " ";
#define X(NAME, name, slot, n) printf("%s%s", sep, #name), sep = ", ";
	JC_TIERS(X)
#undef X
	printf(" (remotes: redis://, redis+unix://, http://, https://, s3://, file://)\n");
	void *curl = dlopen("libcurl.so.4", RTLD_LAZY | RTLD_LOCAL);
	printf("%-14s %s\n", "libcurl", curl ? "found (libcurl.so.4): http, https and s3 remotes work"
	       : "not found: http, https and s3 remotes need libcurl4 (libcurl.so.4)");
	if (curl)
		dlclose(curl);
	printf("%-14s Ed25519ph (libsodium %s, linked in)\n", "signing", sodium_version_string());
	printf("%-14s zstd %s\n", "compression", ZSTD_versionString());
	const char *l = library(lib);
	if (l) {
		printf("%-14s %s (%s)\n", "library", l,
		       access(l, R_OK) == 0 ? "what `jitcache run` preloads" : "NOT FOUND");
		/* What it loads on the first intercepted call (shim/preload.h). */
		char core[PATH_MAX + 64];
		const char *slash = strrchr(l, '/');
		int dir = slash ? (int)(slash - l + 1) : 0;
		snprintf(core, sizeof core, "%.*s%s", dir, l, JC_CORE_FILE);
		if (access(core, R_OK) != 0) /* the wheel's lib/ has no soname links */
			snprintf(core, sizeof core, "%.*s%s", dir, l, JC_CORE_NAME);
		printf("%-14s %s (%s)\n", "core", core,
		       access(core, R_OK) == 0 ? "what it loads on the first GPU call"
					       : "NOT FOUND: nothing would be cached");
	}
	static const char *const role[] = { "system", "user", "JITCACHE_CONFIG" };
	static const char *const state[] = { [JC_FILE_ABSENT] = "not there",
		[JC_FILE_READ] = "read", [JC_FILE_UNREADABLE] = "cannot be read",
		[JC_FILE_SAME] = "read above" };
	for (int i = 0; i < JC_CONFIG_FILES; i++) {
		const struct jc_config_file *f = &cfg->files[i];
		printf("%-14s %-16s %s%s%s%s\n", i ? "" : "config files", role[i],
		       f->path[0] ? f->path : "none", f->path[0] ? " (" : "",
		       f->path[0] ? state[f->state] : "", f->path[0] ? ")" : "");
	}
}

/* ---- main -------------------------------------------------------------------- */

/* ccache's options, each the command to use instead: jitcache has one
 * spelling per command (its short options would clash with the
 * commands'), and says the spelling to a ccache user in one line. */
static const struct { const char *ccache, *jitcache; } ccache_options[] = {
	{ "-s", "stats" }, { "--show-stats", "stats" }, { "-z", "stats --zero" },
	{ "--zero-stats", "stats --zero" }, { "-x", "stats" }, { "--show-compression", "stats" },
	{ "-C", "clear" }, { "--clear", "clear" }, { "-c", "trim" }, { "--cleanup", "trim" },
	{ "-M", "set max_size SIZE" }, { "--max-size", "set max_size SIZE" },
	{ "-o", "set NAME VALUE" }, { "--set-config", "set NAME VALUE" },
	{ "-p", "config" }, { "--show-config", "config" }, { "-k", "config" },
	{ "--get-config", "config" }, { "--evict-older-than", "trim --older-than AGE" },
	{ "-V", "--version" }, { "--help-all", "help --all" },
};

static int unknown(const char *what)
{
	const char *names[N_COMMANDS + 2];
	for (size_t i = 0; i < N_COMMANDS; i++)
		names[i] = commands[i].name;
	names[N_COMMANDS] = "help";
	names[N_COMMANDS + 1] = "run";
	char why[200];
	/* ccache's option alone, or with its value: -M20G, --max-size=20G */
	size_t n = what[0] == '-' && what[1] != '-' ? 2 : strcspn(what, "=");
	for (size_t i = 0; i < sizeof ccache_options / sizeof *ccache_options; i++)
		if (!strncmp(what, ccache_options[i].ccache, n) && !ccache_options[i].ccache[n]) {
			snprintf(why, sizeof why, "unknown option '%s' (did you mean `jitcache %s`?)",
				 what, ccache_options[i].jitcache);
			return jc_admin_usage_error(NULL, why);
		}
	static const char *const options[] = { "--version", "--help" };
	const char *near = what[0] == '-' ? jc_admin_closest(what, options, 2) : NULL;
	if (near) {
		snprintf(why, sizeof why, "unknown option '%s' (did you mean `jitcache %s`?)", what,
			 near);
		return jc_admin_usage_error(NULL, why);
	}
	near = jc_admin_closest(what + strspn(what, "-"), names, N_COMMANDS + 2);
	if (near)
		snprintf(why, sizeof why, "unknown %s '%s' (did you mean `jitcache %s`?)",
			 what[0] == '-' ? "option" : "command", what, near);
	else
		snprintf(why, sizeof why, "unknown %s '%s'", what[0] == '-' ? "option" : "command",
			 what);
	return jc_admin_usage_error(NULL, why);
}

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

/* 1 if the arguments ask for help (before any "--"). */
static int asks_help(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return 1;
	return 0;
}

static int run(const struct command *cmd, int argc, char **argv)
{
	struct jc_config *cfg = NULL;
	struct jc_cache *c = NULL;
	if (cmd->needs >= NEEDS_SETTINGS) {
		if (!(cfg = malloc(sizeof *cfg)))
			return JC_EXIT_FAILED;
		jc_config_load(cfg);
	}
	if (cmd->needs == NEEDS_CACHE) {
		/* The local directory alone: the commands that want the layers
		 * or remotes open them themselves. */
		struct jc_cache_options opts = jc_cache_options_from_config(cfg, JC_OPTIONS_LOCAL);
		if (!(c = jc_cache_open(&opts))) {
			fprintf(stderr, "jitcache: cannot use the cache directory %s\n", cfg->cache_dir);
			free(cfg);
			return JC_EXIT_FAILED;
		}
	}
	optind = 1;
	int rc = cmd->run(cfg, c, argc, argv);
	if (c)
		jc_cache_close(c);
	free(cfg);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return jc_admin_usage_error(NULL, "no command given");
	const char *name = argv[1];
	if (!strcmp(name, "-h") || !strcmp(name, "--help") ||
	    (!strcmp(name, "help") && argc == 2)) {
		overview(stdout);
		return JC_EXIT_OK;
	}
	if (!strcmp(name, "help")) {
		const struct command *cmd = find_command(argv[2]);
		if (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h")) {
			puts("usage: jitcache help [--all | COMMAND]\n"
			     "                                      the commands, one line each; every\n"
			     "                                      command's usage and the settings; or\n"
			     "                                      one command's usage");
			return JC_EXIT_OK;
		}
		if (!strcmp(argv[2], "--all") && argc == 3) {
			usage(stdout);
			return JC_EXIT_OK;
		}
		if (!cmd || argc > 3)
			return cmd ? jc_admin_usage_error("help", "takes one COMMAND") : unknown(argv[2]);
		command_usage(cmd, stdout);
		return JC_EXIT_OK;
	}
	if (!strcmp(name, "--version")) {
		struct jc_config cfg;
		jc_config_load(&cfg);
		version(&cfg);
		return JC_EXIT_OK;
	}
	const struct command *cmd = find_command(name);
	if (!cmd)
		return unknown(name);
	if (asks_help(argc - 1, argv + 1)) {
		command_usage(cmd, stdout);
		return JC_EXIT_OK;
	}
	return run(cmd, argc - 1, argv + 1);
}
