#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/pocl_twin.sh OLD_LIB NEW_LIB [RUNS] — PoCL's cache off: how often
# pyopencl's own tests abort in a warm run, two builds of libjitcache.so
# side by side (issue 46: a program made of a served program's binary
# shared its directory, which freeing the first removed under the second's
# work-group compile, "Final linking of kernel simple failed.").
#   OLD_LIB alone: a cold run on an empty cache, then RUNS warm runs;
#   NEW_LIB alone, the same; then, on NEW_LIB's entries (which hold the
#   work-group code PoCL compiled), RUNS warm runs of each library in
#   turn, and RUNS of test_can_build_and_run_binary alone, each in turn.
# Prints markdown table rows: runs aborted, and the CPU (user+sys, s) of
# the runs.  PYOPENCL_VENV: pyopencl's wheel and its tests (make
# pyopencl-env); PYOPENCL_TEST_FILES: the test files.
#   bench/pocl_twin.sh OLD/build/libjitcache.so build/libjitcache.so 10
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OLD=${1:?usage: bench/pocl_twin.sh OLD_LIB NEW_LIB [RUNS]} NEW=${2:?}
RUNS=${3:-10}
VENV=${PYOPENCL_VENV:-$ROOT/.venv-pyopencl}
FILES=${PYOPENCL_TEST_FILES:-test_wrapper.py test_enqueue_copy.py test_arrays_in_structs.py}
W=$(mktemp -d "${TMPDIR:-/tmp}/jitcache-twin.XXXXXX")
trap 'rm -rf "$W"' EXIT
cp -r "$VENV/pyopencl-tests" "$W/tests"
export PYOPENCL_TEST=portable PYOPENCL_CTX=portable PYOPENCL_NO_CACHE=1 POCL_KERNEL_CACHE=0
export POCL_CACHE_DIR=$W/pocl JITCACHE_LOG=info JITCACHE_CONFIG=/dev/null
mkdir -p "$POCL_CACHE_DIR"
read -ra files <<<"$FILES"

run() { # LIB CACHE LOG [pytest args...]: 1 if PoCL aborted the run
	local lib=$1 cache=$2 log=$3; shift 3
	(cd "$W/tests" && JITCACHE_LIB=$lib JITCACHE_DIR=$cache /usr/bin/time -f "cpu %U %S" \
		"$ROOT/bin/jitcache" run -- "$VENV/bin/python" -m pytest -q -p no:cacheprovider \
		"$@") >"$log" 2>&1
	grep -qE 'signal 6|Aborted|Final linking' "$log" && echo 1 || echo 0
}
cpu() { # LOG...: the range of user+sys CPU seconds
	awk '/^cpu /{ s = $2 + $3; if (!n++ || s < lo) lo = s; if (s > hi) hi = s }
	     END { printf "%.2f-%.2f", lo, hi }' "$@"
}
row() { printf '| %s | %s | %s of %s | %s |\n' "$@"; }

echo "| pyopencl's tests warm, PoCL's cache off ($FILES) | library | runs aborted | CPU s (user+sys) |"
echo "|---|---|---|---|"
for who in OLD NEW; do
	run "${!who}" "$W/jc-$who" "$W/$who-cold.log" "${files[@]}" >/dev/null
	n=0
	for i in $(seq 1 "$RUNS"); do
		n=$((n + $(run "${!who}" "$W/jc-$who" "$W/$who-own$i.log" "${files[@]}")))
	done
	row "its own entries (a cold run, then warm)" "$who" "$n" "$RUNS" "$(cpu "$W/$who"-own*.log)"
done
declare -A turn=([OLD]=0 [NEW]=0) alone=([OLD]=0 [NEW]=0)
for i in $(seq 1 "$RUNS"); do
	for who in OLD NEW; do
		turn[$who]=$((turn[$who] + $(run "${!who}" "$W/jc-NEW" "$W/$who-turn$i.log" "${files[@]}")))
		alone[$who]=$((alone[$who] + $(run "${!who}" "$W/jc-NEW" "$W/$who-alone$i.log" \
			test_wrapper.py -k test_can_build_and_run_binary)))
	done
done
for who in OLD NEW; do
	row "NEW's entries, the libraries in turn" "$who" "${turn[$who]}" "$RUNS" \
		"$(cpu "$W/$who"-turn*.log)"
done
for who in OLD NEW; do
	row "NEW's entries, test_can_build_and_run_binary alone, in turn" "$who" \
		"${alone[$who]}" "$RUNS" "$(cpu "$W/$who"-alone*.log)"
done
echo
echo "OLD: $OLD; NEW: $NEW; $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
