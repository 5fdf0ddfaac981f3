#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# PoCL's cache off: a program made from another's binary unpacks into the
# other's directory, and freeing the other removes it, here while PoCL
# compiles the second one's work-group function there (pyopencl's
# test_can_build_and_run_binary: PoCL aborts, "Final linking of kernel
# simple failed"; its own race, without jitcache too).  A program jitcache
# serves has a directory name of its own, and a program the application
# makes from its binary gets one too (cl_pocl.h): the two never share one,
# and releasing the first under the second's compile removes nothing of
# the second's; what the second compiles there still joins the first
# one's entry, as when they shared a directory.  pocl46's entries made that compile start sooner, so that
# pyopencl met the release (stop 50); 4b7e5d1 aborts here in the warm runs.
. "$(dirname "$0")/../lib.sh"
export POCL_KERNEL_CACHE=0 POCL_CACHE_DIR=$T/pocl-cache
unset POCL_DEBUG
CLB=$B/tests/cl_build

need_pocl
mkdir -p "$POCL_CACHE_DIR"
cp "$ROOT/tests/integration/compute.cl" k.cl
build() { "$@" "$CLB" --platform Portable --source k.cl --options "-DSCALE=2.5f" \
	--run compute ${TWIN:+--twin}; }
hits() { grep -E '^jitcache: [0-9]+ hits' "$1" | tail -n 1 | sed -E 's/^jitcache: ([0-9]+) hits.*/\1/'; }

build env >plain.out 2>plain.err
check "without jitcache, no release under the compile: it ran" grep -q '^run=0 ' plain.out
rc=0; TWIN=1 build env >none.out 2>none.err || rc=$?
echo "info $NAME: without jitcache, released under the compile:" \
	"$(grep '^twin_' none.out | tr '\n' ' ')exit $rc, $(grep -c 'Final linking' none.err) abort(s)"
check "without jitcache the second program shares the first one's directory" \
	grep -q '^twin_dir=shared' none.out

export JITCACHE_DIR=$T/jc JITCACHE_LOG=info
rc=0; JITCACHE_DIR=$T/jc-cold TWIN=1 build "$JITCACHE" run -- >cold.out 2>cold.err || rc=$?
echo "info $NAME: jitcache cold (PoCL built the first: its own directory, its own race):" \
	"$(grep '^twin_' cold.out | tr '\n' ' ')exit $rc, $(grep -c 'Final linking' cold.err) abort(s)"
# PoCL says each work-group function it generates (POCL_DEBUG=timing).
compiles() { grep -c 'llvm_workgroup_ir_func_gen' "$1"; }
for i in 1 2 3; do
	# built, not run: the entry holds no work-group function of the
	# kernel's size, which the second program then compiles
	rm -rf "$T/jc"
	"$JITCACHE" run -- "$CLB" --platform Portable --source k.cl --options "-DSCALE=2.5f" \
		>fill$i.out 2>fill$i.err
	check "($i) the entry is stored" grep -qE '^jitcache: .* 1 stores' fill$i.err
	rc=0; TWIN=1 build "$JITCACHE" run -- >warm$i.out 2>warm$i.err || rc=$?
	check "... warm: the first program is served" test "$(hits warm$i.err)" -ge 1
	check "... the second, made of its binary, has a directory of its own" \
		grep -q '^twin_dir=own' warm$i.out
	check "... the first released under the second's compile" \
		grep -q '^twin_released=during' warm$i.out
	check "... the run succeeded (exit $rc; $(grep -c 'Final linking' warm$i.err) abort(s))" \
		test "$rc" = 0
	check "... PoCL's results" \
		test "$(grep '^run=0 ' warm$i.out)" = "$(grep '^run=0 ' plain.out)"
	# what the second compiled in its own directory is the first one's
	# entry's, as when they shared one: the next run compiles none
	POCL_DEBUG=timing build "$JITCACHE" run -- >next$i.out 2>next$i.err
	check "... the next run: PoCL compiled no work-group function ($(compiles next$i.err))" \
		test "$(compiles next$i.err)" = 0
	check "... PoCL's results" \
		test "$(grep '^run=0 ' next$i.out)" = "$(grep '^run=0 ' plain.out)"
done
finish
