#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# A Level Zero hit indistinguishable from a miss (issue 40; the OpenCL half
# is cl_answers.sh): tests/helpers/ze_answers creates a module from SPIR-V
# (kernels with a required work-group size, a required sub-group size,
# local and private memory, many arguments; program-scope globals) and
# prints what a program can ask of it: the result, the build log, the
# kernel names and count, each kernel's properties (zeKernelGetProperties)
# and each global's size (zeModuleGetGlobalPointer).  Every answer must be
# the same without jitcache, on a miss and on a hit, on Debian 12's driver
# and (in the test bed) on Intel's 2026 driver.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/ze_common.bash"
need_ze
ANSWERS=$B/tests/ze_answers
check "ze_answers built" test -x "$ANSWERS"
check "SPIR-V built with ocloc (OpenCL C 2.0: program-scope globals)" \
	spirv answers "$ROOT/tests/integration/ze_answers.cl" -options "-cl-std=CL2.0"
cd "$T" || exit 1
export JITCACHE_LOG=info JITCACHE_DIR=$T/cache
run() { "$@" "$T/answers.spv" -g counter -g table; }
run "$ANSWERS" >plain.txt 2>plain.err
# (Intel's 2026 driver adds a kernel of its own: Intel_Symbol_Table_Void_Program.)
check "the answers are there: the 4 kernels, a required group size" \
	sh -c "test \$(grep -cE '^module.kernel\[[0-9]+\]=(fixed|subgroups|local_mem|private_mem)\$' plain.txt) -eq 4 &&
	       grep -qx 'kernel.fixed.required_group_size=16,1,1' plain.txt"
check "... a required sub-group size, local memory" \
	sh -c "grep -qx 'kernel.subgroups.required_subgroup_size=16' plain.txt &&
	       grep -q '^kernel.local_mem.local_mem_size=[1-9]' plain.txt"
run jc "$ANSWERS" >miss.txt 2>miss.err
check "a miss, compiled and stored" grep -q 'jitcache: 0 hits, 1 misses, 1 stores' miss.err
check "on a miss, every answer as without jitcache" diff plain.txt miss.txt
run jc "$ANSWERS" >hit.txt 2>hit.err
check "a hit" grep -q 'jitcache: 1 hits, 0 misses, 0 stores' hit.err
check "on a hit, every answer as without jitcache" diff plain.txt hit.txt
finish
