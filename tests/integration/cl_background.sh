#!/usr/bin/env bash
# PoCL's stores left to a helper (shim/storer.h).  PoCL, asked for a
# program's binaries, compiles every kernel's work-group function (several
# times the build); with background_store = 1 (the default) the program
# does not: a helper process (jitcache-replay --spool) builds the recipe
# again and stores it.  Here: the program hands the store over and takes no
# binaries; the helper holds none of its descriptors, ends after it and
# leaves nothing behind; the entry is the one a later run hits (same key),
# with results bit-identical to a run without jitcache; one request counts
# one miss; included files travel with the recipe; a build of a wheel's
# renamed loader (pyopencl) is rebuilt through that loader; without a helper
# the store is made in the program.  The times printed are for reading
# (bench/ measures them side by side).
. "$(dirname "$0")/../lib.sh"
export POCL_KERNEL_CACHE=0 JITCACHE_BACKGROUND_STORE=1 JITCACHE_LOG=debug
export TMPDIR=$T/tmp # the spool directories are made here
mkdir -p "$TMPDIR"
CLB=$B/tests/cl_build
if ! clinfo -l 2>/dev/null | grep -q "Portable Computing Language"; then
	skip "PoCL is not installed (pocl-opencl-icd)"
	finish; exit
fi
result() { sed -n 's/.*result=\([0-9a-f]*\).*/\1/p' "$1"; }
secs() { sed -n 's/.*seconds=\([0-9.]*\).*/\1/p' "$1"; }
# The helper is done when its spool directory is gone.
helper_done() {
	for i in $(seq 1 1200); do
		[ -z "$(ls -A "$TMPDIR")" ] && return 0
		sleep 0.05
	done
	return 1
}

cp "$ROOT/tests/integration/compute.cl" k.cl
OPTS="-DSCALE=1.75f"
"$CLB" --platform Portable --source k.cl --options "$OPTS" --run compute >plain.out 2>&1
expected=$(result plain.out)
check "without jitcache: the kernel runs" test -n "$expected"

$JITCACHE run -- "$CLB" --platform Portable --source k.cl --options "$OPTS" --run compute \
	>cold.out 2>cold.err
check "cold: the store is left to the helper" grep -q 'its store is left to the helper' cold.err
check "cold: results bit-identical to a run without jitcache" test "$(result cold.out)" = "$expected"
check "the helper ends, and removes its spool" helper_done
check "... having stored the entry" test "$(entries)" -eq 1
check "one request counts one miss, one store and one store left to a helper" \
	test "$(stats_field misses)/$(stats_field stores)/$(stats_field stores_left)/$(stats_field hits)" = 1/1/1/0
$JITCACHE run -- "$CLB" --platform Portable --source k.cl --options "$OPTS" --run compute \
	>warm.out 2>warm.err
check "warm: the helper's entry is the program's (a hit)" grep -q 'jitcache: 1 hits, 0 misses' warm.err
check "warm: results bit-identical to a run without jitcache" test "$(result warm.out)" = "$expected"

# ---- the helper holds nothing of the program's -----------------------------------------
# A program whose stderr is a pipe read to its end (a shell's $(...)) must
# not wait for the helper.  gemm.cl's 16 kernels keep the helper busy.
cp "$ROOT/examples/kernels/gemm.cl" g.cl
start=$(date +%s.%N)
out=$($JITCACHE run -- "$CLB" --platform Portable --source g.cl 2>&1)
took=$(echo "$(date +%s.%N) - $start" | bc)
echo "$out" >gemm.out
helper=$(pgrep -f "jitcache-replay --spool" | head -n 1)
if [ -n "$helper" ]; then
	check "the helper's descriptors are its socket and /dev/null, none of the program's" \
		sh -c "test \"\$(ls /proc/$helper/fd | sort -n | head -n 3 | tr '\\n' ' ')\" = '0 1 2 ' &&
		       readlink /proc/$helper/fd/2 | grep -q '^/dev/null' &&
		       readlink /proc/$helper/fd/0 | grep -q '^socket:'"
	check "... and runs only on idle CPU time (SCHED_IDLE)" test "$(ps -o cls= -p "$helper" | tr -d ' ')" = IDL
	check "... the program's parent is not its parent" \
		test "$(ps -o ppid= -p "$helper" | tr -d ' ')" != $$
fi
check "\$(...) of the program returned while the helper works ($took s)" \
	grep -q '^build=0 ' gemm.out
check "the helper ends" helper_done
check "... with the 16-kernel program stored" test "$(entries)" -eq 2
g_cold=$(secs gemm.out)

# The same program with the store made in the program, for comparison.
export JITCACHE_DIR=$T/cache-inline
JITCACHE_BACKGROUND_STORE=0 $JITCACHE run -- "$CLB" --platform Portable --source g.cl \
	>inline.out 2>inline.err
check "background_store = 0: stored in the program" \
	test "$(entries)" -eq 1 -a -z "$(grep 'left to the helper' inline.err)"
echo "     gemm.cl (16 kernels) on PoCL, cold: build $g_cold s, the program's run ${took} s" \
     "with the helper; build $(secs inline.out) s with the store in the program" \
     "($(sed -n 's/.*stored [0-9]* bytes in \([0-9.]*\) s.*/\1/p' inline.err) s of it the store)"

# ---- included files travel with the recipe ---------------------------------------------
export JITCACHE_DIR=$T/cache-inc
mkdir -p inc
printf '#define TWICE(x) ((x) * 2.0f)\n' >inc/twice.h
cat >inc.cl <<'EOF'
#include "twice.h"
kernel void compute(global float *out, global const float *in, uint n)
{
	size_t i = get_global_id(0);
	if (i < n) out[i] = TWICE(in[i]) + 1.0f;
}
EOF
$JITCACHE run -- "$CLB" --platform Portable --source inc.cl --options "-I inc" --run compute \
	--verify >inc-cold.out 2>inc-cold.err
check "an include: left to the helper" grep -q 'left to the helper' inc-cold.err
helper_done
$JITCACHE run -- "$CLB" --platform Portable --source inc.cl --options "-I inc" --run compute \
	--verify >inc-warm.out 2>inc-warm.err
check "... the helper found it (the warm run hits, and computes right)" \
	sh -c "grep -q 'jitcache: 1 hits, 0 misses' inc-warm.err && grep -q '^verify=ok' inc-warm.out"

# ---- no helper: the store is made in the program ------------------------------------------
export JITCACHE_DIR=$T/cache-nohelper
JITCACHE_REPLAY=$T/none JITCACHE_LOG=info $JITCACHE run -- "$CLB" --platform Portable \
	--source k.cl --options "$OPTS" >nohelper.out 2>nohelper.err
check "no helper to be found: said once ($(grep -c jitcache-replay nohelper.err) line)" \
	sh -c "grep -q 'jitcache: no jitcache-replay found' nohelper.err &&
	       test \$(grep -c 'jitcache-replay' nohelper.err) -eq 1"
check "... and stored in the program" test "$(entries)" -eq 1

# ---- pyopencl's wheel: the helper builds through the wheel's own loader ---------------------
VENV=${PYOPENCL_VENV:-$ROOT/.venv-pyopencl}
if [ ! -x "$VENV/bin/python" ]; then
	skip "pyopencl: no pyopencl environment in $VENV ('make pyopencl-env')"
else
	export JITCACHE_DIR=$T/cache-pyopencl PYOPENCL_CTX=portable PYOPENCL_NO_CACHE=1
	cat >repro.py <<'PY'
import numpy as np, pyopencl as cl
ctx = cl.create_some_context(interactive=False)
q = cl.CommandQueue(ctx)
prg = cl.Program(ctx, "__kernel void k(__global int *a) { a[get_global_id(0)] = 3 * get_global_id(0); }").build()
a = np.zeros(8, dtype=np.int32)
buf = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, a.nbytes)
prg.k(q, a.shape, None, buf)
cl.enqueue_copy(q, a, buf)
print("result", a.tolist())
PY
	$JITCACHE run -- "$VENV/bin/python" repro.py >py-cold.out 2>py-cold.err
	check "pyopencl, cold: left to the helper" grep -q 'left to the helper' py-cold.err
	check "... which builds through the wheel's loader" \
		grep -q 'takes OpenCL binaries .*building with .*/libOpenCL-[0-9a-f]*\.so' py-cold.err
	helper_done
	$JITCACHE run -- "$VENV/bin/python" repro.py >py-warm.out 2>py-warm.err
	check "pyopencl, warm: a hit, the same result" \
		sh -c "grep -q 'jitcache: 1 hits, 0 misses' py-warm.err && cmp -s py-cold.out py-warm.out &&
		       grep -q 'result \[0, 3, 6' py-warm.out"

	# A helper with nothing to do for a while ends; the program starts
	# another for its next build.
	export JITCACHE_DIR=$T/cache-idle
	cat >idle.py <<'PY'
import time, pyopencl as cl
ctx = cl.create_some_context(interactive=False)
cl.Program(ctx, "__kernel void a(__global int *x) { x[0] = 1; }").build()
time.sleep(3)
cl.Program(ctx, "__kernel void b(__global int *x) { x[0] = 2; }").build()
print("built")
PY
	JITCACHE_HELPER_IDLE=1 $JITCACHE run -- "$VENV/bin/python" idle.py >idle.out 2>idle.err
	helper_done
	check "a helper idle for its JITCACHE_HELPER_IDLE (1 s) ends; the next build starts another" \
		test "$(grep -c 'takes OpenCL binaries off' idle.err)" -eq 2
	check "... and both builds are stored" test "$(entries)" -eq 2
fi
finish
