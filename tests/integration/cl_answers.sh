#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# A hit indistinguishable from a miss: tests/helpers/cl_answers builds
# programs exercising what programs ask after a build (kernel attributes,
# argument names and types, program-scope globals, a warning in the log, a
# program with no kernel, kernel names and counts, work-group sizes, a
# separate compile and link) and prints every answer; they must be the same
# without jitcache, on a miss and on a hit, on every driver here (PoCL,
# Intel's driver simulating an Arc; in the test bed, the 2026 driver).
. "$(dirname "$0")/../lib.sh"
export JITCACHE_LOG=info POCL_KERNEL_CACHE=0
ANSWERS=$B/tests/cl_answers

# PoCL names a temporary file or directory in its logs, new each build.
norm() { sed 's/tempfile_[A-Za-z0-9]*/tempfile_X/g; s/_UNCACHED_[A-Za-z0-9]*/_UNCACHED_X/g' "$1"; }
same() { diff <(norm "$1") <(norm "$2"); }

compare() { # PLATFORM LABEL
	local p=$1 label=$2
	export JITCACHE_DIR=$T/cache-$label
	"$ANSWERS" --platform "$p" >"$label-plain.txt" 2>"$label-plain.err"
	check "$label: the answers are there" grep -q '^attrs.kernel.fixed.num_args=3$' "$label-plain.txt"
	$JITCACHE run -- "$ANSWERS" --platform "$p" >"$label-miss.txt" 2>"$label-miss.err"
	check "$label: every build missed and was stored" grep -q 'jitcache: 0 hits, 7 misses, 7 stores' "$label-miss.err"
	check "$label: on a miss, every answer as without jitcache" same "$label-plain.txt" "$label-miss.txt"
	$JITCACHE run -- "$ANSWERS" --platform "$p" >"$label-hit.txt" 2>"$label-hit.err"
	check "$label: every build hit" grep -q 'jitcache: 7 hits, 0 misses, 0 stores' "$label-hit.err"
	check "$label: on a hit, every answer as without jitcache" same "$label-plain.txt" "$label-hit.txt"
}

if clinfo -l 2>/dev/null | grep -q "Portable Computing Language"; then
	compare Portable pocl
	check "pocl: the attributes are answered at all" \
		grep -q 'attrs.kernel.hinted.attributes=.*vec_type_hint' pocl-hit.txt
else
	skip "PoCL is not installed (pocl-opencl-icd)"
fi
sim_dg2
if clinfo -l 2>/dev/null | grep -q "Intel(R) OpenCL"; then
	compare "Intel(R) OpenCL" intel
else
	skip "Intel's OpenCL driver does not show a simulated GPU (intel-opencl-icd)"
fi
finish
