// SPDX-License-Identifier: MIT
/* stats.c — `jitcache stats`: the shared counters as a screen (short by
 * default, every counter with -v), JSON or Prometheus' text format. */
#include "bin/admin.h"

#include "config/escape.h"
#include "config/remote_url.h"
#include "tiers/tier.h"
#include "store/stats.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The width of the labels of the short screen; -v's are as wide as the
 * longest counter's label. */
#define LABEL 17

void jc_stats_usage(FILE *out)
{
	fputs("       jitcache stats [-v | --json | --prometheus | --zero]\n"
	      "                                      entries, size, hits (by tier), misses (by\n"
	      "                                      cause), stores, JIT time saved, since when;\n"
	      "                                      -v: every counter; --zero: set the counters\n"
	      "                                      to 0 from now\n",
	      out);
}

static const char *human(uint64_t bytes, char buf[32])
{
	return jc_config_size_round(bytes, buf);
}

/* Schema 2: hits_by_tier's Redis tier is "redis" (schema 1 called it
 * "remote", which elsewhere means every remote). */
static void print_json(const struct jc_config *cfg, const char *dir, const struct jc_cache_stats *s)
{
	printf("{\"dir\": ");
	jc_json_string(stdout, dir);
	printf(", \"max_size\": %llu, \"entries\": %llu, \"recipes\": %llu, \"size\": %llu",
	       (unsigned long long)cfg->max_size, (unsigned long long)s->entries,
	       (unsigned long long)s->recipes, (unsigned long long)s->size);
#define X(NAME, field, label) printf(", \"%s\": %llu", #field, (unsigned long long)s->field);
	JC_COUNTERS(X)
#undef X
	printf(", \"schema\": 2, \"since\": ");
	if (s->since_ns)
		printf("%lld", (long long)(s->since_ns / 1000000000));
	else
		printf("null");
	fflush(stdout);
	jc_stats_json_parts(stdout, s);
	printf("}\n");
}

static void row(const char *label, int width, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void row(const char *label, int width, const char *fmt, ...)
{
	va_list ap;
	printf("%-*s ", width, label);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* Which remote tiers the settings name: a tier's hits are shown where it
 * is configured or has any. */
static void configured_tiers(const struct jc_config *cfg, int shown[JC_TIER_SLOTS])
{
	struct jc_remote_spec *specs = calloc(JC_REMOTES_MAX, sizeof *specs);
	const char *why;
	int n = 0;
	shown[JC_SLOT_LOCAL] = 1;
	shown[JC_SLOT_LAYER] = cfg->layers[0] != '\0';
	if (specs && jc_remote_list_parse(cfg->remote_url, specs, &n, &why) == 0)
		for (int i = 0; i < n; i++)
			shown[jc_tier_of(specs[i].kind)->slot] = 1;
	free(specs);
}

/* "local 3, redis 1, layer 1: 2": the tiers configured or with hits. */
static void hits_by_tier(const struct jc_config *cfg, const struct jc_cache_stats *s, char *buf,
			 size_t size)
{
	int shown[JC_TIER_SLOTS] = { 0 };
	size_t used = 0;
	configured_tiers(cfg, shown);
	buf[0] = '\0';
#define X(NAME, name, slot, n)                                                       \
	for (int i = 0; i < n && used < size; i++) {                                 \
		uint64_t v = s->tier_hits[(slot) + i];                               \
		if (!v && !(i == 0 && shown[slot]))                                  \
			continue;                                                    \
		if (n == 1)                                                          \
			used += (size_t)snprintf(buf + used, size - used, "%s%s %llu",   \
						 used ? ", " : "", #name,            \
						 (unsigned long long)v);             \
		else                                                                 \
			used += (size_t)snprintf(buf + used, size - used, "%s%s %d: %llu", \
						 used ? ", " : "", #name, i + 1,     \
						 (unsigned long long)v);             \
	}
	JC_TIERS(X)
#undef X
}

/* The counts of one line, those that are not 0, as "1 corrupt entry, 2
 * store failures"; returns how many were not 0. */
struct part { uint64_t n; const char *one, *many; };
static int nonzero(const struct part *p, size_t n, char *buf, size_t size)
{
	int shown = 0;
	size_t used = 0;
	char c[64];
	buf[0] = '\0';
	for (size_t i = 0; i < n && used < size; i++)
		if (p[i].n)
			used += (size_t)snprintf(buf + used, size - used, "%s%s", shown++ ? ", " : "",
						 jc_admin_count(p[i].n, p[i].one, p[i].many, c));
	return shown;
}

/* The short screen: at most 16 lines, the last four only when they say
 * something. */
const char *jc_admin_dir_unwritable(const char *dir)
{
	char at[PATH_MAX];
	struct stat st;
	if (snprintf(at, sizeof at, "%s", dir) >= (int)sizeof at)
		return strerror(ENAMETOOLONG);
	while (stat(at, &st) != 0) { /* not there yet: made in its parent */
		char *slash = strrchr(at, '/');
		if (errno != ENOENT || !slash)
			return strerror(errno);
		slash[slash == at] = '\0'; /* "/x" -> "/" */
	}
	if (!S_ISDIR(st.st_mode))
		return strerror(ENOTDIR);
	return faccessat(AT_FDCWD, at, W_OK | X_OK, AT_EACCESS) == 0 ? NULL : strerror(errno);
}

static void print_short(const struct jc_config *cfg, const char *dir, const struct jc_cache_stats *s)
{
	char a[32], b[32], c[64], d[32], line[512];
	uint64_t lookups = s->hits + s->misses;
	const char *shut = jc_admin_dir_unwritable(dir);
	row("cache directory", LABEL, "%s", dir);
	if (shut)
		row("", LABEL, "cannot be written (%s): programs store and count nothing here", shut);
	row("entries", LABEL, "%llu", (unsigned long long)s->entries);
	row("recipes", LABEL, "%llu (what `jitcache warm` compiles again)",
	    (unsigned long long)s->recipes);
	if (cfg->max_size)
		row("size", LABEL, "%s of %s (%.1f%%)", human(s->size, a), human(cfg->max_size, b),
		    100.0 * (double)s->size / (double)cfg->max_size);
	else
		row("size", LABEL, "%s (no cap)", human(s->size, a));
	row("hits", LABEL, "%llu (%.1f%% of %s)", (unsigned long long)s->hits,
	    lookups ? 100.0 * (double)s->hits / (double)lookups : 0.0,
	    jc_admin_count(lookups, "lookup", "lookups", c));
	hits_by_tier(cfg, s, line, sizeof line);
	row("hits by tier", LABEL, "%s", line);
	row("misses", LABEL, "%llu", (unsigned long long)s->misses);
	const struct part causes[] = {
		{ s->miss_not_found, "found nowhere", "found nowhere" },
		{ s->miss_corrupt, "damaged", "damaged" },
		{ s->miss_rejected, "refused by the driver", "refused by the driver" },
		{ s->miss_untrusted, "untrusted", "untrusted" },
		{ s->miss_unreachable, "tier unreachable", "tier unreachable" },
		{ s->miss_changed, "input changed while compiling",
		  "input changed while compiling" },
		{ s->miss_login_refused, "login refused", "login refused" },
	};
	if (!nonzero(causes, sizeof causes / sizeof *causes, line, sizeof line))
		snprintf(line, sizeof line, "none");
	row("misses by cause", LABEL, "%s", line);
	row("stores", LABEL, "%llu (%s written)", (unsigned long long)s->stores,
	    human(s->bytes_stored, a));
	row("evictions", LABEL, "%llu", (unsigned long long)s->evictions);
	row("JIT time saved", LABEL, "%.1f s CPU, %.1f s wall",
	    (double)s->saved_ns / 1e9, (double)s->saved_wall_ns / 1e9);
	row("counted since", LABEL, "%s", jc_admin_date(s->since_ns, d));
	if (cfg->remote_url[0] || s->remote_hits || s->remote_misses || s->remote_errors ||
	    s->remote_stores) {
		const struct part p[] = {
			{ s->remote_hits, "hit", "hits" }, { s->remote_misses, "miss", "misses" },
			{ s->remote_errors, "error", "errors" },
			{ s->remote_corrupt, "bad value", "bad values" },
			{ s->remote_stores, "store", "stores" },
			{ s->remote_dropped, "write dropped", "writes dropped" },
		};
		if (!nonzero(p, sizeof p / sizeof *p, line, sizeof line))
			snprintf(line, sizeof line, "nothing asked yet");
		row("remotes", LABEL, "%s; %s in, %s out", line, human(s->remote_bytes_in, a),
		    human(s->remote_bytes_out, b));
		if (s->remote_wait_ns)
			row("remote lookups", LABEL, "%.1f s waited", (double)s->remote_wait_ns / 1e9);
	}
	const struct part passed[] = {
		{ s->passed_native, "load of compiled code", "loads of compiled code" },
		{ s->passed_compile_link, "compile/link step", "compile/link steps" },
		{ s->passed_not_keyable, "unkeyable request", "unkeyable requests" },
	};
	if (nonzero(passed, sizeof passed / sizeof *passed, line, sizeof line))
		row("passed through", LABEL, "%s", line);
	if (s->failed_hits)
		row("failed builds", LABEL, "%s from the cache (the driver's error replayed)",
		    jc_admin_count(s->failed_hits, "answered", "answered", c));
	const struct part problems[] = {
		{ s->corrupt, "corrupt entry", "corrupt entries" },
		{ s->store_failures, "store failure", "store failures" },
		{ s->untrusted, "untrusted entry refused", "untrusted entries refused" },
		{ s->build_failures, "build failed", "builds failed" },
	};
	if (nonzero(problems, sizeof problems / sizeof *problems, line, sizeof line))
		row("problems", LABEL, "%s", line);
}

/* -v: every counter on its own line, by its label in store.h, then the
 * hits of every tier slot in use. */
static void print_all(const struct jc_config *cfg, const char *dir, const struct jc_cache_stats *s)
{
	char a[32], b[32], d[32], label[64];
	int w = (int)strlen("cache directory");
#define X(NAME, field, lbl) w = (int)strlen(lbl) > w ? (int)strlen(lbl) : w;
	JC_COUNTERS(X)
#undef X
	w++; /* two spaces at least, as on the short screen */
	row("cache directory", w, "%s", dir);
	row("max_size", w, "%s", cfg->max_size ? human(cfg->max_size, a) : "0 (no cap)");
	row("entries", w, "%llu", (unsigned long long)s->entries);
	row("recipes", w, "%llu", (unsigned long long)s->recipes);
	row("size", w, "%s", human(s->size, a));
#define X(NAME, field, lbl)                                                          \
	if (!strcmp(#field + strlen(#field) - 3, "_ns"))                             \
		row(lbl, w, "%.1f s", (double)s->field / 1e9);                       \
	else if (strstr(#field, "bytes"))                                            \
		row(lbl, w, "%s", human(s->field, b));                               \
	else                                                                         \
		row(lbl, w, "%llu", (unsigned long long)s->field);
	JC_COUNTERS(X)
#undef X
#define X(NAME, name, slot, n)                                                       \
	for (int i = 0; i < n; i++) {                                                \
		if (n > 1 && i > 0 && !s->tier_hits[(slot) + i])                     \
			continue;                                                    \
		if (n == 1)                                                          \
			snprintf(label, sizeof label, "hits: %s", #name);            \
		else                                                                 \
			snprintf(label, sizeof label, "hits: %s %d", #name, i + 1);  \
		row(label, w, "%llu", (unsigned long long)s->tier_hits[(slot) + i]); \
	}
	JC_TIERS(X)
#undef X
	row("counted since", w, "%s", jc_admin_date(s->since_ns, d));
}

int jc_stats_main(const struct jc_config *cfg, struct jc_cache *c, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'J' }, { "prometheus", no_argument, NULL, 'P' },
		{ "zero", no_argument, NULL, 'Z' }, { "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	struct jc_cache_stats s;
	int form = 0, opt;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":v", longopts, NULL)) != -1) {
		if (opt == '?' || opt == ':')
			return jc_admin_bad_option("stats", opt, argv, longopts);
		if (form && form != opt)
			return jc_admin_usage_error("stats", "give one of -v, --json, --prometheus "
						    "and --zero");
		form = opt;
	}
	if (optind < argc)
		return jc_admin_usage_error("stats", "takes no argument but its options");
	if (form == 'Z') {
		if (jc_cache_zero_stats(c) != 0) {
			fprintf(stderr, "jitcache: cannot zero the statistics in %s\n", jc_cache_dir(c));
			return JC_EXIT_FAILED;
		}
		printf("statistics of %s set to 0\n", jc_cache_dir(c));
		return JC_EXIT_OK;
	}
	if (jc_cache_shared_stats(c, &s) != 0) {
		const char *shut = jc_admin_dir_unwritable(jc_cache_dir(c));
		if (shut)
			fprintf(stderr, "jitcache: cannot read the statistics in %s: the directory cannot "
				"be written (%s), so programs store and count nothing there\n",
				jc_cache_dir(c), shut);
		else
			fprintf(stderr, "jitcache: cannot read the statistics in %s\n", jc_cache_dir(c));
		return JC_EXIT_FAILED;
	}
	if (form == 'J')
		print_json(cfg, jc_cache_dir(c), &s);
	else if (form == 'P')
		jc_stats_prometheus(stdout, &s, jc_cache_dir(c), cfg->max_size);
	else if (form == 'v')
		print_all(cfg, jc_cache_dir(c), &s);
	else
		print_short(cfg, jc_cache_dir(c), &s);
	return JC_EXIT_OK;
}
