#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# PoCL's cache off: a program made from another's binary unpacks into the
# other's directory, and releasing the other removes it, here while PoCL
# compiles the first one's work-group function there (pyopencl's
# test_can_build_and_run_binary, whose compile a warm entry made start
# sooner: PoCL aborted, "Final linking of kernel simple failed", in every
# warm run of pocl46's fb26532).  jitcache's hook of PoCL's rename makes the
# directory again and puts PoCL's file there (cl_pocl.c): the program runs
# and gets PoCL's results.  Without jitcache PoCL aborts alike when the
# release comes at that moment (said, not checked: it is PoCL's own race).
. "$(dirname "$0")/../lib.sh"
export POCL_KERNEL_CACHE=0 POCL_CACHE_DIR=$T/pocl-cache
unset POCL_DEBUG
CLB=$B/tests/cl_build

if ! clinfo -l 2>/dev/null | grep -q "Portable Computing Language"; then
	skip "PoCL is not installed (pocl-opencl-icd)"
	finish; exit
fi
mkdir -p "$POCL_CACHE_DIR"
cp "$ROOT/tests/integration/compute.cl" k.cl
build() { "$@" "$CLB" --platform Portable --source k.cl --options "-DSCALE=2.5f" \
	--run compute ${TWIN:+--twin}; }

build env >plain.out 2>plain.err
check "without jitcache, no release under the compile: it ran" grep -q '^run=0 ' plain.out
rc=0; TWIN=1 build env >none.out 2>none.err || rc=$?
echo "info $NAME: without jitcache, released under the compile:" \
	"$(grep '^twin_released' none.out), exit $rc, $(grep -c 'Final linking' none.err) abort(s)"

for i in 1 2 3; do
	rm -rf "$T/jc"
	rc=0; JITCACHE_DIR=$T/jc JITCACHE_LOG=info TWIN=1 build "$JITCACHE" run -- \
		>cold$i.out 2>cold$i.err || rc=$?
	check "jitcache ($i): the program released under the compile" \
		grep -q '^twin_released=during' cold$i.out
	check "... the run succeeded (exit $rc; $(grep -c 'Final linking' cold$i.err) abort(s))" \
		test "$rc" = 0
	check "... PoCL's results" \
		test "$(grep '^run=0 ' cold$i.out)" = "$(grep '^run=0 ' plain.out)"
done
finish
