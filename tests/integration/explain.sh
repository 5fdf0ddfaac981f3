#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# `jitcache explain` (issue 31 item 1), with real OpenCL builds on PoCL:
# every miss is recorded in the cache directory's ring of recent misses,
# and explain names its cause in one line, found by comparing the request
# with the nearest earlier one for the same program input: never seen
# before, build options (old -> new), an environment variable of the key,
# an included file's contents, a source that differs only in comments and
# white space (debug information), the entry evicted or removed, found damaged,
# a tier unreachable, the build failed.  At JITCACHE_LOG=info the miss
# prints the same line.  --last, a program name, a key, --json.
. "$(dirname "$0")/../lib.sh"
export POCL_KERNEL_CACHE=0
unset POCL_JC_TEST
CLB=$B/tests/cl_build
need_pocl
cd "$T" || exit 1
mkdir -p inc
echo '#define SCALE 1.75f' >inc/scale.h
printf '#include "scale.h"\n' | cat - "$ROOT/tests/integration/compute.cl" >k.cl
build() { # NAME OPTIONS [cl_build args]
	local name=$1 opts=$2; shift 2
	JITCACHE_LOG=info "$JITCACHE" run -- "$CLB" --platform Portable --source k.cl \
		--options "-I inc${opts:+ $opts}" "$@" >"$name.out" 2>"$name.err"
}
# last: the explanation of the last run's one miss
last() { "$JITCACHE" explain --last | sed 's/^[^ ]* [^ ]* [^ ]* [0-9a-f]*: //'; }

build cold ""
check "a first request: never seen before" grep -q "never seen before" <(last)
check "... and JITCACHE_LOG=info said so as it missed" \
	grep -q "^jitcache: OpenCL build [0-9a-f]*: miss: never seen before" cold.err
build opts "-DTWICE"
check "build options: the difference, old -> new" \
	grep -qF "build options: '-I inc' -> '-I inc -DTWICE'" <(last)
check "... and JITCACHE_LOG=info said the same" \
	grep -qF "miss: build options: '-I inc' -> '-I inc -DTWICE'" opts.err
POCL_JC_TEST=1 build env ""
check "an environment variable of the key: name, old -> new" \
	grep -qF "environment variable POCL_JC_TEST: (unset) -> 1" <(last)
echo '#define SCALE 2.5f' >inc/scale.h
build include ""
check "an included file's contents: its path" grep -q "included file inc/scale.h: contents changed" <(last)
build hit ""
check "a hit records nothing" grep -q "jitcache: 1 hits, 0 misses" hit.err
check "... explain --last still names the last miss" grep -q "included file" <(last)
# The source with a comment and other white space: the same code, other
# line numbers; then with a real change.
cp k.cl k.orig
{ echo '/* the same program, commented */'; sed 's/^\t/    /' k.orig; } >k.cl
build comment ""
check "a comment and white space only: the input differs only in debug information" \
	grep -q "the input differs only in debug information" <(last)
sed 's/1\.0f/1.5f/' k.orig >k.cl
build changed ""
check "... a change of code is never seen before" grep -q "never seen before" <(last)
cp k.orig k.cl
"$JITCACHE" clear >/dev/null
build evicted ""
check "the same request after its entry was removed: evicted or removed" \
	grep -q "its entry was evicted or removed" <(last)
entry=$(find "$JITCACHE_DIR" -mindepth 2 -type f -regex '.*/[0-9a-f][0-9a-f]/[0-9a-f]*' |
	while read -r f; do [ "$(od -An -tu1 -j12 -N1 "$f" | tr -d ' ')" = 0 ] && echo "$f"; done)
printf 'X' | dd of="$entry" bs=1 seek=70 conv=notrunc 2>/dev/null
build damaged ""
check "a damaged entry: found damaged" grep -q "the entry was found damaged" <(last)
JITCACHE_DIR=$T/unreach JITCACHE_REMOTE=redis://127.0.0.1:1 build unreachable ""
check "Redis unreachable: its server did not answer" \
	grep -q "its server did not answer" <(JITCACHE_DIR=$T/unreach "$JITCACHE" explain --last)
printf 'kernel void compute(global float *o) { o[0] = ; }\n' >bad.cl
"$JITCACHE" run -- "$CLB" --platform Portable --source bad.cl >bad.out 2>&1
check "a build that failed: said" grep -q "never seen before.*; the build failed" <(last)

# ---- selections and --json ----------------------------------------------------
n=$("$JITCACHE" explain | wc -l)
check "explain: one line per recorded miss (9)" test "$n" = 9
check "explain PROGRAM: the program's misses (9 of cl_build)" \
	test "$("$JITCACHE" explain cl_build | wc -l)" = 9
check "explain PROGRAM: none of another" grep -q "^no miss recorded for other" <("$JITCACHE" explain other)
key=$(sed -n 's/^jitcache: OpenCL build \([0-9a-f]*\): miss: .*-DTWICE.*/\1/p' opts.err)
check "explain KEY (a prefix): that miss" \
	sh -c "'$JITCACHE' explain ${key:0:8} | grep -q -- '-DTWICE' && test \$('$JITCACHE' explain ${key:0:8} | wc -l) = 1"
check "explain --json: valid, each with program, pid, key, cause, build_failed, explanation" \
	python3 -c '
import json, sys
v = json.load(sys.stdin)
assert len(v) == 9, len(v)
assert [m["cause"] for m in v] == ["new", "options", "env", "include", "debug", "new", "evicted", "damaged", "new"], v
assert v[-1]["build_failed"] and all(m["program"] == "cl_build" and m["pid"] > 0 for m in v)
assert v[1]["key"] == sys.argv[1]' "$key" < <("$JITCACHE" explain --json)
check "the ring of misses is bounded: its file has its one size (266240 bytes)" \
	test "$(stat -c %s "$JITCACHE_DIR/misses")" = 266240
finish
