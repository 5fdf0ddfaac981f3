#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: full: needs Intel's 2026 driver in the test bed (make testbed)
# `jitcache warm --for` for many targets at once (issue 48 item 3), on
# Intel's 2026 driver (the test bed), with GPUs simulated under their real
# identities (TESTBED.md section 4):
#   - one pool of -j workers serves every target: never more at once,
#     and the first target's recipes are spread over both;
#   - each IP version is compiled once: a target that shares an earlier
#     one's IP version finds its entries (its line: "shared with"), and
#     one whose entries were there before says "already cached";
#   - --for all names every target the table has, each once;
#   - clCompileProgram + clLinkProgram (hashcat's way) keep recipes: a
#     pack built for a B580 on a simulated A770 answers a B580's first
#     compile and link from the cache.
# Skipped on other drivers.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/ze_common.bash"
need_modern_driver
need_ze
unset JITCACHE_RECIPES # the default: on

MODULES="reduce gemm norm"
N=3
for m in $MODULES; do
	spirv "$m" "$KERNELS/$m.cl" || check "SPIR-V of $m.cl built with ocloc" false
done
compiled() { echo $(( $(entries "$1") - $(recipes "$1") )); }

present a770
for m in $MODULES; do jc "$EXAMPLE" "$T/$m.spv" >"$T/record.$m.log" 2>&1; done
check "record on a simulated A770: one entry and one recipe per module" \
	sh -c "test $(compiled "$JITCACHE_DIR") -eq $N && test $(recipes) -eq $N"

# Every worker, through a stand-in that starts the real one and notes its
# start, its end and the device id it simulates.
cat >"$T/replay" <<EOF
#!/bin/sh
echo "start \$(date +%s%N) \$\$ \$ForceDeviceId" >>"$T/workers.log"
"$B/jitcache-replay"
rc=\$?
echo "end \$(date +%s%N) \$\$ \$ForceDeviceId" >>"$T/workers.log"
exit \$rc
EOF
chmod +x "$T/replay"
: >"$T/workers.log"
JITCACHE_REPLAY=$T/replay $JITCACHE warm --for a380,b580,b570,a750,a580 -j 2 >"$T/five.out" 2>&1
check "five targets: succeeds" test $? -eq 0
check "five targets: one line each" test "$(grep -c '^warm ' "$T/five.out")" -eq 5
says() { grep "^warm $2 " "$1" | grep -qF ": $3"; } # OUTPUT TARGET TEXT
check "a380 (IP 12.56.5): compiled" says "$T/five.out" a380 "$N compiled, 0 already cached, 0 failed"
check "b580 (IP 20.1.0): compiled" says "$T/five.out" b580 "$N compiled, 0 already cached, 0 failed"
check "b570: shares b580's IP version, and its entries: nothing compiled" \
	says "$T/five.out" b570 "0 compiled, $N shared with b580 (IP 20.1.0), 0 already cached, 0 failed"
check "a750: the A770's IP version, recorded already: already cached" \
	says "$T/five.out" a750 "0 compiled, $N already cached, 0 failed"
check "a580: shares a750's IP version, nothing of it compiled in this run: already cached" \
	says "$T/five.out" a580 "0 compiled, 0 shared with a750 (IP 12.55.8), $N already cached, 0 failed"
check "each IP version compiled once: entries for 3 of them" test "$(compiled "$JITCACHE_DIR")" -eq $((3 * N))
# The workers: at most -j at once, the first target's recipes over both.
overlap=$(sort -k2,2n "$T/workers.log" | awk '$1 == "start" { n++; if (n > m) m = n } $1 == "end" { n-- } END { print m + 0 }')
check "at most 2 workers at once (-j 2), and 2 did run at once ($overlap)" test "$overlap" -eq 2
# a380, the first target, starts 3: the one that checks the driver names
# IP versions (it replays nothing), then one per slot.
check "a380's recipes were spread over both slots (2 workers beside the driver check)" \
	test "$(grep -c '^start .* 56A5$' "$T/workers.log")" -eq 3
check "every target had a worker of its own simulation" \
	sh -c "for id in 56A5 E20B E20C 56A1 56A2; do grep -q \"^start .* \$id\$\" '$T/workers.log' || exit 1; done"
echo "workers: $(grep -c '^start' "$T/workers.log"); $(cat "$T/five.out")" >>"$T/check.log"

$JITCACHE warm --for all -j 2 >"$T/all.out" 2>&1
check "--for all: succeeds" test $? -eq 0
check "--for all: a line for each of the 8 targets" test "$(grep -c '^warm ' "$T/all.out")" -eq 8
check "--for all: Core Ultra (Meteor Lake-H) compiled" says "$T/all.out" mtl-h "$N compiled"
check "--for all: Core Ultra 200V (Lunar Lake) compiled" says "$T/all.out" lnl "$N compiled"
check "--for all: nothing compiled twice (5 IP versions)" test "$(compiled "$JITCACHE_DIR")" -eq $((5 * N))
$JITCACHE warm --for all,a770,all -j 2 >"$T/again.out" 2>&1
check "--for all again, names repeated: each target once, all cached" \
	sh -c "test \$(grep -c '^warm ' '$T/again.out') -eq 8 && test \$(grep -c ': 0 compiled' '$T/again.out') -eq 8"

# ---- clCompileProgram + clLinkProgram ---------------------------------------------------
CL=$B/tests/cl_compile_link
mkdir -p "$T/clapp"
cat >"$T/clapp/a.cl" <<'EOF'
#include "scale.h"
float helper(float x);
kernel void affine(global float *out, global const float *in, uint n)
{ size_t i = get_global_id(0); if (i < n) out[i] = helper(in[i]) * SCALE + 1.0f; }
EOF
echo 'float helper(float x) { return x * 2.0f; }' >"$T/clapp/b.cl"
echo '#define SCALE 3.0f' >"$T/clapp/scale.h"
cl_run() { # NAME
	(cd "$T/clapp" && JITCACHE_LOG=info jc "$CL" --platform "Intel(R) OpenCL" --source a.cl \
		--source b.cl --header scale.h=scale.h --options "-DX=1" >"$T/$1.out" 2>"$T/$1.err")
}
(export JITCACHE_DIR=$T/cache-cl; present a770; cl_run cl-record)
check "compile + link on a simulated A770: two compiles and the link, each with a recipe" \
	sh -c "grep -q 'jitcache: 0 hits, 3 misses, 3 stores' '$T/cl-record.err' && test $(recipes "$T/cache-cl") -eq 3"
(export JITCACHE_DIR=$T/cache-cl; present a770; $JITCACHE warm --for b580 --export "$T/cl.tar.zst" >"$T/cl-warm.out" 2>&1)
check "warm --for b580: the link's recipe compiles both inputs and links (3 entries)" \
	grep -q ": 3 compiled, 0 already cached, 0 failed" "$T/cl-warm.out"
JITCACHE_DIR=$T/cl-layer $JITCACHE import "$T/cl.tar.zst" >/dev/null 2>&1
(export JITCACHE_DIR=$T/cache-cl-b580 JITCACHE_LAYERS=$T/cl-layer; present b580; cl_run cl-b580)
check "B580 identity, first run through the pack: both compiles and the link hit" \
	grep -q 'jitcache: 3 hits, 0 misses, 0 stores' "$T/cl-b580.err"
check "... and the program links" grep -q '^link=0 ' "$T/cl-b580.out"
finish
