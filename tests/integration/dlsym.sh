#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# jitcache interposes dlsym: lookups must behave exactly as without it, above
# all dlsym(RTLD_NEXT, ...), which glibc resolves relative to its caller.
. "$(dirname "$0")/../lib.sh"

# An interposer of puts() of the usual kind, preloaded before jitcache: it
# finds the next puts with dlsym(RTLD_NEXT).  With RTLD_NEXT resolved relative
# to jitcache instead, it would find itself or miss libc's and loop or crash.
cat > interposer.c <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
int puts(const char *s)
{
	static int (*next)(const char *);
	if (!next)
		next = (int (*)(const char *))dlsym(RTLD_NEXT, "puts");
	if (!next || next == puts)
		return fprintf(stderr, "interposer: bad RTLD_NEXT lookup\n"), -1;
	char line[256];
	snprintf(line, sizeof line, "[wrapped] %s", s);
	return next(line);
}
C
cat > main.c <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
/* Print which object each lookup lands in; the output must not change
 * when jitcache is preloaded. */
static void show(const char *how, void *p)
{
	Dl_info info;
	printf("%s -> %s\n", how, p && dladdr(p, &info) ? info.dli_fname : "(null)");
}
int main(void)
{
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	show("next malloc", dlsym(RTLD_NEXT, "malloc"));
	show("libc malloc", dlsym(libc, "malloc"));
	show("default free", dlsym(RTLD_DEFAULT, "free"));
	show("next missing", dlsym(RTLD_NEXT, "no_such_symbol_anywhere"));
	puts("hello");
	return 0;
}
C
cc -shared -fPIC -o libinterposer.so interposer.c -ldl && cc -o main main.c -ldl
check "the test programs build" test -x main

./main > plain.out 2>&1
LD_PRELOAD="$T/libinterposer.so:$LIB" ./main > jc.out 2>&1
LD_PRELOAD="$T/libinterposer.so" ./main > interposer.out 2>&1
check "RTLD_NEXT, RTLD_DEFAULT and handle lookups land where they do without jitcache" \
	cmp plain.out <(LD_PRELOAD="$LIB" ./main 2>&1)
check "the lookups were made" grep -q "next malloc -> .*libc.so.6" plain.out
check "an interposer before jitcache still finds the next puts" grep -qx "\[wrapped\] hello" jc.out
check "... and sees every lookup as it does without jitcache" cmp interposer.out jc.out

# The same interposer as an ordinary dependency, loaded after jitcache:
# relative to jitcache, its RTLD_NEXT would find the interposer itself.
cc -o main-dep main.c -L"$T" -linterposer -Wl,-rpath,"$T" -ldl
./main-dep > dep-plain.out 2>&1
LD_PRELOAD="$LIB" ./main-dep > dep.out 2>&1
check "an interposer loaded after jitcache finds the next puts" grep -qx "\[wrapped\] hello" dep.out
check "... and sees every lookup as it does without jitcache" cmp dep-plain.out dep.out

# Sanitizer runtimes call dlsym(RTLD_NEXT, ...) during their own start-up,
# before any constructor of jitcache has run.
asan=$(cc -print-file-name=libasan.so)
if [ -f "$asan" ] && [ "$asan" != libasan.so ]; then
	cc -fsanitize=address -o main-asan main.c -ldl
	LD_PRELOAD="$asan" ASAN_OPTIONS=detect_leaks=0 ./main-asan > asan-plain.out 2>&1
	LD_PRELOAD="$asan:$LIB" ASAN_OPTIONS=detect_leaks=0 ./main-asan > asan.out 2>&1
	check "an AddressSanitizer program starts and runs with jitcache preloaded" grep -qx hello asan.out
	check "... and its lookups are unchanged" cmp asan-plain.out asan.out
else
	skip "libasan not installed"
fi
# A library loaded RTLD_LOCAL that looks up its own symbols with
# dlsym(RTLD_DEFAULT, ...): glibc searches the caller's scope, which includes
# the library itself.  Intel's IGC 2.x finds its built-in function library
# this way; seen from jitcache, the lookup failed and every Level Zero build
# on the 2026 driver ended in an internal compiler error (0x70000004).
cat > own.c <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
int own_data = 42;
int zeOwnFunction(void) { return 7; }  /* a name jitcache may wrap */
int clOwnFunction(void) { return 8; }
void own_lookup(void)
{
	int *d = dlsym(RTLD_DEFAULT, "own_data");
	int (*z)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "zeOwnFunction");
	int (*c)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "clOwnFunction");
	printf("own_data %d zeOwnFunction %d clOwnFunction %d missing %p\n", d ? *d : -1,
	       z ? z() : -1, c ? c() : -1, dlsym(RTLD_DEFAULT, "no_such_symbol_anywhere"));
}
C
cat > local.c <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	void (*f)(void) = h ? (void (*)(void))dlsym(h, "own_lookup") : NULL;
	if (!f)
		return fprintf(stderr, "cannot load %s\n", argv[1]), 1;
	f();
	return 0;
}
C
cc -shared -fPIC -o libown.so own.c -ldl && cc -o local local.c -ldl
./local "$T/libown.so" > local-plain.out 2>&1
LD_PRELOAD="$LIB" ./local "$T/libown.so" > local-jc.out 2>&1
check "a library loaded RTLD_LOCAL finds its own symbols through RTLD_DEFAULT" \
	grep -qx "own_data 42 zeOwnFunction 7 clOwnFunction 8 missing (nil)" local-plain.out
check "... with jitcache preloaded too (ze*/cl* names and others)" cmp local-plain.out local-jc.out
finish
