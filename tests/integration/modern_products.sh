#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: full: needs Intel's 2026 driver in the test bed (make testbed)
# Intel's 2026 driver (the test bed: tests/testbed/run), three simulated
# GPUs: Arc A-series (dg2), Arc B-series Battlemage (bmg) and Meteor Lake
# (mtl).  For each: a cold run compiles and stores, a warm run hits and
# creates every kernel.  One cache shared by all three keeps one entry per
# GPU, and a binary compiled for one GPU is never served to another (each
# GPU's first run compiles).  Skipped on other drivers.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/ze_common.bash"
modern_ze

PRODUCTS="dg2 bmg mtl"
# run NAME PRODUCT: one client run on that simulated GPU; output in $T/NAME.out
run() {
	(sim "$2"; jc "$CLIENT" link "$T/reduce.spv" >"$T/$1.out" 2>&1)
}
stored() { grep -q "miss, compiled" "$T/$1.out" && grep -q "result 0x0 kernels [1-9]" "$T/$1.out"; }
hit() { grep -q ": hit, loaded" "$T/$1.out" && ! grep -q "miss, compiled" "$T/$1.out"; }
kernels_of() { sed -n 's/.*result 0x0 kernels \([0-9]*\).*/\1/p' "$T/$1.out" | head -n 1; }
device_of() { sed -n 's/^device: //p' "$T/$1.out" | head -n 1; }

for p in $PRODUCTS; do
	export JITCACHE_DIR=$T/cache-$p
	(sim "$p"; "$CLIENT" link "$T/reduce.spv" >"$T/$p-plain.out" 2>&1
	 "$EXAMPLE" "$T/reduce.spv" >"$T/$p-device.out" 2>&1)
	run "$p-cold" "$p"
	run "$p-warm" "$p"
	check "$p: the driver simulates it" grep -q "result 0x0 kernels [1-9]" "$T/$p-plain.out"
	check "$p: cold run compiles and stores" stored "$p-cold"
	check "$p: one entry" test "$(entries)" -eq 1
	check "$p: warm run hits" hit "$p-warm"
	check "$p: the hit creates every kernel" \
		test -n "$(kernels_of "$p-plain")" -a "$(kernels_of "$p-warm")" = "$(kernels_of "$p-plain")"
done
check "the three GPUs are three devices" \
	test "$(for p in $PRODUCTS; do device_of "$p-device"; done | sort -u | wc -l)" -eq 3

# One cache for all three: each GPU compiles its own, then hits its own.
export JITCACHE_DIR=$T/cache
for p in $PRODUCTS; do run "shared-$p-cold" "$p"; done
for p in $PRODUCTS; do run "shared-$p-warm" "$p"; done
for p in $PRODUCTS; do
	check "shared cache, $p: not served another GPU's binary (compiled)" stored "shared-$p-cold"
	check "shared cache, $p: hits its own" hit "shared-$p-warm"
done
check "shared cache: one entry per GPU" test "$(entries)" -eq 3

# Plant the dg2 binary under bmg's key (the store's checks pass): the
# program must still work on bmg.  The 2026 driver accepts the foreign
# binary and rebuilds the module from the IR it carries, saying so in the
# build log: jitcache rejects that entry (not a hit) and stores bmg's own.
entry_of() { sed -n 's/.*stored [0-9]* bytes as \([0-9a-f]*\).*/\1/p' "$T/$1.out" | head -n 1; }
bmg_key=$(entry_of shared-bmg-cold) dg2_key=$(entry_of shared-dg2-cold)
bmg_entry=$JITCACHE_DIR/${bmg_key:0:2}/$bmg_key dg2_entry=$JITCACHE_DIR/${dg2_key:0:2}/$dg2_key
check "entries found" test -f "$bmg_entry" -a -f "$dg2_entry"
check "dg2's binary planted under bmg's key" "$B/tests/ze_forge_entry" "$bmg_entry" "$dg2_entry"
run planted bmg
check "planted: the program works on bmg, every kernel" \
	test "$(kernels_of planted)" = "$(kernels_of bmg-plain)"
check "planted: recompiled from IR, so not a hit but a miss, and replaced" \
	grep -q "jitcache: 0 hits, 1 misses, 1 stores" "$T/planted.out"
# The compiler's build is in the key: the same driver with another build of
# IGC 2.x (libigc.so.2, here a copy whose GNU build-id differs by one bit,
# found first through LD_LIBRARY_PATH) must compile anew, not hit.
igc=$(ldconfig -p | awk '$1 == "libigc.so.2" { print $NF; exit }')
mkdir -p "$T/igc"
python3 - "$igc" "$T/igc/libigc.so.2" <<'PY' >"$T/igc.log" 2>&1
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
note = struct.pack("<III", 4, 20, 3) + b"GNU\0"  # NT_GNU_BUILD_ID, 20-byte id
at = data.find(note)
assert at >= 0, "no GNU build-id note"
data[at + len(note)] ^= 1
open(sys.argv[2], "wb").write(data)
PY
check "a copy of libigc.so.2 with another build-id" test -s "$T/igc/libigc.so.2"
export JITCACHE_DIR=$T/cache-igc
run igc0 dg2
(export LD_LIBRARY_PATH=$T/igc:$LD_LIBRARY_PATH; run igc1 dg2; run igc2 dg2)
run igc3 dg2
check "IGC's build: the original compiles and stores" stored igc0
check "IGC's build: another build of IGC is another entry" stored igc1
check "IGC's build: ... which it hits" hit igc2
check "IGC's build: the original still hits its own" hit igc3
finish
