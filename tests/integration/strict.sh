#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# The JIT monitor (issue 37 item 6), on both APIs with real compilers:
# OpenCL on PoCL, Level Zero on Intel's driver simulating an Arc GPU.
#  - JITCACHE_STRICT=warn: one line for each compile that missed, naming the
#    program, the API, the key and the cause (as `jitcache explain` does); the
#    compile goes on and is stored; a hit says nothing;
#  - JITCACHE_STRICT=error: a miss is not compiled: the driver's build-failure
#    code (CL_BUILD_PROGRAM_FAILURE, ZE_RESULT_ERROR_MODULE_BUILD_FAILURE), an
#    OpenCL build log saying why, nothing stored; a hit passes;
#  - a request jitcache cannot key: refused at error as a miss is, said at
#    warn (OpenCL's: cl_build_bounds.sh);
#  - off by default, and shown by `jitcache config`.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/ze_common.bash"
export POCL_KERNEL_CACHE=0
unset JITCACHE_STRICT
CLB=$B/tests/cl_build
cd "$T" || exit 1
printf '#define SCALE 1.75f\n' | cat - "$ROOT/tests/integration/compute.cl" >k.cl

check "off by default" sh -c "'$JITCACHE' config | grep -q '^log.strict *= off'"
JITCACHE_STRICT=error check "JITCACHE_STRICT=error shown by jitcache config" \
	sh -c "'$JITCACHE' config | grep -q '^log.strict *= error .*env JITCACHE_STRICT'"

# cl MODE NAME [OPTIONS]: one PoCL build of k.cl with JITCACHE_STRICT=MODE
cl() {
	JITCACHE_STRICT=$1 "$JITCACHE" run -- "$CLB" --platform Portable --source k.cl \
		--options "${3:--DX=1}" >"$2.out" 2>"$2.err"
}
strict_lines() { grep -c "^jitcache: .*JIT at run time\|^jitcache: JITCACHE_STRICT=error" "$1" || true; }
if clinfo -l 2>/dev/null | grep -q "Portable Computing Language"; then
	cl error cl-refused
	check "OpenCL, error, miss: CL_BUILD_PROGRAM_FAILURE (-11)" grep -q "^build=-11 " cl-refused.out
	check "... its build log says why" \
		grep -q "^jitcache: JITCACHE_STRICT=error: not compiled, since it is not in the cache: never seen before.* (key [0-9a-f]\{32\})$" cl-refused.out
	check "... the build status is CL_BUILD_ERROR (-2)" grep -q "^status=0/-2 options=\[-DX=1\]" cl-refused.out
	check "... and one line on stderr naming program, API, key and cause" \
		grep -q "^jitcache: JITCACHE_STRICT=error refused a compile: cl_build\[[0-9]*\] OpenCL build [0-9a-f]\{32\} missed: never seen before" cl-refused.err
	check "... nothing stored" test "$(entries)" -eq 0
	cl warn cl-warn
	check "OpenCL, warn, miss: the build succeeds" grep -q "^build=0 " cl-warn.out
	check "... one line naming program, API, key and cause" \
		grep -q "^jitcache: JIT at run time: cl_build\[[0-9]*\] OpenCL build [0-9a-f]\{32\} missed: never seen before" cl-warn.err
	check "... exactly one" test "$(strict_lines cl-warn.err)" -eq 1
	check "... and it was stored" test "$(entries)" -eq 1
	cl warn cl-warn-hit
	check "OpenCL, warn, hit: built, and not a word" \
		sh -c "grep -q '^build=0 ' cl-warn-hit.out && test ! -s cl-warn-hit.err"
	cl error cl-error-hit
	check "OpenCL, error, hit: passes" grep -q "^build=0 " cl-error-hit.out
	check "... not a word" test ! -s cl-error-hit.err
	cl warn cl-warn-opts "-DX=2"
	check "OpenCL, warn: the cause as explain says it (build options)" \
		grep -qF "missed: build options: '-DX=1' -> '-DX=2'" cl-warn-opts.err
	cl "" cl-off "-DX=3"
	check "off: a miss builds, and says nothing" \
		sh -c "grep -q '^build=0 ' cl-off.out && test ! -s cl-off.err"
else
	skip "PoCL is not installed (pocl-opencl-icd)"
fi

need_ze # the rest: Level Zero on the simulated Arc GPU
rm -rf "$JITCACHE_DIR"
check "SPIR-V built with ocloc" spirv reduce "$KERNELS/reduce.cl"
result() { sed -n 's/.*result \(0x[0-9a-f]*\) kernels.*/\1/p' "$1" | head -n 1; }
ze() { JITCACHE_STRICT=$1 jc "$CLIENT" link "${@:3}" "$T/reduce.spv" >"$2.out" 2>"$2.err"; }
ze error ze-refused
check "Level Zero, error, miss: ZE_RESULT_ERROR_MODULE_BUILD_FAILURE" \
	test "$(result ze-refused.out)" = 0x70000004
check "... one line naming program, API, key and cause" \
	grep -q "^jitcache: JITCACHE_STRICT=error refused a compile: ze_client\[[0-9]*\] zeModuleCreate [0-9a-f]\{32\} missed: never seen before" ze-refused.err
check "... nothing stored" test "$(entries)" -eq 0
ze error ze-refused-log -l
check "... a refused miss is not recorded for explain (nothing was compiled)" \
	grep -q "missed: never seen before" ze-refused-log.err
check "... with a build log asked for: the same code, and a log handle that reads" \
	sh -c "grep -q 'result 0x70000004' ze-refused-log.out && grep -q '^build log: result 0x0' ze-refused-log.out"
ze warn ze-warn
check "Level Zero, warn, miss: the module is created" test "$(result ze-warn.out)" = 0x0
check "... one line naming program, API, key and cause" \
	grep -q "^jitcache: JIT at run time: ze_client\[[0-9]*\] zeModuleCreate [0-9a-f]\{32\} missed: never seen before" ze-warn.err
check "... exactly one" test "$(strict_lines ze-warn.err)" -eq 1
check "... and it was stored" test "$(entries)" -eq 1
ze warn ze-warn-hit
check "Level Zero, warn, hit: not a word" \
	sh -c "test \"\$(grep -c '^jitcache:' ze-warn-hit.err)\" -eq 0"
ze error ze-error-hit
check "Level Zero, error, hit: passes" test "$(result ze-error-hit.out)" = 0x0
check "... not a word" test "$(grep -c '^jitcache:' ze-error-hit.err)" -eq 0
ze error ze-unkeyable -x
check "a request jitcache cannot key (an unknown extension), error: refused as a miss is (issue 44 item 19)" \
	test "$(result ze-unkeyable.out)" = 0x70000004
check "... said in one line: no pack can answer it, and it would JIT at run time" \
	grep -q "^jitcache: JITCACHE_STRICT=error refused a compile: ze_client\[[0-9]*\] zeModuleCreate not cached (a request jitcache cannot key" ze-unkeyable.err
ze warn ze-unkeyable-warn -x
JITCACHE_DISABLE=1 jc "$CLIENT" link -x "$T/reduce.spv" >ze-unkeyable-real.out 2>&1
check "... warn: the driver's own result" \
	test "$(result ze-unkeyable-warn.out)" = "$(result ze-unkeyable-real.out)" -a -n "$(result ze-unkeyable-warn.out)"
check "... said in one line" \
	grep -q "^jitcache: JIT at run time: ze_client\[[0-9]*\] zeModuleCreate not cached (a request jitcache cannot key" ze-unkeyable-warn.err
ze "" ze-unkeyable-off -x
check "... off: not a word" test "$(grep -c '^jitcache:' ze-unkeyable-off.err)" -eq 0
finish
