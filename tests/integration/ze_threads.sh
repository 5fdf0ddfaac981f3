#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# Level Zero: several threads, and several processes, building modules at
# once.  Each module is compiled once; the others wait and load it.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/ze_common.bash"
need_ze
export JITCACHE_LOG=debug

check "SPIR-V built with ocloc" spirv reduce "$KERNELS/reduce.cl"
check "SPIR-V built with ocloc" spirv norm "$KERNELS/norm.cl"
norm_kernels=$(kernels "$T/norm.spv")

# Four threads, one module, twice each.
jc "$CLIENT" link -t 4 -r 2 "$T/reduce.spv" >"$T/one.out" 2>&1
check "threads: all 8 modules created" test "$(count "result 0x0 kernels 19" "$T/one.out")" -eq 8
check "threads: compiled once" test "$(count "miss, compiled" "$T/one.out")" -eq 1
check "threads: the 7 others loaded from the cache" test "$(count ": hit, loaded" "$T/one.out")" -eq 7
check "threads: one entry" test "$(entries)" -eq 1

# Four threads, two modules (threads 0, 2: reduce; 1, 3: norm).
rm -rf "$JITCACHE_DIR"
jc "$CLIENT" link -t 4 "$T/reduce.spv" "$T/norm.spv" >"$T/two.out" 2>&1
check "threads, two modules: all created" \
	test "$(count "result 0x0 kernels 19" "$T/two.out")" -eq 2 -a \
	     "$(count "result 0x0 kernels ${norm_kernels:-?}" "$T/two.out")" -eq 2
check "threads, two modules: each compiled once" test "$(count "miss, compiled" "$T/two.out")" -eq 2
check "threads, two modules: two entries" test "$(entries)" -eq 2

# Three processes at once, one module, through three different doors.
rm -rf "$JITCACHE_DIR"
jc "$CLIENT" link "$T/reduce.spv" >"$T/p1.out" 2>&1 &
jc "$DLOPEN" dlsym "$T/reduce.spv" >"$T/p2.out" 2>&1 &
jc "$CLIENT" table "$T/reduce.spv" >"$T/p3.out" 2>&1 &
wait
check "processes: all three created the module" \
	test "$(cat "$T"/p[123].out | count "result 0x0 kernels 19" /dev/stdin)" -eq 3
check "processes: compiled once" test "$(cat "$T"/p[123].out | count "miss, compiled" /dev/stdin)" -eq 1
check "processes: one entry" test "$(entries)" -eq 1

finish
