#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# A secure-execution process (issue 44, item 14): preloaded from
# /etc/ld.so.preload, jitcache ran in setuid-root programs with the invoking
# user's JITCACHE_* (root appended to a file the user named, read a
# root-only ini, made directories where the user said).  A process with
# AT_SECURE (setuid, setgid, file capabilities) now takes nothing from
# jitcache: no setting read, no core loaded, every call passed on to the
# driver, not a word said (shim/preload.c).
# A setuid-root copy of a small program run as another user (linked with
# the library, as /etc/ld.so.preload can't be set in a test), against the
# same program without the setuid bit.  Needs root (to make a setuid-root
# program), and a file system that honours setuid: else it skips.
. "$(dirname "$0")/../lib.sh"
if [ "$(id -u)" -ne 0 ]; then
	skip "not root: cannot make a setuid-root program"
	finish; exit $?
fi
if ! user_setup; then
	skip "no other user to run the program as (setpriv)"
	finish; exit $?
fi
cat >"$T/secure.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
/* Linked with the library first (as a preloaded one comes first), then
 * the ICD loader: a call of one of its exports, then a build on PoCL (a
 * miss: jitcache reads its settings); says whether the core
 * was loaded.  OpenCL's types as the ABI has them. */
typedef void *cl;
int clReleaseProgram(cl program);
int clGetPlatformIDs(unsigned n, cl *platforms, unsigned *found);
int clGetPlatformInfo(cl platform, unsigned what, size_t size, void *value, size_t *got);
int clGetDeviceIDs(cl platform, unsigned long type, unsigned n, cl *devices, unsigned *found);
cl clCreateContext(const void *props, unsigned n, const cl *devices, void *notify, void *data,
		   int *err);
cl clCreateProgramWithSource(cl context, unsigned n, const char **text, const size_t *lengths,
			     int *err);
int clBuildProgram(cl program, unsigned n, const cl *devices, const char *options, void *notify,
		   void *data);
static int build(void)
{
	const char *text = "kernel void k(global float *o) { o[0] = 7.0f; }";
	cl platforms[8], platform = NULL, device, context, program;
	unsigned n = 0;
	int err = -1;
	clGetPlatformIDs(8, platforms, &n);
	for (unsigned i = 0; i < n && i < 8; i++) {
		char name[256] = "";
		clGetPlatformInfo(platforms[i], 0x0902 /* CL_PLATFORM_NAME */, sizeof name, name, NULL);
		if (strstr(name, "Portable"))
			platform = platforms[i];
	}
	if (!platform || clGetDeviceIDs(platform, ~0ul, 1, &device, NULL) ||
	    !(context = clCreateContext(NULL, 1, &device, NULL, NULL, &err)) ||
	    !(program = clCreateProgramWithSource(context, 1, &text, NULL, &err)))
		return err;
	return clBuildProgram(program, 1, &device, "", NULL, NULL);
}
int main(void)
{
	char maps[1 << 16];
	printf("secure=%lu\n", getauxval(AT_SECURE));
	printf("call %d\n", clReleaseProgram(NULL));
	printf("build %d\n", build());
	FILE *f = fopen("/proc/self/maps", "r");
	size_t n = f ? fread(maps, 1, sizeof maps - 1, f) : 0;
	maps[n] = '\0';
	printf("%s\n", strstr(maps, "libjitcache-core") ? "core" : "no-core");
	return 0;
}
C
ln -s libjitcache.so "$U/lib/libjitcache.so.1" # its soname
# (an absolute RPATH: what a setuid program's loader still follows)
if ! cc -O1 -o "$U/secure" "$T/secure.c" -Wl,--no-as-needed -L"$U/lib" -l:libjitcache.so -l:libOpenCL.so.1 \
	-Wl,-rpath,"$U/lib" 2>"$T/cc.err"; then
	cat "$T/cc.err"
	check "the test program builds (cc)" false
	finish; exit $?
fi
cp "$U/secure" "$U/plain"
# The same program without jitcache: what the driver answers a setuid program.
cc -O1 -o "$U/bare" "$T/secure.c" -Wl,--no-as-needed -l:libOpenCL.so.1 2>>"$T/cc.err"
chown root:root "$U/secure" "$U/bare"
chmod 4755 "$U/secure" "$U/bare"
mkdir -p "$U/victim" "$U/pocl" # (PoCL needs a directory of its own even uncached)
chown "$OTHER_UID" "$U/victim" "$U/pocl"
run() { # NAME PROGRAM: as the other user, with every setting it may give
	as_user env -u OCL_ICD_VENDORS POCL_KERNEL_CACHE=0 POCL_CACHE_DIR="$U/pocl" JITCACHE_LOG=debug JITCACHE_DIR="$U/victim/cache" \
		JITCACHE_STATS_LOG="$U/victim/stats.log" "$2" >"$T/$1.out" 2>&1
	cat "$T/$1.out"
}

run plain "$U/plain"
check "without setuid: an ordinary process" grep -qx 'secure=0' "$T/plain.out"
check "... the first call of an export loads the core, the driver answers" \
	sh -c "grep -qx 'call -44' '$T/plain.out' && grep -qx core '$T/plain.out'"
check "... the build succeeds, and is cached where the user said" \
	sh -c "grep -qx 'build 0' '$T/plain.out' && test -d '$U/victim/cache'"
rm -rf "$U/victim/cache"
run secure "$U/secure"
if ! grep -qx 'secure=1' "$T/secure.out"; then
	skip "the setuid-root copy does not run in secure-execution mode here (nosuid?)"
	finish; exit $?
fi
check "setuid root, run by $USER_NAME: the driver answers" grep -qx 'call -44' "$T/secure.out"
run bare "$U/bare"
check "... the build answers what it answers without jitcache ($(grep '^build' "$T/bare.out"))" \
	sh -c "grep '^build' '$T/bare.out' | grep -qxFf - '$T/secure.out'"
check "... no core loaded" grep -qx no-core "$T/secure.out"
check_not "... not a word of jitcache's, though JITCACHE_LOG=debug" grep -q '^jitcache' "$T/secure.out"
check_not "... nothing made where the user said" test -e "$U/victim/cache"
finish
