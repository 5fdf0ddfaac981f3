# SPDX-License-Identifier: MIT
# ze_common.bash — sourced by the tests/integration/ze_*.sh scripts, after
# ../lib.sh.  (Not a test itself: tests/run.sh runs only *.sh.)
#
#   need_ze                      skip the whole script unless the driver and ocloc are there
#   modern_ze                    need_modern_driver, need_ze, JITCACHE_LOG=debug, $T/reduce.spv
#   spirv NAME FILE.cl [OPTS]    $T/NAME.spv from OpenCL C, with ocloc
#   jc CMD...                    run CMD with libjitcache.so preloaded
#   ze_time FILE                 the first "zeModuleCreate: S s" figure in FILE
#   count PATTERN FILE           how many lines of FILE match PATTERN
#   kernels FILE.spv             how many kernels the driver makes of it, alone
#   door NAME DOOR CMD...        cold then warm run of CMD on $T/reduce.spv:
#                                one compile and store through DOOR, then a hit
#   present GPU                  the 2026 driver's simulation of a770, a380 or b580
#
# Simulated programs run in $T (the driver writes .aub files to the cwd).

CLIENT=$B/tests/ze_client
DLOPEN=$B/tests/ze_dlopen
EXAMPLE=$B/examples/ze_module
KERNELS=$ROOT/examples/kernels

# Was the library built with AddressSanitizer?
ASAN_RT=$(ldd "$LIB" 2>/dev/null | awk '/libasan/ { print $3 }')

need_ze() {
	local missing=""
	if [ -n "$ASAN_RT" ]; then
		# Intel's driver dlopen()s a helper with RTLD_DEEPBIND, which the
		# ASan runtime refuses (it ends the process).  UBSan builds run.
		skip "AddressSanitizer cannot host Intel's driver (RTLD_DEEPBIND)"
		finish
		exit $?
	fi
	command -v ocloc >/dev/null || missing="ocloc"
	[ -e "$B/lib/libze_loader.so.1" ] || missing="$missing libze_loader.so.1"
	for f in "$LIB" "$CLIENT" "$DLOPEN" "$EXAMPLE"; do
		[ -e "$f" ] || missing="$missing $f"
	done
	if [ -n "$missing" ]; then
		# `make check` installs and builds all of these: their absence is a
		# broken build, not a reason to skip.
		check "test prerequisites present (missing:$missing)" false
		finish
		exit $?
	fi
	sim_dg2
}

# modern_ze: the start of the scripts for Intel's 2026 driver (skip elsewhere),
# with the driver and ocloc, debug log lines, and $T/reduce.spv.
modern_ze() {
	need_modern_driver
	need_ze
	export JITCACHE_LOG=debug
	check "SPIR-V built with ocloc" spirv reduce "$KERNELS/reduce.cl"
}

spirv() {
	local name=$1 src=$2; shift 2
	ocloc compile -q -spv_only -file "$src" -device dg2 -output "$T/$name" \
		-output_no_suffix "$@" >"$T/ocloc-$name.log" 2>&1 && [ -s "$T/$name.spv" ]
}

jc() {
	LD_PRELOAD="$LIB" "$@"
}

# present GPU: the 2026 driver's simulation of that GPU's real identity
# (TESTBED.md section 4); the A380 and B580 under their real names, the
# A770 under the simulation's ("Intel(R) Graphics [0x56a0]").
present() {
	unset UseBindlessMode OverrideRevision OverrideDeviceName
	export NEOReadDebugKeys=1 SetCommandStreamReceiver=1 UseAubStream=0 \
		HardwareInfoOverride=1x4x16 UseExternalAllocatorForSshAndDsh=0 \
		OverrideMaxWorkgroupSize=1024
	case $1 in
	a770) export ProductFamilyOverride=acm-g10 ForceDeviceId=56A0 ;;
	a380) export ProductFamilyOverride=dg2-g11-b1 ForceDeviceId=56A5 \
		OverrideDeviceName="Intel(R) Arc(TM) A380 Graphics" ;;
	b580) export ProductFamilyOverride=bmg-g21 ForceDeviceId=E20B \
		OverrideDeviceName="Intel(R) Arc(TM) B580 Graphics" ;;
	esac
}

# kernels FILE.spv: how many kernels the driver makes of FILE, without
# jitcache (drivers differ: Intel's 2026 driver adds one to norm.cl's 11).
kernels() {
	local n
	n=$("$CLIENT" link "$1" 2>/dev/null | sed -n 's/.*result 0x0 kernels \([0-9]*\).*/\1/p' | head -n 1)
	echo "${n:-0}"
}

ze_time() {
	sed -n 's/^zeModuleCreate: \([0-9.]*\) s.*/\1/p' "$1" | head -n 1
}

count() {
	grep -c -- "$1" "$2" 2>/dev/null || true
}

# door NAME DOOR-IN-LOG CMD...: with a fresh cache, a cold run of CMD on
# $T/reduce.spv compiles and stores once, looked up by DOOR (the outermost
# jitcache door the call passes), and a warm run hits through it.
door() {
	local name=$1 via=$2; shift 2
	export JITCACHE_DIR=$T/cache-$name
	jc "$@" "$T/reduce.spv" >"$T/$name.cold" 2>&1
	jc "$@" "$T/reduce.spv" >"$T/$name.warm" 2>&1
	check "$name: cold run works" grep -q "result 0x0 kernels [1-9]" "$T/$name.cold"
	check "$name: one compile, by $via" \
		test "$(count "miss, compiled" "$T/$name.cold")" -eq 1 -a \
		     "$(count "^jitcache: $via: miss, compiled" "$T/$name.cold")" -eq 1
	check "$name: one store" grep -q "jitcache: 0 hits, 1 misses, 1 stores" "$T/$name.cold"
	check "$name: one entry" test "$(entries)" -eq 1
	check "$name: warm run works" grep -q "result 0x0 kernels [1-9]" "$T/$name.warm"
	check "$name: warm run hits, by $via" \
		test "$(count "^jitcache: $via: hit" "$T/$name.warm")" -eq 1 -a \
		     "$(count "miss, compiled" "$T/$name.warm")" -eq 0
}
