#!/usr/bin/env bash
# bench/pyopencl.sh OUTDIR — pyopencl's own test files (its PyPI wheel,
# .venv-pyopencl, make pyopencl-env) on PoCL, one pytest process each way,
# side by side in one run:
#   base     without jitcache;
#   helper   jitcache cold, PoCL's binaries taken by the helper process
#            (background_store = 1, the default; shim/storer.h);
#   inline   jitcache cold, the binaries taken in the program
#            (background_store = 0, as before the helper);
#   warm     jitcache warm (the helper's entries), after it finished.
# Every way starts with PoCL's kernel cache empty (POCL_CACHE_DIR fresh; the
# cache itself on, as PoCL ships), pyopencl's own cache off.  Figures: the
# wall time of the pytest process, its outcome line, and for the helper the
# seconds it went on after the program ended.  Writes OUTDIR/pyopencl.md and
# the raw OUTDIR/pyopencl.txt ("pyo WAY SECONDS").  Knobs:
# PYOPENCL_BENCH_FILES (default test_clmath.py; the issue's suite:
# "test_algorithm.py test_arrays_in_structs.py test_clmath.py
# test_clrandom.py test_enqueue_copy.py test_wrapper.py").
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) B=$BUILD ;; *) B=$ROOT/$BUILD ;; esac
OUT=${1:?usage: bench/pyopencl.sh OUTDIR}
VENV=${PYOPENCL_VENV:-$ROOT/.venv-pyopencl}
FILES=${PYOPENCL_BENCH_FILES:-test_clmath.py}
for need in "$B/libjitcache.so" "$B/jitcache-replay" "$VENV/bin/python" "$VENV/pyopencl-tests"; do
	[ -e "$need" ] || { echo "pyopencl bench: $need missing (make, make pyopencl-env)" >&2; exit 1; }
done
mkdir -p "$OUT/logs"
OUT=$(cd "$OUT" && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/jitcache-pyo.XXXXXX")
trap 'rm -rf "$W"' EXIT
export HOME=$W/home JITCACHE_CONFIG=/dev/null XDG_CONFIG_HOME=$W/xdg-config
export JITCACHE_LIB=$B/libjitcache.so JITCACHE_ADMIN=$B/jitcache-admin JITCACHE_REPLAY=$B/jitcache-replay
export PYOPENCL_TEST=portable PYOPENCL_CTX=portable PYOPENCL_NO_CACHE=1 TMPDIR=$W/tmp
unset XDG_CACHE_HOME JITCACHE_DIR JITCACHE_LOG JITCACHE_DISABLE LD_PRELOAD JITCACHE_BACKGROUND_STORE
unset POCL_KERNEL_CACHE
mkdir -p "$TMPDIR"
raw=$OUT/pyopencl.txt
: >"$raw"

now() { date +%s.%N; }
# way CACHE [jitcache settings...]: one pytest process; prints its seconds.
run() {
	local way=$1 cache=$2; shift 2
	local jc=() t0 t1
	[ "$way" = base ] || jc=("$ROOT/bin/jitcache" run --)
	rm -rf "$W/pocl"
	t0=$(now)
	env -C "$VENV/pyopencl-tests" POCL_CACHE_DIR="$W/pocl" JITCACHE_DIR="$cache" JITCACHE_LOG=info "$@" \
		"${jc[@]}" "$VENV/bin/python" -m pytest -q -p no:cacheprovider $FILES \
		>"$OUT/logs/pyo-$way.out" 2>&1
	t1=$(now)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }'
}
helper_running() { pgrep -f "jitcache-replay --spool $TMPDIR/" >/dev/null; }

base=$(run base "$W/none")
helper=$(run helper "$W/jc-helper" JITCACHE_BACKGROUND_STORE=1)
t0=$(now)
while helper_running; do sleep 0.2; done
after=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
inline=$(run inline "$W/jc-inline" JITCACHE_BACKGROUND_STORE=0)
warm=$(run warm "$W/jc-helper" JITCACHE_BACKGROUND_STORE=1)
for w in base helper inline warm; do
	echo "pyo $w ${!w}" >>"$raw"
done
echo "pyo helper_after ${after}" >>"$raw"
outcome() { grep -E '[0-9]+ (passed|failed)' "$OUT/logs/pyo-$1.out" | tail -n 1 | sed 's/, [0-9]* warnings//; s/ in [0-9.]*s.*//; s/=//g; s/^ *//'; }
summary() { grep '^jitcache: [0-9]* hits' "$OUT/logs/pyo-$1.out" | tail -n 1 | sed 's/^jitcache: //; s/; [0-9.]* s of JIT.*//'; }
ratio() { awk -v a="$1" -v b="$base" 'BEGIN { printf "%+.1f%%", (a / b - 1) * 100 }'; }
{
	echo "| way ($FILES, PoCL $(dpkg-query -W -f '${Version}' pocl-opencl-icd 2>/dev/null || echo '?')) | wall, s | against no jitcache | tests | jitcache |"
	echo "|---|---|---|---|---|"
	echo "| no jitcache | $base | | $(outcome base) | |"
	echo "| jitcache cold, binaries taken by the helper | $helper | $(ratio "$helper") | $(outcome helper) | $(summary helper); the helper went on $after s after the program |"
	echo "| jitcache cold, binaries taken in the program | $inline | $(ratio "$inline") | $(outcome inline) | $(summary inline) |"
	echo "| jitcache warm (the helper's entries) | $warm | $(ratio "$warm") | $(outcome warm) | $(summary warm) |"
} >"$OUT/pyopencl.md"
cat "$OUT/pyopencl.md"
