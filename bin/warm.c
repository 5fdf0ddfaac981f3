// SPDX-License-Identifier: MIT
/* `jitcache warm` (see warm.h). */
#include "bin/warm.h"
#include "bin/admin.h"
#include "config/clock.h"

#include "tiers/archive.h"
#include "key/recipe.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- targets ------------------------------------------------------------- */

/* A GPU to prewarm for without having it: the driver's simulation settings
 * that give its real identity (its IP version is the key's view of a device;
 * the device id is keyed only by a driver that reports no IP version), and
 * its real name (NEO's devices_base.inl), which the
 * simulation reports only through OverrideDeviceName.  The IP versions are
 * what Intel's 2026 driver (NEO 26.27, IGC 2.40) reports for each. */
struct target {
	const char *name, *gpu, *product;
	unsigned id, ip, revision; /* revision: OverrideRevision, or 0 */
	const char *note;
};

#define IP(a, b, c) ((unsigned)(a) << 22 | (unsigned)(b) << 14 | (unsigned)(c))

static const struct target targets[] = {
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

/* The 2026 driver's simulation of a GPU without one (TESTBED.md). */
static const char *const sim_base[] = {
	"NEOReadDebugKeys=1", "SetCommandStreamReceiver=1", "UseAubStream=0",
	"HardwareInfoOverride=1x4x16", "UseExternalAllocatorForSshAndDsh=0",
	"OverrideMaxWorkgroupSize=1024", NULL,
};
/* Settings of the user's own that would change which GPU is simulated. */
static const char *const sim_cleared[] = {
	"ProductFamilyOverride", "ForceDeviceId", "OverrideRevision", "OverrideDeviceName",
	"HardwareInfoOverride", "UseBindlessMode", NULL,
};

static const char *ip_text(unsigned ip, char buf[32])
{
	snprintf(buf, 32, "%u.%u.%u", ip >> 22, (ip >> 14) & 0xff, ip & 0x3fff);
	return buf;
}

static void list_targets(void)
{
	char ip[32];
	printf("%-7s %-32s %-6s %-8s %-10s %s\n", "TARGET", "GPU (name reported)", "ID", "IP",
	       "SIMULATED", "SETTINGS");
	for (size_t i = 0; i < N_TARGETS; i++) {
		const struct target *t = &targets[i];
		printf("%-7s %-32s 0x%04x %-8s %-10s ProductFamilyOverride=%s ForceDeviceId=%04X",
		       t->name, t->gpu, t->id, ip_text(t->ip, ip), t->product, t->product, t->id);
		if (t->revision)
			printf(" OverrideRevision=%u", t->revision);
		printf("%s%s\n", *t->note ? "   # " : "", t->note);
	}
}

static const struct target *find_target(const char *name)
{
	for (size_t i = 0; i < N_TARGETS; i++)
		if (strcmp(targets[i].name, name) == 0)
			return &targets[i];
	return NULL;
}

/* In a worker, before exec: simulate target t. */
static void simulate(const struct target *t)
{
	char value[64];
	for (size_t i = 0; sim_cleared[i]; i++)
		unsetenv(sim_cleared[i]);
	for (size_t i = 0; sim_base[i]; i++)
		putenv((char *)(uintptr_t)sim_base[i]);
	setenv("ProductFamilyOverride", t->product, 1);
	snprintf(value, sizeof value, "%04X", t->id);
	setenv("ForceDeviceId", value, 1);
	if (t->revision) {
		snprintf(value, sizeof value, "%u", t->revision);
		setenv("OverrideRevision", value, 1);
	}
	setenv("OverrideDeviceName", t->gpu, 1);
}

/* ---- recipes --------------------------------------------------------------- */

struct recipe {
	void *bytes;
	size_t size;
	uint64_t request;
};

struct recipes {
	struct recipe *v;
	size_t n, cap;
	unsigned untrusted; /* a layer's, refused under trusted_keys */
	unsigned foreign;   /* a layer's naming an included file by absolute path */
};

/* Whether an OpenCL recipe carries an included file by absolute path. */
static int names_absolute(const void *data, size_t size)
{
	struct jc_recipe r;
	int absolute = 0;
	if (jc_recipe_decode(data, size, &r) != 0)
		return 0;
	for (size_t i = 0; r.api == JC_RECIPE_CL && i < r.cl_n_files; i++)
		absolute |= r.cl_files[i].path[0] == '/';
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
	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? 2 * rs->cap : 64;
		struct recipe *v = realloc(rs->v, cap * sizeof *v);
		if (!v)
			return -1;
		rs->v = v, rs->cap = cap;
	}
	void *copy = malloc(size);
	if (!copy)
		return -1;
	memcpy(copy, data, size);
	rs->v[rs->n++] = (struct recipe){ copy, size, request };
	return 0;
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

/* ---- workers --------------------------------------------------------------- */

struct worker {
	pid_t pid;
	int in, out;          /* its stdin (we write), its stdout (we read) */
	char line[1024];
	size_t len;
	int ready, busy;
};

struct run {
	const struct target *target; /* NULL: this machine's own GPUs */
	const char *lib, *replay, *workdir;
	struct worker *w;
	int n_workers, alive;
	const struct recipes *rs;
	size_t next, done, failed, skipped;
	char devices[512];    /* what the first worker found, for the report */
	int n_devices;
	const struct worker *reporter; /* that worker */
	const char *refused;  /* why the target cannot be warmed here */
	int no_ip;            /* refused: the driver reports no IP version at all */
	char why[512];
	double start;
	int progress;         /* 1: a bar redrawn on stderr (a terminal); 2: a line at
				 most every PROGRESS_EVERY s and at the end (--progress:
				 for a log, as the apt hook's) */
	double last_line;
};

#define PROGRESS_EVERY 10.0

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The worker process: its stdin and stdout are the pipes, the library
 * preloaded after any the user has, and the target simulated. */
static void exec_worker(const struct run *r, int in, int out)
{
	char preload[PATH_MAX * 2];
	const char *old = getenv("LD_PRELOAD");
	snprintf(preload, sizeof preload, "%s%s%s", old && *old ? old : "", old && *old ? ":" : "",
		 r->lib);
	setenv("LD_PRELOAD", preload, 1);
	if (r->target)
		simulate(r->target);
	if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || chdir(r->workdir) != 0)
		_exit(127);
	execl(r->replay, r->replay, (char *)NULL);
	fprintf(stderr, "jitcache warm: cannot run %s (%s)\n", r->replay, strerror(errno));
	_exit(127);
}

static int start_worker(const struct run *r, struct worker *w)
{
	int to[2], from[2];
	if (pipe2(to, O_CLOEXEC) != 0)
		return -1;
	if (pipe2(from, O_CLOEXEC) != 0) {
		close(to[0]), close(to[1]);
		return -1;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0)
		exec_worker(r, to[0], from[1]);
	close(to[0]), close(from[1]);
	if (pid < 0) {
		close(to[1]), close(from[0]);
		return -1;
	}
	*w = (struct worker){ .pid = pid, .in = to[1], .out = from[0] };
	return 0;
}

static int write_all(int fd, const void *data, size_t size)
{
	const char *p = data;
	while (size) {
		ssize_t n = write(fd, p, size);
		if (n < 0 && errno == EINTR && !interrupted)
			continue;
		if (n <= 0)
			return -1;
		p += n, size -= (size_t)n;
	}
	return 0;
}

/* Give the worker the next recipe, or tell it there are no more. */
static void give(struct run *r, struct worker *w)
{
	if (w->in < 0)
		return;
	if (r->next >= r->rs->n || interrupted || r->refused) {
		close(w->in);
		w->in = -1;
		return;
	}
	const struct recipe *x = &r->rs->v[r->next++];
	uint8_t head[8];
	for (int i = 0; i < 8; i++)
		head[i] = (uint8_t)((uint64_t)x->size >> (8 * i));
	w->busy = 1;
	if (write_all(w->in, head, 8) != 0 || write_all(w->in, x->bytes, x->size) != 0) {
		close(w->in);
		w->in = -1;
	}
}

static void draw_progress(struct run *r)
{
	size_t total = r->rs->n, width = 30, filled = total ? r->done * width / total : width;
	double elapsed = now_s() - r->start;
	double eta = r->done ? elapsed / (double)r->done * (double)(total - r->done) : 0;
	char bar[64];
	memset(bar, '#', filled);
	memset(bar + filled, '.', width - filled);
	bar[width] = '\0';
	if (r->progress == 2) {
		if (r->done < total && now_s() - r->last_line < PROGRESS_EVERY)
			return;
		r->last_line = now_s();
	}
	fprintf(stderr, "%s%s [%s] %zu/%zu", r->progress == 2 ? "" : "\r",
		r->target ? r->target->name : "warm", bar, r->done, total);
	if (r->failed)
		fprintf(stderr, ", %zu failed", r->failed);
	if (r->done)
		fprintf(stderr, ", ETA %d:%02d ", (int)eta / 60, (int)eta % 60);
	if (r->progress == 2)
		fprintf(stderr, "(%.0f s)\n", elapsed);
	fflush(stderr);
}

/* Whether the simulated GPU is the target: its device id and IP version,
 * as the key sees a device. */
static void check_device(struct run *r, const char *line)
{
	unsigned vendor, id, ip;
	int name = 0;
	char ipbuf[32];
	if (sscanf(line, "device %x %x %x %n", &vendor, &id, &ip, &name) != 3 || !name)
		return;
	size_t used = strlen(r->devices);
	snprintf(r->devices + used, sizeof r->devices - used, "%s%s (0x%04x, IP %s)",
		 used ? "; " : "", line + name, id, ip_text(ip, ipbuf));
	r->n_devices++;
	if (r->target && ip == 0) {
		snprintf(r->why, sizeof r->why, "the installed driver reports no IP version for it "
			 "(it is too old to simulate it as the real GPU)");
		r->refused = r->why;
		r->no_ip = 1;
	} else if (r->target && (id != r->target->id || ip != r->target->ip)) {
		snprintf(r->why, sizeof r->why, "the installed driver simulates it as 0x%04x with "
			 "IP version %s", id, ip_text(ip, ipbuf));
		r->refused = r->why;
	}
}

static void handle_line(struct run *r, struct worker *w, const char *line)
{
	if (!w->ready && strncmp(line, "device ", 7) == 0) {
		/* Every worker sees the same devices: the first to speak says. */
		if (!r->reporter)
			r->reporter = w;
		if (w == r->reporter)
			check_device(r, line);
	} else if (!w->ready && strncmp(line, "ready", 5) == 0) {
		w->ready = 1;
		give(r, w);
	} else if (!w->ready && strncmp(line, "none ", 5) == 0) {
		snprintf(r->why, sizeof r->why, "%s", line + 5);
		r->refused = r->why;
	} else if (w->busy) {
		w->busy = 0;
		r->done++;
		if (strncmp(line, "fail", 4) == 0)
			r->failed++;
		else if (strncmp(line, "skip", 4) == 0)
			r->skipped++;
		if (r->progress)
			draw_progress(r);
		give(r, w);
	}
}

/* Read what the worker wrote; 0 at its end. */
static int read_worker(struct run *r, struct worker *w)
{
	ssize_t n = read(w->out, w->line + w->len, sizeof w->line - 1 - w->len);
	if (n < 0 && errno == EINTR)
		return 1;
	if (n <= 0)
		return 0;
	w->len += (size_t)n;
	char *nl;
	while ((nl = memchr(w->line, '\n', w->len))) {
		*nl = '\0';
		handle_line(r, w, w->line);
		w->len -= (size_t)(nl + 1 - w->line);
		memmove(w->line, nl + 1, w->len);
	}
	if (w->len == sizeof w->line - 1)
		w->len = 0; /* a line too long to be ours */
	return 1;
}

static void end_worker(struct run *r, struct worker *w)
{
	if (w->in >= 0)
		close(w->in);
	close(w->out);
	w->in = w->out = -1;
	waitpid(w->pid, NULL, 0);
	if (w->busy) { /* it died on a recipe: the driver crashed on it */
		r->done++;
		r->failed++;
		w->busy = 0;
	}
	r->alive--;
}

static void stop_all(struct run *r)
{
	for (int i = 0; i < r->n_workers; i++)
		if (r->w[i].out >= 0)
			kill(r->w[i].pid, SIGTERM);
}

/* Hand out the recipes until all are done or the run is interrupted. */
static void drive(struct run *r)
{
	struct pollfd *p = calloc((size_t)r->n_workers, sizeof *p);
	int stopped = 0;
	while (p && r->alive > 0) {
		if ((interrupted || r->refused) && !stopped) {
			stop_all(r);
			stopped = 1;
		}
		for (int i = 0; i < r->n_workers; i++)
			p[i] = (struct pollfd){ .fd = r->w[i].out, .events = POLLIN };
		if (poll(p, (nfds_t)r->n_workers, -1) < 0 && errno != EINTR)
			break;
		for (int i = 0; i < r->n_workers; i++)
			if (r->w[i].out >= 0 && (p[i].revents & (POLLIN | POLLHUP | POLLERR)) &&
			    !read_worker(r, &r->w[i]))
				end_worker(r, &r->w[i]);
	}
	free(p);
}

/* ---- one target ------------------------------------------------------------ */

struct options {
	int jobs;
	int progress_lines;
	const char *lib, *replay;
	const char *export_file;
};

static void say_result(const struct run *r, const struct jc_cache_stats *before,
		       const struct jc_cache_stats *after)
{
	double s = now_s() - r->start;
	unsigned long long compiled = after->misses - before->misses;
	unsigned long long cached = after->hits - before->hits;
	if (r->target)
		printf("warm %s (%s, simulated as %s):", r->target->name, r->target->gpu,
		       r->devices);
	else
		printf("warm this machine (%d GPU%s: %s):", r->n_devices, r->n_devices == 1 ? "" : "s",
		       r->devices);
	char of[64];
	printf(" %zu of %s in %.1f s (%.2f/s): %llu compiled, %llu already cached, "
	       "%zu failed", r->done, jc_admin_count(r->rs->n, "recipe", "recipes", of), s,
	       s > 0 ? (double)r->done / s : 0.0, compiled, cached, r->failed);
	if (r->skipped)
		printf(", %zu skipped", r->skipped);
	printf("\n");
}

/* 0: warmed; 1: some failed; 130: interrupted; REFUSED: nothing was
 * warmed (the target cannot be simulated, or the workers did not start). */
#define REFUSED 3
static int warm_one(struct jc_cache *cache, const struct recipes *rs,
		    const struct target *target, const struct options *o, const char *workdir)
{
	struct jc_cache_stats before = { 0 }, after = { 0 };
	struct run r = { .target = target, .lib = o->lib, .replay = o->replay,
			 .workdir = workdir, .rs = rs, .start = now_s(),
			 .progress = o->progress_lines ? 2 : isatty(2) };
	r.n_workers = o->jobs < (int)rs->n ? o->jobs : (int)rs->n;
	if (r.n_workers < 1)
		r.n_workers = 1;
	r.w = calloc((size_t)r.n_workers, sizeof *r.w);
	if (!r.w)
		return 1;
	jc_cache_shared_stats(cache, &before);
	for (int i = 0; i < r.n_workers && start_worker(&r, &r.w[r.alive]) == 0; i++)
		r.alive++;
	r.n_workers = r.alive;
	drive(&r);
	free(r.w);
	jc_cache_flush(cache);
	jc_cache_shared_stats(cache, &after);
	if (r.progress == 1 && r.done)
		fputc('\n', stderr);
	if (r.refused || !r.n_devices) {
		if (target)
			fprintf(stderr, "jitcache warm: cannot prewarm for %s (%s, 0x%04x): %s\n",
				target->name, target->gpu, target->id,
				r.refused ? r.refused : "the driver simulation did not start");
		else
			fprintf(stderr, "jitcache warm: no GPU to warm for: %s\n",
				r.refused ? r.refused : "the replayer did not start");
		return REFUSED;
	}
	say_result(&r, &before, &after);
	if (interrupted) {
		fprintf(stderr, "jitcache warm: interrupted; what was compiled is stored, and "
			"running it again resumes\n");
		return 130;
	}
	return r.failed ? 1 : 0;
}

/* ---- the command ------------------------------------------------------------ */

void jc_warm_usage(FILE *out)
{
	fputs("       jitcache warm [-j N] [--for TARGET[,TARGET...]] [--export FILE] [--progress]\n"
	      "                                      compile every recorded request (recipe)\n"
	      "                                      missing for this machine's GPUs and driver,\n"
	      "                                      N at a time (default: the number of cores);\n"
	      "                                      --for: for GPUs this machine does not have,\n"
	      "                                      through the driver's simulation; --export:\n"
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

static int parse(int argc, char **argv, struct options *o, const struct target **chosen,
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
			char names[256];
			snprintf(names, sizeof names, "%s", v);
			for (char *s, *t = strtok_r(names, ",", &s); t; t = strtok_r(NULL, ",", &s)) {
				const struct target *x = find_target(t);
				if (!x) {
					fprintf(stderr, "jitcache warm: unknown target '%s' (jitcache "
						"warm --list shows them)\n", t);
					return 2;
				}
				if (*n_chosen < N_TARGETS)
					chosen[(*n_chosen)++] = x;
			}
			i++;
		} else if (strcmp(a, "--export") == 0 && v) {
			o->export_file = v;
			i++;
		} else {
			return usage_error("usage: warm [-j N] [--for TARGET[,...]] [--export FILE] | "
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
static int driver_names_ip_versions(const struct target *t, const struct options *o,
				    const char *workdir)
{
	const struct recipes none = { 0 };
	struct worker w;
	struct run r = { .target = t, .lib = o->lib, .replay = o->replay, .workdir = workdir,
			 .rs = &none, .w = &w, .n_workers = 1 };
	if (start_worker(&r, &w) != 0)
		return 0;
	r.alive = 1;
	drive(&r);
	return r.no_ip ? -1 : 0;
}

static void say_driver_too_old(const struct target *const *chosen, size_t n_chosen,
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

/* Each target in turn (none: this machine), then the export.  Ctrl-C and
 * SIGTERM stop the run between recipes (the workers, in the same process
 * group, get Ctrl-C themselves). */
static int warm_targets(struct jc_cache *cache, const struct recipes *rs,
			const struct target *const *chosen, size_t n_chosen, const struct options *o)
{
	char workdir[PATH_MAX];
	const char *tmp = getenv("TMPDIR");
	snprintf(workdir, sizeof workdir, "%s/jitcache-warm.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(workdir)) {
		fprintf(stderr, "jitcache warm: cannot create %s (%s)\n", workdir, strerror(errno));
		return 1;
	}
	struct sigaction sa = { .sa_handler = on_interrupt }, old_int, old_term;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	signal(SIGPIPE, SIG_IGN);
	int64_t start_ns = jc_wall_ns();
	int rc = 0, warmed = 0, too_old = 0;
	if (n_chosen && driver_names_ip_versions(chosen[0], o, workdir) != 0) {
		say_driver_too_old(chosen, n_chosen, o->export_file);
		rc = too_old = 1;
	} else if (interrupted) {
		fprintf(stderr, "jitcache warm: interrupted before any target was warmed\n");
		rc = 130;
	}
	for (size_t i = 0; !too_old && i < (n_chosen ? n_chosen : 1) && !interrupted; i++) {
		int one = warm_one(cache, rs, n_chosen ? chosen[i] : NULL, o, workdir);
		warmed += one != REFUSED;
		one = one == REFUSED ? 1 : one;
		rc = one > rc ? one : rc;
	}
	remove_workdir(workdir);
	/* A pack of nothing would only look like a warm cache. */
	if (o->export_file && !interrupted && warmed) {
		int e = export_warmed(cache, o->export_file, start_ns);
		rc = rc ? rc : e;
	} else if (o->export_file && !interrupted && !too_old) {
		fprintf(stderr, "jitcache warm: no target was warmed; %s not written\n",
			o->export_file);
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	return rc;
}

int jc_warm_main(const struct jc_config *cfg, struct jc_cache *cache, int argc, char **argv)
{
	const struct target *chosen[N_TARGETS];
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
