// SPDX-License-Identifier: MIT
/* The workers of `jitcache warm` (see warm_pool.h). */
#include "bin/warm_pool.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t interrupted;

void jc_warm_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
}

int jc_warm_interrupted(void)
{
	return interrupted;
}

const char *jc_warm_ip_text(unsigned ip, char buf[32])
{
	snprintf(buf, 32, "%u.%u.%u", ip >> 22, (ip >> 14) & 0xff, ip & 0x3fff);
	return buf;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- the simulation ------------------------------------------------------- */

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

/* In a worker, before exec: simulate target t (its real identity: the
 * settings of bin/warm.c's table, and its real name, which the simulation
 * reports only through OverrideDeviceName). */
static void simulate(const struct jc_warm_target *t)
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

/* ---- one worker ------------------------------------------------------------- */

struct worker {
	struct jc_warm_run *run; /* NULL: the slot is free */
	pid_t pid;
	int in, out;             /* its stdin (we write), its stdout (we read) */
	char line[1024];
	size_t len;
	int ready;
	const struct jc_warm_recipe *busy; /* the recipe it is on */
};

struct state {
	const struct jc_warm_pool *p;
	struct jc_warm_run *runs;
	size_t n_runs;
	size_t *order;           /* the recipes, largest first */
	struct worker *w;
	int alive;
	size_t done, total;
	double start, last_line;
	const char *label;
};

/* The worker process: its stdin and stdout are the pipes, the library
 * preloaded after any the user has, the target simulated, and its counts
 * appended to its target's stats file (the user's stats_log, if any, is
 * not told of warm's workers). */
static void exec_worker(const struct jc_warm_pool *p, const struct jc_warm_run *r, int in,
			int out)
{
	char preload[PATH_MAX * 2];
	const char *old = getenv("LD_PRELOAD");
	snprintf(preload, sizeof preload, "%s%s%s", old && *old ? old : "", old && *old ? ":" : "",
		 p->lib);
	setenv("LD_PRELOAD", preload, 1);
	setenv("JITCACHE_STATS_LOG", r->stats, 1);
	if (r->target)
		simulate(r->target);
	if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || chdir(p->workdir) != 0)
		_exit(127);
	execl(p->replay, p->replay, (char *)NULL);
	fprintf(stderr, "jitcache warm: cannot run %s (%s)\n", p->replay, strerror(errno));
	_exit(127);
}

static int start_worker(struct state *s, struct jc_warm_run *r, struct worker *w)
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
		exec_worker(s->p, r, to[0], from[1]);
	close(to[0]), close(from[1]);
	if (pid < 0) {
		close(to[1]), close(from[0]);
		return -1;
	}
	*w = (struct worker){ .run = r, .pid = pid, .in = to[1], .out = from[0] };
	if (!r->started++)
		r->start = now_s();
	r->starting++;
	r->alive++;
	s->alive++;
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

static void close_input(struct worker *w)
{
	if (w->in >= 0)
		close(w->in);
	w->in = -1;
}

/* Give the worker its target's next recipe, or tell it there are no more. */
static void give(struct state *s, struct worker *w)
{
	struct jc_warm_run *r = w->run;
	if (w->in < 0)
		return;
	if (r->next >= s->p->n_recipes || interrupted || r->refused) {
		close_input(w);
		return;
	}
	const struct jc_warm_recipe *x = &s->p->recipes[s->order[r->next++]];
	uint8_t head[8];
	for (int i = 0; i < 8; i++)
		head[i] = (uint8_t)((uint64_t)x->size >> (8 * i));
	w->busy = x;
	if (write_all(w->in, head, 8) != 0 || write_all(w->in, x->bytes, x->size) != 0)
		close_input(w);
}

/* ---- what the workers say ---------------------------------------------------- */

#define PROGRESS_EVERY 10.0

static void draw_progress(struct state *s)
{
	size_t total = s->total, width = 30, filled = total ? s->done * width / total : width;
	double elapsed = now_s() - s->start;
	double eta = s->done ? elapsed / (double)s->done * (double)(total - s->done) : 0;
	char bar[64];
	memset(bar, '#', filled);
	memset(bar + filled, '.', width - filled);
	bar[width] = '\0';
	if (s->p->progress == 2) {
		if (s->done < total && now_s() - s->last_line < PROGRESS_EVERY)
			return;
		s->last_line = now_s();
	}
	size_t failed = 0;
	for (size_t i = 0; i < s->n_runs; i++)
		failed += s->runs[i].failed;
	fprintf(stderr, "%s%s [%s] %zu/%zu", s->p->progress == 2 ? "" : "\r", s->label, bar,
		s->done, total);
	if (failed)
		fprintf(stderr, ", %zu failed", failed);
	if (s->done)
		fprintf(stderr, ", ETA %d:%02d ", (int)eta / 60, (int)eta % 60);
	if (s->p->progress == 2)
		fprintf(stderr, "(%.0f s)\n", elapsed);
	fflush(stderr);
}

/* Whether the simulated GPU is the target: its device id and IP version,
 * as the key sees a device. */
static void check_device(struct jc_warm_run *r, const char *line)
{
	unsigned vendor, id, ip;
	int name = 0;
	char ipbuf[32];
	if (sscanf(line, "device %x %x %x %n", &vendor, &id, &ip, &name) != 3 || !name)
		return;
	size_t used = strlen(r->devices);
	snprintf(r->devices + used, sizeof r->devices - used, "%s%s (0x%04x, IP %s)",
		 used ? "; " : "", line + name, id, jc_warm_ip_text(ip, ipbuf));
	r->n_devices++;
	if (r->target && ip == 0) {
		snprintf(r->why, sizeof r->why, "the installed driver reports no IP version for it "
			 "(it is too old to simulate it as the real GPU)");
		r->refused = r->why;
		r->no_ip = 1;
	} else if (r->target && (id != r->target->id || ip != r->target->ip)) {
		snprintf(r->why, sizeof r->why, "the installed driver simulates it as 0x%04x with "
			 "IP version %s", id, jc_warm_ip_text(ip, ipbuf));
		r->refused = r->why;
	}
}

static void finished_one(struct state *s, struct worker *w, const char *line)
{
	struct jc_warm_run *r = w->run;
	w->busy = NULL;
	r->done++;
	s->done++;
	if (strncmp(line, "fail", 4) == 0)
		r->failed++;
	else if (strncmp(line, "skip", 4) == 0)
		r->skipped++;
	if (s->p->progress)
		draw_progress(s);
	give(s, w);
}

static void handle_line(struct state *s, struct worker *w, const char *line)
{
	struct jc_warm_run *r = w->run;
	if (!w->ready && strncmp(line, "device ", 7) == 0) {
		/* Every worker of a target sees the same devices: the first to
		 * speak says. */
		if (!r->reporter)
			r->reporter = w->pid;
		if (w->pid == r->reporter)
			check_device(r, line);
	} else if (!w->ready && strncmp(line, "ready", 5) == 0) {
		w->ready = 1;
		r->starting--;
		give(s, w);
	} else if (!w->ready && strncmp(line, "none ", 5) == 0) {
		snprintf(r->why, sizeof r->why, "%s", line + 5);
		r->refused = r->why;
	} else if (w->busy) {
		finished_one(s, w, line);
	}
}

/* Read what the worker wrote; 0 at its end. */
static int read_worker(struct state *s, struct worker *w)
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
		handle_line(s, w, w->line);
		w->len -= (size_t)(nl + 1 - w->line);
		memmove(w->line, nl + 1, w->len);
	}
	if (w->len == sizeof w->line - 1)
		w->len = 0; /* a line too long to be ours */
	return 1;
}

static void end_worker(struct state *s, struct worker *w)
{
	struct jc_warm_run *r = w->run;
	close_input(w);
	close(w->out);
	waitpid(w->pid, NULL, 0);
	if (w->busy) { /* it died on a recipe: the driver crashed on it */
		r->done++, s->done++;
		r->failed++;
	}
	if (!w->ready) {
		r->starting--;
		if (!r->refused) /* it ended before it could replay anything */
			r->refused = "the driver simulation did not start";
	}
	r->alive--;
	s->alive--;
	if (!r->alive)
		r->seconds = now_s() - r->start;
	*w = (struct worker){ .in = -1, .out = -1 };
}

/* ---- the pool ------------------------------------------------------------------ */

/* Whether the run needs another worker: its first (which names the
 * devices), or one for recipes its workers starting now will not take. */
static int wants_worker(const struct state *s, const struct jc_warm_run *r)
{
	if (interrupted || r->refused)
		return 0;
	if (!r->started)
		return 1;
	return s->p->n_recipes - r->next > (size_t)r->starting;
}

/* Start workers in the free slots, for the first runs that want them. */
static void fill_slots(struct state *s)
{
	int jobs = s->p->jobs;
	for (int i = 0; i < jobs; i++) {
		if (s->w[i].run)
			continue;
		size_t k = 0;
		while (k < s->n_runs && !wants_worker(s, &s->runs[k]))
			k++;
		if (k == s->n_runs)
			return;
		if (start_worker(s, &s->runs[k], &s->w[i]) != 0) {
			if (!s->runs[k].alive) /* else its workers carry on */
				s->runs[k].refused = "the replayer did not start";
			return;
		}
	}
}

static void stop_refused(struct state *s)
{
	for (int i = 0; i < s->p->jobs; i++) {
		struct worker *w = &s->w[i];
		if (w->run && (interrupted || w->run->refused) && w->in >= 0) {
			close_input(w);
			kill(w->pid, SIGTERM);
		}
	}
}

/* Hand out the recipes until all are done or the run is interrupted. */
static void drive(struct state *s)
{
	int jobs = s->p->jobs;
	struct pollfd *p = calloc((size_t)jobs, sizeof *p);
	while (p) {
		fill_slots(s);
		if (!s->alive)
			break;
		stop_refused(s);
		for (int i = 0; i < jobs; i++)
			p[i] = (struct pollfd){ .fd = s->w[i].run ? s->w[i].out : -1,
						.events = POLLIN };
		if (poll(p, (nfds_t)jobs, -1) < 0 && errno != EINTR)
			break;
		for (int i = 0; i < jobs; i++)
			if (s->w[i].run && (p[i].revents & (POLLIN | POLLHUP | POLLERR)) &&
			    !read_worker(s, &s->w[i]))
				end_worker(s, &s->w[i]);
	}
	free(p);
}

/* Its workers' hits and misses, from their stats_log lines. */
static void count_stats(struct jc_warm_run *r)
{
	FILE *f = fopen(r->stats, "re");
	char line[4096];
	while (f && fgets(line, sizeof line, f)) {
		const char *h = strstr(line, "\"hits\": "), *m = strstr(line, "\"misses\": ");
		if (h)
			r->found += strtoull(h + 8, NULL, 10);
		if (m)
			r->compiled += strtoull(m + 10, NULL, 10);
	}
	if (f)
		fclose(f);
}

static const struct jc_warm_recipe *sort_base;

static int larger_first(const void *a, const void *b)
{
	size_t x = sort_base[*(const size_t *)a].size, y = sort_base[*(const size_t *)b].size;
	return x < y ? 1 : x > y ? -1 : 0;
}

int jc_warm_pool_run(const struct jc_warm_pool *p, struct jc_warm_run *runs, size_t n_runs)
{
	struct state s = { .p = p, .runs = runs, .n_runs = n_runs, .start = now_s(),
			   .label = n_runs == 1 && runs[0].target ? runs[0].target->name : "warm" };
	s.order = malloc((p->n_recipes ? p->n_recipes : 1) * sizeof *s.order);
	s.w = calloc((size_t)p->jobs, sizeof *s.w);
	if (!s.order || !s.w) {
		free(s.order), free(s.w);
		return -1;
	}
	for (size_t i = 0; i < p->n_recipes; i++)
		s.order[i] = i;
	sort_base = p->recipes;
	qsort(s.order, p->n_recipes, sizeof *s.order, larger_first);
	for (int i = 0; i < p->jobs; i++)
		s.w[i] = (struct worker){ .in = -1, .out = -1 };
	for (size_t i = 0; i < n_runs; i++) {
		snprintf(runs[i].stats, sizeof runs[i].stats, "%s/stats.%zu", p->workdir, i);
		s.total += p->n_recipes;
	}
	drive(&s);
	if (p->progress == 1 && s.done)
		fputc('\n', stderr);
	for (size_t i = 0; i < n_runs; i++)
		count_stats(&runs[i]);
	free(s.order);
	free(s.w);
	return 0;
}
