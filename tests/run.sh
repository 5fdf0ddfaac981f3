#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs the tests, JOBS at a time (default 2), each one's output kept and
# printed whole, in order: the C unit tests (of each build in UNIT_BUILDS,
# e.g. the plain, ASan and TSan ones), each fuzz target (if built: its
# corpus replayed, or fuzzed for FUZZ_SECONDS when that is over 0), then
# each tests/integration/*.sh of the tier asked for, then, when MODERN_BUILD
# names a build made inside the modern-driver test bed (tests/testbed/), the
# scripts matching MODERN_TESTS again inside it, on Intel's 2026 driver.
# Each test prints "N passed, N failed[, N skipped]" last; this adds them
# up, prints each test's seconds, the slowest ten, and ends with the totals
# in the same form.  Exit status: 0 only if none failed.
#   tests/run.sh [PATTERN...]   (integration scripts whose name contains
#                                any PATTERN, of any tier; no unit, fuzz or
#                                modern part)
#   TIER=quick tests/run.sh     (make check: only the scripts of the quick tier)
#   MODERN_BUILD=build-sid MODERN_ONLY=1 tests/run.sh   (the modern part only)
#
# A script's tier is a line of its own header: "# tier: quick" (needs only
# Debian 12's packages, `make deps`, and the build: runs in `make check`) or
# "# tier: full" (needs what only `make check-all` sets up, the test bed,
# the venvs, dist/, the chroots, or too slow for the quick loop).  A script
# without one is quick.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) B=$BUILD ;; *) B=$ROOT/$BUILD ;; esac
pattern=${*:-}
TIER=${TIER:-}
JOBS=${JOBS:-2}
# The scripts that run on the 2026 driver too: Level Zero, Intel OpenCL,
# the dlsym door and the exports, the modern-driver scripts, OpenVINO, and the
# JIT monitor (strict).
MODERN_TESTS=${MODERN_TESTS:-ze_ cl_intel_sim cl_consistency cl_answers cl_compile_link dlsym exports modern_ openvino next_run key_soundness strict}
matches() { # NAME: does it contain one of the patterns?
	local p
	for p in $pattern; do
		case $1 in *"$p"*) return 0 ;; esac
	done
	return 1
}
tier_of() { # SCRIPT: its "# tier:" header line, or quick
	local t
	t=$(head -n 40 "$1" | sed -n 's/^# tier: *\([a-z]*\).*/\1/p' | head -n 1)
	echo "${t:-quick}"
}
in_tier() { # SCRIPT: is it of the tier asked for (TIER=quick: quick only)?
	[ -z "$TIER" ] || [ "$TIER" = full ] || [ "$(tier_of "$1")" = "$TIER" ]
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

W=$(mktemp -d "${TMPDIR:-/tmp}/jitcache-run.XXXXXX")
out=$W/out
trap 'rm -rf "$W"' EXIT

# One fuzz target from its seeds: its corpus replayed (each input run once),
# or fuzzed for FUZZ_SECONDS.  A pass is a run that ends without a crash.
fuzz() {
	local f=$1 name=${1##*/fuzz_} seeds=$ROOT/tests/fuzz/corpus-${1##*/fuzz_} corpus
	corpus=$(mktemp -d "$W/corpus.XXXXXX")
	if [ "${FUZZ_SECONDS:-0}" -gt 0 ] 2>/dev/null; then
		echo "fuzzing for $FUZZ_SECONDS s from $(ls "$seeds" | wc -l) seeds"
		set -- -max_total_time="$FUZZ_SECONDS" "$corpus" "$seeds"
	else
		echo "replaying its $(ls "$seeds" | wc -l) seeds"
		set -- -runs=0 "$seeds"
	fi
	if "$f" -print_final_stats=0 "$@" >"$corpus.log" 2>&1; then
		grep -E '^#[0-9]+.*(DONE|INITED)' "$corpus.log" | tail -n 1
		echo "1 passed, 0 failed"
	else
		tail -n 30 "$corpus.log"; echo "0 passed, 1 failed"
	fi
}

# ---- the queue: every test to run, then JOBS of them at a time -------------------
names=() cmds=()
add() { names+=("$1"); cmds+=("$2"); } # NAME, the command (a string for bash -c)

if [ "${MODERN_ONLY:-0}" = 1 ]; then
	[ -n "${MODERN_BUILD:-}" ] || { echo "run.sh: MODERN_ONLY needs MODERN_BUILD" >&2; exit 1; }
	pattern=" " # matches no host script; the modern part below still runs
fi
if [ -z "$pattern" ]; then
	for build in ${UNIT_BUILDS:-$B}; do
		case $build in /*) ;; *) build=$ROOT/$build ;; esac
		for t in "$build"/tests/test_*; do
			[ -x "$t" ] && add "unit: $(basename "$build")/$(basename "$t")" "$(printf '%q' "$t")"
		done
	done
	for f in "$B"/fuzz/fuzz_*; do
		[ -x "$f" ] && add "fuzz: ${f##*/fuzz_}" "fuzz $(printf '%q' "$f")"
	done
fi
for t in "$ROOT"/tests/integration/*.sh; do
	if [ -n "$pattern" ]; then
		matches "$(basename "$t")" || continue
		[ -n "$TIER" ] && ! in_tier "$t" && continue
	else
		in_tier "$t" || continue
	fi
	add "integration: $(basename "$t")" "BUILD=$(printf '%q' "$B") bash $(printf '%q' "$t")"
done

# run_one I: test I, its output in $W/I.out, then its status, seconds and
# CPU seconds (user + system, of the processes it waited for) in $W/I.done.
run_one() {
	local i=$1 start rc cpu
	start=$(date +%s)
	bash -c "$(declare -f fuzz); W=$(printf '%q' "$W") ROOT=$(printf '%q' "$ROOT") \
		FUZZ_SECONDS=${FUZZ_SECONDS:-0}; ${cmds[$i]}; rc=\$?; times >&3; exit \$rc" \
		>"$W/$i.out" 2>&1 3>"$W/$i.times"
	rc=$?
	cpu=$(tail -n 1 "$W/$i.times" | sed 's/[ms]/ /g' | awk '{ printf "%d", $1 * 60 + $2 + $3 * 60 + $4 }')
	echo "$rc $(( $(date +%s) - start )) ${cpu:-0}" >"$W/$i.tmp" && mv "$W/$i.tmp" "$W/$i.done"
}
printed=0 secs=() cpus=0
flush() { # print, in order, the tests that have ended since the last call
	local rc s c
	while [ "$printed" -lt "${#names[@]}" ] && [ -e "$W/$printed.done" ]; do
		read -r rc s c <"$W/$printed.done"
		echo "== ${names[$printed]}"
		cat "$W/$printed.out"
		tally "${names[$printed]#*: }" "$W/$printed.out" "$rc"
		echo "   ($s s, $c s of CPU)"
		secs+=("$s ${names[$printed]} ($c s of CPU)")
		cpus=$((cpus + c))
		rm -f "$W/$printed.out"
		printed=$((printed + 1))
	done
}
# Each test runs as a job of its own process group (set -m), so that Ctrl-C
# (which reaches this shell alone) or a TERM stops every process of every
# test running, and each test's EXIT trap cleans up after it.
stop_all() {
	local p
	for p in $(jobs -p); do kill -TERM -- "-$p" 2>/dev/null; done
	wait
	exit 130
}
trap stop_all INT TERM
set -m

wall=$(date +%s)
for i in "${!names[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do
		wait -n; flush
	done
	run_one "$i" </dev/null &
	flush
done
while [ "$printed" -lt "${#names[@]}" ]; do
	wait -n 2>/dev/null || sleep 0.2
	flush
	# A test whose job was killed from outside left no status: a failure.
	if [ -z "$(jobs -rp)" ] && [ "$printed" -lt "${#names[@]}" ] && [ ! -e "$W/$printed.done" ]; then
		echo "1 0 0" >"$W/$printed.done"
	fi
done
wall=$(( $(date +%s) - wall ))
set +m

if { [ -z "$pattern" ] || [ "${MODERN_ONLY:-0}" = 1 ]; } && [ -n "${MODERN_BUILD:-}" ]; then
	echo "== modern driver: Intel's 2026 stack in the test bed (tests/testbed/run), $MODERN_TESTS"
	start=$(date +%s)
	"$ROOT/tests/testbed/run" env -u MODERN_BUILD -u MODERN_ONLY -u TIER BUILD="$MODERN_BUILD" \
		bash "$ROOT/tests/run.sh" $MODERN_TESTS 2>&1 | tee "$out"
	tally "modern driver" "$out" "${PIPESTATUS[0]}"
	s=$(( $(date +%s) - start ))
	echo "   (modern driver: $s s)"
	secs+=("$s modern driver (all its scripts)")
	wall=$((wall + s))
fi
if [ "${#secs[@]}" -gt 1 ]; then
	sum=0
	for l in "${secs[@]}"; do sum=$((sum + ${l%% *})); done
	echo "== the slowest ten of ${#secs[@]} tests: their sum $sum s ($cpus s of CPU), $wall s of wall time, $JOBS at a time; load average$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null | sed 's/^/ /')"
	printf '%s\n' "${secs[@]}" | sort -rn | head -n 10 | awk '{ s = $1; $1 = ""; printf "  %5d s %s\n", s, $0 }'
fi
[ -n "$broken" ] && echo "tests that failed outside their checks:$broken"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
