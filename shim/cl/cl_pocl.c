// SPDX-License-Identifier: MIT
/* The programs cl_pocl.h watches, and the refresh of their entries: a list
 * under one mutex, the refresh made outside it. */
#include "shim/cl/cl_pocl.h"
#include "shim/cl/cl_payload.h"
#include "config/clock.h"
#include "shim/got.h"
#include "shim/shim.h"
#include "store/entry.h"
#include "store/fsutil.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

struct watch {
	struct watch *next;
	cl_program program;
	pid_t pid;           /* a child of fork() leaves its parent's alone */
	struct jc_key key;
	cl_uint ndev;
	char **dirs;         /* each device's program directory, absolute; NULL: none */
	size_t *files;       /* the files its binary carried in its kernels' directories */
	uint64_t wg_cpu, wg_wall; /* PoCL's work-group compiles in them since (ns) */
	int busy;            /* a late one being refreshed: not dropped */
	int pack;            /* one device, watched as a pack of its directory */
	int taking;          /* the application is asking for its binary (jc_pocl_taking()) */
	char *taken;         /* the generic functions PoCL compiled for that, timed */
	/* One device, PoCL's cache off: the directory of the latest program
	 * the application made of this one's binary, which jitcache named
	 * anew (jc_pocl_dir_copied); its work-group code is this one's. */
	char *alias;
	/* The entry's work-group functions timed (its WG_TIMES), and those
	 * PoCL looked for in this program so far, credited or not: "REL\n"
	 * each.  Under the lock. */
	char *times, *seen;
};

static struct watch *watches;
/* Watches of programs released with PoCL's cache off, whose directories
 * PoCL removes only when it frees the program, after the commands still
 * queued for its kernels: the work-group functions PoCL compiles for those
 * are added as each is renamed into place (file_renamed).  The latest
 * MAX_LATE; `late` counts them, for the hooks to skip the lock. */
#define MAX_LATE 64
static struct watch *lates;
static int late;
/* One refresh of a late watch at a time: two of one program at once could
 * store the earlier reading of its directory last. */
static pthread_mutex_t late_refresh = PTHREAD_MUTEX_INITIALIZER;
/* Kernels of watched programs the application let go of (cl_program_map.h
 * counts them no more), with the application's references to each (one
 * retained or cloned since is not counted: the program is then refreshed
 * early, never wrongly). */
struct held {
	struct held *next;
	cl_kernel kernel;
	cl_program program;
	cl_uint refs;
};
static struct held *helds;
static int watching; /* lets processes with nothing watched skip the lock */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void watch_free(struct watch *w)
{
	if (!w)
		return;
	for (cl_uint i = 0; w->dirs && i < w->ndev; i++)
		free(w->dirs[i]);
	free(w->dirs);
	free(w->files);
	free(w->alias);
	free(w->taken);
	free(w->times);
	free(w->seen);
	free(w);
}

/* The directory PoCL built or unpacked the binary in, absolute (PoCL's
 * cache directory may be given relative to the current one, which the
 * application may change later), if it holds a program.bc of the binary's
 * size; NULL otherwise. */
static char *program_dir(const struct jc_pocl_binary *b, int unmade)
{
	char top[PATH_MAX], dir[PATH_MAX], bc[PATH_MAX + 16];
	if (jc_pocl_topdir(top, sizeof top) != 0 ||
	    snprintf(dir, sizeof dir, "%s/%s", top, b->dir) >= (int)sizeof dir)
		return NULL;
	if (unmade) { /* where PoCL will unpack it: the top directory resolved */
		char *real_top = jc_fs_realpath(top);
		int fits = real_top && snprintf(dir, sizeof dir, "%s/%s", real_top, b->dir) <
					       (int)sizeof dir;
		free(real_top);
		return fits ? strdup(dir) : NULL;
	}
	char *real = jc_fs_realpath(dir);
	if (real && (snprintf(bc, sizeof bc, "%s/program.bc", real) >= (int)sizeof bc ||
		     jc_fs_file_size(bc) != (int64_t)b->program_bc_size)) {
		free(real);
		real = NULL;
	}
	return real;
}

static int refresh(const struct watch *w, uint64_t wg_cpu, uint64_t wg_wall, const char *timed);
static void refresh_at_exit(void);
static void hook_pocl(void);
static pthread_once_t hooked = PTHREAD_ONCE_INIT;

static int access_hooked; /* PoCL's access() passes through pocl_access() */

int jc_pocl_hook(void)
{
	pthread_once(&hooked, hook_pocl);
	return __atomic_load_n(&access_hooked, __ATOMIC_ACQUIRE);
}

/* exit() runs the handlers atexit() registers before any library's
 * destructor, PoCL's among them, which removes the directories of its
 * programs with its cache off: the refresh at exit must come first. */
static void register_at_exit(void)
{
	atexit(refresh_at_exit);
}

static void watch(cl_program program, const struct jc_key *key, cl_uint ndev,
		  const unsigned char *const *binaries, const size_t *sizes, int unmade);

void jc_pocl_watch(cl_program program, const struct jc_key *key, cl_uint ndev,
		   const unsigned char *const *binaries, const size_t *sizes)
{
	watch(program, key, ndev, binaries, sizes, 0);
}

void jc_pocl_watch_given(cl_program program, const struct jc_key *key,
			 const unsigned char *binary, size_t size)
{
	watch(program, key, 1, &binary, &size, 1);
}

static void watch(cl_program program, const struct jc_key *key, cl_uint ndev,
		  const unsigned char *const *binaries, const size_t *sizes, int unmade)
{
	int any = 0;
	for (cl_uint i = 0; i < ndev && !any; i++)
		any = binaries[i] && sizes[i] >= 8 && (memcmp(binaries[i], "poclbin", 8) == 0 ||
							 jc_pocl_is_pack(binaries[i], sizes[i]));
	struct watch *w = any ? calloc(1, sizeof *w) : NULL;
	if (!w)
		return;
	*w = (struct watch){ .program = program, .pid = getpid(), .key = *key, .ndev = ndev,
			     .dirs = calloc(ndev, sizeof *w->dirs),
			     .files = calloc(ndev, sizeof *w->files),
			     .pack = ndev == 1 && jc_pocl_is_pack(binaries[0], sizes[0]) };
	any = 0;
	for (cl_uint i = 0; w->dirs && w->files && i < ndev; i++) {
		struct jc_pocl_binary b;
		int parsed = !binaries[i] ? -1
			     : jc_pocl_is_pack(binaries[i], sizes[i])
				     ? jc_pocl_pack_parse(binaries[i], sizes[i], &b)
				     : jc_pocl_parse(binaries[i], sizes[i], &b);
		if (parsed == 0 &&
		    (w->dirs[i] = program_dir(&b, unmade)))
			w->files[i] = b.files, any = 1;
	}
	if (!any) {
		watch_free(w);
		return;
	}
	pthread_mutex_lock(&lock);
	struct watch **at = &watches, *old = NULL;
	while (*at && (*at)->program != program)
		at = &(*at)->next;
	if (*at) { /* rebuilt, or a handle the driver reused */
		old = *at;
		*at = old->next;
	} else {
		__atomic_add_fetch(&watching, 1, __ATOMIC_RELEASE);
	}
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, register_at_exit);
	pthread_once(&hooked, hook_pocl);
	w->next = watches;
	watches = w;
	pthread_mutex_unlock(&lock);
	if (old && old->pid == getpid())
		refresh(old, old->wg_cpu, old->wg_wall, NULL);
	watch_free(old);
}

/* The files of w's alias directory added to p's binary (poclbin only), in
 * merged[0]: whether any were. */
static int merge_alias(const struct watch *w, struct jc_cl_payload *p, void **merged)
{
	void *out = NULL;
	if (!w->alias || jc_pocl_is_pack(p->binaries[0], p->binary_sizes[0]) ||
	    jc_pocl_merge(p->binaries[0], p->binary_sizes[0], w->alias, &out,
			  &p->binary_sizes[0]) != 1)
		return 0;
	free(merged[0]);
	merged[0] = out;
	p->binaries[0] = out;
	return 1;
}

/* ---- the work-group functions' times, in the entry ----
 *
 * Kept as one more record of the payload's kernels (version 3), named
 * WG_TIMES, which no kernel can be (a space is no identifier's): a
 * jitcache that does not know it answers no kernel's attributes from it
 * and keeps it through its own refreshes.  Its string: "REL CPU WALL\n"
 * for each function, REL its path under the program's directory
 * (KERNEL/LOCALSIZE/KERNEL.so), CPU and WALL what PoCL's compile of it
 * cost (ns). */
#define WG_TIMES "jitcache wg-times"

/* The index of p's WG_TIMES record, or p->nkernels. */
static cl_uint wg_record(const struct jc_cl_payload *p)
{
	cl_uint i = 0;
	while (i < p->nkernels && strcmp(p->kernel_names[i], WG_TIMES) != 0)
		i++;
	return i;
}

/* REL of a work-group function's path: its last three names. */
static const char *rel_of(const char *path)
{
	const char *at = path + strlen(path);
	for (int slashes = 0; at > path; at--)
		if (at[-1] == '/' && ++slashes == 3)
			return at;
	return NULL;
}

/* The line of WG_TIMES for the function at path, in out (TIMED_MAX
 * bytes): its length, or -1 (a name no line can hold). */
#define TIMED_MAX 600
static int timed_line(char *out, const char *path, uint64_t cpu, uint64_t wall)
{
	const char *rel = rel_of(path);
	int n = rel && !strchr(rel, ' ') && !strchr(rel, '\n')
			? snprintf(out, TIMED_MAX, "%s %llu %llu\n", rel, (unsigned long long)cpu,
				   (unsigned long long)wall)
			: -1;
	return n > 0 && n < TIMED_MAX ? n : -1;
}

/* The line of the function at path added to *lines (malloc'd; NULL: none
 * yet); nothing if no line can hold its name or memory runs out. */
static void add_timed_line(char **lines, const char *path, uint64_t cpu, uint64_t wall)
{
	char line[TIMED_MAX];
	int n = timed_line(line, path, cpu, wall);
	size_t had = *lines ? strlen(*lines) : 0;
	char *grown = n > 0 ? realloc(*lines, had + n + 1) : NULL;
	if (grown) {
		memcpy(grown + had, line, n + 1);
		*lines = grown;
	}
}

/* The line of `rel` in table ("REL ...\n" lines), or NULL. */
static const char *line_of(const char *table, const char *rel)
{
	size_t n = strlen(rel);
	for (const char *l = table; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (strncmp(l, rel, n) == 0 && (l[n] == ' ' || l[n] == '\n'))
			return l;
	return NULL;
}

/* p with the lines `timed` ("REL CPU WALL\n" each) added to its WG_TIMES
 * record (made if none), those whose REL is there left out: the new string
 * in *owned (to free after encoding).  Only a payload with its kernels
 * recorded (version 3), whose arrays have room for one more (as
 * jc_cl_payload_decode() and jc_cl_export() leave them): a version 1 one
 * would claim to know every kernel's attributes. */
void jc_pocl_add_times(struct jc_cl_payload *p, const char *timed, char **owned)
{
	*owned = NULL;
	if (!timed || !*timed || !p->kernels_known)
		return;
	cl_uint i = wg_record(p);
	if (i == p->nkernels && p->nkernels >= JC_CL_PAYLOAD_MAX_KERNELS)
		return; /* no room: a reader would refuse the payload */
	const char *old = i < p->nkernels ? p->attributes[i] : "";
	size_t n = strlen(old) + strlen(timed) + 1;
	if (strlen(old) > JC_POCL_MAX_BINARY || !(*owned = malloc(n)))
		return;
	char *at = *owned + strlen(old);
	memcpy(*owned, old, at - *owned + 1);
	for (const char *l = timed; *l;) {
		const char *end = strchr(l, '\n');
		size_t len = end ? (size_t)(end - l) + 1 : strlen(l);
		char rel[512];
		if (end && sscanf(l, "%511s", rel) == 1 && !line_of(*owned, rel)) {
			memcpy(at, l, len);
			at[len] = '\0';
			at += len;
		}
		l += len;
	}
	if (at == *owned + strlen(old)) { /* nothing new */
		free(*owned);
		*owned = NULL;
		return;
	}
	if (i == p->nkernels) {
		p->kernel_names[i] = WG_TIMES;
		p->name_sizes[i] = sizeof WG_TIMES;
		p->nkernels++;
	}
	p->attributes[i] = *owned;
	p->attribute_sizes[i] = strlen(*owned) + 1;
}

/* The watch of `program` in `watches` (any process's), or NULL.  Under
 * the lock. */
static struct watch *listed(cl_program program)
{
	struct watch *w = watches;
	while (w && w->program != program)
		w = w->next;
	return w;
}

void jc_pocl_watch_times(cl_program program, const struct jc_cl_payload *p)
{
	cl_uint i = p->kernels_known ? wg_record(p) : 0;
	char *times = i < p->nkernels ? strdup(p->attributes[i]) : NULL;
	if (!times)
		return;
	pthread_mutex_lock(&lock);
	struct watch *w = listed(program);
	if (w && w->pid == getpid()) {
		free(w->times);
		w->times = times;
		times = NULL;
	}
	pthread_mutex_unlock(&lock);
	free(times);
}

/* Add to the entry what PoCL compiled into the program's directories since
 * the binary was made, if anything, and wg_cpu and wg_wall (ns) to its
 * compile times; `timed` ("REL CPU WALL\n", or NULL): a function added
 * after the program's release, whose time is kept apart (WG_TIMES).
 * Returns whether the entry was replaced. */
static int refresh(const struct watch *w, uint64_t wg_cpu, uint64_t wg_wall, const char *timed)
{
	int grew = w->alias && jc_pocl_dir_files(w->alias) > w->files[0];
	for (cl_uint i = 0; i < w->ndev && !grew; i++)
		grew = w->dirs[i] && jc_pocl_dir_files(w->dirs[i]) > w->files[i];
	struct jc_cache *cache = grew ? jc_runtime_cache() : NULL;
	struct jc_entry e;
	if (!cache || jc_cache_peek(cache, &w->key, &e) != 0)
		return 0;
	struct jc_cl_payload p;
	void **merged = calloc(w->ndev, sizeof *merged);
	int changed = 0, replaced = 0;
	if (merged && jc_cl_payload_decode(e.data, e.size, &p) == 0) {
		for (cl_uint i = 0; p.ndev == w->ndev && !p.status && i < w->ndev; i++)
			if (w->dirs[i] && (jc_pocl_is_pack(p.binaries[i], p.binary_sizes[i])
						   ? jc_pocl_pack_merge
						   : jc_pocl_merge)(p.binaries[i], p.binary_sizes[i],
								    w->dirs[i], &merged[i],
								    &p.binary_sizes[i]) == 1) {
				p.binaries[i] = merged[i];
				changed = 1;
			}
		if (p.ndev == 1 && !p.status && merge_alias(w, &p, merged))
			changed = 1;
		char *owned = NULL;
		if (changed)
			jc_pocl_add_times(&p, timed, &owned);
		void *bytes = NULL;
		size_t size = 0;
		char hex[2 * JC_KEY_BYTES + 1];
		jc_key_hex(&w->key, hex);
		/* A hit on the entry now saves PoCL's compiles of what was added
		 * too: their times join the entry's. */
		replaced = changed && jc_cl_payload_encode(&p, &bytes, &size) == 0 &&
			   jc_cache_replace(cache, &w->key, bytes, size,
					    jc_compile_word(e.compile_ns + wg_cpu,
							    e.wall_ns + wg_wall)) == 0;
		if (replaced)
			jc_log(JC_LOG_DEBUG, "OpenCL entry %s: PoCL's work-group code added "
			       "(%zu bytes, was %zu; compiled in %.3f s of CPU, %.3f s)", hex,
			       size, e.size, (double)wg_cpu / 1e9, (double)wg_wall / 1e9);
		free(bytes);
		free(owned);
		jc_cl_payload_free(&p);
	}
	for (cl_uint i = 0; merged && i < w->ndev; i++)
		free(merged[i]);
	free(merged);
	jc_entry_free(&e);
	return replaced;
}

/* Keep released watch w (PoCL's cache off) as a late one, the oldest
 * beyond MAX_LATE dropped. */
static void keep_late(struct watch *w)
{
	struct watch *drop = NULL;
	pthread_mutex_lock(&lock);
	w->next = lates;
	lates = w;
	int n = __atomic_add_fetch(&late, 1, __ATOMIC_RELEASE);
	if (n > MAX_LATE) { /* the oldest not being refreshed */
		struct watch **at = &lates, **oldest = NULL;
		for (; *at; at = &(*at)->next)
			if (!(*at)->busy)
				oldest = at;
		if (oldest) {
			drop = *oldest;
			*oldest = drop->next;
			__atomic_sub_fetch(&late, 1, __ATOMIC_RELEASE);
		}
	}
	pthread_mutex_unlock(&lock);
	watch_free(drop);
}

void jc_pocl_release(cl_program program)
{
	if (!__atomic_load_n(&watching, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&lock);
	struct watch **at = &watches, *w = NULL;
	while (*at && (*at)->program != program)
		at = &(*at)->next;
	if (*at) {
		w = *at;
		*at = w->next;
		__atomic_sub_fetch(&watching, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&lock);
	int ours = w && w->pid == getpid();
	if (ours && refresh(w, w->wg_cpu, w->wg_wall, NULL))
		w->wg_cpu = w->wg_wall = 0;
	if (ours && !jc_pocl_cache_on())
		keep_late(w);
	else
		watch_free(w);
}

void jc_pocl_kernel_held(cl_program program, cl_kernel kernel, cl_uint refs)
{
	struct held *h = calloc(1, sizeof *h);
	if (!h)
		return; /* its program is then refreshed at exit, if still there */
	*h = (struct held){ .kernel = kernel, .program = program, .refs = refs };
	pthread_mutex_lock(&lock);
	h->next = helds;
	helds = h;
	pthread_mutex_unlock(&lock);
}

void jc_pocl_kernel_release(cl_kernel kernel)
{
	if (!__atomic_load_n(&watching, __ATOMIC_ACQUIRE))
		return;
	cl_program last = NULL;
	pthread_mutex_lock(&lock);
	struct held **at = &helds;
	while (*at && (*at)->kernel != kernel)
		at = &(*at)->next;
	struct held *h = *at;
	if (h && --h->refs == 0) {
		*at = h->next;
		last = h->program;
		for (const struct held *o = helds; o && last; o = o->next)
			if (o->program == last)
				last = NULL; /* another kernel still holds it */
		free(h);
	}
	pthread_mutex_unlock(&lock);
	if (last)
		jc_pocl_release_later(last);
}

/* The watch in list of one device whose directory's own name is `name`. */
static struct watch *named(struct watch *list, const char *name)
{
	for (struct watch *w = list; w; w = w->next) {
		const char *d = w->ndev == 1 && w->pid == getpid() ? w->dirs[0] : NULL;
		const char *tail = d ? strrchr(d, '/') : NULL;
		if (tail && strcmp(tail + 1, name) == 0)
			return w;
	}
	return NULL;
}

void jc_pocl_dir_copied(const unsigned char *from, const unsigned char *to, size_t size)
{
	struct jc_pocl_binary a, b;
	if ((!__atomic_load_n(&watching, __ATOMIC_ACQUIRE) &&
	     !__atomic_load_n(&late, __ATOMIC_ACQUIRE)) ||
	    jc_pocl_parse(from, size, &a) != 0 || jc_pocl_parse(to, size, &b) != 0)
		return;
	pthread_mutex_lock(&lock);
	struct watch *w = named(watches, a.dir);
	if (!w)
		w = named(lates, a.dir);
	char *alias = NULL;
	size_t n = w ? (size_t)(strrchr(w->dirs[0], '/') - w->dirs[0]) : 0;
	if (w && (alias = malloc(n + 1 + strlen(b.dir) + 1))) {
		memcpy(alias, w->dirs[0], n + 1);
		strcpy(alias + n + 1, b.dir);
		free(w->alias);
		w->alias = alias;
	}
	pthread_mutex_unlock(&lock);
}

int jc_pocl_watched(cl_program program)
{
	if (!__atomic_load_n(&watching, __ATOMIC_ACQUIRE))
		return 0;
	pthread_mutex_lock(&lock);
	int found = listed(program) != NULL;
	pthread_mutex_unlock(&lock);
	return found;
}

/* The watch of program as a pack, this process's; under the lock. */
static struct watch *packed(cl_program program)
{
	struct watch *w = listed(program);
	return w && w->pack && w->pid == getpid() ? w : NULL;
}

int jc_pocl_packed(cl_program program, struct jc_key *key)
{
	if (!__atomic_load_n(&watching, __ATOMIC_ACQUIRE))
		return 0;
	pthread_mutex_lock(&lock);
	struct watch *w = packed(program);
	if (w && key)
		*key = w->key;
	pthread_mutex_unlock(&lock);
	return w != NULL;
}

void jc_pocl_taking(cl_program program, int taking)
{
	pthread_mutex_lock(&lock);
	struct watch *w = packed(program);
	if (w)
		w->taking = taking;
	pthread_mutex_unlock(&lock);
}

void jc_pocl_release_later(cl_program program)
{
	/* With PoCL's cache on its directory outlives the program: the watch
	 * stays, refreshed at exit (or when the handle is reused).  With it
	 * off the directory goes with the program: refreshed now. */
	if (!jc_pocl_cache_on())
		jc_pocl_release(program);
}

/* The programs the application never released, at its exit (from
 * atexit(), and as a destructor where exit() was not called): their
 * directories are still there (PoCL removes one with its program, and with
 * its cache off at its own exit).  Skipped if another thread holds the
 * list (it stays as it is). */
__attribute__((destructor)) static void refresh_at_exit(void)
{
	if (!__atomic_load_n(&watching, __ATOMIC_ACQUIRE))
		return;
	if (pthread_mutex_trylock(&lock) != 0)
		return;
	struct watch *all = watches;
	watches = NULL;
	__atomic_store_n(&watching, 0, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&lock);
	while (all) {
		struct watch *w = all;
		all = w->next;
		if (w->pid == getpid())
			refresh(w, w->wg_cpu, w->wg_wall, NULL);
		watch_free(w);
	}
}

/* ---- PoCL's work-group compiles, timed (cl_pocl.h) ---- */

/* The compile this thread started: the KERNEL.so PoCL did not find, and
 * the thread's clocks then, with the CPU time of the process's children
 * waited for (PoCL links each function with ld, a child it waits for). */
static __thread struct {
	char path[512];
	int64_t cpu, wall, children;
} probe;

static int64_t children_cpu_ns(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_CHILDREN, &ru) != 0)
		return 0;
	return ((int64_t)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000 +
	       ((int64_t)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
}

static int wg_file(const char *path)
{
	size_t n = strlen(path);
	return n > 3 && n < sizeof probe.path && strcmp(path + n - 3, ".so") == 0;
}

/* The watch of this process whose program directory holds path (matched by
 * the directory's last two names: PoCL may name its cache directory
 * relative, or through a link), or NULL.  Under the lock. */
static int in_dir(const char *d, const char *path)
{
	const char *tail = d ? strrchr(d, '/') : NULL;
	while (tail && tail > d && *--tail != '/')
		;
	const char *at = tail && tail > d ? strstr(path, tail) : NULL;
	return at && at[strlen(tail)] == '/';
}

static struct watch *watch_in(struct watch *list, const char *path)
{
	for (struct watch *w = list; w; w = w->next) {
		if (w->pid == getpid() && in_dir(w->alias, path))
			return w;
		for (cl_uint i = 0; w->pid == getpid() && i < w->ndev; i++)
			if (in_dir(w->dirs[i], path))
				return w;
	}
	return NULL;
}

static struct watch *watch_of(const char *path)
{
	struct watch *w = watch_in(watches, path);
	return w ? w : watch_in(lates, path);
}

/* Whether the hooks have anything to look at. */
static int any_watch(void)
{
	return __atomic_load_n(&watching, __ATOMIC_ACQUIRE) ||
	       __atomic_load_n(&late, __ATOMIC_ACQUIRE);
}

/* A work-group function PoCL finished, after the application released its
 * program: added to the entry now, while the directory is still there.
 * Its compile time (cpu, wall: ns) is not added to the entry's: a hit
 * credits an entry's every time, and a program of the same key built
 * again in one run may never queue that command (pyopencl, whose warm run
 * counted 27.1 s of CPU avoided with these times, 19.7 s saved).  It is
 * kept apart (WG_TIMES), credited only when a program served from the
 * entry has PoCL find the function (file_found).  The watch stays listed,
 * marked busy (never dropped meanwhile): a function finished during the
 * refresh refreshes again. */
static void refresh_late(const char *path, uint64_t cpu, uint64_t wall)
{
	char timed[TIMED_MAX];
	int ok = timed_line(timed, path, cpu, wall) > 0;
	pthread_mutex_lock(&late_refresh);
	pthread_mutex_lock(&lock);
	struct watch *w = watch_in(lates, path);
	if (w)
		w->busy = 1;
	pthread_mutex_unlock(&lock);
	if (w)
		refresh(w, 0, 0, ok ? timed : NULL);
	pthread_mutex_lock(&lock);
	if (w)
		w->busy = 0;
	pthread_mutex_unlock(&lock);
	pthread_mutex_unlock(&late_refresh);
}

/* A late refresh this thread owes: made once PoCL has dlopen()ed the
 * function it renamed, not in its rename(), where it would widen the time
 * between PoCL's rename and its dlopen, in which freeing a program that
 * shares the directory (cl_build --twin) removes the file and PoCL aborts
 * ("dlopen() failed"), and the release that lists a late watch comes just
 * before PoCL frees its program.  Paid at PoCL's next dlopen or rename on
 * this thread; with no dlopen hooked, in the rename as before. */
static __thread char owed[512];
static __thread uint64_t owed_cpu, owed_wall;
static int dlopen_hooked;

static void pay_owed(void)
{
	if (!owed[0])
		return;
	char path[sizeof owed];
	memcpy(path, owed, sizeof path);
	owed[0] = '\0';
	refresh_late(path, owed_cpu, owed_wall);
}

/* The work-group functions PoCL compiles on this thread while jitcache
 * takes a program's binaries to store them (jc_pocl_time_begin()): PoCL
 * compiles a generic one for each kernel then, which an application that
 * takes the binary of a program built from source pays too (tinygrad),
 * and which a program served from the entry finds ("REL CPU WALL\n"
 * each; timing: whether on). */
static __thread int timing;
static __thread char *timed_here;

void jc_pocl_time_begin(void)
{
	pthread_once(&hooked, hook_pocl);
	free(timed_here);
	timed_here = NULL;
	timing = 1;
}

char *jc_pocl_time_end(cl_program program)
{
	char *t = timed_here;
	timing = 0;
	timed_here = NULL;
	if (!__atomic_load_n(&watching, __ATOMIC_ACQUIRE))
		return t;
	pthread_mutex_lock(&lock);
	struct watch *w = packed(program);
	char *taken = w ? w->taken : NULL;
	if (w)
		w->taken = NULL;
	pthread_mutex_unlock(&lock);
	if (!taken)
		return t;
	if (!t)
		return taken;
	char *both = realloc(t, strlen(t) + strlen(taken) + 1);
	if (both)
		strcat(both, taken);
	free(taken);
	return both ? both : t;
}

/* Note that PoCL looked for the function at path in w's program: whether
 * it found it or compiled it, it is credited no more.  0 if it was looked
 * for before (or cannot be noted: then never credited).  Under the lock. */
static int mark_seen(struct watch *w, const char *path)
{
	const char *rel = rel_of(path);
	if (!rel || line_of(w->seen, rel))
		return 0;
	size_t had = w->seen ? strlen(w->seen) : 0, n = strlen(rel);
	char *grown = realloc(w->seen, had + n + 2);
	if (!grown)
		return 0;
	memcpy(grown + had, rel, n);
	memcpy(grown + had + n, "\n", 2);
	w->seen = grown;
	return 1;
}

/* PoCL found the work-group function at path, which it would otherwise
 * have compiled: if the program is one served from an entry whose
 * WG_TIMES holds the function's time, and PoCL looks for it in this
 * program for the first time (not after compiling it here), that time
 * joins the time saved, once per program: with PoCL's cache off alone
 * (on, PoCL's own cache may have held the function as well). */
static void file_found(const char *path)
{
	if (!any_watch() || !wg_file(path) || jc_pocl_cache_on())
		return;
	unsigned long long cpu = 0, wall = 0;
	int credit = 0;
	pthread_mutex_lock(&lock);
	struct watch *w = watch_of(path);
	const char *rel = w ? rel_of(path) : NULL;
	const char *l = rel && w->times ? line_of(w->times, rel) : NULL;
	if (rel && mark_seen(w, path) && l)
		credit = sscanf(l + strlen(rel), " %llu %llu", &cpu, &wall) == 2;
	pthread_mutex_unlock(&lock);
	if (credit && cpu <= wall) {
		jc_cache_credit(jc_runtime_cache(), cpu, wall);
		jc_log(JC_LOG_DEBUG, "PoCL found work-group function %s: %.3f s of CPU credited",
		       rel, (double)cpu / 1e9);
	}
}

void jc_pocl_binary_given(cl_program program)
{
	if (!__atomic_load_n(&watching, __ATOMIC_ACQUIRE) || jc_pocl_cache_on())
		return;
	unsigned long long cpu = 0, wall = 0, c, t;
	int n = 0;
	char path[PATH_MAX];
	pthread_mutex_lock(&lock);
	struct watch *w = listed(program);
	const char *d = w && w->pid == getpid() && w->ndev == 1 ? w->dirs[0] : NULL;
	for (const char *l = d ? w->times : NULL; l && *l;
	     l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *end = strchr(l, ' ');
		if (!end || !memmem(l, (size_t)(end - l), "/0-0-0/", 7) ||
		    snprintf(path, sizeof path, "%s/%.*s", d, (int)(end - l), l) >= (int)sizeof path ||
		    sscanf(end, " %llu %llu", &c, &t) != 2 || c > t || !mark_seen(w, path))
			continue;
		cpu += c;
		wall += t;
		n++;
	}
	pthread_mutex_unlock(&lock);
	if (n) {
		jc_cache_credit(jc_runtime_cache(), cpu, wall);
		jc_log(JC_LOG_DEBUG, "PoCL's binary answered with %d generic work-group "
		       "function(s) PoCL did not compile: %.3f s of CPU credited", n,
		       (double)cpu / 1e9);
	}
}

static void start_probe(const char *path)
{
	snprintf(probe.path, sizeof probe.path, "%s", path);
	probe.cpu = jc_thread_cpu_ns();
	probe.children = children_cpu_ns();
	probe.wall = jc_mono_ns();
}

static void file_missing(const char *path)
{
	if ((!any_watch() && !timing) || !wg_file(path) ||
	    strcmp(probe.path, path) == 0) /* looked for again: the same compile */
		return;
	if (timing) {
		start_probe(path);
		return;
	}
	pthread_mutex_lock(&lock);
	struct watch *w = watch_of(path);
	if (w)
		mark_seen(w, path);
	pthread_mutex_unlock(&lock);
	if (!w)
		return;
	start_probe(path);
}

static void file_renamed(const char *path)
{
	if ((!any_watch() && !timing) || !wg_file(path) || !probe.path[0] ||
	    strcmp(probe.path, path) != 0)
		return;
	probe.path[0] = '\0';
	uint64_t wall = (uint64_t)(jc_mono_ns() - probe.wall);
	int64_t cpu_now = jc_thread_cpu_ns();
	/* The thread's CPU time and its linker's (the children the process
	 * waited for meanwhile: one another thread waited for then would count
	 * too), never more than the wall time (as compile_once.h records a
	 * build's); the wall time if unknown. */
	uint64_t cpu = cpu_now && probe.cpu ? (uint64_t)(cpu_now - probe.cpu) : wall;
	int64_t children = children_cpu_ns() - probe.children;
	if (children > 0)
		cpu += (uint64_t)children;
	if (cpu > wall)
		cpu = wall;
	if (timing) {
		add_timed_line(&timed_here, path, cpu, wall);
		return;
	}
	pthread_mutex_lock(&lock);
	struct watch *w = watch_in(watches, path);
	if (w && w->taking) { /* kept apart, for the binary (jc_pocl_taking()) */
		add_timed_line(&w->taken, path, cpu, wall);
	} else if (w) {
		w->wg_cpu += cpu;
		w->wg_wall += wall;
	}
	int released = !w && watch_in(lates, path);
	pthread_mutex_unlock(&lock);
	if (released && __atomic_load_n(&dlopen_hooked, __ATOMIC_ACQUIRE)) {
		snprintf(owed, sizeof owed, "%s", path); /* wg_file(): it fits */
		owed_cpu = cpu;
		owed_wall = wall;
	} else if (released) {
		refresh_late(path, cpu, wall);
	}
}

/* PoCL's own calls of access() and rename(), and only those (got.h): the
 * program's, and every other library's, are the C library's as they were;
 * a process that never built a program on PoCL is never hooked. */
static int (*real_access)(const char *, int);
static int (*real_rename)(const char *, const char *);
static void *(*real_dlopen)(const char *, int);

static int pocl_access(const char *path, int mode)
{
	if (path) {
		int saved = errno;
		jc_pocl_fill_at(path); /* a hit with PoCL's cache off (cl_pocl.h) */
		errno = saved;
	}
	int r = real_access(path, mode);
	if (path) {
		int saved = errno;
		jc_pocl_note_path(path, r == 0); /* found or not, PoCL's directory for the build */
		if (r != 0)
			file_missing(path);
		else
			file_found(path);
		errno = saved;
	}
	return r;
}

static int pocl_rename(const char *from, const char *to)
{
	if (owed[0]) { /* no dlopen since the last one */
		int saved = errno;
		pay_owed();
		errno = saved;
	}
	int r = real_rename(from, to);
	if (r == 0 && to) {
		int saved = errno;
		jc_pocl_note_path(to, 0);
		file_renamed(to);
		errno = saved;
	}
	return r;
}

/* PoCL dlopen()s the function it renamed right after; it then reads
 * dlerror(), which a successful dlopen() leaves empty: so does a refresh
 * made here, whatever it called. */
static void *pocl_dlopen(const char *file, int flags)
{
	void *h = real_dlopen(file, flags);
	if (h && owed[0]) {
		int saved = errno;
		pay_owed();
		(void)dlerror();
		errno = saved;
	}
	return h;
}

static void hook_pocl(void)
{
	int a = jc_got_hook("libpocl", "access", (void *)pocl_access, (void **)&real_access);
	int r = jc_got_hook("libpocl", "rename", (void *)pocl_rename, (void **)&real_rename);
	int d = jc_got_hook("libpocl", "dlopen", (void *)pocl_dlopen, (void **)&real_dlopen);
	__atomic_store_n(&dlopen_hooked, d > 0, __ATOMIC_RELEASE);
	__atomic_store_n(&access_hooked, a > 0 && r > 0, __ATOMIC_RELEASE);
	jc_log(JC_LOG_DEBUG, "PoCL's work-group compiles timed through %d access, %d rename "
	       "and %d dlopen slot(s) of its own", a, r, d);
}
