/*
 * The dlsym door.  Programs that dlopen() a GPU API library and look its
 * functions up on the handle (Unified Runtime's Level Zero adapter, oneDNN,
 * ICD-style loaders) never see LD_PRELOAD'ed symbols, so jitcache also
 * interposes dlsym itself, as overlay tools such as MangoHud do.  Every lookup
 * goes to glibc's dlsym; only a successful lookup of a name that an API file
 * wraps (jc_ze_dlsym_hook, jc_cl_dlsym_hook) is answered with a wrapper.
 *
 * RTLD_NEXT is resolved by glibc relative to the *caller*, which would be
 * jitcache here, so such lookups are redone relative to the real caller by
 * walking the link maps that follow its object.
 */
#include "shim/shim.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>

typedef void *(*dlsym_fn)(void *, const char *);

static dlsym_fn real_dlsym;
static pthread_once_t dlsym_once = PTHREAD_ONCE_INIT;

static void find_real_dlsym(void)
{
	/* dlvsym is not interposed, so this reaches glibc directly. */
	real_dlsym = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
	if (!real_dlsym)
		real_dlsym = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
}

void *jc_real_dlsym(void *handle, const char *name)
{
	pthread_once(&dlsym_once, find_real_dlsym);
	return real_dlsym ? real_dlsym(handle, name) : NULL;
}

/* The object (link map) containing address, or NULL. */
static struct link_map *object_of(const void *address)
{
	Dl_info info;
	struct link_map *map = NULL;
	if (!dladdr1(address, &info, (void **)&map, RTLD_DL_LINKMAP))
		return NULL;
	return map;
}

/* dlsym(RTLD_NEXT, name) as seen from the object that contains caller. */
static void *next_after(const void *caller, const char *name)
{
	struct link_map *self = object_of((const void *)next_after);
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

/* Only ze* and cl* names are ever wrapped, and never when the lookup already
 * found jitcache's own export (RTLD_DEFAULT, or the main program's handle). */
static int wrappable(const char *name, void *p)
{
	if (!((name[0] == 'z' && name[1] == 'e') || (name[0] == 'c' && name[1] == 'l')))
		return 0;
	return object_of(p) != object_of((const void *)wrappable);
}

JC_EXPORT void *dlsym(void *handle, const char *name)
{
	void *p;
	if (handle == RTLD_NEXT)
		p = next_after(__builtin_return_address(0), name);
	else
		p = jc_real_dlsym(handle, name);
	if (!p || handle == RTLD_NEXT || !wrappable(name, p))
		return p;
	void *wrapped = jc_ze_dlsym_hook(name, p);
	if (!wrapped)
		wrapped = jc_cl_dlsym_hook(name, p);
	return wrapped ? wrapped : p;
}
