# SPDX-License-Identifier: MIT
# packaging/step.sh — sourced by the set-up scripts of `make wheel`, `make
# deb`, `make testbed` and `make debroot`: one line per step, as `make deps`
# prints them (tests/install-deps.sh), with the step's output in a log file
# that is shown when it fails.
#
#   STEP_LABEL=wheel STEP_LOG=build/wheel.log; . packaging/step.sh
#   step "compiling the library" make -j2 lib   # "wheel: compiling the library ... done (12 s)"
#   say "dist/x.whl (824 KB)"                   # "wheel: dist/x.whl (824 KB)"
#   fail "patchelf is missing (make deps)"      # that line, the log's end; exit 1

say() { printf '%s: %s\n' "$STEP_LABEL" "$*"; }

fail() {
	printf '%s: %s (log: %s)\n' "$STEP_LABEL" "$1" "$STEP_LOG" >&2
	[ -s "$STEP_LOG" ] && { echo "$STEP_LABEL: the last 20 lines of $STEP_LOG:" >&2; tail -n 20 "$STEP_LOG" >&2; }
	exit 1
}

# step WHAT CMD...: CMD's output goes to the log.
step() {
	_what=$1; shift
	printf '%s: %s ... ' "$STEP_LABEL" "$_what"
	_start=$(date +%s)
	if "$@" >>"$STEP_LOG" 2>&1; then
		echo "done ($(( $(date +%s) - _start )) s)"
	else
		echo "FAILED"
		fail "$_what failed"
	fi
}
