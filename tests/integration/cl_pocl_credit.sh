#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# PoCL's cache off, the program released before its kernel ran (tinygrad
# takes the binary and releases the program; pyopencl's scans release with
# a command queued): PoCL compiles the work-group function after the
# release, which jitcache adds to the entry with its time kept apart
# (cl_pocl.h).  The next run, served from the entry, has PoCL find the
# function instead of compiling it: the exit line and `stats` count its
# time beside the build's (issue 46, item 4: tinygrad's warm run said
# 0.88 s of CPU avoided for 2.85 s saved), and so does the generic
# function of a binary taken from it.  A function PoCL compiles all the
# same (another kernel's) is not counted.
. "$(dirname "$0")/../lib.sh"
export POCL_KERNEL_CACHE=0 POCL_CACHE_DIR=$T/pocl-cache
unset POCL_DEBUG POCL_MAX_WORK_GROUP_SIZE
CLB=$B/tests/cl_build

need_pocl
mkdir -p "$POCL_CACHE_DIR"
# compute.cl's kernel and two more: a run of any compiles its own
# work-group function.
cp "$ROOT/tests/integration/compute.cl" k.cl
for k in other third; do
	sed -n "s/^kernel void compute(/kernel void $k(/p; /^{/,/^}/p" "$ROOT/tests/integration/compute.cl" >>k.cl
done
KERNEL=compute
build() { "$@" "$CLB" --platform Portable --source k.cl --options "-DSCALE=2.5f" \
	--release-queued --run $KERNEL; }
compiles() { grep -c 'llvm_workgroup_ir_func_gen' "$1"; }
avoided() { sed -n 's/.*compiling avoided: [0-9.]* s (\([0-9.]*\) s of CPU).*/\1/p' "$1"; }
saved_cpu() { "$JITCACHE" stats --json | sed -n 's/.*"saved_s": {"cpu": \([0-9.]*\).*/\1/p'; }

JITCACHE_LOG=debug build "$JITCACHE" run -- >cold.out 2>cold.err
check "jitcache cold: stored one entry" grep -q 'jitcache: 0 hits, 1 misses, 1 stores' cold.err
check "... then added the function PoCL compiled after the release" \
	grep -q "PoCL's work-group code added" cold.err
built=$(sed -n 's/.*OpenCL build .*: compiled in \([0-9.]*\) s,.*/\1/p' cold.err)
wg=$(sed -n "s/.*work-group code added .*compiled in \([0-9.]*\) s of CPU.*/\1/p" cold.err)

"$JITCACHE" stats --zero >/dev/null 2>&1
POCL_DEBUG=timing JITCACHE_LOG=debug build "$JITCACHE" run -- >warm.out 2>warm.err
check "jitcache warm: a hit" grep -q 'jitcache: 1 hits, 0 misses' warm.err
check "... the same results" test "$(grep '^run=0 ' warm.out)" = "$(grep '^run=0 ' cold.out)"
check "... PoCL compiled no work-group function ($(compiles warm.err))" test "$(compiles warm.err)" = 0
a=$(avoided warm.err)
s=$(saved_cpu)
echo "   the build: $built s of CPU; avoided: $a s of CPU (exit line), $s s (stats)"
check "... the exit line counts the work-group function PoCL found beside the build" \
	awk -v a="$a" -v b="$built" 'BEGIN { exit !(b > 0 && a - b >= 0.01) }'
check "... and so does stats" \
	awk -v a="$s" -v b="$built" 'BEGIN { exit !(b > 0 && a - b >= 0.01) }'
check "... credited once" test "$(grep -c 'PoCL found work-group function' warm.err)" = 1

# The other kernel: its function is not in the entry, PoCL compiles it.
KERNEL=other
"$JITCACHE" stats --zero >/dev/null 2>&1
POCL_DEBUG=timing JITCACHE_LOG=debug build "$JITCACHE" run -- >other.out 2>other.err
check "the other kernel: a hit" grep -q 'jitcache: 1 hits, 0 misses' other.err
check "... PoCL compiled its work-group function ($(compiles other.err))" \
	test "$(compiles other.err)" -ge 1
a=$(avoided other.err)
s=$(saved_cpu)
echo "   avoided: $a s of CPU (exit line), $s s (stats)"
check "... which is not counted: the build's time alone" \
	awk -v a="$a" -v s="$s" -v b="$built" \
	'BEGIN { d = a - b; e = s - b; exit !(d < 0.006 && d > -0.006 && e < 0.002 && e > -0.002) }'
check_not "... nothing credited" grep -q 'PoCL found work-group function' other.err
POCL_DEBUG=timing JITCACHE_LOG=debug build "$JITCACHE" run -- >other2.out 2>other2.err
a=$(avoided other2.err)
check "... the next run of it finds it, and counts it ($a s of CPU)" \
	awk -v a="$a" -v b="$built" 'BEGIN { exit !(b > 0 && a - b >= 0.01) }'
check "... PoCL compiled no work-group function ($(compiles other2.err))" \
	test "$(compiles other2.err)" = 0

# Taking the binary of a program built from source makes PoCL compile a
# generic work-group function for each kernel (tinygrad takes it; so did
# jitcache, to store it, until it stored PoCL's directory instead): the
# application pays for them, as without jitcache, and the binary it took
# replaces the entry (cl_pocl.h); a run served that binary has them, and a
# binary taken from it costs no such compile (cl_build --twin takes it, and
# runs a kernel of a program made of it: the third).
KERNEL=third
twin() { POCL_DEBUG=timing JITCACHE_LOG=debug "$@" "$JITCACHE" run -- "$CLB" --platform Portable \
	--source k.cl --options "-DSCALE=2.5f" --twin --run third; }
twin >twin0.out 2>twin0.err
check "taking a served program's binary: a hit" grep -q 'jitcache: 1 hits, 0 misses' twin0.err
check "... the third kernel's results" grep -q '^run=0 ' twin0.out
check "... PoCL compiled the generic functions, for the application ($(compiles twin0.err))" \
	test "$(compiles twin0.err)" -ge 3
check "... the binary the application took replaces the entry" \
	grep -q 'the binary the application took replaces' twin0.err
"$JITCACHE" stats --zero >/dev/null 2>&1
twin strace -f -qq -o twin.st -e trace=mkdir,mkdirat >twin.out 2>twin.err
t=$(avoided twin.err)
check "the next run: a hit" grep -q 'jitcache: 1 hits, 0 misses' twin.err
check "... the third kernel's results" grep -q '^run=0 ' twin.out
check "... PoCL compiled no work-group function ($(compiles twin.err))" \
	test "$(compiles twin.err)" = 0
check "... the generic functions PoCL found are counted ($t s of CPU)" \
	awk -v t="$t" -v b="$built" 'BEGIN { exit !(b > 0 && t - b >= 0.01) }'
# (answered with the binary, PoCL's cache off: its program is made only
# for a kernel, and PoCL then finds them no more: cl_program_map.h)
check "... one for each kernel" sh -c "test \"\$(grep -c 'PoCL found work-group function .*/0-0-0/' twin.err)\" = 3 ||
	grep -q 'answered with 3 generic work-group function' twin.err"
# A served binary's program is made only when something needs it (PoCL's
# cache off: cl_program_map.h): an application that takes the binary and
# makes its own program of it has PoCL load it once, into one directory
# (it loaded it twice before, into two), and one that runs a kernel of
# the program served has it made then, with the same results (the run
# above, under strace, counts the directories).
made_dirs() { grep -cE 'mkdir(at)?\(.*/_UNCACHED_[A-Za-z0-9]{6}", [0-9]+\) = 0' "$1"; }
check "taking a served binary: PoCL made one program directory, the application's ($(made_dirs twin.st))" \
	test "$(made_dirs twin.st)" = 1
JITCACHE_LOG=debug "$JITCACHE" run -- "$CLB" --platform Portable --source k.cl \
	--options "-DSCALE=2.5f" --run third >served.out 2>served.err
check "a kernel of the program served: a hit" grep -q 'jitcache: 1 hits, 0 misses' served.err
check "... its program made from the entry when the kernel needed it" \
	grep -q 'its program made now (0)' served.err
check "... the third kernel's results, as the binary's" \
	test "$(grep '^run=0 ' served.out)" = "$(grep '^run=0 ' twin.out)"
finish
