#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# OpenCL on PoCL (CPU), where kernels really run: with PoCL's own kernel
# cache off, results are bit-identical without jitcache, cold and warm, and
# the warm build comes from the cache -- through linked symbols, through
# dlopen + dlsym, and with a pfn_notify callback.
. "$(dirname "$0")/../lib.sh"
export POCL_KERNEL_CACHE=0 JITCACHE_LOG=info
CLB=$B/tests/cl_build

need_pocl

cp "$ROOT/tests/integration/compute.cl" k.cl
OPTS="-DSCALE=1.75f -cl-mad-enable"
result() { sed -n 's/.*result=\([0-9a-f]*\).*/\1/p' "$1"; }
run_build() { # NAME [cl_build args...]: output in NAME.out / NAME.err
	local name=$1; shift
	"$@" >"$name.out" 2>"$name.err"
}

run_build plain "$CLB" --platform Portable --source k.cl --options "$OPTS" --run compute
check "without jitcache: the kernel runs" grep -q '^run=0 ' plain.out
expected=$(result plain.out)

run_build cold $JITCACHE run -- "$CLB" --platform Portable --source k.cl --options "$OPTS" --run compute
check "cold: stored one entry" test "$(entries)" -eq 1
check "cold: no hit" grep -q 'jitcache: 0 hits' cold.err
check "cold: results bit-identical to a run without jitcache" test "$(result cold.out)" = "$expected"

run_build warm $JITCACHE run -- "$CLB" --platform Portable --source k.cl --options "$OPTS" --run compute
check "warm: answered from the cache" grep -q 'jitcache: 1 hits, 0 misses, 0 stores' warm.err
check "warm: results bit-identical to a run without jitcache" test "$(result warm.out)" = "$expected"
echo "     PoCL build: cold $(sed -n 's/.*seconds=\([0-9.]*\).*/\1/p' cold.out) s," \
     "warm $(sed -n 's/.*seconds=\([0-9.]*\).*/\1/p' warm.out) s"

run_build dl $JITCACHE run -- "$CLB" --platform Portable --source k.cl --options "$OPTS" --run compute --dlopen
check "dlopen + dlsym: answered from the cache" grep -q 'jitcache: 1 hits, 0 misses, 0 stores' dl.err
check "dlopen + dlsym: results bit-identical" test "$(result dl.out)" = "$expected"

# 600 programs of one input alive at once, each with a kernel: more than
# twice the program map's first 256 chains, so its tables grow while the
# programs live; every kernel still answers its own program and name.
run_build many $JITCACHE run -- "$CLB" --platform Portable --source k.cl --options "$OPTS" --many 600
check "600 programs alive at once: every kernel answers its own program ($(sed -n 's/^many=.*ok=//p' many.out) of 600)" \
	grep -q '^many=600 ok=600$' many.out
check "600 programs alive at once: 601 hits" grep -q 'jitcache: 601 hits, 0 misses' many.err

# A build with pfn_notify: cold (stored from inside the callback), then warm.
run_build plain2 "$CLB" --platform Portable --source k.cl --options "$OPTS -DASYNC" --run compute
run_build acold $JITCACHE run -- "$CLB" --platform Portable --source k.cl --options "$OPTS -DASYNC" --run compute --async
check "async, cold: stored" test "$(entries)" -eq 2
check "async, cold: results bit-identical" test "$(result acold.out)" = "$(result plain2.out)"
run_build awarm $JITCACHE run -- "$CLB" --platform Portable --source k.cl --options "$OPTS -DASYNC" --run compute --async
check "async, warm: answered from the cache" grep -q 'jitcache: 1 hits, 0 misses, 0 stores' awarm.err
check_not "async, warm: pfn_notify got the application's program" grep -q notify_program=wrong awarm.out
check "async, warm: results bit-identical" test "$(result awarm.out)" = "$(result plain2.out)"

# 8 threads building 3 programs at once, warm: every thread hits, and PoCL
# with its kernel cache off must not abort.  Its binary names the temporary
# directory it unpacks to, so threads loading one entry shared it and the
# first release removed the others' files ("Can't get stat() on
# .../_UNCACHED_..."): 3 runs in 10 aborted before each hit got its own.
export JITCACHE_DIR=$T/cache-threads
$JITCACHE run -- "$B/tests/cl_threads" --platform Portable >threads.cold 2>&1
check "threads, cold: every build succeeds" grep -q '^threads=8 ok=8' threads.cold
ok=0
for i in $(seq 1 20); do
	$JITCACHE run -- "$B/tests/cl_threads" --platform Portable >threads.warm 2>&1 &&
		grep -q 'jitcache: 8 hits, 0 misses' threads.warm && ok=$((ok + 1))
done
check "threads, warm: 20 runs in a row, each 8 hits and no abort ($ok of 20)" test "$ok" -eq 20

# Every build is accounted for: 3 from source (looked up), 3 of programs
# created from their binaries (passed through, one debug line each,
# counted).  One thread per binary: PoCL with its cache off aborts threads
# that load one binary at once by themselves, without jitcache (5 runs in 6
# with 8 threads on 3 binaries, measured).
export JITCACHE_DIR=$T/cache-binaries
JITCACHE_LOG=debug $JITCACHE run -- "$B/tests/cl_threads" --platform Portable --binary \
	--threads 3 >bin.out 2>&1
check "programs from binaries: built" grep -q '^threads=3 ok=3' bin.out
check "programs from binaries: one debug line per build passed through" \
	test "$(grep -c 'OpenCL build: passed through (a program created from binaries' bin.out)" -eq 3
check "programs from binaries: and the 3 from source looked up" \
	test "$(grep -cE 'OpenCL build [0-9a-f]+: (miss|hit)$' bin.out)" -eq 3
check "programs from binaries: jitcache stats counts them" \
	sh -c "'$JITCACHE' stats -v | grep -q 'passed through: native or binaries *3'"
export JITCACHE_DIR=$T/cache

# JITCACHE_DISABLE=1: straight to the driver, nothing cached or looked up.
rm -rf "$JITCACHE_DIR"
JITCACHE_DISABLE=1 run_build off $JITCACHE run -- "$CLB" --platform Portable --source k.cl --options "$OPTS" --run compute
check "disabled: results bit-identical" test "$(result off.out)" = "$expected"
check "disabled: nothing stored" test "$(entries)" -eq 0

# A program that loads and unloads its OpenCL stack itself, twice: after
# its dlclose() the loader is unloaded with jitcache as without (jitcache
# used to keep a reference from its lookup: the first loader stayed), and
# the second round, on the loader loaded again, builds through jitcache.
"$B/tests/cl_unload" >unload-plain.out 2>&1
if grep -q "round 1: libOpenCL.so unmapped" unload-plain.out; then
	LD_PRELOAD=$LIB JITCACHE_DIR=$T/unload "$B/tests/cl_unload" >unload.out 2>unload.err
	check "reloaded OpenCL stack: both rounds build" \
		test "$(grep -c '^round [12]: build 0$' unload.out)" -eq 2
	check "... after each dlclose() the loader is unloaded" \
		test "$(grep -c '^round [12]: libOpenCL.so unmapped$' unload.out)" -eq 2
	check "... jitcache saw both builds" grep -q "^jitcache: 1 hits, 1 misses\|^jitcache: 0 hits, 2 misses" unload.err
else
	skip "this OpenCL loader stays loaded after dlclose() even without jitcache"
fi

# `jitcache warm` with only an OpenCL recipe, where no GPU of either API
# is to be had (PoCL's device is a CPU; the Level Zero driver simulates no
# GPU without its variables): the reason names both APIs, not Level Zero
# alone (issue 45 item 6).
JITCACHE_DIR=$T/recipes JITCACHE_RECIPES=1 run_build recipe \
	$JITCACHE run -- "$CLB" --platform Portable --source k.cl --options "$OPTS -DRECIPE"
check "a recipe recorded for the OpenCL build" \
	test "$(JITCACHE_DIR=$T/recipes stats_field recipes)" -ge 1
env -u NEOReadDebugKeys -u ProductFamilyOverride -u SetCommandStreamReceiver \
	JITCACHE_DIR=$T/recipes "$JITCACHE" warm >warm-none.out 2>&1
check "warm, no GPU of either API: refused (exit $?)" test $? -ne 0
check "... saying no OpenCL platform offers a GPU either, in one line" \
	sh -c "grep -c '^jitcache warm: no GPU to warm for: .*no OpenCL platform offers one' warm-none.out | grep -qx 1"
finish
