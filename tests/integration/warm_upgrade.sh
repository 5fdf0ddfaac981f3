#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: full: needs the test bed and the build made in it (make testbed)
# A driver upgrade, for real: recipes recorded on this machine's driver
# (Debian 12's NEO 22.43, a simulated DG2) are replayed by `jitcache warm`
# on Intel's 2026 driver (the test bed, tests/testbed/), after which the
# program's first run there is all hits.  Needs the test bed and the build
# made in it ($BUILD-sid, as `make check` makes); skipped without them.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/ze_common.bash"
if modern_driver; then
	skip "this is the recording half's driver test; it runs on the host"
	finish
	exit $?
fi
need_ze
SID=${MODERN_BUILD:-$B-sid}
case $SID in /*) ;; *) SID=$ROOT/$SID ;; esac
if [ ! -x "$SID/jitcache-replay" ] || ! "$ROOT/tests/testbed/run" true 2>/dev/null; then
	skip "no test bed or no build made in it ($SID): make testbed, then tests/testbed/run make BUILD=$(basename "$SID") modern-build"
	finish
	exit $?
fi
unset JITCACHE_RECIPES # the default: on
MODULES="reduce gemm norm"
for m in $MODULES; do
	spirv "$m" "$KERNELS/$m.cl" || check "SPIR-V of $m.cl built with ocloc" false
done

# ---- record on Debian 12's driver ---------------------------------------------
for m in $MODULES; do
	JITCACHE_LOG=debug jc "$EXAMPLE" "$T/$m.spv" >"$T/old.$m.log" 2>&1
done
cp "$ROOT/tests/integration/compute.cl" "$T/compute.cl"
(cd "$T" && jc "$B/tests/cl_build" --platform Intel --source compute.cl --options "-DSCALE=2.0f" \
	>"$T/old.cl.log" 2>&1)
check "old driver: every module and the OpenCL build compiled, each recipe kept" \
	test "$(recipes)" -eq 4
$JITCACHE warm >"$T/old-warm.out" 2>&1
check "old driver: jitcache warm finds everything cached" \
	grep -q "0 compiled, 4 already cached, 0 failed" "$T/old-warm.out"
JITCACHE_DISABLE=1 $JITCACHE warm >"$T/off.out" 2>&1
check "caching off: warm refuses in one line (exit 1)" \
	sh -c "test $? -eq 1 && test \$(wc -l <'$T/off.out') -eq 1 && grep -q 'caching is off' '$T/off.out'"
# A driver that cannot simulate a B580 as itself (Debian 12's reports no IP
# version) is refused in one line; one that can must report its identity.
$JITCACHE warm --for b580 >"$T/old-b580.out" 2>&1
rc=$?
check "old driver: warm --for b580 is refused in one line, or warms a true B580" \
	sh -c "{ test $rc -eq 1 && test \$(wc -l <'$T/old-b580.out') -eq 1 &&
		grep -q '^jitcache warm: --for needs .* runtime 26.27 or newer .*b580' '$T/old-b580.out'; } ||
	       { test $rc -eq 0 && grep -q '(0xe20b, IP 20.1.0)' '$T/old-b580.out'; }"

# ---- the upgrade: warm on the 2026 driver, then the program's first run ------------
mkdir -p "$T/sid"
cat >"$T/sid/run.sh" <<EOF
export JITCACHE_LIB=$SID/libjitcache.so JITCACHE_ADMIN=$SID/jitcache-admin
export LD_LIBRARY_PATH=$SID/lib
export NEOReadDebugKeys=1 SetCommandStreamReceiver=1 UseAubStream=0 HardwareInfoOverride=1x4x16
export UseExternalAllocatorForSshAndDsh=0 OverrideMaxWorkgroupSize=1024
export ProductFamilyOverride=acm-g10 ForceDeviceId=56A0
unset UseBindlessMode
cd "$T/sid" || exit 1
"$JITCACHE" warm >warm.out 2>&1
echo \$? >warm.rc
for m in $MODULES; do
	JITCACHE_LOG=debug LD_PRELOAD=$SID/libjitcache.so $SID/examples/ze_module "$T/\$m.spv" >first.\$m.log 2>&1
done
cd "$T" && JITCACHE_LOG=debug LD_PRELOAD=$SID/libjitcache.so $SID/tests/cl_build --platform Intel \
	--source compute.cl --options "-DSCALE=2.0f" >"$T/sid/first-cl.out" 2>&1
EOF
"$ROOT/tests/testbed/run" bash "$T/sid/run.sh"
check "2026 driver: jitcache warm succeeds" test "$(cat "$T/sid/warm.rc" 2>/dev/null)" = 0
check "2026 driver: warm compiled every recipe (nothing of the old driver's fits)" \
	grep -q "4 compiled, 0 already cached, 0 failed" "$T/sid/warm.out"
hits=$(cat "$T"/sid/first.*.log 2>/dev/null | grep -c ': hit, loaded')
misses=$(cat "$T"/sid/first.*.log 2>/dev/null | grep -c 'miss, compiled')
check "2026 driver, the program's first run: every module hits ($hits hits, $misses compiled)" \
	test "$hits" -eq 3 -a "$misses" -eq 0
check "2026 driver, the program's first run: kernels created" \
	test "$(cat "$T"/sid/first.*.log | grep -c '^kernels: [1-9]')" -eq 3
check "2026 driver, the OpenCL program's first run: its build hits" \
	sh -c "grep -q 'OpenCL build .*: hit' '$T/sid/first-cl.out' && grep -q '^build=0' '$T/sid/first-cl.out'"
finish
