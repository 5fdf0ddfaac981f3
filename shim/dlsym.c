// SPDX-License-Identifier: MIT
/*
 * The dlsym door.  Programs that dlopen() a GPU API library and look its
 * functions up on the handle (Unified Runtime's Level Zero adapter, oneDNN,
 * dpctl) never see LD_PRELOAD'ed symbols, so jitcache also interposes dlsym
 * itself, as overlay tools such as MangoHud do.  Every lookup goes to glibc's
 * dlsym; only a successful lookup of a name that an API file wraps
 * (the hooks of shim.h's JC_DLSYM_HOOK) is answered with a wrapper.
 *
 * glibc resolves every dlsym relative to the object that called it, found
 * from the return address: RTLD_NEXT means "after the caller", and
 * RTLD_DEFAULT searches the caller's scope, which for a library dlopen()ed
 * RTLD_LOCAL includes the library itself and its dependencies (Intel's IGC
 * 2.x finds its built-in function library, _igc_bif_*, that way: seen from
 * jitcache instead, the lookup fails and every Level Zero module build ends
 * in "IGC: internal compiler error", 0x70000004).  So on x86-64 the exported
 * dlsym is a stub that *jumps* (not calls) to glibc's dlsym for RTLD_NEXT
 * and for every name jitcache never wraps (all but ze* and cl*): glibc then
 * sees the original caller, exactly as without jitcache (sanitizer runtimes
 * and other interposers rely on this, very early in start-up).  A ze or cl
 * name on RTLD_DEFAULT that glibc's global scope does not answer is then
 * looked up in the caller's object and its dependencies.  Other
 * architectures fall back to a walk of the link maps that follow the
 * caller's object.
 */
#include "config/capture.h"
#include "shim/preload.h"
#include "shim/shim.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>

typedef void *(*dlsym_fn)(void *, const char *);

static dlsym_fn real_dlsym;
static struct link_map *self; /* the preloaded library (preload.h) */
static pthread_once_t dlsym_once = PTHREAD_ONCE_INIT;

static struct link_map *object_of(const void *address);

static void find_real_dlsym(void)
{
	self = object_of((const void *)find_real_dlsym);
	/* dlvsym is not interposed, so this reaches glibc directly. */
	real_dlsym = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
	if (!real_dlsym)
		real_dlsym = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
}

/* glibc's dlsym, called from here and never tail-called: the caller glibc
 * sees (after whom RTLD_NEXT looks, whose scope RTLD_DEFAULT searches) is
 * this library, whoever asked: the core's lookups come through here too
 * (preload.h), and seen from the core, loaded RTLD_LOCAL, RTLD_NEXT would
 * find nothing at all. */
void *jc_real_dlsym(void *handle, const char *name)
{
	pthread_once(&dlsym_once, find_real_dlsym);
	void *p = real_dlsym ? real_dlsym(handle, name) : NULL;
	__asm__ volatile("" : "+r"(p)); /* after the call: no jump to it */
	return p;
}

/* The object (link map) containing address, or NULL.  glibc 2.35's
 * _dl_find_object() answers in a few nanoseconds; dladdr1() also looks for
 * the nearest symbol, which in a big library takes tens of microseconds, on
 * the first hit of every process.  It is the fallback (older glibc, or an
 * address _dl_find_object does not know yet). */
static struct link_map *object_of(const void *address)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
	struct dl_find_object found;
	if (_dl_find_object((void *)(uintptr_t)address, &found) == 0)
		return found.dlfo_link_map;
#endif
	Dl_info info;
	struct link_map *map = NULL;
	if (!dladdr1(address, &info, (void **)&map, RTLD_DL_LINKMAP))
		return NULL;
	return map;
}

const char *jc_library_file_of(const void *address)
{
	struct link_map *map = object_of(address);
	if (map && map->l_name[0])
		return map->l_name; /* what dladdr() gives, without its symbol search */
	Dl_info info; /* the main program: dladdr() names it after argv[0] */
	return dladdr(address, &info) ? info.dli_fname : NULL;
}

/* name as found from the object containing caller and its dependencies
 * (never jitcache's own definition), or NULL. */
static void *in_caller_object(const void *caller, const char *name)
{
	const char *file = jc_library_file_of(caller);
	void *handle = file ? dlopen(file, RTLD_LAZY | RTLD_NOLOAD) : NULL;
	if (!handle)
		return NULL;
	void *p = jc_real_dlsym(handle, name); /* the caller's object and its dependencies */
	dlclose(handle); /* NOLOAD only took a reference */
	if (p && object_of(p) == self)
		return NULL;
	return p;
}

void *jc_real_for_caller(const void *caller, const char *name)
{
	void *p = jc_real_dlsym(RTLD_NEXT, name);
	return p ? p : in_caller_object(caller, name);
}

/* What the preloaded library (preload.c) adds to the door, handed over by
 * jc_dlsym_use() from its constructor, so that this file calls nothing of
 * it: what to hand out for a lookup that found one of jitcache's export
 * names (the core's wrapper, loading the core), and whether an address
 * lies in the core.  Before that constructor ran (a lookup from another
 * library's constructor), a lookup gets what it found. */
static void *(*door_hook)(const char *name, void *real);
static int (*door_in_core)(const void *address);

JC_AT_START void jc_dlsym_use(void *(*hook)(const char *name, void *real), int (*in_core)(const void *address))
{
	__atomic_store_n(&door_in_core, in_core, __ATOMIC_RELEASE);
	__atomic_store_n(&door_hook, hook, __ATOMIC_RELEASE);
}

/* The preloaded library's exports, or the core's wrappers. */
int jc_is_ours(const void *address)
{
	pthread_once(&dlsym_once, find_real_dlsym);
	int (*in_core)(const void *) = __atomic_load_n(&door_in_core, __ATOMIC_ACQUIRE);
	return object_of(address) == self || (in_core && in_core(address));
}

/* Only ze* and cl* names are ever wrapped, and never when the lookup already
 * found jitcache's own export (RTLD_DEFAULT, or the main program's handle). */
static int wrappable(const char *name, void *p)
{
	if (!((name[0] == 'z' && name[1] == 'e') || (name[0] == 'c' && name[1] == 'l')))
		return 0;
	return object_of(p) != self; /* set by the jc_real_dlsym() that found p */
}

/* dlsym for every handle but RTLD_NEXT, called by caller.  RTLD_DEFAULT
 * from a library loaded RTLD_LOCAL also searches that library's own scope,
 * which glibc, seeing jitcache as the caller, would not.  A lookup that
 * finds one of the ze or cl names jitcache exports in a library loads the
 * core, whose hooks (shim.h's JC_DLSYM_HOOK) say what to hand out. */
__attribute__((used)) static void *jc_dlsym_handle(void *handle, const char *name,
						  const void *caller)
{
	void *p = jc_real_dlsym(handle, name);
	if (!p && handle == RTLD_DEFAULT && caller)
		p = in_caller_object(caller, name);
	if (!p || !wrappable(name, p))
		return p;
	void *(*hook)(const char *, void *) = __atomic_load_n(&door_hook, __ATOMIC_ACQUIRE);
	return hook ? hook(name, p) : p;
}

#if defined(__x86_64__)

/* glibc's dlsym, resolved on first use; called from the stub below with the
 * stack aligned and the arguments saved. */
__attribute__((used)) static dlsym_fn jc_dlsym_real_for_stub(void)
{
	pthread_once(&dlsym_once, find_real_dlsym);
	return real_dlsym;
}

/* dlsym(handle, name):  a name starting "ze" or "cl" on a handle other
 * than RTLD_NEXT ((void *)-1) -> jc_dlsym_handle(handle, name, caller's
 * return address); anything else -> tail-jump to glibc's dlsym with the
 * caller's return address intact. */
__asm__(".text\n"
	".globl dlsym\n"
	".type dlsym, @function\n"
	"dlsym:\n"
	"	cmpq $-1, %rdi\n"
	"	je 2f\n"
	"	testq %rsi, %rsi\n"
	"	jz 2f\n"
	"	cmpb $0x7a, (%rsi)\n" /* 'z' */
	"	jne 3f\n"
	"	cmpb $0x65, 1(%rsi)\n" /* 'e' */
	"	je 4f\n"
	"	jmp 2f\n"
	"3:	cmpb $0x63, (%rsi)\n" /* 'c' */
	"	jne 2f\n"
	"	cmpb $0x6c, 1(%rsi)\n" /* 'l' */
	"	jne 2f\n"
	"4:	movq (%rsp), %rdx\n" /* the caller's return address */
	"	jmp jc_dlsym_handle\n"
	"2:	pushq %rdi\n"
	"	pushq %rsi\n"
	"	subq $8, %rsp\n"
	"	call jc_dlsym_real_for_stub\n"
	"	addq $8, %rsp\n"
	"	popq %rsi\n"
	"	popq %rdi\n"
	"	testq %rax, %rax\n"
	"	jz 1f\n"
	"	jmp *%rax\n"
	"1:	xorl %eax, %eax\n"
	"	ret\n"
	".size dlsym, .-dlsym\n");

#else

/* dlsym(RTLD_NEXT, name) as seen from the object that contains caller. */
static void *next_after(const void *caller, const char *name)
{
	pthread_once(&dlsym_once, find_real_dlsym);
	struct link_map *from = object_of(caller);
	if (!from || from == self)
		return jc_real_dlsym(RTLD_NEXT, name);
	for (struct link_map *m = from->l_next; m; m = m->l_next) {
		void *p = jc_real_dlsym(m, name);
		/* A handle lookup also searches the object's dependencies; only a
		 * definition inside m itself is "next" in m's place. */
		if (p && object_of(p) == m)
			return p;
	}
	return NULL;
}

JC_EXPORT void *dlsym(void *handle, const char *name)
{
	if (handle == RTLD_NEXT)
		return next_after(__builtin_return_address(0), name);
	return jc_dlsym_handle(handle, name, __builtin_return_address(0));
}

#endif
