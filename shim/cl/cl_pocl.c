// SPDX-License-Identifier: MIT
/* The programs cl_pocl.h watches, and the refresh of their entries: a list
 * under one mutex, the refresh made outside it. */
#include "shim/cl/cl_pocl.h"
#include "shim/cl/cl_payload.h"
#include "shim/shim.h"
#include "store/entry.h"
#include "store/fsutil.h"

#include <limits.h>
#include <stdint.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
};

static struct watch *watches;
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
	free(w);
}

/* The directory PoCL built or unpacked the binary in, absolute (PoCL's
 * cache directory may be given relative to the current one, which the
 * application may change later), if it holds a program.bc of the binary's
 * size; NULL otherwise. */
static char *program_dir(const struct jc_pocl_binary *b)
{
	char top[PATH_MAX], dir[PATH_MAX], bc[PATH_MAX + 16];
	if (jc_pocl_topdir(top, sizeof top) != 0 ||
	    snprintf(dir, sizeof dir, "%s/%s", top, b->dir) >= (int)sizeof dir)
		return NULL;
	char *real = jc_fs_realpath(dir);
	if (real && (snprintf(bc, sizeof bc, "%s/program.bc", real) >= (int)sizeof bc ||
		     jc_fs_file_size(bc) != (int64_t)b->program_bc_size)) {
		free(real);
		real = NULL;
	}
	return real;
}

static void refresh(const struct watch *w);
static void refresh_at_exit(void);

/* exit() runs the handlers atexit() registers before any library's
 * destructor, PoCL's among them, which removes the directories of its
 * programs with its cache off: the refresh at exit must come first. */
static void register_at_exit(void)
{
	atexit(refresh_at_exit);
}

void jc_pocl_watch(cl_program program, const struct jc_key *key, cl_uint ndev,
		   const unsigned char *const *binaries, const size_t *sizes)
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
			     .files = calloc(ndev, sizeof *w->files) };
	any = 0;
	for (cl_uint i = 0; w->dirs && w->files && i < ndev; i++) {
		struct jc_pocl_binary b;
		int parsed = !binaries[i] ? -1
			     : jc_pocl_is_pack(binaries[i], sizes[i])
				     ? jc_pocl_pack_parse(binaries[i], sizes[i], &b)
				     : jc_pocl_parse(binaries[i], sizes[i], &b);
		if (parsed == 0 &&
		    (w->dirs[i] = program_dir(&b)))
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
	w->next = watches;
	watches = w;
	pthread_mutex_unlock(&lock);
	if (old && old->pid == getpid())
		refresh(old);
	watch_free(old);
}

/* Add to the entry what PoCL compiled into the program's directories since
 * the binary was made, if anything. */
static void refresh(const struct watch *w)
{
	int grew = 0;
	for (cl_uint i = 0; i < w->ndev && !grew; i++)
		grew = w->dirs[i] && jc_pocl_dir_files(w->dirs[i]) > w->files[i];
	struct jc_cache *cache = grew ? jc_runtime_cache() : NULL;
	struct jc_entry e;
	if (!cache || jc_cache_peek(cache, &w->key, &e) != 0)
		return;
	struct jc_cl_payload p;
	void **merged = calloc(w->ndev, sizeof *merged);
	int changed = 0;
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
		void *bytes = NULL;
		size_t size = 0;
		char hex[2 * JC_KEY_BYTES + 1];
		jc_key_hex(&w->key, hex);
		if (changed && jc_cl_payload_encode(&p, &bytes, &size) == 0 &&
		    jc_cache_replace(cache, &w->key, bytes, size,
				     jc_compile_word(e.compile_ns, e.wall_ns)) == 0)
			jc_log(JC_LOG_DEBUG, "OpenCL entry %s: PoCL's work-group code added "
			       "(%zu bytes, was %zu)", hex, size, e.size);
		free(bytes);
		jc_cl_payload_free(&p);
	}
	for (cl_uint i = 0; merged && i < w->ndev; i++)
		free(merged[i]);
	free(merged);
	jc_entry_free(&e);
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
	if (w && w->pid == getpid())
		refresh(w);
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

int jc_pocl_watched(cl_program program)
{
	if (!__atomic_load_n(&watching, __ATOMIC_ACQUIRE))
		return 0;
	pthread_mutex_lock(&lock);
	const struct watch *w = watches;
	while (w && w->program != program)
		w = w->next;
	pthread_mutex_unlock(&lock);
	return w != NULL;
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
			refresh(w);
		watch_free(w);
	}
}
