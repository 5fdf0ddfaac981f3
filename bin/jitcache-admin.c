/*
 * jitcache-admin — cache management for the `jitcache` command: stats,
 * clear, trim, verify, export, import, warm (bin/warm.h), config and settings (and the
 * commands' and settings' part of `jitcache --help`).  Settings come from jc_config_load(), as
 * in the library.  Exit status: 0 on success, 1 when the cache cannot be
 * used (or verify found bad entries), 2 on bad usage.
 */
#include "bin/enable.h"
#include "bin/warm.h"
#include "tiers/archive.h"
#include "cache/cache.h"
#include "key/explain.h"
#include "store/misses.h"
#include "trust/sign.h"
#include "config/config.h"
#include "config/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The commands, as `jitcache --help` shows them (bin/jitcache prints this
 * after its own `run` line), then every setting from config/config.h. */
static void usage(FILE *out)
{
	fputs("       jitcache stats [--json | --prometheus | --zero]\n"
	      "                                      hits by tier, misses by cause, stores, size,\n"
	      "                                      JIT time saved (CPU and wall), since when;\n"
	      "                                      --zero sets the counters to 0 from now\n"
	      "       jitcache explain [--last | PROGRAM | KEY] [--json]\n"
	      "                                      why each recorded miss missed, one line each\n"
	      "                                      (the last run's, a program's or a key's)\n"
	      "       jitcache verify                check every entry; remove and list bad ones\n"
	      "                                      (exit status 1 if it found any)\n"
	      "       jitcache trim [SIZE]           evict least recently used entries down to SIZE\n"
	      "                                      (default: the max_size setting)\n"
	      "       jitcache clear                 remove every entry\n"
	      "       jitcache export FILE [--since DATE]\n"
	      "                                      write every valid entry (or those used since\n"
	      "                                      DATE: YYYY-MM-DD[THH:MM[:SS]] local time, or\n"
	      "                                      @SECONDS) to FILE, a zstd-compressed tar\n"
	      "       jitcache import FILE           check each entry of FILE and add the good ones\n"
	      "       jitcache keygen FILE [COMMENT] make a signing key pair: FILE (private, 0600)\n"
	      "                                      and FILE.pub (see trusted_keys)\n",
	      out);
	jc_warm_usage(out);
	jc_enable_usage(out);
	fputs(	      "       jitcache config                every effective setting and where it came from\n"
	      "       jitcache settings [--markdown | --man]\n"
	      "                                      every setting, its default and variable\n"
	      "       jitcache --help | --version\n"
	      "\n"
	      "Settings: the first ini file found of $JITCACHE_CONFIG,\n"
	      "$XDG_CONFIG_HOME/jitcache/jitcache.ini (else ~/.config/jitcache/jitcache.ini)\n"
	      "and /etc/jitcache.ini, overridden by the environment:\n",
	      out);
	jc_config_help(out, JC_HELP_TEXT);
}

static int bad_usage(const char *why)
{
	fprintf(stderr, "jitcache-admin: %s (see jitcache --help)\n", why);
	return 2;
}

/* "12.3M": sizes the way settings write them (see jc_config_size_round). */
static const char *human(uint64_t bytes, char buf[32])
{
	return jc_config_size_round(bytes, buf);
}

static struct jc_cache *open_cache(const struct jc_config *cfg)
{
	struct jc_cache_options opts = {
		.dir = cfg->cache_dir, .max_size = cfg->max_size, .shared = cfg->shared,
		.lock_timeout = cfg->lock_timeout, .compress = cfg->compress,
		.signing_key = cfg->signing_key, .trusted_keys = cfg->trusted_keys,
		.trusted_keys_invalid = jc_config_refused(cfg->trusted_keys_from),
	};
	struct jc_cache *c = jc_cache_open(&opts);
	if (!c)
		fprintf(stderr, "jitcache-admin: cannot use the cache directory %s\n", cfg->cache_dir);
	return c;
}

static int read_stats(struct jc_cache *c, struct jc_cache_stats *s)
{
	if (jc_cache_shared_stats(c, s) == 0)
		return 0;
	fprintf(stderr, "jitcache-admin: cannot read the statistics in %s\n", jc_cache_dir(c));
	return -1;
}

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

static void print_json(const struct jc_config *cfg, const char *dir, const struct jc_cache_stats *s)
{
	printf("{\"dir\": ");
	json_string(dir);
	printf(", \"max_size\": %llu, \"entries\": %llu, \"recipes\": %llu, \"size\": %llu",
	       (unsigned long long)cfg->max_size, (unsigned long long)s->entries,
	       (unsigned long long)s->recipes, (unsigned long long)s->size);
#define X(NAME, field, label) printf(", \"%s\": %llu", #field, (unsigned long long)s->field);
	JC_COUNTERS(X)
#undef X
	printf(", \"schema\": 1, \"since\": ");
	if (s->since_ns)
		printf("%lld", (long long)(s->since_ns / 1000000000));
	else
		printf("null");
	fflush(stdout);
	jc_stats_json_parts(stdout, s);
	printf("}\n");
}

static const char *date_of(int64_t ns, char buf[64])
{
	time_t t = (time_t)(ns / 1000000000);
	struct tm tm;
	if (!ns || !localtime_r(&t, &tm) || !strftime(buf, 64, "%Y-%m-%d %H:%M:%S %z", &tm))
		return "unknown (counted by an older jitcache)";
	return buf;
}

/* Hits by tier, misses by cause, the time saved both ways. */
static void print_breakdown(const struct jc_cache_stats *s)
{
	char d[64];
	const char *sep = " ";
	printf("%-20s", "hits by tier");
#define X(NAME, name, label, slot, n)                                              \
	for (int i = 0; i < n; i++)                                                \
		if (n == 1)                                                        \
			printf("%s%s %llu", sep, label,                            \
			       (unsigned long long)s->tier_hits[slot]), sep = "; "; \
		else if (s->tier_hits[slot + i])                                   \
			printf("%s%s %d %llu", sep, label, i + 1,                  \
			       (unsigned long long)s->tier_hits[slot + i]), sep = "; ";
	JC_TIERS(X)
#undef X
	printf("\n%-20s found nowhere %llu; damaged %llu; refused by the driver %llu; "
	       "untrusted %llu; tier unreachable %llu\n", "misses by cause",
	       (unsigned long long)s->miss_not_found, (unsigned long long)s->miss_corrupt,
	       (unsigned long long)s->miss_rejected, (unsigned long long)s->miss_untrusted,
	       (unsigned long long)s->miss_unreachable);
	printf("%-20s %llu (of the misses)\n", "builds failed", (unsigned long long)s->build_failures);
	printf("%-20s 0 (every store is made before the compiling call returns)\n",
	       "stores pending");
	printf("%-20s %.1f s CPU, %.1f s wall (what the programs would have waited)\n",
	       "JIT time saved", (double)s->saved_ns / 1e9, (double)s->saved_wall_ns / 1e9);
	printf("%-20s %s\n", "counted since", date_of(s->since_ns, d));
}

/* The remote tier's rows, when one is configured or was used. */
static void print_remote(const struct jc_config *cfg, const struct jc_cache_stats *s)
{
	char a[32], b[32];
	if (!cfg->remote_url[0] && !(s->remote_hits | s->remote_misses | s->remote_errors |
				     s->remote_corrupt | s->remote_stores))
		return;
	printf("%-20s %llu (of the hits above)\n", "remote hits", (unsigned long long)s->remote_hits);
	printf("%-20s %llu\n", "remote misses", (unsigned long long)s->remote_misses);
	printf("%-20s %llu\n", "remote errors", (unsigned long long)s->remote_errors);
	printf("%-20s %llu\n", "remote bad values", (unsigned long long)s->remote_corrupt);
	printf("%-20s %llu\n", "remote stores", (unsigned long long)s->remote_stores);
	if (s->remote_dropped)
		printf("%-20s %llu (each is in the local store)\n", "remote writes dropped",
		       (unsigned long long)s->remote_dropped);
	printf("%-20s %s in, %s out\n", "remote traffic", human(s->remote_bytes_in, a),
	       human(s->remote_bytes_out, b));
}

/* One counter's line of `jitcache stats`: "label  value", a few with more. */
static void print_counter(const struct jc_config *cfg, const char *label, const char *field,
			  const struct jc_cache_stats *s, uint64_t v)
{
	char a[32];
	uint64_t lookups = s->hits + s->misses;
	if (!strcmp(field, "bytes_stored") || !strncmp(field, "remote_", 7) ||
	    !strncmp(field, "miss_", 5) || !strcmp(field, "saved_wall_ns") ||
	    !strcmp(field, "build_failures"))
		return; /* shown with stores; by print_remote(), print_breakdown() */
	if (!strcmp(field, "layer_hits")) {
		if (cfg->layers[0])
			printf("%-20s %llu of the hits (layers %s)\n", label, (unsigned long long)v,
			       cfg->layers);
		return;
	}
	printf("%-20s ", label);
	if (!strcmp(field, "hits"))
		printf("%llu (%.1f%% of %llu lookups)\n", (unsigned long long)v,
		       lookups ? 100.0 * (double)v / (double)lookups : 0.0, (unsigned long long)lookups);
	else if (!strcmp(field, "stores"))
		printf("%llu (%s written)\n", (unsigned long long)v, human(s->bytes_stored, a));
	else if (!strcmp(field, "saved_ns"))
		printf("%.1f s\n", (double)v / 1e9);
	else
		printf("%llu\n", (unsigned long long)v);
}

static void print_human(const struct jc_config *cfg, const char *dir, const struct jc_cache_stats *s)
{
	char a[32], b[32];
	printf("%-20s %s\n", "cache directory", dir);
	printf("%-20s %llu\n", "entries", (unsigned long long)s->entries);
	printf("%-20s %llu (what `jitcache warm` compiles again)\n", "recipes",
	       (unsigned long long)s->recipes);
	if (cfg->max_size)
		printf("%-20s %s of %s (%.1f%%)\n", "size", human(s->size, a), human(cfg->max_size, b),
		       100.0 * (double)s->size / (double)cfg->max_size);
	else
		printf("%-20s %s (no cap)\n", "size", human(s->size, a));
#define X(NAME, field, label) print_counter(cfg, label, #field, s, s->field);
	JC_COUNTERS(X)
#undef X
	print_remote(cfg, s);
	print_breakdown(s);
}

static int cmd_stats(const struct jc_config *cfg, struct jc_cache *c, int argc, char **argv)
{
	struct jc_cache_stats s;
	const char *arg = argc > 0 ? argv[0] : NULL;
	if (argc > 1 || (arg && strcmp(arg, "--json") != 0 && strcmp(arg, "--prometheus") != 0 &&
			 strcmp(arg, "--zero") != 0))
		return bad_usage("stats takes only --json, --prometheus or --zero");
	if (arg && !strcmp(arg, "--zero")) {
		if (jc_cache_zero_stats(c) != 0) {
			fprintf(stderr, "jitcache-admin: cannot zero the statistics in %s\n",
				jc_cache_dir(c));
			return 1;
		}
		printf("statistics of %s set to 0\n", jc_cache_dir(c));
		return 0;
	}
	if (read_stats(c, &s) != 0)
		return 1;
	if (!arg)
		print_human(cfg, jc_cache_dir(c), &s);
	else if (!strcmp(arg, "--json"))
		print_json(cfg, jc_cache_dir(c), &s);
	else
		jc_stats_prometheus(stdout, &s, jc_cache_dir(c), cfg->max_size);
	return 0;
}

static uint64_t minus(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* "12 entries", or "12 entries and 12 recipes" where there are recipes
 * (cache.h): a recipe is an entry file but no compiled result. */
static const char *counted(uint64_t entries, uint64_t recipes, char buf[64])
{
	if (recipes)
		snprintf(buf, 64, "%llu entries and %llu recipes", (unsigned long long)entries,
			 (unsigned long long)recipes);
	else
		snprintf(buf, 64, "%llu entries", (unsigned long long)entries);
	return buf;
}

/* "removed 12 entries and 12 recipes (3.4M); 5 entries and 5 recipes
 * (1.0M) left" */
static int report_removal(struct jc_cache *c, const struct jc_cache_stats *before, int rc)
{
	struct jc_cache_stats after;
	char a[32], b[32], n[64], m[64];
	if (read_stats(c, &after) != 0)
		return 1;
	printf("removed %s (%s); %s (%s) left\n",
	       counted(minus(before->entries, after.entries), minus(before->recipes, after.recipes), n),
	       human(minus(before->size, after.size), a),
	       counted(after.entries, after.recipes, m), human(after.size, b));
	if (rc != 0)
		fprintf(stderr, "jitcache-admin: some entries could not be removed (see above)\n");
	return rc != 0;
}

static int cmd_clear(const struct jc_config *cfg, struct jc_cache *c, int argc, char **argv)
{
	struct jc_cache_stats before;
	(void)cfg, (void)argv;
	if (argc > 0)
		return bad_usage("clear takes no argument");
	if (read_stats(c, &before) != 0)
		return 1;
	return report_removal(c, &before, jc_cache_clear(c));
}

static int cmd_trim(const struct jc_config *cfg, struct jc_cache *c, int argc, char **argv)
{
	struct jc_cache_stats before;
	uint64_t size = cfg->max_size;
	const char *why = NULL, *arg = argc > 0 ? argv[0] : NULL;
	if (argc > 1)
		return bad_usage("trim takes at most one SIZE");
	if (arg && jc_config_parse_size(arg, &size, &why) != 0) {
		fprintf(stderr, "jitcache-admin: trim: bad size '%s': %s\n", arg, why);
		return 2;
	}
	if (!arg && size == 0) {
		printf("no max_size is set and no SIZE given: nothing to trim\n");
		return 0;
	}
	if (read_stats(c, &before) != 0)
		return 1;
	return report_removal(c, &before, jc_cache_trim(c, size));
}

static int cmd_verify(const struct jc_config *cfg, struct jc_cache *c, int argc, char **argv)
{
	(void)cfg, (void)argv;
	if (argc > 0)
		return bad_usage("verify takes no argument");
	return jc_cache_verify(c, stdout) != 0 ? 1 : 0;
}

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

static int cmd_export(const struct jc_config *cfg, struct jc_cache *c, int argc, char **argv)
{
	struct jc_transfer t;
	const char *file = NULL;
	int64_t since = 0;
	char a[32], b[32], n[64];
	(void)cfg;
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--since") == 0 && i + 1 < argc) {
			if ((since = parse_date(argv[++i])) < 0) {
				fprintf(stderr, "jitcache-admin: export: bad date '%s' (expected "
					"YYYY-MM-DD[THH:MM[:SS]] or @SECONDS)\n", argv[i]);
				return 2;
			}
		} else if (!file && argv[i][0] != '-') {
			file = argv[i];
		} else {
			return bad_usage("usage: export FILE [--since DATE]");
		}
	}
	if (!file)
		return bad_usage("export needs a FILE");
	fflush(stdout);
	int rc = jc_cache_export(c, file, since, stderr, &t);
	if (rc < 0) {
		fprintf(stderr, "jitcache-admin: export failed; %s not written\n", file);
		return 1;
	}
	printf("exported %s, %s, to %s (%s compressed)", counted(t.entries, t.recipes, n),
	       human(t.bytes, a), file, human(t.archive_bytes, b));
	if (t.refused)
		printf("; %llu bad entries skipped", (unsigned long long)t.refused);
	printf("\n");
	return rc;
}

static int cmd_import(const struct jc_config *cfg, struct jc_cache *c, int argc, char **argv)
{
	struct jc_transfer t;
	char a[32], n[64], m[64];
	(void)cfg;
	if (argc != 1)
		return bad_usage("usage: import FILE");
	fflush(stdout);
	int rc = jc_cache_import(c, argv[0], stderr, &t);
	if (rc < 0) {
		fprintf(stderr, "jitcache-admin: nothing imported from %s\n", argv[0]);
		return 1;
	}
	printf("imported %s, %s, from %s; ", counted(t.entries, t.recipes, n), human(t.bytes, a),
	       argv[0]);
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

/* ---- explain -------------------------------------------------------------------- */

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

static int cmd_explain(const struct jc_config *cfg, struct jc_cache *c, int argc, char **argv)
{
	const char *which = NULL;
	int json = 0, last = 0;
	(void)cfg;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (!strcmp(argv[i], "--last"))
			last = 1;
		else if (argv[i][0] != '-' && !which && !last)
			which = argv[i];
		else
			return bad_usage("usage: explain [--last | PROGRAM | KEY] [--json]");
	}
	if (last && which)
		return bad_usage("usage: explain [--last | PROGRAM | KEY] [--json]");
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
	for (size_t i = 0; i < n; i++) {
		char hex[2 * JC_KEY_BYTES + 1], why[640], when[64];
		jc_key_hex(&v[i].key, hex);
		if (last && (v[i].pid != last_pid || strcmp(v[i].program, last_prog)))
			continue;
		if (which && (hex_prefix(which) ? strncmp(hex, which, strlen(which))
						: strcmp(v[i].program, which)))
			continue;
		const char *what = jc_explain(&v[i], v, n, why, sizeof why);
		time_t t = (time_t)(v[i].when_ns / 1000000000);
		struct tm tm;
		strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", localtime_r(&t, &tm));
		if (json) {
			printf("%s\n {\"time\": %lld, \"program\": ", shown ? "," : "", (long long)t);
			json_string(v[i].program);
			printf(", \"pid\": %u, \"key\": \"%s\", \"cause\": \"%s\", \"build_failed\": %s, "
			       "\"explanation\": ", v[i].pid, hex, what,
			       v[i].flags & JC_MISS_BUILD_FAILED ? "true" : "false");
			json_string(why);
			printf("}");
		} else {
			printf("%s %s[%u] %s: %s\n", when, v[i].program, v[i].pid, hex, why);
		}
		shown++;
	}
	if (json)
		printf("%s]\n", shown ? "\n" : "");
	else if (!shown)
		printf("no miss recorded%s%s in %s\n", which ? " for " : "", which ? which : "",
		       jc_cache_dir(c));
	free(v);
	return 0;
}

static const struct command {
	const char *name;
	int (*run)(const struct jc_config *cfg, struct jc_cache *c, int argc, char **argv);
} commands[] = {
	{ "stats", cmd_stats },
	{ "clear", cmd_clear },
	{ "trim", cmd_trim },
	{ "verify", cmd_verify },
	{ "explain", cmd_explain },
	{ "export", cmd_export },
	{ "import", cmd_import },
	{ "warm", jc_warm_main },
};

int main(int argc, char **argv)
{
	struct jc_config cfg;
	if (argc < 2)
		return bad_usage("no command given");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("jitcache %s\n", JC_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "settings")) {
		int format = JC_HELP_TEXT;
		if (argc > 2 && !strcmp(argv[2], "--markdown"))
			format = JC_HELP_MARKDOWN;
		else if (argc > 2 && !strcmp(argv[2], "--man"))
			format = JC_HELP_MAN;
		else if (argc > 2)
			return bad_usage("settings takes only --markdown or --man");
		jc_config_help(stdout, format);
		return 0;
	}
	if (!strcmp(argv[1], "keygen")) {
		if (argc < 3 || argc > 4)
			return bad_usage("usage: keygen FILE [COMMENT]");
		return jc_keygen(argv[2], argc > 3 ? argv[3] : NULL, stdout) == 0 ? 0 : 1;
	}
	if (!strcmp(argv[1], "enable") || !strcmp(argv[1], "disable"))
		return jc_enable_main(argc - 1, argv + 1);
	jc_config_load(&cfg);
	if (!strcmp(argv[1], "config")) {
		if (argc > 2)
			return bad_usage("config takes no argument");
		jc_config_show(&cfg, stdout);
		return 0;
	}
	for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) {
		if (strcmp(argv[1], commands[i].name) != 0)
			continue;
		struct jc_cache *c = open_cache(&cfg);
		if (!c)
			return 1;
		int rc = commands[i].run(&cfg, c, argc - 2, argv + 2);
		jc_cache_close(c);
		return rc;
	}
	fprintf(stderr, "jitcache-admin: unknown command '%s' (see jitcache --help)\n", argv[1]);
	return 2;
}
