#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: full: needs Intel's 2026 driver in the test bed (make testbed)
# Intel's 2026 driver (the test bed: tests/testbed/run): the key holds what
# decides the driver's code, and a hit is what the driver would have done.
#   - NEO_FP64_EMULATION: a kernel using double builds only with it on DG2;
#     built with it, its entry must not serve a process without it (the
#     driver fails that build, so must jitcache).
#   - A simulated GPU compiles as the real one: each entry is byte for byte
#     ocloc's binary for the GPU's IP version (Arc A770, 12.55.8; Arc B580,
#     20.1.0), and neither the device name the driver is told to report
#     nor the EU topology changes the binary or the key.
#   - A stored binary that the driver recompiles from its IR (here ocloc's
#     for the neighbouring stepping 12.55.4, on 12.55.8) is rejected: not a
#     hit, counted, replaced by the driver's own binary; in Level Zero and in
#     OpenCL.
# Skipped on other drivers.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/ze_common.bash"
modern_ze
cat >"$T/fp64.cl" <<'EOF'
__kernel void twice(__global double *a)
{
	size_t i = get_global_id(0);
	a[i] = a[i] * 2.0 + 1.0 / (a[i] + 3.0);
}
EOF
# DG2's ocloc refuses double: the SPIR-V comes from a GPU that has it.
check "SPIR-V using double built with ocloc" \
	ocloc compile -q -spv_only -file "$T/fp64.cl" -device pvc -output "$T/fp64" -output_no_suffix

# run NAME FILE [ENV...]: a client run under jitcache; output in $T/NAME.out
run() {
	local name=$1 file=$2; shift 2
	env "$@" LD_PRELOAD="$LIB" "$CLIENT" link "$file" >"$T/$name.out" 2>&1
}
result() { sed -n 's/^zeModuleCreate: .* result \(0x[0-9a-f]*\).*/\1/p' "$T/$1.out" | head -n 1; }
stored() { grep -q "miss, compiled" "$T/$1.out" && grep -q "result 0x0 kernels [1-9]" "$T/$1.out"; }
hit() { grep -q ": hit, loaded" "$T/$1.out" && ! grep -q "miss, compiled" "$T/$1.out"; }
entry_of() { sed -n 's/.*stored [0-9]* bytes as \([0-9a-f]*\).*/\1/p' "$T/$1.out" | head -n 1; }
payload() { local k; k=$(entry_of "$1"); tail -c +65 "$JITCACHE_DIR/${k:0:2}/$k"; }

# ---- FP64 emulation ---------------------------------------------------------
export JITCACHE_DIR=$T/cache-fp64
"$CLIENT" link "$T/fp64.spv" >"$T/fp64-plain.out" 2>&1
NEO_FP64_EMULATION=1 "$CLIENT" link "$T/fp64.spv" >"$T/fp64-plain-emu.out" 2>&1
plain=$(result fp64-plain)
check "fp64: the driver alone fails the build without emulation (${plain:-?})" \
	test -n "$plain" -a "$plain" != 0x0
check "fp64: ... and builds it with NEO_FP64_EMULATION=1" test "$(result fp64-plain-emu)" = 0x0
run fp64-emu "$T/fp64.spv" NEO_FP64_EMULATION=1
run fp64-none "$T/fp64.spv"
run fp64-emu2 "$T/fp64.spv" NEO_FP64_EMULATION=1
check "fp64: built and stored under emulation" stored fp64-emu
check "fp64: without emulation, the driver's own result (${plain:-?}), not the stored module" \
	test "$(result fp64-none)" = "$plain"
check "fp64: without emulation, no hit" grep -q "jitcache: 0 hits" "$T/fp64-none.out"
check "fp64: with emulation again, a hit" hit fp64-emu2

# ---- the simulated GPU is the real one ----------------------------------------
# sim_target NAME PRODUCT DEVICE-ID [ENV...]: a cold run on that simulated GPU,
# in a cache of its own; the run's device name in $T/NAME.device
sim_target() {
	local name=$1 product=$2 id=$3; shift 3
	export JITCACHE_DIR=$T/cache-$name
	(sim "$product" "$id"; run "$name" "$T/reduce.spv" "$@"
	 env "$@" "$EXAMPLE" "$T/reduce.spv" 2>/dev/null | sed -n 's/^device: //p' >"$T/$name.device")
}
for target in "a770 acm-g10 56A0 12.55.8" "b580 bmg-g21 E20B 20.1.0"; do
	set -- $target
	name=$1 ip=$4
	sim_target "$name" "$2" "$3"
	ocloc compile -q -file "$T/reduce.spv" -spirv_input -device "$ip" \
		-output "$T/ocloc-$ip" -output_no_suffix >"$T/ocloc-$ip.log" 2>&1
	check "$name: stored" stored "$name"
	check "$name: the entry is ocloc's binary for $ip, byte for byte" \
		cmp -s <(JITCACHE_DIR=$T/cache-$name payload "$name") "$T/ocloc-$ip.bin"
done
check "the two GPUs' binaries differ" \
	test "$(entry_of a770)" != "$(entry_of b580)" -a -n "$(entry_of a770)"
# The device name: told to report a real Arc's, the driver compiles the same
# bytes, and jitcache looks up the same entry.
sim_target a770-named acm-g10 56A0 "OverrideDeviceName=Intel(R) Arc(TM) A770 Graphics"
check "named: the driver reports the name it was given" \
	grep -q "Arc(TM) A770" "$T/a770-named.device"
check "named: ... which differs from the simulated one ($(cat "$T/a770.device"))" \
	test "$(cat "$T/a770-named.device")" != "$(cat "$T/a770.device")"
check "named: the same native binary" \
	cmp -s <(JITCACHE_DIR=$T/cache-a770 payload a770) \
	       <(JITCACHE_DIR=$T/cache-a770-named payload a770-named)
check "named: the same key" test "$(entry_of a770-named)" = "$(entry_of a770)"

# Another EU topology of the same GPU: the same binary, the same key.
sim_target a770-2x acm-g10 56A0 HardwareInfoOverride=2x4x16
check "topology 2x4x16: the same native binary" \
	cmp -s <(JITCACHE_DIR=$T/cache-a770 payload a770) \
	       <(JITCACHE_DIR=$T/cache-a770-2x payload a770-2x)
check "topology 2x4x16: the same key" test "$(entry_of a770-2x)" = "$(entry_of a770)"

# ---- a binary the driver recompiles from its IR ---------------------------------
export JITCACHE_DIR=$T/cache-a770
a770=$(entry_of a770)
ocloc compile -q -file "$T/reduce.spv" -spirv_input -device 12.55.4 \
	-output "$T/ocloc-12.55.4" -output_no_suffix >"$T/ocloc-12.55.4.log" 2>&1
check "ocloc's 12.55.4 binary differs from 12.55.8's" \
	test -s "$T/ocloc-12.55.4.bin" -a -n "$(cmp "$T/ocloc-12.55.4.bin" "$T/ocloc-12.55.8.bin")"
check "12.55.4's binary planted under the A770's key" \
	"$B/tests/ze_forge_entry" "$JITCACHE_DIR/${a770:0:2}/$a770" -b "$T/ocloc-12.55.4.bin"
corrupt_before=$(stats_field corrupt)
(sim acm-g10 56A0; run stepping "$T/reduce.spv")
(sim acm-g10 56A0; run stepping2 "$T/reduce.spv")
check "stepping: the program works" grep -q "result 0x0 kernels [1-9]" "$T/stepping.out"
check "stepping: one line saying the driver recompiled it from IR" \
	test "$(count "jitcache: the driver recompiled cached module $a770 from its IR" "$T/stepping.out")" -eq 1
check "stepping: not a hit: 0 hits, 1 miss, 1 store" \
	grep -q "jitcache: 0 hits, 1 misses, 1 stores; compiling avoided: 0.00 s" "$T/stepping.out"
check "stepping: counted as a rejected (corrupt) entry" \
	test "$(stats_field corrupt)" -eq $((${corrupt_before:-0} + 1))
check "stepping: replaced by the driver's own binary (ocloc's for 12.55.8)" \
	cmp -s <(payload stepping) "$T/ocloc-12.55.8.bin"
check "stepping: the next run hits" hit stepping2
echo "     recompiled from IR: cold $(ze_time "$T/a770.out") s, with the planted binary" \
	"$(ze_time "$T/stepping.out") s, then a hit $(ze_time "$T/stepping2.out") s"
# An application's -Wno-recompiled-from-ir silences the driver's warning for
# the application, not for jitcache's check of a hit.
export JITCACHE_DIR=$T/cache-quiet
quiet() { (sim acm-g10 56A0; LD_PRELOAD="$LIB" "$CLIENT" link -f -Wno-recompiled-from-ir \
	"$T/reduce.spv" >"$T/$1.out" 2>&1); }
quiet quiet0
quiet_key=$(entry_of quiet0)
check "quiet: stored" stored quiet0
check "quiet: 12.55.4's binary planted" \
	"$B/tests/ze_forge_entry" "$JITCACHE_DIR/${quiet_key:0:2}/$quiet_key" -b "$T/ocloc-12.55.4.bin"
quiet quiet1
check "quiet: the program works" grep -q "result 0x0 kernels [1-9]" "$T/quiet1.out"
check "quiet: still seen as recompiled from IR, not a hit" \
	grep -q "jitcache: the driver recompiled cached module $quiet_key from its IR" "$T/quiet1.out"

# OpenCL: the same, for a program built from source.
export JITCACHE_DIR=$T/cache-cl
ocloc compile -q -file "$KERNELS/reduce.cl" -device 12.55.4 -output "$T/cl-12.55.4" \
	-output_no_suffix >"$T/cl-ocloc.log" 2>&1
clrun() { (sim acm-g10 56A0; LD_PRELOAD="$LIB" "$B/tests/cl_build" --platform Intel \
	--source "$KERNELS/reduce.cl" >"$T/$1.out" 2>&1); }
clrun cl0
cl_key=$(sed -n 's/.*OpenCL build \([0-9a-f]*\): compiled.*/\1/p' "$T/cl0.out" | head -n 1)
check "OpenCL: built and stored" test -n "$cl_key" -a "$(entries)" -eq 1
check "OpenCL: 12.55.4's binary planted" \
	"$B/tests/cl_cache_tool" "$JITCACHE_DIR" replace "$cl_key" "$T/cl-12.55.4.bin"
clrun cl1
clrun cl2
(export OverrideDeviceName="Intel(R) Arc(TM) A770 Graphics"; clrun cl3)
check "OpenCL: the program builds" grep -q "^build=0 " "$T/cl1.out"
check "OpenCL: one line saying the driver recompiled it from IR" \
	test "$(count "jitcache: the OpenCL driver recompiled cached binary $cl_key from its IR" "$T/cl1.out")" -eq 1
check "OpenCL: not a hit: 0 hits, 1 miss, 1 store" \
	grep -q "jitcache: 0 hits, 1 misses, 1 stores; compiling avoided: 0.00 s" "$T/cl1.out"
check "OpenCL: replaced: the next run hits" grep -q "jitcache: 1 hits, 0 misses" "$T/cl2.out"
check "OpenCL: another device name, the same entry (a hit)" \
	grep -q "jitcache: 1 hits, 0 misses" "$T/cl3.out"
finish
