#!/usr/bin/env bash
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
finish
