#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# The preloaded library is small (issue 37, item 2): libjitcache.so holds
# the exports and loads the rest of jitcache, its core
# (libjitcache-core.so.N beside it), on the first intercepted call.  An idle
# process maps the preloaded library only; the first call of an export, or
# a dlsym() that finds one in a library, maps the core; a lookup of another
# name (even one starting with "cl") does not.  Without its core the library
# says so in one line, once, and every call reaches the driver.
. "$(dirname "$0")/../lib.sh"

CORE=$B/libjitcache-core.so.1
if [ ! -e "$LIB" ] || ! command -v python3 >/dev/null; then
	skip "no $LIB or no python3"
	finish
	exit $?
fi
OPENCL=$(ldconfig -p 2>/dev/null | awk '/libOpenCL\.so\.1 .*x86-64/ { print $NF; exit }')
[ -n "$OPENCL" ] || OPENCL=libOpenCL.so.1

# Each step prints whether the core is mapped at that point.
cat >"$T/probe.py" <<'PY'
import ctypes, sys
def core():
    return "core" if "libjitcache-core" in open("/proc/self/maps").read() else "no-core"
print("start", core())
ocl = ctypes.CDLL(sys.argv[1], mode=ctypes.RTLD_GLOBAL)
ocl.clGetPlatformIDs            # not wrapped: no core
ctypes.CDLL(None).clock_gettime # a "cl" name that is no export: no core
print("lookups", core())
if sys.argv[2] == "dlsym":
    f = ocl.clReleaseProgram    # dlsym() on the loader's handle: the door
    print("door", core())
else:
    f = ctypes.CDLL(None).clReleaseProgram  # jitcache's own export
    print("export", core())
f.restype = ctypes.c_int
r = (f(None), f(None))
print("call", core(), *r)
PY

env LD_PRELOAD="$LIB" cat /proc/self/maps >"$T/idle.maps"
check "an idle process maps the preloaded library" grep -q '/libjitcache\.so' "$T/idle.maps"
check_not "... and not the core" grep -q 'libjitcache-core' "$T/idle.maps"

env LD_PRELOAD="$LIB" python3 "$T/probe.py" "$OPENCL" export >"$T/export.out" 2>"$T/export.err"
cat "$T/export.out" "$T/export.err"
check "python: no core at start" grep -qx 'start no-core' "$T/export.out"
check "... nor after looking up clGetPlatformIDs and clock_gettime" \
	grep -qx 'lookups no-core' "$T/export.out"
check "... nor after looking up jitcache's own export" grep -qx 'export no-core' "$T/export.out"
# clReleaseProgram(NULL): CL_INVALID_PROGRAM (-44) from the ICD loader, twice.
check "the first call of an export loads the core, and the driver answers" \
	grep -qx 'call core -44 -44' "$T/export.out"
check_not "nothing said on stderr" test -s "$T/export.err"

env LD_PRELOAD="$LIB" python3 "$T/probe.py" "$OPENCL" dlsym >"$T/door.out" 2>"$T/door.err"
check "a dlsym() that finds clReleaseProgram in the loader loads the core" \
	grep -qx 'door core' "$T/door.out"
check "... and its wrapper answers as the driver does" grep -qx 'call core -44 -44' "$T/door.out"

# Without its core: one line, once, and the driver's own answer.
mkdir -p "$T/alone"
cp "$LIB" "$T/alone/libjitcache.so"
env LD_PRELOAD="$T/alone/libjitcache.so" python3 "$T/probe.py" "$OPENCL" export \
	>"$T/alone.out" 2>"$T/alone.err"
cat "$T/alone.out" "$T/alone.err"
check "no core: the calls reach the driver" grep -qx 'call no-core -44 -44' "$T/alone.out"
check "no core: one line on stderr, naming the core" \
	test "$(grep -c 'jitcache: cannot load its core: .*libjitcache-core' "$T/alone.err")" = 1
check "... and nothing else" test "$(wc -l <"$T/alone.err")" = 1

# A relative LD_PRELOAD path still finds the core after the program changed
# directory.
mkdir -p "$T/elsewhere"
(cd "$B" && env LD_PRELOAD=./libjitcache.so python3 -c '
import ctypes, os, sys
os.chdir(sys.argv[2])
ctypes.CDLL(sys.argv[1], mode=ctypes.RTLD_GLOBAL)
r = ctypes.CDLL(None).clReleaseProgram(None)
print("call", r, "libjitcache-core" in open("/proc/self/maps").read())
' "$OPENCL" "$T/elsewhere") >"$T/rel.out" 2>"$T/rel.err"
check "a relative LD_PRELOAD path: the core is found after a chdir" grep -qx 'call -44 True' "$T/rel.out"
check_not "... without a word of jitcache's" grep -q '^jitcache' "$T/rel.err"

# The core's lookups of the real functions are made from the preloaded
# library's place: RTLD_NEXT finds a library preloaded after it (as when
# jitcache was one library), not nothing (seen from the core, loaded
# RTLD_LOCAL, there is no "next").
cat >"$T/next.c" <<'C'
#include <dlfcn.h>
#include <stdio.h>
__attribute__((visibility("default"))) int clReleaseProgram(void *program)
{
	int (*real)(void *) = (int (*)(void *))dlsym(RTLD_NEXT, "clReleaseProgram");
	fprintf(stderr, "next: called\n");
	return real ? real(program) : -1000;
}
C
if cc -shared -fPIC -O1 -o "$T/libnext.so" "$T/next.c" -ldl 2>"$T/next.cc.err"; then
	env LD_PRELOAD="$LIB:$T/libnext.so" python3 "$T/probe.py" "$OPENCL" export \
		>"$T/next.out" 2>"$T/next.err"
	cat "$T/next.out" "$T/next.err"
	check "a library preloaded after jitcache: the core calls on to it, and it to the driver" \
		sh -c "grep -qx 'call core -44 -44' '$T/next.out' && test \$(grep -c '^next: called' '$T/next.err') = 2"
else
	check "the next library builds (cc)" false
fi

check "the core exports only jc_core_attach" \
	test "$(nm -D --defined-only "$CORE" | awk '$2 != "A" { print $3 }')" = jc_core_attach

finish
