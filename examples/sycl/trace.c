// SPDX-License-Identifier: MIT
/* LD_PRELOAD tracer (a diagnostic, not part of jitcache): shows how a process
 * reaches OpenCL / Level Zero program building — ordinary symbol binding
 * ("symbol") or a pointer looked up with dlsym on a dlopen handle ("dlsym") —
 * with the caller object, the build options, the Level Zero module descriptor
 * (incl. a chained program_exp_desc) and the time each call took.  Also logs
 * dlsym lookups of zeGet*ProcAddrTable / zel* / clGetExtension* names
 * (TRACE_ALL_DLSYM=1: every cl* / ze* / ocloc* lookup).  Also wraps the
 * offline compiler library's oclocInvoke.  Output: $TRACE_OUT or stderr.
 * Cheap on big processes: every other dlsym is glibc's own (a jump, see
 * dlsym below), and objects are named by _dl_find_object, not dladdr.
 * x86-64 only.
 *   cc -O1 -shared -fPIC -fvisibility=hidden -o /tmp/libtrace.so trace.c -ldl
 *   TRACE_OUT=/tmp/t.log LD_PRELOAD=/tmp/libtrace.so examples/sycl/run.sh opencl:cpu
 * Not to be combined with libjitcache.so in one process. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pthread.h>

typedef int32_t cl_int; typedef uint32_t cl_uint;
typedef void *cl_program, *cl_context, *cl_device_id;
typedef void (*notify_fn)(cl_program, void *);

static FILE *out;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
typedef void *(*dlsym_fn)(void *, const char *);
static dlsym_fn real_dlsym_p;
static dlsym_fn real_dlsym(void)
{
	if (!real_dlsym_p) real_dlsym_p = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
	if (!real_dlsym_p) real_dlsym_p = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
	return real_dlsym_p;
}
static void *rdlsym(void *h, const char *n) { return real_dlsym()(h, n); }
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
/* The object containing address a: _dl_find_object (glibc 2.35) answers in
 * nanoseconds; dladdr() also searches the object's symbols for the nearest
 * one, which in a big library costs tens of microseconds a call. */
static struct link_map *object_of(const void *a)
{
	struct dl_find_object f;
	if (a && _dl_find_object((void *)(uintptr_t)a, &f) == 0)
		return f.dlfo_link_map;
	Dl_info i; struct link_map *m = NULL;
	return a && dladdr1(a, &i, (void **)&m, RTLD_DL_LINKMAP) ? m : NULL;
}
static const char *obj(const void *a)
{
	struct link_map *m = object_of(a);
	if (!m) return "?";
	if (!*m->l_name) return "main";
	const char *s = strrchr(m->l_name, '/');
	return s ? s + 1 : m->l_name;
}
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	pthread_mutex_lock(&mu);
	if (!out) { const char *p = getenv("TRACE_OUT"); out = p ? fopen(p, "a") : NULL; if (!out) out = stderr; }
	va_list ap; va_start(ap, fmt); vfprintf(out, fmt, ap); va_end(ap); fflush(out);
	pthread_mutex_unlock(&mu);
}
static const char *hname(void *h)
{
	if (h == RTLD_DEFAULT) return "RTLD_DEFAULT";
	if (h == RTLD_NEXT) return "RTLD_NEXT";
	struct link_map *m = NULL;
	if (dlinfo(h, RTLD_DI_LINKMAP, &m) == 0 && m && m->l_name) { const char *s = strrchr(m->l_name, '/'); return s ? s + 1 : (*m->l_name ? m->l_name : "main"); }
	return "?";
}

/* name looked up in the scope of the object m (its dependencies): through a
 * handle dlopen gives for it, never m itself.  A link map is a handle only
 * for objects dlopen()ed themselves; one loaded as another's dependency has
 * no search list of its own, and glibc 2.43's dlsym crashes on it (as in
 * JAX's OpenXLA plugin, whose sycl_onednn.so is such a dependency). */
static void *scope_lookup(struct link_map *m, const char *name)
{
	void *h = dlopen(m->l_name && *m->l_name ? m->l_name : NULL, RTLD_NOLOAD | RTLD_LAZY);
	void *p = h ? rdlsym(h, name) : NULL;
	if (h) dlclose(h);
	return p;
}

/* The real definition, seen from the caller: LD_PRELOAD wins the caller's
 * binding, but the API library may sit in a dlopen(RTLD_LOCAL) scope that
 * dlsym(RTLD_NEXT) from here cannot see. */
static void *resolve(const char *name, void *caller, void *self)
{
	struct link_map *m = object_of(caller); void *p = NULL;
	if (m && !strstr(obj(caller), "jitcache"))
		p = scope_lookup(m, name);
	if (!p || p == self) p = rdlsym(RTLD_NEXT, name);
	if (!p || p == self) {
		void *h = dlopen(name[0] == 'c' ? "libOpenCL.so.1" : name[0] == 'o' ? "libocloc.so" : "libze_loader.so.1",
				 RTLD_NOLOAD | RTLD_LAZY);
		if (h) p = rdlsym(h, name);
	}
	say("[trace] resolved real %s for caller %s -> %s\n", name, obj(caller), p ? obj(p) : "NULL");
	return p == self ? NULL : p;
}

/* For each traced function: real pointer for direct calls (RTLD_NEXT) and the
 * pointer the last dlsym() returned (calls through that go via the _d entry). */
#define FN(ret, name, params, args, pre, post)                                     \
	static ret (*direct_##name) params; static ret (*looked_##name) params;   \
	__attribute__((visibility("default"))) ret name params {                    \
		void *caller = __builtin_return_address(0);                             \
		if (!direct_##name) direct_##name = (__typeof__(direct_##name))resolve(#name, caller, (void *)name); \
		const char *how = "symbol"; ret (*real) params = direct_##name;         \
		pre; double t0 = now(); ret r = real args; double dt = now() - t0; post; return r; \
	}                                                                           \
	static ret d_##name params {                                                \
		const char *how = "dlsym"; ret (*real) params = looked_##name;          \
		void *caller = __builtin_return_address(0);                             \
		pre; double t0 = now(); ret r = real args; double dt = now() - t0; post; return r; \
	}

FN(cl_program, clCreateProgramWithIL, (cl_context c, const void *il, size_t len, cl_int *e), (c, il, len, e),
   (void)0, say("[trace] %-6s clCreateProgramWithIL len=%zu from %s -> %p (%.3fs)\n", how, len, obj(caller), r, dt))
FN(cl_program, clCreateProgramWithSource, (cl_context c, cl_uint n, const char **s, const size_t *l, cl_int *e), (c, n, s, l, e),
   (void)0, say("[trace] %-6s clCreateProgramWithSource n=%u len0=%zu from %s -> %p (%.3fs)\n", how, n, s && s[0] ? (l && l[0] ? l[0] : strlen(s[0])) : 0, obj(caller), r, dt))
FN(cl_program, clCreateProgramWithBinary, (cl_context c, cl_uint n, const cl_device_id *d, const size_t *l, const unsigned char **b, cl_int *st, cl_int *e), (c, n, d, l, b, st, e),
   (void)0, say("[trace] %-6s clCreateProgramWithBinary n=%u len0=%zu from %s -> %p (%.3fs)\n", how, n, l ? l[0] : 0, obj(caller), r, dt))
FN(cl_int, clBuildProgram, (cl_program p, cl_uint n, const cl_device_id *d, const char *o, notify_fn f, void *u), (p, n, d, o, f, u),
   (void)0, say("[trace] %-6s clBuildProgram %p ndev=%u opts='%s' notify=%s from %s -> %d (%.3fs)\n", how, p, n, o ? o : "(null)", f ? "yes" : "no", obj(caller), r, dt))
FN(cl_int, clCompileProgram, (cl_program p, cl_uint n, const cl_device_id *d, const char *o, cl_uint nh, const cl_program *h, const char **hn, notify_fn f, void *u), (p, n, d, o, nh, h, hn, f, u),
   (void)0, say("[trace] %-6s clCompileProgram %p opts='%s' headers=%u from %s -> %d (%.3fs)\n", how, p, o ? o : "(null)", nh, obj(caller), r, dt))
FN(cl_program, clLinkProgram, (cl_context c, cl_uint n, const cl_device_id *d, const char *o, cl_uint ni, const cl_program *in, notify_fn f, void *u, cl_int *e), (c, n, d, o, ni, in, f, u, e),
   (void)0, say("[trace] %-6s clLinkProgram inputs=%u opts='%s' from %s -> %p (%.3fs)\n", how, ni, o ? o : "(null)", obj(caller), r, dt))

typedef struct { uint32_t stype; const void *pNext; } ze_base;
typedef struct { uint32_t stype; const void *pNext; uint32_t format; size_t inputSize; const uint8_t *pInputModule; const char *pBuildFlags; const void *pConstants; } ze_module_desc;
typedef struct { uint32_t stype; const void *pNext; uint32_t count; const size_t *inputSizes; const uint8_t **pInputModules; const char **pBuildFlags; const void **pConstants; } ze_prog_exp;
static void ze_desc(char *buf, size_t n, const ze_module_desc *d)
{
	int k = snprintf(buf, n, "format=%u size=%zu flags='%s' consts=%s", d->format, d->inputSize,
			 d->pBuildFlags && d->inputSize != 1 ? d->pBuildFlags : "?", d->pConstants ? "yes" : "no");
	for (const ze_base *b = d->pNext; b && k < (int)n; b = b->pNext) {
		if (b->stype == 0x00020002) {
			const ze_prog_exp *p = (const void *)b;
			k += snprintf(buf + k, n - k, " PROGRAM_EXP_DESC count=%u", p->count);
			for (uint32_t i = 0; i < p->count && k < (int)n; i++)
				k += snprintf(buf + k, n - k, " [%zu '%s' c=%s]", p->inputSizes[i], p->pBuildFlags && p->pBuildFlags[i] ? p->pBuildFlags[i] : "", p->pConstants && p->pConstants[i] ? "y" : "n");
		} else
			k += snprintf(buf + k, n - k, " pNext.stype=0x%x", b->stype);
	}
}
FN(int, zeModuleCreate, (void *ctx, void *dev, const ze_module_desc *d, void **m, void **log), (ctx, dev, d, m, log),
   char db[2048]; ze_desc(db, sizeof db, d),
   say("[trace] %-6s zeModuleCreate %s from %s -> 0x%x (%.3fs)\n", how, db, obj(caller), r, dt))
FN(int, zeModuleDynamicLink, (uint32_t n, void **mods, void **log), (n, mods, log),
   (void)0, say("[trace] %-6s zeModuleDynamicLink n=%u from %s -> 0x%x (%.3fs)\n", how, n, obj(caller), r, dt))

/* The offline compiler library (libocloc.so): SYCL's kernel compiler and
 * some libraries compile through it without a driver call. */
FN(int, oclocInvoke, (unsigned n, const char **argv, uint32_t ns, const uint8_t **ds, const uint64_t *ls,
		      const char **nms, uint32_t nh, const uint8_t **dh, const uint64_t *lh, const char **nmh,
		      uint32_t *no, uint8_t ***dout, uint64_t **lout, char ***nout),
   (n, argv, ns, ds, ls, nms, nh, dh, lh, nmh, no, dout, lout, nout),
   (void)0, say("[trace] %-6s oclocInvoke argc=%u argv1=%s sources=%u from %s -> %d (%.3fs)\n", how, n,
		n > 1 && argv ? argv[1] : "", ns, obj(caller), r, dt))

static const struct { const char *name; void *wrap; void **slot; } tab[] = {
#define T(n) { #n, (void *)d_##n, (void **)&looked_##n }
	T(clCreateProgramWithIL), T(clCreateProgramWithSource), T(clCreateProgramWithBinary), T(clBuildProgram),
	T(clCompileProgram), T(clLinkProgram), T(zeModuleCreate), T(zeModuleDynamicLink), T(oclocInvoke),
};

/* dlsym(h, name) called from caller, for the names traced or logged (cl*,
 * ze*, oc*) on any handle but RTLD_NEXT; the stub below sends it nothing else. */
__attribute__((used)) static void *trace_dlsym(void *h, const char *name, const void *caller)
{
	void *p = rdlsym(h, name);
	/* glibc searches RTLD_DEFAULT in the caller's scope, and sees this
	 * tracer as the caller: a library loaded RTLD_LOCAL looking up its own
	 * symbols must still find them. */
	if (!p && h == RTLD_DEFAULT) {
		struct link_map *m = object_of(caller);
		if (m) p = scope_lookup(m, name);
	}
	static int quiet = -1;
	if (quiet < 0) quiet = getenv("TRACE_ALL_DLSYM") ? 0 : 1;
	for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
		if (!strcmp(name, tab[i].name) && p) { *tab[i].slot = p;
			say("[trace] dlsym(%s, \"%s\") from %s -> %s (wrapped)\n", hname(h), name, obj(caller), obj(p));
			return tab[i].wrap; }
	if (!quiet || !strncmp(name, "zeGet", 5) || !strncmp(name, "clGetExt", 8) || !strcmp(name, "zeInit") || !strncmp(name, "zel", 3) || !strncmp(name, "zeLoader", 8))
		say("[trace] dlsym(%s, \"%s\") from %s -> %s\n", hname(h), name, obj(caller), p ? obj(p) : "NULL");
	return p;
}

__attribute__((used)) static void *real_dlsym_for_stub(void) { return (void *)real_dlsym(); }

/* dlsym: RTLD_NEXT, and every name but cl*, ze* and oc* (ocloc), go straight
 * to glibc's dlsym by a jump, not a call, so that glibc sees the original
 * caller.  A call from here would make RTLD_NEXT mean "after the tracer":
 * Intel's OpenMP runtime (libiomp5, which oneMKL and llama.cpp's SYCL build
 * load) looks up dlsym(RTLD_NEXT, "ompt_start_tool") from its own
 * ompt_start_tool, found itself again that way and recursed (millions of
 * lookups: llama-cli spent minutes in the dynamic loader before its first
 * module).  The same stub as jitcache's shim/dlsym.c (x86-64). */
__asm__(".text\n"
	".globl dlsym\n"
	".type dlsym, @function\n"
	"dlsym:\n"
	"	cmpq $-1, %rdi\n"        /* RTLD_NEXT */
	"	je 2f\n"
	"	testq %rsi, %rsi\n"
	"	jz 2f\n"
	"	cmpb $0x7a, (%rsi)\n"    /* 'z' */
	"	jne 3f\n"
	"	cmpb $0x65, 1(%rsi)\n"   /* 'e' */
	"	je 4f\n"
	"	jmp 2f\n"
	"3:	cmpb $0x63, (%rsi)\n"    /* 'c' */
	"	jne 5f\n"
	"	cmpb $0x6c, 1(%rsi)\n"   /* 'l' */
	"	je 4f\n"
	"	jmp 2f\n"
	"5:	cmpb $0x6f, (%rsi)\n"    /* 'o' */
	"	jne 2f\n"
	"	cmpb $0x63, 1(%rsi)\n"   /* 'c' */
	"	jne 2f\n"
	"4:	movq (%rsp), %rdx\n"     /* the caller's return address */
	"	jmp trace_dlsym\n"
	"2:	pushq %rdi\n"
	"	pushq %rsi\n"
	"	subq $8, %rsp\n"
	"	call real_dlsym_for_stub\n"
	"	addq $8, %rsp\n"
	"	popq %rsi\n"
	"	popq %rdi\n"
	"	testq %rax, %rax\n"
	"	jz 1f\n"
	"	jmp *%rax\n"
	"1:	xorl %eax, %eax\n"
	"	ret\n"
	".size dlsym, .-dlsym\n");
