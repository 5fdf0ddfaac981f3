// SPDX-License-Identifier: MIT
/*
 * The preloaded library's own part (preload.h): the start-up capture, the
 * ze and cl exports, and the core, loaded on the first of them.
 *
 * Idle is free: the library every process of a user who leaves it on maps
 * does nothing at load but note what must be fixed at start (the
 * environment the settings come from, with relative paths made absolute
 * against the starting directory: config/capture.h; and the name this
 * library was loaded by, should /proc not say where its file lies).  The core is loaded, the settings read, the
 * cache directory made, opened and held, the statistics read and the
 * remotes' writer started on the first intercepted call, so that a process
 * that never compiles a kernel has no directory, descriptor, file or thread
 * of jitcache's, and pays only for mapping this small library.
 *
 * Each ze and cl export is a trampoline: a jump through its slot in
 * `wrappers`, empty until the core is loaded.  An empty slot saves the
 * argument registers, asks jc_preload_resolve() (which loads the core) and
 * jumps to what it answers, so the wrapper, or the driver's function when
 * there is no core, runs with the caller's own return address and
 * arguments (the wrappers find the real function from the caller:
 * shim.h's jc_real_for_caller).
 */
#include "config/capture.h"
#include "config/log.h"
#include "config/core_file.h"
#include "shim/exports.h"
#include "shim/preload.h"
#include "shim/shim.h"

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

/* Which jitcache a process runs: `strings libjitcache.so | grep '^jitcache '`. */
/* retain: kept by the linker's --gc-sections too, though nothing reads it. */
#if defined(__has_attribute) && __has_attribute(retain)
__attribute__((used, retain)) static const char version[] = "jitcache " JC_VERSION;
#else
__attribute__((used)) static const char version[] = "jitcache " JC_VERSION;
#endif

/* shim/exports.h, numbered as the slots are.  The names in one string,
 * not a table of pointers, which would be relocated in every process. */
enum {
#define X(api, name) EXPORT_##name,
	JC_EXPORTS(X)
#undef X
	EXPORTS
};
static const char export_names[] =
#define X(api, name) #name "\0"
	JC_EXPORTS(X)
#undef X
	;

static const char *export_name(size_t i)
{
	const char *p = export_names;
	while (i--)
		p += strlen(p) + 1;
	return p;
}

/* 'd', 'z', 'e', 'c' or 'p' (a cl export that returns a pointer). */
static const char export_api[] = {
#define X(api, name) #api[2] == 'p' ? 'p' : #api[0],
	JC_EXPORTS(X)
#undef X
};

/* Filled from the core's table once it is loaded; read by the trampolines.
 * One slot per export, named for the trampolines (below, in assembly). */
extern void *jc_preload_wrappers[EXPORTS] __attribute__((visibility("hidden")));

static struct jc_start_env start_env;
static const char *self_file; /* this library's file, as the loader named it
				* (made absolute when it was relative) */

static const struct jc_core *core;
static struct link_map *core_map;
static pthread_once_t core_once = PTHREAD_ONCE_INIT;

static int in_core(const void *address);
static void *dlsym_hook(const char *name, void *real);

/* self_file, relative: made absolute against the starting directory.
 * Apart from the constructor so that the common case (an absolute path)
 * never touches the stack its buffer takes. */
__attribute__((noinline)) static void self_file_absolute(void)
{
	char cwd[PATH_MAX];
	if (!getcwd(cwd, sizeof cwd))
		return;
	size_t size = strlen(cwd) + 1 + strlen(self_file) + 1;
	char *abs = malloc(size); /* kept: the process's own library path */
	if (abs && (size_t)snprintf(abs, size, "%s/%s", cwd, self_file) < size)
		self_file = abs;
	else
		free(abs);
}

/* A secure-execution process (AT_SECURE: setuid, setgid, file
 * capabilities; preloaded from /etc/ld.so.preload) runs for a user who
 * controls its environment, and its cache, wherever it lay, would be
 * one that user could write, or root's files made where the user says.
 * So it takes nothing from jitcache: no setting read, no core loaded,
 * every call passed on, not a word said. */
static int secure;

__attribute__((constructor)) static void preload_start(void)
{
	jc_dlsym_use(dlsym_hook, in_core); /* the door's part of this file */
	if ((secure = getauxval(AT_SECURE) != 0))
		return;
	jc_config_capture_into(&start_env);
	/* A relative path (LD_PRELOAD's, or /etc/ld.so.preload's) names this
	 * library only from the starting directory: the core is found from it
	 * later, wherever the program went. */
	self_file = jc_library_file_of((const void *)preload_start);
	if (self_file && self_file[0] != '/' && strchr(self_file, '/'))
		self_file_absolute();
}

static const struct jc_preload table = {
	.abi = JC_PRELOAD_ABI,
	.version = JC_VERSION,
	.real_dlsym = jc_real_dlsym,
	.real_for_caller = jc_real_for_caller,
	.is_ours = jc_is_ours,
	.library_file_of = jc_library_file_of,
	.start_env = &start_env,
};

/* JITCACHE_LOG, for this library's own lines (the core reads it again). */
static void log_level(void)
{
	const char *level = jc_config_start_getenv("JITCACHE_LOG");
	int l = level ? jc_log_parse_level(level) : -1;
	if (l >= 0)
		jc_log_set_level((enum jc_log_level)l);
}

/* One line on stderr, at most once a process: jitcache then only passes
 * calls through. */
static void say(const char *what, const char *why)
{
	log_level();
	jc_log(JC_LOG_WARN, "%s: %s; running without the cache (reinstall jitcache, or take it "
	       "out of LD_PRELOAD)", what, why ? why : "unknown error");
}

/* The core's names: the soname link, then the plain name (the wheel's). */
static const char *const core_names[2] = { JC_CORE_FILE, JC_CORE_NAME };

/* The core beside this library's real file (config/core_file.h), if it may be
 * loaded.  NULL with why set (the file the user should look for, or why
 * it was refused). */
static void *open_core(char *path, size_t size, char *why, size_t why_size)
{
	if (size < PATH_MAX ||
	    jc_core_file((const void *)preload_start, self_file, core_names, path, why, why_size) != 0)
		return NULL;
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (!h) {
		const char *e = dlerror();
		snprintf(why, why_size, "%s", e ? e : path);
	}
	return h;
}

/* One jitcache per process.  Two copies preloaded at once (a system
 * package's, then a wheel's `jitcache run`) would wrap each other: the
 * first one's wrapper, holding a key's lock, calls "the driver" found
 * after it, the second one's export, whose wrapper waits for that lock
 * until lock_timeout, then both count and store.  The first copy in the
 * global scope works: the one whose jitcache_preloaded a lookup from here
 * finds (each copy finds the same, whatever their versions); the others
 * load no core and pass every call on, saying so in one debug line. */
JC_EXPORT const char *jitcache_preloaded(void)
{
	return version;
}

/* This copy's own (preload.h). */
const char *jc_preloaded_here(void) __attribute__((alias("jitcache_preloaded"), visibility("hidden")));

static int steps_aside(void)
{
	void *first = jc_real_dlsym(RTLD_DEFAULT, "jitcache_preloaded");
	if (!first || first == (void *)jc_preloaded_here)
		return 0;
	const char *other = jc_library_file_of(first);
	log_level();
	jc_log(JC_LOG_DEBUG, "another jitcache (%s) works in this process; this one (%s) "
	       "steps aside", other ? other : "?", self_file ? self_file : "?");
	return 1;
}

static void load_core(void)
{
	char path[PATH_MAX + 64], why[PATH_MAX + 256];
	if (secure || getauxval(AT_SECURE)) /* (before the constructor ran too) */
		return;
	if (!self_file) /* called before this library's constructor ran */
		self_file = jc_library_file_of((const void *)preload_start);
	if (steps_aside())
		return;
	void *h = open_core(path, sizeof path, why, sizeof why);
	if (!h) {
		say("cannot load its core", why);
		return;
	}
	jc_core_attach_fn attach = (jc_core_attach_fn)jc_real_dlsym(h, "jc_core_attach");
	const struct jc_core *c = attach ? attach(&table) : NULL;
	if (!c) {
		say(path, "not the core of this jitcache (" JC_VERSION ")");
		return;
	}
	struct link_map *map = NULL;
	if (dlinfo(h, RTLD_DI_LINKMAP, &map) == 0)
		__atomic_store_n(&core_map, map, __ATOMIC_RELEASE);
	for (int i = 0; i < EXPORTS; i++)
		__atomic_store_n(&jc_preload_wrappers[i], c->wrapper[i], __ATOMIC_RELEASE);
	__atomic_store_n(&core, c, __ATOMIC_RELEASE);
}

const struct jc_core *jc_preload_core(void)
{
	pthread_once(&core_once, load_core);
	return __atomic_load_n(&core, __ATOMIC_ACQUIRE);
}

const struct jc_core *jc_preload_core_if_loaded(void)
{
	return __atomic_load_n(&core, __ATOMIC_ACQUIRE);
}

static int in_core(const void *address)
{
	struct link_map *map = __atomic_load_n(&core_map, __ATOMIC_ACQUIRE);
	if (!map)
		return 0;
	Dl_info info;
	struct link_map *found = NULL;
	/* Only once the core is loaded: its own lookups (cl_real.c, ze.c). */
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
	struct dl_find_object fo;
	if (_dl_find_object((void *)(uintptr_t)address, &fo) == 0)
		return fo.dlfo_link_map == map;
#endif
	if (!dladdr1(address, &info, (void **)&found, RTLD_DL_LINKMAP))
		return 0;
	return found == map;
}

/* What the dlsym door hands out for a lookup of name that found real in a
 * library: the core's wrapper (loading the core), else real. */
static void *dlsym_hook(const char *name, void *real)
{
	int i = 0;
	const char *each = export_names;
	while (i < EXPORTS && (export_api[i] == 'd' || export_api[i] == 'e' ||
			       strcmp(each, name) != 0))
		each += strlen(each) + 1, i++;
	if (i == EXPORTS) /* never wrapped: no core for clock_gettime() */
		return real;
	const struct jc_core *c = jc_preload_core();
	void *wrapped = c ? c->dlsym_hook(name, real) : NULL;
	return wrapped ? wrapped : real;
}

/* What an export does with no core: what the driver would return if it
 * had no such function (the call cannot be passed on). */
static unsigned int unavailable_ze(void)
{
	return 0x78000001u; /* ZE_RESULT_ERROR_UNINITIALIZED */
}
static int unavailable_cl(void)
{
	return -59; /* CL_INVALID_OPERATION */
}
static void *unavailable_cl_pointer(void)
{
	return NULL;
}

/* Called by an export whose slot is empty, with the slot and the caller's
 * return address: where to jump. */
__attribute__((used)) static void *jc_preload_resolve(void **slot, const void *caller)
{
	size_t index = (size_t)(slot - jc_preload_wrappers);
	const struct jc_core *c = jc_preload_core();
	if (c && c->wrapper[index])
		return c->wrapper[index];
	const char *name = export_name(index);
	void *next = jc_real_dlsym(RTLD_NEXT, name);
	if (next && !jc_is_ours(next)) { /* what every call without a core gets */
		__atomic_store_n(slot, next, __ATOMIC_RELEASE);
		return next;
	}
	void *real = jc_real_for_caller(caller, name);
	if (real && !jc_is_ours(real))
		return real;
	if (export_api[index] == 'z')
		return (void *)unavailable_ze;
	return export_api[index] == 'p' ? (void *)unavailable_cl_pointer : (void *)unavailable_cl;
}

#if defined(__x86_64__)

/* The slots, one per export (the dl and exec ones stay empty). */
#define SLOT(api, name) "jc_slot_" #name ":	.zero 8\n"
__asm__(".bss\n"
	".balign 8\n"
	".globl jc_preload_wrappers\n"
	".hidden jc_preload_wrappers\n"
	".type jc_preload_wrappers, @object\n"
	"jc_preload_wrappers:\n"
	JC_EXPORTS(SLOT)
	".size jc_preload_wrappers, .-jc_preload_wrappers\n"
	".text\n");
#undef SLOT

/* One trampoline per ze and cl export: jump through its slot, else, with
 * the slot's address in %r11 (no argument register), to the common slow
 * path.  The slow path saves the six argument registers (the stack
 * arguments of clCompileProgram and clLinkProgram stay where they are:
 * %rsp is back in place before the jump), passes the caller's return
 * address, and jumps to the answer.  No exported function takes a
 * floating-point or variadic argument. */
#define T_dl(name)
#define T_exec(name)
#define T_ze(name) TRAMPOLINE(name)
#define T_cl(name) TRAMPOLINE(name)
#define T_clp(name) TRAMPOLINE(name)
#define TRAMPOLINE(name)                                                          \
	".globl " #name "\n"                                                      \
	".type " #name ", @function\n" #name ":\n"                                \
	"	leaq jc_slot_" #name "(%rip), %r11\n"                             \
	"	movq (%r11), %rax\n"                                              \
	"	testq %rax, %rax\n"                                               \
	"	jz jc_preload_slow\n"                                             \
	"	jmp *%rax\n"                                                      \
	".size " #name ", .-" #name "\n"
#define X(api, name) T_##api(name)

__asm__(".text\n"
	JC_EXPORTS(X)
	".type jc_preload_slow, @function\n"
	"jc_preload_slow:\n"
	"	pushq %rdi\n"
	"	pushq %rsi\n"
	"	pushq %rdx\n"
	"	pushq %rcx\n"
	"	pushq %r8\n"
	"	pushq %r9\n"
	"	movq 48(%rsp), %rsi\n" /* the caller's return address */
	"	movq %r11, %rdi\n"     /* the slot */
	"	subq $8, %rsp\n"
	"	call jc_preload_resolve\n"
	"	addq $8, %rsp\n"
	"	popq %r9\n"
	"	popq %r8\n"
	"	popq %rcx\n"
	"	popq %rdx\n"
	"	popq %rsi\n"
	"	popq %rdi\n"
	"	jmp *%rax\n"
	".size jc_preload_slow, .-jc_preload_slow\n");
#undef X

#else
#error "the preloaded library's trampolines (shim/preload.c) are written for x86-64 only"
#endif
