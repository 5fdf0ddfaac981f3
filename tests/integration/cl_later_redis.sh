#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# An OpenCL build with pfn_notify that the driver ends on a thread of its
# own (JC_BUILT_LATER, shim/compile_once.h), against Redis: the compile
# request (cache.h's struct jc_request) is carried to that thread, so the
# store of the value there also releases the compile lease in the same
# script, as a build that ends on the caller's thread does.  (Before,
# what the request knew was kept per thread: the driver's thread found
# nothing, and the value went by a plain SET and the lease by a second
# request.)  The driver is PoCL, behind tests/helpers/loader/cl_async_driver.c
# (preloaded after jitcache), which returns from clBuildProgram at once and
# builds on a new thread, as the specification allows.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/remote_common.bash"
need_redis
unset JITCACHE_LOCK_TIMEOUT JITCACHE_COMPRESS JITCACHE_REMOTE_READ_ONLY
export JITCACHE_LOG=debug POCL_KERNEL_CACHE=0
CLB=$B/tests/cl_build
need_pocl
check "the test's driver wrapper builds" cc -shared -fPIC -O1 -Wall -Werror -pthread \
	-o "$T/libasync.so" "$ROOT/tests/helpers/loader/cl_async_driver.c"
check "redis-server started on a unix socket" start_redis main
export JITCACHE_REMOTE=redis+unix://$REDIS_SOCK_main
cp "$ROOT/tests/integration/compute.cl" k.cl
OPTS="-DSCALE=1.5f -DLATER"

redis-cli -s "$REDIS_SOCK_main" monitor >"$T/monitor.txt" &
MON=$!
sleep 0.3
JITCACHE_DIR=$T/node-A LD_PRELOAD="$LIB $T/libasync.so" \
	"$CLB" --platform Portable --source k.cl --options "$OPTS" --async --run compute \
	>"$T/A.out" 2>&1
sleep 0.3 # the monitor's last lines written
kill $MON
wait $MON 2>/dev/null
check "node A: the build ended on the driver's own thread" \
	grep -q "cl_async_driver: the build ends on the driver's thread" "$T/A.out"
check "node A: built, the kernel ran" grep -q '^run=0 ' "$T/A.out"
check "node A: compiled and stored in Redis" \
	test "$(compiles "$T/A.out")" -eq 1 -a "$(stats_in "$T/node-A" remote_stores)" -eq 1
key=$(sed -n 's/.*OpenCL build \([0-9a-f]\{32\}\): compiled.*/\1/p' "$T/A.out" | head -1)
check "node A: its key said ($key)" test -n "$key"
# MONITOR: each client command on a line, then the commands its script ran
# ("[0 lua]").  The value's store: which command set jitcache:v1:KEY, and
# did that same command delete the lease?
awk -v value="\"jitcache:v1:$key\"" -v lease="\"jitcache:{jitcache:v1:$key}:lease\"" '
	!/\[[0-9]+ lua\]/ { cmd++; if ($4 == "\"SET\"" && $5 == value) plain++ }
	/\[[0-9]+ lua\]/ && $4 == "\"set\"" && $5 == value { set[cmd] = 1 }
	/\[[0-9]+ lua\]/ && $4 == "\"del\"" && $5 == lease { del[cmd] = 1 }
	END {
		for (c in set) if (c in del) one++
		printf "plain_sets=%d store_and_release=%d\n", plain, one
	}' "$T/monitor.txt" >"$T/stores.txt"
cat "$T/stores.txt"
check "the value stored and the lease released by one script" \
	grep -q '^plain_sets=0 store_and_release=1$' "$T/stores.txt"
check "no lease left in Redis, the value there" \
	test "$(rcli main --scan --pattern '*:lease' | wc -l)" -eq 0 -a \
	"$(rcli main exists "jitcache:v1:$key")" -eq 1
node B "$CLB" --platform Portable --source k.cl --options "$OPTS" --async --run compute
check "node B: a remote hit, no compile" \
	test "$(compiles "$T/B.out")" -eq 0 -a "$(stats_in "$T/node-B" remote_hits)" -eq 1
finish
