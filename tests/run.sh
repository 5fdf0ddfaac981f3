#!/usr/bin/env bash
# Runs every test: the C unit tests (of each build in UNIT_BUILDS, e.g. the
# plain, ASan and TSan ones), each fuzz target for FUZZ_SECONDS (if built),
# then each tests/integration/*.sh, then, when MODERN_BUILD names a build
# made inside the modern-driver test bed (tests/testbed/), the scripts
# matching MODERN_TESTS again inside it, on Intel's 2026 driver.  Each
# prints "N passed, N failed[, N skipped]" last; this adds them up and ends
# with the totals in the same form.  Exit status: 0 only if none failed.
#   tests/run.sh [PATTERN...]   (integration scripts whose name contains
#                                any PATTERN; no unit, fuzz or modern part)
#   MODERN_BUILD=build-sid MODERN_ONLY=1 tests/run.sh   (the modern part only)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) B=$BUILD ;; *) B=$ROOT/$BUILD ;; esac
pattern=${*:-}
# The scripts that run on the 2026 driver too: Level Zero, Intel OpenCL,
# the dlsym door and the exports, the modern-driver scripts, OpenVINO, and the
# JIT monitor (strict).
MODERN_TESTS=${MODERN_TESTS:-ze_ cl_intel_sim cl_consistency dlsym exports modern_ openvino next_run key_soundness strict}
matches() { # NAME: does it contain one of the patterns?
	local p
	for p in $pattern; do
		case $1 in *"$p"*) return 0 ;; esac
	done
	return 1
}
passed=0 failed=0 skipped=0 broken=""

tally() { # $1: name, $2: output file, $3: exit status
	local last p f s
	last=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$2" | tail -n 1)
	if [ -z "$last" ]; then
		failed=$((failed + 1)); broken="$broken $1"; return
	fi
	p=$(echo "$last" | awk '{print $1}'); f=$(echo "$last" | awk '{print $3}')
	s=$(echo "$last" | sed -n 's/.*, \([0-9]*\) skipped.*/\1/p')
	passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + ${s:-0}))
	if [ "$3" -ne 0 ] && [ "$f" -eq 0 ]; then
		failed=$((failed + 1)); broken="$broken $1"
	fi
}

out=$(mktemp); trap 'rm -f "$out"' EXIT
# One fuzz target for FUZZ_SECONDS from its seeds: a pass is a run that
# ends without a crash report.
fuzz() {
	local f=$1 name=${1##*/fuzz_} corpus
	corpus=$(mktemp -d)
	echo "== fuzz: $name ($FUZZ_SECONDS s)"
	if "$f" -max_total_time="$FUZZ_SECONDS" -print_final_stats=0 "$corpus" \
		"$ROOT/tests/fuzz/corpus-$name" >"$out" 2>&1; then
		grep -E '^#[0-9]+.*DONE' "$out" | tail -n 1
		echo "1 passed, 0 failed"
	else
		tail -n 30 "$out"; echo "0 passed, 1 failed"
	fi > "$out.fuzz"
	cat "$out.fuzz"; tally "fuzz_$name" "$out.fuzz" 0
	rm -rf "$corpus" "$out.fuzz"
}

if [ "${MODERN_ONLY:-0}" = 1 ]; then
	[ -n "${MODERN_BUILD:-}" ] || { echo "run.sh: MODERN_ONLY needs MODERN_BUILD" >&2; exit 1; }
	pattern=" " # matches no host script; the modern part below still runs
fi
if [ -z "$pattern" ]; then
	for build in ${UNIT_BUILDS:-$B}; do
		case $build in /*) ;; *) build=$ROOT/$build ;; esac
		for t in "$build"/tests/test_*; do
			[ -x "$t" ] || continue
			echo "== unit: $(basename "$build")/$(basename "$t")"
			"$t" 2>&1 | tee "$out"; tally "$(basename "$t")" "$out" "${PIPESTATUS[0]}"
		done
	done
	if [ -n "${FUZZ_SECONDS:-}" ]; then
		for f in "$B"/fuzz/fuzz_*; do
			[ -x "$f" ] && fuzz "$f"
		done
	fi
fi
for t in "$ROOT"/tests/integration/*.sh; do
	[ -n "$pattern" ] && ! matches "$(basename "$t")" && continue
	echo "== integration: $(basename "$t")"
	start=$(date +%s)
	BUILD=$B bash "$t" 2>&1 | tee "$out"; tally "$(basename "$t")" "$out" "${PIPESTATUS[0]}"
	echo "   ($(( $(date +%s) - start )) s)"
done
if { [ -z "$pattern" ] || [ "${MODERN_ONLY:-0}" = 1 ]; } && [ -n "${MODERN_BUILD:-}" ]; then
	echo "== modern driver: Intel's 2026 stack in the test bed (tests/testbed/run), $MODERN_TESTS"
	start=$(date +%s)
	"$ROOT/tests/testbed/run" env -u MODERN_BUILD -u MODERN_ONLY BUILD="$MODERN_BUILD" bash "$ROOT/tests/run.sh" $MODERN_TESTS 2>&1 |
		tee "$out"
	tally "modern driver" "$out" "${PIPESTATUS[0]}"
	echo "   (modern driver: $(( $(date +%s) - start )) s)"
fi
[ -n "$broken" ] && echo "scripts that failed outside their checks:$broken"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
