// SPDX-License-Identifier: MIT
/* `jitcache warm` (see warm.h). */
#include "bin/warm.h"
#include "bin/push.h"
#include "bin/admin.h"
#include "config/clock.h"
#include "config/grow.h"

#include "tiers/archive.h"
#include "key/recipe.h"
#include "bin/warm_pool.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- targets ------------------------------------------------------------- */

/* A GPU to prewarm for without having it: the driver's simulation settings
 * that give its real identity (its IP version is the key's view of a device;
 * the device id is keyed only by a driver that reports no IP version), and
 * its real name (NEO's devices_base.inl), which the
 * simulation reports only through OverrideDeviceName.  The IP versions are
 * what Intel's 2026 driver (NEO 26.27, IGC 2.40) reports for each.  Targets
 * of one IP version get the same code from IGC, and the same entries
 * (shim/ze/ze.c keys the IP version, not the device id): they are compiled
 * for once. */
#define IP(a, b, c) ((unsigned)(a) << 22 | (unsigned)(b) << 14 | (unsigned)(c))

static const struct jc_warm_target targets[] = {
	{ "a770", "Intel(R) Arc(TM) A770 Graphics", "acm-g10", 0x56a0, IP(12, 55, 8), 0, "" },
	{ "a750", "Intel(R) Arc(TM) A750 Graphics", "acm-g10", 0x56a1, IP(12, 55, 8), 0, "" },
	{ "a580", "Intel(R) Arc(TM) A580 Graphics", "acm-g10", 0x56a2, IP(12, 55, 8), 0, "" },
	{ "a380", "Intel(R) Arc(TM) A380 Graphics", "dg2-g11-b1", 0x56a5, IP(12, 56, 5), 0, "" },
	{ "b580", "Intel(R) Arc(TM) B580 Graphics", "bmg-g21", 0xe20b, IP(20, 1, 0), 0, "" },
	{ "b570", "Intel(R) Arc(TM) B570 Graphics", "bmg-g21", 0xe20c, IP(20, 1, 0), 0, "" },
	{ "mtl-h", "Intel(R) Arc(TM) Graphics", "mtl-h", 0x7d55, IP(12, 71, 4), 8,
	  "Core Ultra (Meteor Lake-H)" },
	{ "lnl", "Intel(R) Arc(TM) Graphics", "lnl-m", 0x64a0, IP(20, 4, 4), 0,
	  "Core Ultra 200V (Lunar Lake); IP version unconfirmed on hardware" },
};
#define N_TARGETS (sizeof targets / sizeof *targets)

static void list_targets(void)
{
	char ip[32];
	printf("%-7s %-32s %-6s %-8s %-10s %s\n", "TARGET", "GPU (name reported)", "ID", "IP",
	       "SIMULATED", "SETTINGS");
	for (size_t i = 0; i < N_TARGETS; i++) {
		const struct jc_warm_target *t = &targets[i];
		printf("%-7s %-32s 0x%04x %-8s %-10s ProductFamilyOverride=%s ForceDeviceId=%04X",
		       t->name, t->gpu, t->id, jc_warm_ip_text(t->ip, ip), t->product, t->product,
		       t->id);
		if (t->revision)
			printf(" OverrideRevision=%u", t->revision);
		printf("%s%s\n", *t->note ? "   # " : "", t->note);
	}
}

static const struct jc_warm_target *find_target(const char *name)
{
	for (size_t i = 0; i < N_TARGETS; i++)
		if (strcmp(targets[i].name, name) == 0)
			return &targets[i];
	return NULL;
}

const char *jc_warm_target_name(size_t i)
{
	return i < N_TARGETS ? targets[i].name : NULL;
}

const char *jc_warm_target_ip(const char *name, char buf[32])
{
	const struct jc_warm_target *t = find_target(name);
	return t ? jc_warm_ip_text(t->ip, buf) : NULL;
}

/* ---- recipes --------------------------------------------------------------- */

struct recipes {
	struct jc_warm_recipe *v;
	size_t n, cap;
	unsigned untrusted; /* a layer's, refused under trusted_keys */
	unsigned foreign;   /* a layer's naming an included file by absolute path */
};

/* Whether an OpenCL recipe (a link: one of its inputs) carries an included
 * file by absolute path. */
static int names_absolute(const void *data, size_t size)
{
	struct jc_recipe r;
	int absolute = 0;
	if (jc_recipe_decode(data, size, &r) != 0)
		return 0;
	for (size_t i = 0; r.api != JC_RECIPE_ZE && i < r.cl_n_files; i++)
		absolute |= r.cl_files[i].path[0] == '/';
	for (size_t i = 0; r.api == JC_RECIPE_CL_LINK && i < r.link_n_inputs; i++)
		absolute |= names_absolute(r.link_inputs[i].data, r.link_inputs[i].size);
	jc_recipe_free(&r);
	return absolute;
}

/* One recipe per request: recordings of the same request for several
 * drivers or devices are replayed once.  A replay reads no file of this
 * machine but those its recipe carries (bin/jitcache-replay.c); a recipe
 * of the user's own cache may use an absolute one where it is, as
 * recorded here, one from a layer may not: it names another machine's
 * files, and reading this one's for it would tell its author whether a
 * file of the user's holds what it guessed. */
static int collect(void *ctx, const void *data, size_t size, int layer)
{
	struct recipes *rs = ctx;
	uint64_t request = jc_recipe_request_hash(data, size);
	if (!request)
		return 0;
	if (layer && names_absolute(data, size)) {
		rs->foreign++;
		return 0;
	}
	for (size_t i = 0; i < rs->n; i++)
		if (rs->v[i].request == request)
			return 0;
	struct jc_warm_recipe *v = jc_grow(rs->v, &rs->cap, rs->n, sizeof *v);
	if (!v)
		return -1;
	rs->v = v;
	void *copy = malloc(size);
	if (!copy)
		return -1;
	memcpy(copy, data, size);
	rs->v[rs->n++] = (struct jc_warm_recipe){ copy, size, request };
	return 0;
}

/* Whether a recipe's request is that of an input of a link recipe. */
static int nested_in(const struct jc_warm_recipe *link, uint64_t request)
{
	struct jc_recipe r;
	int found = 0;
	if (jc_recipe_decode(link->bytes, link->size, &r) != 0)
		return 0;
	for (size_t i = 0; r.api == JC_RECIPE_CL_LINK && !found && i < r.link_n_inputs; i++)
		found = jc_recipe_request_hash(r.link_inputs[i].data, r.link_inputs[i].size) ==
			request;
	jc_recipe_free(&r);
	return found;
}

/* A compile replayed by the replay of its link is not replayed alone too
 * (it would find the entry the link's replay made, and count it found). */
static void drop_nested(struct recipes *rs)
{
	size_t kept = 0;
	for (size_t i = 0; i < rs->n; i++) {
		int nested = 0;
		for (size_t k = 0; !nested && k < rs->n; k++)
			nested = k != i && nested_in(&rs->v[k], rs->v[i].request);
		if (nested)
			free(rs->v[i].bytes);
		else
			rs->v[kept++] = rs->v[i];
	}
	rs->n = kept;
}

/* The recipes of the cache directory, then of the layers (those come with
 * a cache opened for them: the one the commands use has none), trusted as
 * their entries are: with trusted_keys, a layer's recipe is replayed only
 * if signed by one of them, as `jitcache import` takes it (else its
 * results would be signed here with the signing key: laundered). */
static int collect_recipes(const struct jc_config *cfg, struct jc_cache *cache,
			   struct recipes *rs)
{
	struct jc_cache_options o = jc_cache_options_from_config(cfg, JC_OPTIONS_LAYERS);
	o.signing_key = NULL; /* it only reads */
	struct jc_cache *layered = cfg->layers[0] ? jc_cache_open(&o) : NULL;
	int rc = jc_cache_each_recipe(layered ? layered : cache, collect, rs, &rs->untrusted);
	if (layered)
		jc_cache_close(layered);
	drop_nested(rs);
	if (rs->untrusted)
		printf("%u recipe%s of the layers not replayed: not signed by a trusted key "
		       "(trusted_keys)\n", rs->untrusted, rs->untrusted == 1 ? "" : "s");
	if (rs->foreign)
		printf("%u recipe%s of the layers not replayed: they include files by absolute "
		       "path, which a replay here does not read\n", rs->foreign,
		       rs->foreign == 1 ? "" : "s");
	return rc;
}

static void recipes_free(struct recipes *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		free(rs->v[i].bytes);
	free(rs->v);
}

/* ---- the targets of a run --------------------------------------------------- */

struct options {
	int jobs;
	int progress_lines;
	int all; /* --for all: a target the driver does not simulate is skipped */
	const char *lib, *replay;
	const char *export_file;
};

/* The earlier target of the same IP version, whose entries are this one's
 * (the pool serves it after every target that compiles). */
static const struct jc_warm_run *leader_of(const struct jc_warm_run *runs, size_t i)
{
	for (size_t k = 0; k < i; k++)
		if (!runs[k].leader && runs[k].target->ip == runs[i].target->ip)
			return &runs[k];
	return NULL;
}

/* One line per target: what it compiled, what it shares with the target
 * of its IP version that compiled it in this run, what was there before. */
static void say_result(const struct jc_warm_run *r, size_t n_recipes)
{
	char of[64], ip[32];
	double s = r->seconds;
	unsigned long long found = r->found;
	if (r->target)
		printf("warm %s (%s, simulated as %s):", r->target->name, r->target->gpu,
		       r->devices);
	else
		printf("warm this machine (%d GPU%s: %s):", r->n_devices, r->n_devices == 1 ? "" : "s",
		       r->devices);
	printf(" %zu of %s in %.1f s (%.2f/s): %llu compiled, ", r->done,
	       jc_admin_count(n_recipes, "recipe", "recipes", of), s,
	       s > 0 ? (double)r->done / s : 0.0, r->compiled);
	if (r->leader && !r->leader->refused) {
		unsigned long long shared = found < r->leader->compiled ? found : r->leader->compiled;
		printf("%llu shared with %s (IP %s), ", shared, r->leader->target->name,
		       jc_warm_ip_text(r->target->ip, ip));
		found -= shared;
	}
	printf("%llu already cached, %zu failed", found, r->failed);
	if (r->skipped)
		printf(", %zu skipped", r->skipped);
	printf("\n");
}

/* 0: warmed; 1: some failed; REFUSED: nothing was warmed (the target
 * cannot be simulated, or the workers did not start). */
#define REFUSED 3
static int report_run(const struct jc_warm_run *r, size_t n_recipes, const struct options *o)
{
	const struct jc_warm_target *t = r->target;
	const char *why = r->refused ? r->refused : "the driver simulation did not start";
	if (r->refused || !r->n_devices) {
		if (t && o->all && r->n_devices)
			printf("skipped %s (%s, 0x%04x): %s\n", t->name, t->gpu, t->id, why);
		else if (t)
			fprintf(stderr, "jitcache warm: cannot prewarm for %s (%s, 0x%04x): %s\n",
				t->name, t->gpu, t->id, why);
		else
			fprintf(stderr, "jitcache warm: no GPU to warm for: %s\n",
				r->refused ? r->refused : "the replayer did not start");
		return REFUSED;
	}
	say_result(r, n_recipes);
	return r->failed ? 1 : 0;
}

/* Every target at once (none: this machine), one line each.  *warmed:
 * how many were. */
static int warm_runs(const struct recipes *rs, const struct jc_warm_target *const *chosen,
		     size_t n_chosen, const struct options *o, const char *workdir, int *warmed)
{
	size_t n = n_chosen ? n_chosen : 1;
	struct jc_warm_run *runs = calloc(n, sizeof *runs);
	struct jc_warm_pool p = { .lib = o->lib, .replay = o->replay, .workdir = workdir,
				  .recipes = rs->v, .n_recipes = rs->n, .jobs = o->jobs,
				  .progress = o->progress_lines ? 2 : isatty(2) };
	for (size_t i = 0; runs && i < n_chosen; i++) {
		runs[i].target = chosen[i];
		runs[i].leader = leader_of(runs, i);
	}
	if (!runs || jc_warm_pool_run(&p, runs, n) != 0) {
		free(runs);
		fprintf(stderr, "jitcache warm: out of memory\n");
		return 1;
	}
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		int one = report_run(&runs[i], rs->n, o);
		*warmed += one != REFUSED;
		/* --for all: a GPU this driver does not simulate is no failure */
		if (one == REFUSED)
			one = o->all && runs[i].n_devices ? 0 : 1;
		rc = one > rc ? one : rc;
	}
	free(runs);
	if (jc_warm_interrupted()) {
		fprintf(stderr, "jitcache warm: interrupted; what was compiled is stored, and "
			"running it again resumes\n");
		return 130;
	}
	return *warmed ? rc : 1;
}

/* ---- the command ------------------------------------------------------------ */

void jc_warm_usage(FILE *out)
{
	fputs("       jitcache warm [-j N] [--for TARGET[,TARGET...]|all] [--export FILE] [--progress]\n"
	      "                                      compile every recorded request (recipe)\n"
	      "                                      missing for this machine's GPUs and driver,\n"
	      "                                      N at a time (default: the number of cores);\n"
	      "                                      --for: for GPUs this machine does not have,\n"
	      "                                      through the driver's simulation, once per\n"
	      "                                      IP version (all: every target); --export:\n"
	      "                                      then write what was warmed to FILE;\n"
	      "                                      --progress: a line with the ETA every 10 s\n"
	      "                                      (for a log; on a terminal: a bar)\n"
	      "       jitcache warm --list           the targets --for knows\n",
	      out);
}

static int usage_error(const char *why)
{
	fprintf(stderr, "jitcache warm: %s (see jitcache --help)\n", why);
	return 2;
}

/* The program beside this one (jitcache-admin) named `name`. */
static const char *beside_self(const char *name, char buf[PATH_MAX])
{
	ssize_t n = readlink("/proc/self/exe", buf, PATH_MAX - 1);
	if (n <= 0)
		return name;
	buf[n] = '\0';
	char *slash = strrchr(buf, '/');
	if (!slash || (size_t)(slash + 1 - buf) + strlen(name) >= PATH_MAX)
		return name;
	strcpy(slash + 1, name);
	return buf;
}

/* --for's list: names, or "all" (every target); each target once. */
static int parse_for(const char *v, struct options *o, const struct jc_warm_target **chosen,
		     size_t *n_chosen)
{
	char names[256];
	snprintf(names, sizeof names, "%s", v);
	for (char *s, *t = strtok_r(names, ",", &s); t; t = strtok_r(NULL, ",", &s)) {
		int all = strcmp(t, "all") == 0;
		const struct jc_warm_target *x = all ? &targets[0] : find_target(t);
		if (!x) {
			fprintf(stderr, "jitcache warm: unknown target '%s' (jitcache warm --list "
				"shows them; all: every one)\n", t);
			return 2;
		}
		o->all |= all;
		for (size_t k = 0; k < (all ? N_TARGETS : 1); k++, x++) {
			size_t seen = 0;
			while (seen < *n_chosen && chosen[seen] != x)
				seen++;
			if (seen == *n_chosen && *n_chosen < N_TARGETS)
				chosen[(*n_chosen)++] = x;
		}
	}
	return 0;
}

static int parse(int argc, char **argv, struct options *o, const struct jc_warm_target **chosen,
		 size_t *n_chosen, int *list)
{
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--list") == 0) {
			*list = 1;
		} else if (strcmp(a, "--progress") == 0) {
			o->progress_lines = 1;
		} else if ((strcmp(a, "-j") == 0 || strcmp(a, "--jobs") == 0) && v) {
			char *end;
			long j = strtol(v, &end, 10);
			if (*end || j < 1 || j > 256)
				return usage_error("-j takes a number from 1 to 256");
			o->jobs = (int)j;
			i++;
		} else if (strncmp(a, "-j", 2) == 0 && a[2]) {
			char *end;
			long j = strtol(a + 2, &end, 10);
			if (*end || j < 1 || j > 256)
				return usage_error("-j takes a number from 1 to 256");
			o->jobs = (int)j;
		} else if (strcmp(a, "--for") == 0 && v) {
			if (parse_for(v, o, chosen, n_chosen) != 0)
				return 2;
			i++;
		} else if (strcmp(a, "--export") == 0 && v) {
			o->export_file = v;
			i++;
		} else {
			return usage_error("usage: warm [-j N] [--for TARGET[,...]|all] [--export FILE] | "
					   "--list");
		}
	}
	return 0;
}

/* The worker's directory, with the files the driver wrote there (.aub). */
static void remove_workdir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			unlinkat(dirfd(d), de->d_name, 0);
	if (d)
		closedir(d);
	rmdir(dir);
}

static int export_warmed(struct jc_cache *cache, const char *file, int64_t since_ns)
{
	struct jc_transfer t;
	char a[32];
	fflush(stdout);
	int rc = jc_cache_export(cache, file, since_ns, stderr, &t);
	if (rc < 0) {
		fprintf(stderr, "jitcache warm: export failed; %s not written\n", file);
		return 1;
	}
	char e[64], r[64];
	printf("exported %s and %s, %s, to %s\n", jc_admin_count(t.entries, "entry", "entries", e),
	       jc_admin_count(t.recipes, "recipe", "recipes", r),
	       jc_config_size_round(t.archive_bytes, a), file);
	return rc;
}

/* The library the workers preload and the worker program: from the
 * environment (bin/jitcache sets JITCACHE_LIB), else beside this program. */
static int find_programs(struct options *o, char lib[PATH_MAX], char replay[PATH_MAX])
{
	const char *l = getenv("JITCACHE_LIB"), *r = getenv("JITCACHE_REPLAY");
	o->lib = l && *l ? l : beside_self("libjitcache.so", lib);
	o->replay = r && *r ? r : beside_self("jitcache-replay", replay);
	if (access(o->lib, R_OK) == 0 && access(o->replay, X_OK) == 0)
		return 0;
	fprintf(stderr, "jitcache warm: %s or %s not found (set JITCACHE_LIB and "
		"JITCACHE_REPLAY)\n", o->lib, o->replay);
	return -1;
}

/* The driver the first --for target is simulated on, asked before anything
 * is warmed: one that reports no IP version for its devices (Debian 12's
 * NEO 22.43) cannot simulate any target as the real GPU, and every target
 * would be refused one by one.  A worker is started with no recipe: it
 * names its devices and ends.  0: it reports an IP version (or the worker
 * did not start, which warm_one says itself); -1: it reports none. */
static int driver_names_ip_versions(const struct jc_warm_target *t, const struct options *o,
				    const char *workdir)
{
	struct jc_warm_run r = { .target = t };
	struct jc_warm_pool p = { .lib = o->lib, .replay = o->replay, .workdir = workdir,
				  .jobs = 1 };
	if (jc_warm_pool_run(&p, &r, 1) != 0)
		return 0;
	return r.no_ip ? -1 : 0;
}

static void say_driver_too_old(const struct jc_warm_target *const *chosen, size_t n_chosen,
			       const char *export_file)
{
	char names[256] = "";
	for (size_t i = 0, used = 0; i < n_chosen && used < sizeof names; i++)
		used += (size_t)snprintf(names + used, sizeof names - used, "%s%s",
					 i ? (i + 1 == n_chosen ? " or " : ", ") : "",
					 chosen[i]->name);
	fprintf(stderr, "jitcache warm: --for needs Intel's compute runtime 26.27 or newer (the "
		"installed driver reports no IP version, so it cannot compile for %s as the real "
		"GPU); nothing warmed%s%s%s\n", names, export_file ? ", " : "",
		export_file ? export_file : "", export_file ? " not written" : "");
}

/* The IP version of a device id the table knows, as text, or NULL (for a
 * driver that reports none, as Debian 12's NEO 22.43). */
static const char *ip_of_id(unsigned id, char buf[32])
{
	for (size_t i = 0; i < N_TARGETS; i++)
		if (targets[i].id == id)
			return jc_warm_ip_text(targets[i].ip, buf);
	return NULL;
}

int jc_warm_ip_list_add(char *list, size_t cap, const char *ip)
{
	size_t n = strlen(ip), used = strlen(list);
	for (const char *p = list; *p; p += strcspn(p, ","), p += *p == ',')
		if (strncmp(p, ip, n) == 0 && (p[n] == ',' || !p[n]))
			return 0;
	if (used + (used > 0) + n >= cap)
		return 0;
	snprintf(list + used, cap - used, "%s%s", used ? "," : "", ip);
	return 1;
}

/* Add one device of a worker's list ("NAME (0xID, IP X.Y.Z)") to ips;
 * the position after it, or NULL at the end. */
static const char *add_gpu(const char *at, char *ips, size_t cap, int *n)
{
	const char *p = strstr(at, "(0x");
	unsigned id;
	char ip[32], table[32];
	if (!p || sscanf(p, "(0x%x, IP %31[^)])", &id, ip) != 2)
		return NULL;
	const char *v = strcmp(ip, "0.0.0") != 0 ? ip : ip_of_id(id, table);
	if (v)
		jc_warm_ip_list_add(ips, cap, v);
	*n += v != NULL;
	return p + 3;
}

int jc_warm_this_gpus(char *ips, size_t cap, char *shown, size_t shown_cap)
{
	char lib[PATH_MAX], replay[PATH_MAX], workdir[PATH_MAX];
	struct options o = { .jobs = 1 };
	struct jc_warm_run r = { .target = NULL };
	const char *tmp = getenv("TMPDIR");
	ips[0] = shown[0] = '\0';
	snprintf(workdir, sizeof workdir, "%s/jitcache-gpus.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (find_programs(&o, lib, replay) != 0 || !mkdtemp(workdir))
		return -1;
	struct jc_warm_pool p = { .lib = o.lib, .replay = o.replay, .workdir = workdir,
				  .jobs = 1 };
	int rc = jc_warm_pool_run(&p, &r, 1), n = 0;
	remove_workdir(workdir);
	if (rc != 0)
		return -1;
	for (const char *at = r.devices; at;)
		at = add_gpu(at, ips, cap, &n);
	snprintf(shown, shown_cap, "%s", r.n_devices ? r.devices : "no Level Zero GPU");
	return n == r.n_devices ? n : -1; /* one of an IP version not known: -1 */
}

/* Every target (none: this machine), then the export.  Ctrl-C and
 * SIGTERM stop the run between recipes (the workers, in the same process
 * group, get Ctrl-C themselves). */
static int warm_targets(struct jc_cache *cache, const struct recipes *rs,
			const struct jc_warm_target *const *chosen, size_t n_chosen,
			const struct options *o)
{
	char workdir[PATH_MAX];
	const char *tmp = getenv("TMPDIR");
	snprintf(workdir, sizeof workdir, "%s/jitcache-warm.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(workdir)) {
		fprintf(stderr, "jitcache warm: cannot create %s (%s)\n", workdir, strerror(errno));
		return 1;
	}
	struct sigaction sa = { .sa_handler = jc_warm_interrupt }, old_int, old_term;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	signal(SIGPIPE, SIG_IGN);
	int64_t start_ns = jc_wall_ns();
	int rc = 0, warmed = 0, too_old = 0;
	if (n_chosen && driver_names_ip_versions(chosen[0], o, workdir) != 0) {
		say_driver_too_old(chosen, n_chosen, o->export_file);
		rc = too_old = 1;
	} else if (jc_warm_interrupted()) {
		fprintf(stderr, "jitcache warm: interrupted before any target was warmed\n");
		rc = 130;
	} else {
		rc = warm_runs(rs, chosen, n_chosen, o, workdir, &warmed);
		jc_cache_flush(cache);
	}
	remove_workdir(workdir);
	/* A pack of nothing would only look like a warm cache. */
	if (o->export_file && !jc_warm_interrupted() && warmed) {
		int e = export_warmed(cache, o->export_file, start_ns);
		rc = rc ? rc : e;
	} else if (o->export_file && !jc_warm_interrupted() && !too_old) {
		fprintf(stderr, "jitcache warm: no target was warmed; %s not written\n",
			o->export_file);
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	return rc;
}

int jc_warm_main(const struct jc_config *cfg, struct jc_cache *cache, int argc, char **argv)
{
	const struct jc_warm_target *chosen[N_TARGETS];
	size_t n_chosen = 0;
	int list = 0;
	char lib[PATH_MAX], replay[PATH_MAX];
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	struct options o = { .jobs = cores > 0 ? (int)cores : 1 };
	int rc = parse(argc, argv, &o, chosen, &n_chosen, &list);
	if (rc != 0)
		return rc;
	if (list) {
		list_targets();
		return 0;
	}
	if (cfg->disable) {
		fprintf(stderr, "jitcache warm: caching is off (disable = 1, from %s): nothing "
			"would be stored\n", cfg->disable_from);
		return 1;
	}
	if (find_programs(&o, lib, replay) != 0)
		return 1;
	struct recipes rs = { 0 };
	if (collect_recipes(cfg, cache, &rs) != 0) {
		fprintf(stderr, "jitcache warm: out of memory reading the recipes\n");
		rc = 1;
	} else if (rs.n == 0) {
		printf("no recipes in %s: nothing to warm (a recipe is recorded with each "
		       "compile while the recipes setting is on)\n", jc_cache_dir(cache));
	} else {
		rc = warm_targets(cache, &rs, chosen, n_chosen, &o);
	}
	recipes_free(&rs);
	return rc;
}
