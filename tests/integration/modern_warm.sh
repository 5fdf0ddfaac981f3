#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: full: needs Intel's 2026 driver in the test bed (make testbed)
# Recipes and `jitcache warm` on Intel's 2026 driver (the test bed), with
# GPUs simulated under their real identities (TESTBED.md section 4):
#   - each miss keeps its recipe (on by default), compressed, inside the cap;
#     the setting turns it off; export/import carry recipes;
#   - `jitcache warm` on the machine that recorded them finds all cached;
#   - `jitcache warm --for b580 --export FILE` on a simulated Arc A770, then
#     a process that presents a B580's real identity hits every module on its
#     first run, through a read-only layer made from the export;
#   - a target whose simulation reports another identity is refused in one
#     line (a stand-in replayer reports it: the driver cannot be made to);
#   - Ctrl-C leaves a sound cache, and a second run resumes.
# Skipped on other drivers.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/ze_common.bash"
need_modern_driver
need_ze
unset JITCACHE_RECIPES # the default: on

MODULES="reduce gemm norm attention conv gemm_reg"
for m in $MODULES; do
	spirv "$m" "$KERNELS/$m.cl" || check "SPIR-V of $m.cl built with ocloc" false
done
# run_all NAME: every module once, in that environment; logs in $T/NAME.*.log
run_all() {
	local m
	for m in $MODULES; do
		JITCACHE_LOG=debug jc "$EXAMPLE" "$T/$m.spv" >"$T/$1.$m.log" 2>&1
	done
}
all_logs() { local m; for m in $MODULES; do cat "$T/$1.$m.log"; done; }
n_modules() { echo $MODULES | wc -w; }
WARM="$JITCACHE warm"

# ---- record ----------------------------------------------------------------
present a770
run_all record
check "record: every module compiled and stored" \
	test "$(all_logs record | grep -c 'miss, compiled')" -eq "$(n_modules)"
check "record: one recipe per module" test "$(recipes)" -eq "$(n_modules)"
check "record: entries and recipes pass verify" $JITCACHE verify
spv_bytes=$(cat "$T"/*.spv | wc -c)
recipe_bytes=$(for f in $(find "$JITCACHE_DIR" -type f -regex '.*/[0-9a-f]*'); do
	[ $(( $(od -An -tu1 -j12 -N1 "$f") & 2 )) -ne 0 ] && stat -c %s "$f"; done |
	awk '{ s += $1 } END { print s + 0 }')
check "record: recipes are compressed ($recipe_bytes bytes for $spv_bytes of SPIR-V)" \
	test "$recipe_bytes" -gt 0 -a "$recipe_bytes" -lt "$spv_bytes"

(export JITCACHE_DIR=$T/cache-off JITCACHE_RECIPES=0; run_all off)
check "recipes=0: entries, no recipe" \
	sh -c "test $(entries "$T/cache-off") -eq $(n_modules) && test $(recipes "$T/cache-off") -eq 0"

# ---- warm on the machine that recorded ---------------------------------------
$WARM >"$T/warm-same.out" 2>&1
check "warm on the recording machine: succeeds" test $? -eq 0
check "warm on the recording machine: all already cached" \
	grep -q "0 compiled, $(n_modules) already cached, 0 failed" "$T/warm-same.out"
check "warm: one summary line when not on a terminal" test "$(wc -l <"$T/warm-same.out")" -eq 1

# ---- prewarm for a GPU the machine does not have -------------------------------
present a770
$WARM --for b580 -j 2 --export "$T/b580.tar.zst" >"$T/warm-b580.out" 2>&1
check "warm --for b580: succeeds on a simulated A770" test $? -eq 0
check "warm --for b580: checks and names the simulated B580" \
	grep -q "simulated as Intel(R) Arc(TM) B580 Graphics (0xe20b, IP 20.1.0)" "$T/warm-b580.out"
check "warm --for b580: every module compiled" \
	grep -q "$(n_modules) compiled, 0 already cached, 0 failed" "$T/warm-b580.out"
check "warm --for b580: export written" test -s "$T/b580.tar.zst"
# The layer a container image would carry: the export imported into it.
JITCACHE_DIR=$T/layer $JITCACHE import "$T/b580.tar.zst" >"$T/layer.out" 2>&1 &&
	chmod -R go-w "$T/layer"
(present b580; export JITCACHE_DIR=$T/cache-b580 JITCACHE_LAYERS=$T/layer; run_all b580)
check "B580 identity: the device presents its real name" \
	grep -q "^device: Intel(R) Arc(TM) B580 Graphics" "$T/b580.reduce.log"
check "B580 identity, first run: every module hits the prewarmed layer" \
	test "$(all_logs b580 | grep -c ': hit, loaded')" -eq "$(n_modules)"
check "B580 identity, first run: nothing compiled" test "$(all_logs b580 | grep -c 'miss, compiled')" -eq 0
check "the layer carries the recipes too" test "$(recipes "$T/layer")" -ge "$(n_modules)"
(present a770; export JITCACHE_DIR=$T/cache-from-layer JITCACHE_LAYERS=$T/layer
 $WARM --for a750 >"$T/warm-layer.out" 2>&1)
check "warm reads the recipes of a layer, each request once" \
	grep -q "$(n_modules) compiled, 0 already cached, 0 failed" "$T/warm-layer.out"
check "what it compiles goes to the cache directory" \
	test "$(( $(entries "$T/cache-from-layer") - $(recipes "$T/cache-from-layer") ))" -eq "$(n_modules)"

# ---- OpenCL: the source, its options and the files it #includes ---------------------
CL_BUILD=$B/tests/cl_build
mkdir -p "$T/clapp/inc"
echo '#define SCALE 2.0f' >"$T/clapp/inc/util.h"
cat >"$T/clapp/k.cl" <<'EOF'
#include "util.h"
kernel void twice(global float *out, global const float *in, uint n)
{ size_t i = get_global_id(0); if (i < n) out[i] = in[i] * SCALE + 1.0f; }
EOF
cl_run() { # NAME: the program built once from $T/clapp, with its include directory
	(cd "$T/clapp" && JITCACHE_LOG=debug jc "$CL_BUILD" --platform Intel --source k.cl \
		--options "-I inc" >"$T/$1.log" 2>&1)
}
(export JITCACHE_DIR=$T/cache-cl; present a770; cl_run cl-record)
check "OpenCL: the build is recorded" test "$(recipes "$T/cache-cl")" -eq 1
(export JITCACHE_DIR=$T/cache-cl; present a770; $WARM --for b580 >"$T/cl-warm.out" 2>&1)
check "OpenCL: warm --for b580 rebuilds it (the include written where -I finds it)" \
	grep -q "1 compiled, 0 already cached, 0 failed" "$T/cl-warm.out"
(export JITCACHE_DIR=$T/cache-cl; present b580; cl_run cl-b580)
check "OpenCL, B580 identity, first run: the build hits" \
	sh -c "grep -q 'OpenCL build .*: hit' '$T/cl-b580.log' && grep -q '^build=0' '$T/cl-b580.log'"

# ---- a target the driver does not simulate as itself ------------------------------
cat >"$T/fake-replay" <<'EOF'
#!/bin/sh
echo "device 8086 e20b 5004004 Intel(R) Graphics [0xe20b]"
echo "ready 1"
cat >/dev/null
EOF
chmod +x "$T/fake-replay"
JITCACHE_REPLAY=$T/fake-replay $WARM --for b580 >"$T/refused.out" 2>&1
check "a simulation that reports another IP version: refused (exit 1)" test $? -eq 1
check "refused in one line" sh -c "test \$(wc -l <'$T/refused.out') -eq 1 &&
	grep -q 'cannot prewarm for b580.*simulates it as 0xe20b with IP version 20.1.4' '$T/refused.out'"
$WARM --for nosuchgpu >"$T/unknown.out" 2>&1
check "an unknown target: bad usage (exit 2)" test $? -eq 2
check "warm --list names every target" \
	sh -c "$WARM --list | grep -c '^[a-z]' | grep -qx 8"

# ---- on a terminal: a progress bar with the ETA ----------------------------------------
if command -v script >/dev/null; then
	(present a770; export JITCACHE_DIR=$T/cache-tty JITCACHE_LAYERS=$T/layer
	 script -qec "$WARM --for a750 -j 1" /dev/null >"$T/tty.out" 2>&1 </dev/null)
	check "on a terminal: a progress bar with the ETA, then the summary" \
		sh -c "grep -q 'a750 \[#*\.*\] 1/$(n_modules)' '$T/tty.out' && grep -q 'ETA [0-9]*:[0-9][0-9]' '$T/tty.out' &&
		       grep -q '$(n_modules) compiled' '$T/tty.out'"
else
	skip "no script(1) to give jitcache warm a terminal"
fi

# ---- Ctrl-C, then resume ----------------------------------------------------------
compiled() { echo $(( $(entries) - $(recipes) )); }
present a770
before=$(compiled)
$WARM --for a380 -j 1 >"$T/int.out" 2>&1 &
pid=$!
for _ in $(seq 600); do
	[ "$(compiled)" -gt "$before" ] && break
	sleep 0.05
done
kill -INT "$pid"
wait "$pid"
check "Ctrl-C: exit status 130" test $? -eq 130
check "Ctrl-C: says it can resume" grep -q "interrupted.*resumes" "$T/int.out"
check "Ctrl-C: the cache verifies clean" $JITCACHE verify
done_before=$(( $(compiled) - before ))
$WARM --for a380 >"$T/resume.out" 2>&1
check "resume: succeeds" test $? -eq 0
check "resume: what the first run stored is cached, the rest compiled" \
	grep -Eq "([0-9]+) compiled, ([1-9][0-9]*) already cached, 0 failed" "$T/resume.out"
check "resume: every module now has an A380 entry" \
	test "$(( $(compiled) - before ))" -eq "$(n_modules)"
echo "interrupted after $done_before stored: $(cat "$T/resume.out")" >>"$T/check.log"

# ---- the cap holds recipes too ----------------------------------------------------
(export JITCACHE_DIR=$T/cache-cap JITCACHE_MAX_SIZE=300K; present a770; run_all cap)
cap_bytes=$(find "$T/cache-cap" -type f -regex '.*/[0-9a-f]*' -printf '%s\n' |
	awk '{ s += $1 } END { print s + 0 }')
check "max_size 300K: entries and recipes together stay under it ($cap_bytes bytes)" \
	test "$cap_bytes" -gt 0 -a "$cap_bytes" -le 307200
check "max_size 300K: recipes were kept too" test "$(recipes "$T/cache-cap")" -gt 0

# ---- export and import carry recipes -------------------------------------------------
$JITCACHE export "$T/all.tar.zst" >/dev/null 2>&1
JITCACHE_DIR=$T/cache-imported $JITCACHE import "$T/all.tar.zst" >/dev/null 2>&1
check "import: every recipe arrives" test "$(recipes "$T/cache-imported")" -eq "$(recipes)"
finish
