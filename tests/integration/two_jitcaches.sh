#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# Two jitcaches preloaded at once (issue 44, item 12): a system package's
# `jitcache enable shell`, then `jitcache run` from a venv's wheel; here two
# copies of the built library in two directories.  They wrapped each other:
# the first one's wrapper, holding the key's lock, called the second one's,
# which waited for that lock until lock_timeout on every miss; then the
# build was counted and stored twice.  One jitcache per process: the first
# in the global scope works, the other steps aside (one debug line).
# Real OpenCL builds on PoCL (tests/helpers/cl_build).
. "$(dirname "$0")/../lib.sh"
CLB=$B/tests/cl_build
if [ ! -x "$CLB" ]; then # make check builds it
	check "test prerequisite $CLB built (make tests)" false
	finish; exit $?
fi
if ! clinfo -l 2>/dev/null | grep -q "Portable Computing Language"; then
	skip "PoCL is not installed (pocl-opencl-icd)"
	finish; exit $?
fi
export POCL_KERNEL_CACHE=0
for d in a b; do
	mkdir -p "$T/$d"
	cp "$LIB" "$T/$d/libjitcache.so"
	cp "$B/libjitcache-core.so" "$T/$d/libjitcache-core.so.1"
done
cat >"$T/k.cl" <<'CL'
kernel void twice(global float *o) { o[get_global_id(0)] = 2.0f; }
CL
both=$T/a/libjitcache.so:$T/b/libjitcache.so
field() { stats_field "$1"; }

# lock_timeout 0: a wait for the other copy's lock would end at once, saying so.
JITCACHE_LOG=debug JITCACHE_LOCK_TIMEOUT=0 LD_PRELOAD=$both \
	"$CLB" --platform Portable --source "$T/k.cl" >"$T/one.out" 2>&1
grep '^jitcache' "$T/one.out" | grep -v ': cl' | head -5
check "two copies preloaded: the build succeeds" grep -q '^build=0 ' "$T/one.out"
check "... one steps aside, in one debug line" \
	test "$(grep -c "jitcache: another jitcache ($T/a/libjitcache.so) works in this process; this one ($T/b/libjitcache.so) steps aside" "$T/one.out")" = 1
check_not "... no wait for the other copy's lock" grep -q 'gave up waiting' "$T/one.out"
check "... one miss counted ($(field misses))" test "$(field misses)" = 1
check "... one store ($(field stores))" test "$(field stores)" = 1
check "... one entry" test "$(entries)" = 1

# The next run, lock_timeout 600 s (the wait, were there one, would be cut
# by the timeout): a hit, counted once.
JITCACHE_LOG=debug JITCACHE_LOCK_TIMEOUT=600 LD_PRELOAD=$both timeout 60 \
	"$CLB" --platform Portable --source "$T/k.cl" >"$T/two.out" 2>&1
check "the next run succeeds" grep -q '^build=0 ' "$T/two.out"
check "... one hit counted ($(field hits)), no new miss ($(field misses))" \
	test "$(field hits)/$(field misses)" = 1/1
check "... still one entry" test "$(entries)" = 1
finish
