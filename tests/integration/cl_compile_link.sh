#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# Separate compile and link (clCompileProgram + clLinkProgram, as hashcat
# builds every program), cached as a pair: cold stores each compile and the
# link, warm answers all three from the cache with every answer the program
# reads unchanged (status, binary type, options, logs, kernel names) and,
# on PoCL, bit-identical results.  What decides the output separates
# entries: compile options, an embedded header's text or name, link options.
# A failed compile is compiled again (drivers differ in what its program
# answers); a library link passes through, and the exit line says so.
# Each compile and each link keeps its recipe, as builds do.
. "$(dirname "$0")/../lib.sh"
export JITCACHE_LOG=info POCL_KERNEL_CACHE=0
CL=$B/tests/cl_compile_link

cat >a.cl <<'CL'
#include "scale.h"
float helper(float x);
kernel void affine(global float *out, global const float *in, uint n)
{
	size_t i = get_global_id(0);
	if (i < n)
		out[i] = helper(in[i]) * SCALE + OFFSET;
}
CL
echo 'float helper(float x) { return x * 2.0f; }' >b.cl
echo '#define SCALE 1.0f' >scale.h
echo '#define SCALE 3.0f' >scale3.h
printf 'kernel void broken(global float *out) { out[0] = undeclared; }\n' >bad.cl

# The answers, without the timing line (and PoCL's temporary file names,
# which differ from one compile to the next).
answers() {
	grep -v '^kernels=' "$1" | sed 's/tempfile_[A-Za-z0-9]*/tempfile_X/g'
	sed -n 's/^kernels=\([0-9]*\) names=\(\[.*\]\).*/kernels=\1 names=\2/p' "$1"
}
same() { diff <(answers "$1") <(answers "$2"); }
# One step of the test: NAME then cl_compile_link's arguments.
step() { local name=$1; shift; $JITCACHE run -- "$CL" "$@" >"$name.out" 2>"$name.err"; }
line() { grep -q "jitcache: $2 hits, $3 misses, $4 stores" "$1.err"; }

driver_checks() { # PLATFORM LABEL RUN_ARGS...
	local p=$1 label=$2; shift 2
	local base=(--platform "$p" --source a.cl --source b.cl --header scale.h=scale.h
		--options "-DOFFSET=1.0f")
	export JITCACHE_DIR=$T/cache-$label
	"$CL" "${base[@]}" "$@" >"$label-plain.out" 2>&1
	check "$label: without jitcache, compile and link succeed" grep -q '^link=0 ' "$label-plain.out"
	JITCACHE_RECIPES=1 step "$label-cold" "${base[@]}" "$@"
	check "$label, cold: two compiles and the link stored" line "$label-cold" 0 3 3
	check "$label, cold: every answer as without jitcache" same "$label-plain.out" "$label-cold.out"
	check "$label, cold: each compile and the link keeps its recipe (jitcache warm replays them)" \
		sh -c "$JITCACHE stats | grep -q '^recipes *3 '"
	step "$label-warm" "${base[@]}" "$@"
	check "$label, warm: both compiles and the link from the cache" line "$label-warm" 3 0 0
	check "$label, warm: every answer as without jitcache" same "$label-plain.out" "$label-warm.out"
	step "$label-notify" "${base[@]}" "$@" --notify
	check "$label, warm with pfn_notify: hits, both callbacks called" \
		grep -q '^notified=3$' "$label-notify.out"

	# What separates entries.
	step "$label-opt" "${base[@]/-DOFFSET=1.0f/-DOFFSET=2.0f}" "$@"
	check "$label: other compile options: both compiles and the link compiled" line "$label-opt" 0 3 3
	step "$label-hdr" --platform "$p" --source a.cl --source b.cl --header scale.h=scale3.h \
		--options "-DOFFSET=1.0f" "$@"
	check "$label: another header text under the same name: compiled" line "$label-hdr" 0 3 3
	step "$label-name" "${base[@]}" --header unused.h=scale.h "$@"
	check "$label: one more header name: compiled" line "$label-name" 0 3 3
	step "$label-lopt" "${base[@]}" --link-options "-cl-fast-relaxed-math" "$@"
	# PoCL refuses every link option (CL_LINK_PROGRAM_FAILURE): no store there.
	check "$label: other link options: compiles hit, the link compiled" \
		grep -q "jitcache: 2 hits, 1 misses" "$label-lopt.err"
	step "$label-again" "${base[@]}" "$@"
	check "$label: the first entries still hit" line "$label-again" 3 0 0
	check "$label: ... with the same answers" same "$label-plain.out" "$label-again.out"

	# A failed compile, compiled again; a library link, passed through.
	"$CL" --platform "$p" --source bad.cl >"$label-badplain.out" 2>/dev/null
	step "$label-bad1" --platform "$p" --source bad.cl
	step "$label-bad2" --platform "$p" --source bad.cl
	check "$label: a failed compile is not stored" line "$label-bad2" 0 1 0
	check "$label: ... and answers as the driver did" same "$label-badplain.out" "$label-bad2.out"
	check "$label: ... with its error" grep -q '^compile=-15 ' "$label-bad2.out"
	step "$label-lib" --platform "$p" --source b.cl --link-options "-create-library"
	check "$label: a library link passes through, said in the exit line" \
		grep -q 'jitcache: .*; 1 passed through: 0 native or from binaries, 1 compile/link' \
		"$label-lib.err"
}

if clinfo -l 2>/dev/null | grep -q "Portable Computing Language"; then
	driver_checks Portable pocl --run affine
	check "pocl, warm: results bit-identical to a run without jitcache" \
		test "$(grep '^run=' pocl-warm.out)" = "$(grep '^run=' pocl-plain.out)"
	check "pocl: the results are there" grep -q '^run=0 result=' pocl-plain.out
	check_not "pocl: other compile options change the results" \
		test "$(grep '^run=' pocl-opt.out)" = "$(grep '^run=' pocl-plain.out)"
else
	skip "PoCL is not installed (pocl-opencl-icd)"
fi

sim_dg2
if clinfo -l 2>/dev/null | grep -q "Intel(R) OpenCL"; then
	driver_checks "Intel(R) OpenCL" intel
else
	skip "Intel's OpenCL driver does not show a simulated GPU (intel-opencl-icd)"
fi
finish
