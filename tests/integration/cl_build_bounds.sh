#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# The OpenCL build path's bounds (issue 44), each proved by what the kernels
# compute on PoCL, with and without jitcache:
#   - item 7: a hit's binary gets a directory name of its own (PoCL's cache
#     off) in its header only: a kernel named k_UNCACHED_abcdef builds cold
#     and is made and run on the hit.
#   - items 4 and 6: a program writes params.h (PA=1), compiles a.cl, rewrites
#     it (PA=2), compiles b.cl and links: the compiles hit and the link misses
#     (its options differ); a compile that reads files is carried out at its
#     call, never at the link, which computed 220 instead of 120 (4) and,
#     after a chdir, aborted in PoCL's link (6); a deferred compile (one that
#     reads no file) the driver cannot carry out at the link (PoCL cannot
#     write its cache directory) fails that link as the driver's own link
#     fails then (CL_LINK_PROGRAM_FAILURE), never aborting in PoCL's link.
#   - item 5: a header saved while the compiler runs (after jitcache hashed it,
#     before the compiler read it): nothing is stored, the miss is counted
#     and explained as such, and the next run (the header back as it was)
#     computes what the driver computes; with and without pfn_notify.
#   - item 19: JITCACHE_STRICT=error fails a build jitcache cannot key (an
#     #include nesting deeper than jitcache follows), a compile or link it
#     passes through (-create-library), as it fails a miss; warn builds them.
#   - item 8: a build that failed for a reason outside the key (PoCL could not
#     write its cache directory: a file size limit, as a full file system
#     does) is not remembered: the next run builds and computes.
. "$(dirname "$0")/../lib.sh"
export POCL_KERNEL_CACHE=0 JITCACHE_LOG=info
CLB=$B/tests/cl_build CCL=$B/tests/cl_compile_link

need_pocl
result() { sed -n 's/.*result=\([0-9a-f]*\).*/\1/p' "$1"; }
counts() { grep -q "jitcache: $2 hits, $3 misses, $4 stores" "$1"; }
cl() { $JITCACHE run -- "$CLB" --platform Portable "$@"; }

# --- item 7: _UNCACHED_ in a kernel's name ----------------------------------------
cat >uncached.cl <<'CL'
kernel void k_UNCACHED_abcdef(global float *out, global const float *in, uint n)
{
	size_t i = get_global_id(0);
	if (i < n)
		out[i] = in[i] * 2.0f + 1.0f;
}
CL
u7() { cl --source uncached.cl --run k_UNCACHED_abcdef --verify >"$1.out" 2>"$1.err"; }
export JITCACHE_DIR=$T/cache7
u7 u7-cold
check "item 7: kernel k_UNCACHED_abcdef: cold, built, stored and right" \
	sh -c "grep -q '^verify=ok' u7-cold.out && grep -q 'jitcache: 0 hits, 1 misses, 1 stores' u7-cold.err"
u7 u7-warm
check "item 7: ... on the hit its kernel is made and computes the same" \
	sh -c "grep -q '^verify=ok' u7-warm.out && grep -q 'jitcache: 1 hits, 0 misses' u7-warm.err"
u7 u7-warm2
check "item 7: ... and on the next hit too" grep -q '^verify=ok' u7-warm2.out

# --- item 8: a failure outside the key --------------------------------------------
# PoCL writes the program's source into its cache directory first: with
# writes limited to 1 KiB (ulimit -f, SIGXFSZ ignored: the write fails with
# EFBIG, as on a full file system) a 3 KiB source fails the build with
# CL_BUILD_PROGRAM_FAILURE and a log naming no compile error.  The output
# goes through a pipe, which the limit does not cover.
{ cat uncached.cl; for i in $(seq 40); do
	echo "/* a comment that makes the source larger than the file size limit */"; done; } >big.cl
export JITCACHE_DIR=$T/cache8
$JITCACHE stats >/dev/null 2>&1 # the cache directory and its files, made unlimited
(trap '' XFSZ; ulimit -f 1; exec $JITCACHE run -- "$CLB" --platform Portable --source big.cl \
	--run k_UNCACHED_abcdef --verify) 2>&1 | cat >u8-full.out
check "item 8: PoCL's cache not writable: CL_BUILD_PROGRAM_FAILURE (-11)" grep -q '^build=-11 ' u8-full.out
check "item 8: ... its log names no compile error" sh -c "! grep -q 'error: ' u8-full.out"
check "item 8: ... not remembered (no failure record stored)" grep -q 'jitcache: 0 hits, 1 misses, 0 stores' u8-full.out
cl --source big.cl --run k_UNCACHED_abcdef --verify >u8-next.out 2>u8-next.err
check "item 8: the next run builds and computes what the driver does" \
	sh -c "grep -q '^build=0 ' u8-next.out && grep -q '^verify=ok' u8-next.out"
# --- item 5: a header saved during the build -------------------------------------
# The compiler reads slow.h first, whose #if takes it about a second (2^18
# macro expansions), then late.h.  cl_build's thread waits until late.h has
# been read once (jitcache hashing it before the driver's build starts; the
# compiler opens it only after slow.h), then renames late2.h's copy over it.
# On a loaded machine the compiler may still read late.h first: then that
# try proves nothing and another is made (the checks below need none of
# that timing on a correct jitcache).
{ echo '#define A0 (1)'
  for i in $(seq 18); do echo "#define A$i (A$((i - 1)) + A$((i - 1)))"; done
  echo '#if A18 != 262144'; echo '#error slow.h'; echo '#endif'; } >slow.h
cat >m5.cl <<'CL'
#include "slow.h"
#include "late.h"
kernel void compute(global float *out, global const float *in, uint n)
{
	size_t i = get_global_id(0);
	if (i < n)
		out[i] = in[i] * LATE;
}
CL
echo '#define LATE 2.0f' >late2.h
echo '#define LATE 2.0f' >late.h
"$CLB" --platform Portable --source m5.cl --run compute >u5-plain2.out 2>&1
echo '#define LATE 1.0f' >late.h
"$CLB" --platform Portable --source m5.cl --run compute >u5-plain1.out 2>&1
check "item 5: without jitcache, late.h decides the result" \
	test -n "$(result u5-plain1.out)" -a "$(result u5-plain1.out)" != "$(result u5-plain2.out)"
for mode in sync async; do
	flag=; [ $mode = async ] && flag=--async
	got=
	for try in 1 2 3 4 5; do
		export JITCACHE_DIR=$T/cache5-$mode-$try
		echo '#define LATE 1.0f' >late.h
		cl --source m5.cl --run compute $flag --rewrite-during-build late.h=late2.h \
			>u5-$mode.out 2>u5-$mode.err
		# the compiler read the new late.h, while jitcache had hashed the old
		if grep -q '^rewritten=during' u5-$mode.out &&
			[ "$(result u5-$mode.out)" = "$(result u5-plain2.out)" ]; then
			got=$try; break
		fi
	done
	if [ -z "$got" ]; then
		skip "item 5, $mode: in 5 tries the compiler never read late.h after it was rewritten"
		continue
	fi
	check "item 5, $mode: header rewritten during the build: nothing stored" \
		grep -q 'jitcache: 0 hits, 1 misses, 0 stores' u5-$mode.err
	check "item 5, $mode: ... jitcache explain says why" \
		sh -c "'$JITCACHE' explain | grep -q 'a file the key covers changed while the compiler read it'"
	check "item 5, $mode: ... jitcache stats counts it" \
		sh -c "'$JITCACHE' stats | grep -q 'input changed while compiling'"
	echo '#define LATE 1.0f' >late.h
	cl --source m5.cl --run compute $flag >u5-$mode-next.out 2>u5-$mode-next.err
	check "item 5, $mode: the next run, header back, computes what the driver computes" \
		test "$(result u5-$mode-next.out)" = "$(result u5-plain1.out)"
	cl --source m5.cl --run compute $flag >u5-$mode-next2.out 2>u5-$mode-next2.err
	check "item 5, $mode: ... and the run after it, from the cache, too" \
		sh -c "test '$(result u5-$mode-next2.out)' = '$(result u5-plain1.out)' && grep -q 'jitcache: 1 hits' u5-$mode-next2.err"
done
# --- items 4 and 6: a compile answered from the cache reads its headers then ------
cat >a4.cl <<'CL'
#include "params.h"
float fa(void) { return PA * 100.0f; }
CL
cat >b4.cl <<'CL'
#include "params.h"
float fa(void);
kernel void k(global float *out, global const float *in, uint n)
{
	size_t i = get_global_id(0);
	if (i < n)
		out[i] = fa() + PA * 10.0f + in[i] * 0.0f;
}
CL
mkdir -p elsewhere
# run4 NAME LINK_OPTIONS [ARGS...]: the program, with params.h PA=1 to begin with
run4() {
	local name=$1 lo=$2; shift 2
	echo '#define PA 1' >params.h
	"$@" "$CCL" --platform Portable --source a4.cl --then "echo '#define PA 2' >params.h" \
		--source b4.cl --link-options "$lo" --run k $EXTRA >"$name.out" 2>"$name.err"
}
printf 'kernel void k(global float *out, global const float *in, uint n)\n{ size_t i = get_global_id(0); if (i < n) out[i] = 120.0f + in[i] * 0.0f; }\n' >k120.cl
"$CLB" --platform Portable --source k120.cl --run k >u4-120.out 2>&1
for item in 4 6; do
	EXTRA=; [ $item = 6 ] && EXTRA="--chdir elsewhere"
	export JITCACHE_DIR=$T/cache$item
	run4 u$item-plain "" env JITCACHE_DISABLE=1
	check "item $item: without jitcache the kernel computes 120" \
		test "$(result u$item-plain.out)" = "$(result u4-120.out)"
	run4 u$item-cold "" $JITCACHE run --
	check "item $item: cold: the same" test "$(result u$item-cold.out)" = "$(result u4-120.out)"
	# The same program, linking with other options (" ", which PoCL takes):
	# both compiles hit, the link misses.
	run4 u$item-link " " $JITCACHE run --
	check "item $item: compiles from the cache, a link that misses: 120" \
		sh -c "test '$(result u$item-link.out)' = '$(result u4-120.out)' && grep -q 'jitcache: 2 hits, 1 misses' u$item-link.err"
	run4 u$item-warm " " $JITCACHE run --
	check "item $item: ... and the next run, all from the cache: 120" \
		sh -c "test '$(result u$item-warm.out)' = '$(result u4-120.out)' && grep -q 'jitcache: 3 hits, 0 misses' u$item-warm.err"
done
# --- item 19: JITCACHE_STRICT=error and what jitcache cannot key --------------------
export JITCACHE_DIR=$T/cache19
for i in $(seq 0 39); do echo "#include \"d$((i + 1)).h\"" >d$i.h; done
echo '#define DEEP 1.0f' >d40.h
printf '#include "d0.h"\nkernel void compute(global float *out, global const float *in, uint n)\n{ size_t i = get_global_id(0); if (i < n) out[i] = in[i] * DEEP; }\n' >deep.cl
JITCACHE_LOG=debug cl --source deep.cl --run compute >u19-warn.out 2>u19-warn.err
check "item 19: 40 nested includes: warn builds it, not cached" \
	sh -c "grep -q '^build=0 ' u19-warn.out && grep -q 'OpenCL build: passed through (not keyable' u19-warn.err"
JITCACHE_STRICT=error cl --source deep.cl --run compute >u19-error.out 2>u19-error.err
check "item 19: ... error: CL_BUILD_PROGRAM_FAILURE (-11), not compiled" \
	grep -q '^build=-11 ' u19-error.out
check "item 19: ... its build log says why" \
	grep -q '^jitcache: JITCACHE_STRICT=error: not compiled, since it is not in the cache: a request jitcache cannot key' u19-error.out
check "item 19: ... and one line on stderr" \
	grep -q '^jitcache: JITCACHE_STRICT=error refused a compile: cl_build\[[0-9]*\] OpenCL build not cached' u19-error.err
lib() { JITCACHE_STRICT=$1 $JITCACHE run -- "$CCL" --platform Portable --source b4.cl \
	--link-options -create-library >"$2.out" 2>"$2.err"; }
echo '#define PA 1' >params.h
lib warn u19-lib-warn
check "item 19: a library link (passed through): warn links it" grep -q '^link=0 ' u19-lib-warn.out
lib error u19-lib-error
check "item 19: ... error: CL_LINK_PROGRAM_FAILURE (-17), and one line" \
	sh -c "grep -q '^link=-17' u19-lib-error.out && grep -q 'JITCACHE_STRICT=error refused a compile: cl_compile_link.* clLinkProgram not cached' u19-lib-error.err"
# --- item 6: a deferred compile that cannot be carried out -------------------------
# c6.cl includes nothing (its compile is deferred on a hit) and is larger
# than 1 KiB: after --fsize-before-link 1024 PoCL cannot write it into its
# cache directory, so its compile, carried out at the link, fails.
{ cat "$ROOT/tests/integration/compute.cl"; for i in $(seq 40); do
	echo "/* a comment that makes the source larger than the file size limit */"; done; } >c6.cl
c6() { local name=$1; shift
	"$@" "$CCL" --platform Portable --source c6.cl --options "-DSCALE=2.0f" --run compute \
		--link-options " " $EXTRA >"$name.out" 2>"$name.err"; echo "rc=$?" >>"$name.out"; }
export JITCACHE_DIR=$T/cache6b
EXTRA="--fsize-before-link 1024"
c6 u6b-plain env JITCACHE_DISABLE=1
check "item 6: without jitcache, PoCL's link fails when it cannot write (-17)" grep -q '^link=-17' u6b-plain.out
c6 u6b-cold $JITCACHE run --
c6 u6b-hit $JITCACHE run --
check "item 6: the compile from the cache, carried out at the link, fails: the link fails as the driver's (-17)" \
	sh -c "grep -q '^link=-17' u6b-hit.out && grep -q 'jitcache: 1 hits, 1 misses' u6b-hit.err"
check "item 6: ... no abort, and one line says why" \
	sh -c "grep -q '^rc=1' u6b-hit.out && grep -q 'could not be carried out for its link' u6b-hit.err"
EXTRA=
c6 u6b-free-plain env JITCACHE_DISABLE=1
c6 u6b-free $JITCACHE run --
check "item 6: the next run, writes allowed, computes what the driver computes" \
	test "$(result u6b-free.out)" = "$(result u6b-free-plain.out)" -a -n "$(result u6b-free.out)"
finish
