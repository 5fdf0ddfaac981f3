#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: full: needs Intel's 2026 driver in the test bed (make testbed)
# Intel's 2026 driver keeps its own persistent compiler cache, on by
# default: what it caches, where, how it is switched off, and that jitcache
# works beside it (both on: the program's results are the driver's, each
# cache fills and serves).  Skipped on other drivers.  Facts, not timings:
# the side-by-side times are in bench/modern.sh.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/ze_common.bash"
modern_ze
CLB=$B/tests/cl_build
neo_files() { find "$1" -type f -name "*.$2" 2>/dev/null | wc -l; }
# The driver's defaults: no NEO_CACHE_* variable, a HOME of our own.
defaults() { env -u NEO_CACHE_PERSISTENT -u NEO_CACHE_DIR -u XDG_CACHE_HOME HOME="$T/home" "$@"; }
mkdir -p "$T/home"
N=$T/home/.cache/neo_compiler_cache

defaults "$CLIENT" link "$T/reduce.spv" >"$T/d1.out" 2>&1
defaults "$CLIENT" link "$T/reduce.spv" >"$T/d2.out" 2>&1
check "on by default: ~/.cache/neo_compiler_cache created, one Level Zero entry" \
	test "$(neo_files "$N" l0_cache)" -eq 1
check "... the second process builds with it" grep -q "result 0x0 kernels 19" "$T/d2.out"
defaults "$CLB" --source "$KERNELS/norm.cl" >"$T/cl1.out" 2>&1
defaults "$CLB" --il "$T/reduce.spv" >"$T/cl2.out" 2>&1
check "OpenCL builds (source and IL) are cached too" \
	test "$(neo_files "$N" cl_cache)" -eq 2 -a "$(cat "$T"/cl[12].out | grep -c '^build=0')" -eq 2

rm -rf "$T/home/.cache"
defaults env NEO_CACHE_PERSISTENT=0 "$CLIENT" link "$T/reduce.spv" >"$T/off.out" 2>&1
check "NEO_CACHE_PERSISTENT=0 switches it off (nothing written)" \
	test "$(neo_files "$T/home" l0_cache)" -eq 0 -a "$(grep -c 'result 0x0' "$T/off.out")" -eq 1
defaults env NEO_CACHE_DIR="$T/nodir" "$CLIENT" link "$T/reduce.spv" >"$T/nodir.out" 2>&1
check "a NEO_CACHE_DIR that does not exist: not created, nothing cached" \
	test ! -e "$T/nodir" -a "$(neo_files "$T/home" l0_cache)" -eq 0
mkdir -p "$T/neo"
defaults env NEO_CACHE_DIR="$T/neo" "$CLIENT" link "$T/reduce.spv" >"$T/dir.out" 2>&1
check "an existing NEO_CACHE_DIR is used" test "$(neo_files "$T/neo" l0_cache)" -eq 1

# Both caches on: a cold start fills both, a warm one is a jitcache hit.
rm -rf "$T/neo" "$JITCACHE_DIR"; mkdir -p "$T/neo"
both() { defaults env NEO_CACHE_DIR="$T/neo" LD_PRELOAD="$LIB" "$CLIENT" link "$T/reduce.spv"; }
both >"$T/b1.out" 2>&1
both >"$T/b2.out" 2>&1
check "both on, cold: jitcache compiles and stores" grep -q "miss, compiled" "$T/b1.out"
check "both on, cold: the driver stores its own copy too" test "$(neo_files "$T/neo" l0_cache)" -eq 1
check "both on, warm: a jitcache hit with every kernel" \
	sh -c "grep -q ': hit, loaded' '$T/b2.out' && grep -q 'result 0x0 kernels 19' '$T/b2.out'"
# NEO warm, jitcache empty: the module NEO serves from its cache is stored
# by jitcache and loads on the next run.
rm -rf "$JITCACHE_DIR"
both >"$T/b3.out" 2>&1
both >"$T/b4.out" 2>&1
check "NEO warm, jitcache empty: stored from the driver's cached module" grep -q "miss, compiled" "$T/b3.out"
check "... and hit next time, every kernel" \
	sh -c "grep -q ': hit, loaded' '$T/b4.out' && grep -q 'result 0x0 kernels 19' '$T/b4.out'"
finish
