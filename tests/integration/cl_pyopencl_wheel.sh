#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: full: needs pyopencl's wheel in .venv-pyopencl (make pyopencl-env)
# pyopencl from PyPI (.venv-pyopencl, `make pyopencl-env`), unmodified, on
# PoCL: its wheel links its own OpenCL loader under a renamed file
# (libOpenCL-5519dec5.so.1.0.0), which jitcache once failed to find (every
# clCreateProgramWithSource returned CL_INVALID_OPERATION).  The issue's
# reproducer, then pyopencl's own test files run without jitcache, cold and
# warm: every test must end the same way, and the warm run hits.
#   PYOPENCL_TEST_FILES="test_wrapper.py ..." overrides the files (the
#   default is a subset that takes ~10 s; the issue measured six files).
. "$(dirname "$0")/../lib.sh"
VENV=${PYOPENCL_VENV:-$ROOT/.venv-pyopencl}
FILES=${PYOPENCL_TEST_FILES:-test_wrapper.py test_enqueue_copy.py test_arrays_in_structs.py}
if [ ! -x "$VENV/bin/python" ] || [ ! -d "$VENV/pyopencl-tests" ]; then
	skip "no pyopencl environment in $VENV: 'make pyopencl-env' installs it"
	finish; exit $?
fi
if ! clinfo -l 2>/dev/null | grep -q "Portable Computing Language"; then
	skip "PoCL is not installed (pocl-opencl-icd)"
	finish; exit $?
fi
export PYOPENCL_TEST=portable PYOPENCL_CTX=portable PYOPENCL_NO_CACHE=1 POCL_KERNEL_CACHE=0
export JITCACHE_LOG=info
PY=$VENV/bin/python
count() { # count hits|misses|stores FILE: from the exit line of the process
	grep -E '^jitcache: [0-9]+ hits' "$2" | tail -n 1 |
		sed -E "s/.* ([0-9]+) $1[,;].*/\\1/;t;s/.*/0/"
}
check "the wheel carries a renamed OpenCL loader" \
	sh -c "ls '$VENV'/lib/python3*/site-packages/pyopencl*/.libs/libOpenCL-*.so* ||
	       ls '$VENV'/lib/python3*/site-packages/pyopencl.libs/libOpenCL-*.so*"

cat >repro.py <<'PY'
import pyopencl as cl
ctx = cl.create_some_context(interactive=False)
cl.Program(ctx, "__kernel void k(__global int *a) { a[0] = 1; }").build()
print("built")
PY
for run in cold warm; do
	$JITCACHE run -- "$PY" repro.py >repro.$run 2>&1
	check "reproducer, $run: the program builds" grep -q '^built' repro.$run
done
check_not "reproducer: no OpenCL error" grep -q INVALID_OPERATION repro.cold
check "reproducer, cold: stored" test "$(count stores repro.cold)" = 1
check "reproducer, warm: a hit" test "$(count hits repro.warm)" = 1

# outcomes FILE: "test-id OUTCOME" per test, sorted (pytest -rA's summary).
outcomes() {
	sed -nE 's/^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) (.*)$/\2 \1/p' "$1" |
		sed -E 's/ - .*( [A-Z]+)$/\1/' | sort
}
cp -r "$VENV/pyopencl-tests" tests
runtests() { # NAME [launcher...]
	local name=$1; shift
	(cd tests && "$@" "$PY" -m pytest -q -rA -p no:cacheprovider $FILES) >"$name.log" 2>&1
	outcomes "$name.log" >"$name.outcomes"
}
runtests plain
runtests cold $JITCACHE run --
runtests warm $JITCACHE run --
n=$(wc -l <plain.outcomes)
check "pyopencl's tests ran without jitcache ($n tests)" test "$n" -gt 10
check "cold: every test ends as without jitcache" cmp plain.outcomes cold.outcomes
check "warm: every test ends as without jitcache" cmp plain.outcomes warm.outcomes
check "cold: builds were stored" test "$(count stores cold.log)" -gt 0
check "warm: hits" test "$(count hits warm.log)" -gt 0
check "warm: nothing stored again" test "$(count stores warm.log)" = 0
echo "     pyopencl tests ($FILES): $(grep -cE ' (PASSED|XFAIL)$' plain.outcomes) passed/xfail of $n;" \
	"cold $(count stores cold.log) stores, warm $(count hits warm.log) hits, $(count misses warm.log) misses"
finish
