# SPDX-License-Identifier: MIT
# bench/lib.sh — the preamble the bench scripts share (sourced after `set -u`).
# shellcheck shell=bash
#
#   . "$(dirname "$0")/lib.sh"
#   bench_init NAME DEFAULT_BUILD OUTDIR
#       ROOT (the checkout), B (BUILD, or DEFAULT_BUILD, made absolute), OUT
#       (OUTDIR made, with OUT/logs, and absolute) and W (a scratch directory,
#       removed at exit); exits with a usage line when OUTDIR is empty;
#   bench_need HINT PATH...
#       exits 1 with "NAME bench: PATH missing (HINT)" for the first PATH
#       that does not exist;
#   bench_isolate
#       the runs see no settings of the user's: HOME, XDG_CONFIG_HOME in W,
#       JITCACHE_CONFIG=/dev/null, jitcache's own settings unset, and
#       `jitcache run` finds this build's library and admin tool;
#   bench_at_exit CMD
#       CMD runs at exit (before W is removed), in the order added.
# The EXIT trap is this file's: a script adds to it through bench_at_exit.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH_AT_EXIT=()

bench_init() {
	BENCH_NAME=$1
	local build=${BUILD:-$2}
	case $build in /*) B=$build ;; *) B=$ROOT/$build ;; esac
	OUT=${3:-}
	[ -n "$OUT" ] || { echo "usage: bench/$BENCH_NAME.sh OUTDIR" >&2; exit 2; }
	mkdir -p "$OUT/logs" && OUT=$(cd "$OUT" && pwd) || exit 1
	W=$(mktemp -d "${TMPDIR:-/tmp}/jitcache-$BENCH_NAME.XXXXXX") || exit 1
	trap bench_exit EXIT
	trap 'exit 130' INT TERM
}

bench_need() {
	local hint=$1 need
	shift
	for need in "$@"; do
		[ -e "$need" ] || { echo "$BENCH_NAME bench: $need missing ($hint)" >&2; exit 1; }
	done
}

bench_isolate() {
	export HOME=$W/home JITCACHE_CONFIG=/dev/null XDG_CONFIG_HOME=$W/xdg-config
	export JITCACHE_LIB=$B/libjitcache.so JITCACHE_ADMIN=$B/jitcache-admin
	unset XDG_CACHE_HOME JITCACHE_DIR JITCACHE_LOG JITCACHE_DISABLE LD_PRELOAD
	mkdir -p "$HOME"
}

bench_at_exit() { BENCH_AT_EXIT+=("$1"); }

bench_exit() {
	local cmd
	for cmd in "${BENCH_AT_EXIT[@]}"; do eval "$cmd"; done
	rm -rf "$W"
}
