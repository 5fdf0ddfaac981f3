#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# Level Zero: what goes into the key.  Equal requests share an entry; a
# different SPIR-V, build flags, specialization constant value, simulated
# GPU or compiler environment gets its own, while a debug key that only
# logs or simulates the GPU leaves the key alone.  Spec constant values are read with their SPIR-V size,
# no more.  Linked programs (ZE_experimental_module_program) key on every
# input.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/ze_common.bash"
need_ze
export JITCACHE_LOG=debug

check "SPIR-V built with ocloc" spirv reduce "$KERNELS/reduce.cl"
check "SPIR-V built with ocloc" spirv norm "$KERNELS/norm.cl"
both=$(( $(kernels "$T/reduce.spv") + $(kernels "$T/norm.spv") ))
check "spec constant module written" "$B/tests/ze_spec_spirv" "$T/spec.spv"

# run NAME ARGS...: one client run; its output in $T/NAME.out
run() {
	local name=$1; shift
	jc "$CLIENT" link "$@" >"$T/$name.out" 2>&1
}
stored() { grep -q "miss, compiled" "$T/$1.out" && grep -q "result 0x0" "$T/$1.out"; }
hit() { grep -q ": hit, loaded" "$T/$1.out" && ! grep -q "miss, compiled" "$T/$1.out"; }

# Build flags.
run f0 "$T/reduce.spv"
run f1 -f "-cl-fast-relaxed-math" "$T/reduce.spv"
run f2 -f "-cl-fast-relaxed-math" "$T/reduce.spv"
run f3 -f "" "$T/reduce.spv"
check "flags: first build stored" stored f0
check "flags: other flags, another entry" stored f1
check "flags: same flags, a hit" hit f2
check "flags: empty flags are no flags" hit f3
check "flags: two entries" test "$(entries)" -eq 2

# Specialization constants: 7 is a uint, 8 a bool, 9 a ulong (ze_spec_module.h).
rm -rf "$JITCACHE_DIR"
run s0 -c 7=3 "$T/spec.spv"
run s1 -c 7=3 "$T/spec.spv"
run s2 -c 7=4 "$T/spec.spv"
run s3 -c 7=0xdead00000003 "$T/spec.spv"
run s4 -c 8=0 "$T/spec.spv"
run s5 -c 8=0x100 "$T/spec.spv"
run s6 -c 9=5 "$T/spec.spv"
run s7 -c 9=0x100000005 "$T/spec.spv"
run s8 "$T/spec.spv"
check "spec: first build stored" stored s0
check "spec: same value, a hit" hit s1
check "spec: another value, another entry" stored s2
check "spec: a uint is 4 bytes: bytes beyond them are not read" hit s3
check "spec: bool value stored" stored s4
check "spec: a bool is 1 byte" hit s5
check "spec: ulong value stored" stored s6
check "spec: a ulong is 8 bytes" stored s7
check "spec: no constants, another entry" stored s8
check "spec: six entries" test "$(entries)" -eq 6
# A SpecId the module does not declare: not cached, the driver's answer.
run s9 -c 42=1 "$T/spec.spv"
JITCACHE_DISABLE=1 run s9-real -c 42=1 "$T/spec.spv"
real=$(sed -n 's/.*result \(0x[0-9a-f]*\).*/\1/p' "$T/s9-real.out")
check "spec: unknown SpecId gets the driver's own result (${real:-?})" \
	grep -q "result ${real:-none} " "$T/s9.out"
check "spec: unknown SpecId is not cached" test "$(entries)" -eq 6

# Linked programs: every input is in the key; SYCL's placeholders in the
# module desc are never read (the client puts (void *)1 there).
rm -rf "$JITCACHE_DIR"
run p0 -p "$T/reduce.spv" "$T/norm.spv"
run p1 -p "$T/reduce.spv" "$T/norm.spv"
run p2 -p "$T/norm.spv" "$T/reduce.spv"
run p3 -p -f "-cl-mad-enable" "$T/reduce.spv" "$T/norm.spv"
check "program: linked module stored" stored p0
check "program: its kernels from both inputs" grep -q "kernels $both" "$T/p0.out"
check "program: a hit" hit p1
check "program: the hit has every kernel" grep -q "kernels $both" "$T/p1.out"
check "program: inputs in another order, another entry" stored p2
check "program: other flags, another entry" stored p3
check "program: three entries" test "$(entries)" -eq 3

# Another simulated GPU (Tiger Lake) compiles its own binary.
rm -rf "$JITCACHE_DIR"
run g0 "$T/reduce.spv"
(sim tgllp; run g1 "$T/reduce.spv")
(sim tgllp; run g2 "$T/reduce.spv")
run g3 "$T/reduce.spv"
check "platform: dg2 stored" stored g0
check "platform: tgllp is another entry" stored g1
check "platform: tgllp hits its own" hit g2
check "platform: dg2 still hits its own" hit g3
check "platform: two entries" test "$(entries)" -eq 2

# The environment.  Each variable that changes the code (the driver's own,
# IGC's, a debug key) is another entry, hit by the next run that has it;
# one that only logs or sets the simulated GPU's identity is not.
rm -rf "$JITCACHE_DIR"
run e0 "$T/reduce.spv"
check "env: first build stored" stored e0
(export PrintDebugMessages=0; run e1 "$T/reduce.spv")
check "env: an unrelated debug key (PrintDebugMessages=0): a hit" hit e1
(export OverrideDeviceName="Intel(R) Arc(TM) A770 Graphics"; run e2 "$T/reduce.spv")
check "env: a simulation switch (OverrideDeviceName): a hit" hit e2
n=1
for v in UseBindlessMode=0 NEO_FP64_EMULATION=1 ZET_ENABLE_PROGRAM_DEBUGGING=1 \
	IGC_DisableLoopUnroll=1 OverrideDefaultFP64Settings=1; do
	# The 2026 driver offers no simulated device with program debugging.
	if ! (export "$v"; "$CLIENT" link "$T/reduce.spv" >"$T/env-$v-plain.out" 2>&1); then
		skip "env: $v: the driver builds nothing with it ($(tail -n 1 "$T/env-$v-plain.out"))"
		continue
	fi
	(export "$v"; run "env-$v" "$T/reduce.spv"; run "env-$v-again" "$T/reduce.spv")
	check "env: $v: another entry" stored "env-$v"
	check "env: $v: which the next run with it hits" hit "env-$v-again"
	n=$((n + 1))
done
check "env: one entry for each ($n)" test "$(entries)" -eq "$n"

# A driver that refuses the IP version structure (a stand-in preloaded after
# jitcache): asked again without it, the module is still cached, under
# another device identity than the one with the IP version (the 2026
# driver's); Debian 12's 22.43 ignores the structure, knowing no IP version
# either: the same identity (device id and stepping), the same entry.
rm -rf "$JITCACHE_DIR"
mkdir -p "$T/noip"
check "no IP version: stand-in builds" cc -shared -fPIC -O1 -D_GNU_SOURCE -I"$ROOT" \
	-o "$T/noip/libnoip.so" "$ROOT/tests/helpers/loader/ze_no_ip_version.c" -ldl
noip() { LD_PRELOAD="$LIB:$T/noip/libnoip.so" "$CLIENT" link "$@"; }
noip "$T/reduce.spv" >"$T/i0.out" 2>&1
noip "$T/reduce.spv" >"$T/i1.out" 2>&1
run i2 "$T/reduce.spv"
check "no IP version: the structure was refused" grep -q "^no-ip: refused" "$T/i0.out"
check "no IP version: module stored" stored i0
check "no IP version: a hit" hit i1
if modern_driver; then
	check "no IP version: the driver that has it gets its own entry" stored i2
	check "no IP version: two entries" test "$(entries)" -eq 2
else
	check "no IP version: the driver that reports none either: a hit" hit i2
	check "no IP version: one entry" test "$(entries)" -eq 1
fi

finish
