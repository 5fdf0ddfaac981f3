#!/usr/bin/env bash
# Level Zero through the real loader (Debian 12's libze1): the program calls
# the loader's zeModuleCreate (door 1), and the loader calls the driver
# through the dispatch table it got with dlsym(driver, "zeGetModule-
# ProcAddrTable") (doors 2+3).  The compile must be looked up and stored once.
# Also with the loader's tracing layer on (ZE_ENABLE_TRACING_LAYER=1), the way
# Intel's own tools observe these calls.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/ze_common.bash"
need_ze
export JITCACHE_LOG=debug JITCACHE_LOCK_TIMEOUT=10
# Without build/lib on the library path, libze_loader.so.1 is the real one.
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH#$B/lib}
LOADER=$(ldconfig -p | awk '/libze_loader.so.1 / { print $NF; exit }')
if [ -z "$LOADER" ]; then
	check "Debian's Level Zero loader (libze1) is installed" false
	finish; exit $?
fi
check "the client resolves libze_loader.so.1 to the real loader" \
	sh -c "ldd '$CLIENT' | grep -q 'libze_loader.so.1 => $LOADER'"
check "SPIR-V built with ocloc" spirv reduce "$KERNELS/reduce.cl"

# run NAME DOOR CMD...: cold then warm with a fresh cache; DOOR is the door
# the program enters by (the loader's own table is wrapped as well, and the
# compile must be looked up there once, not again at the driver's table).
run() {
	local name=$1 via=$2; shift 2
	export JITCACHE_DIR=$T/cache-$name
	jc "$@" "$T/reduce.spv" >"$T/$name.cold" 2>&1
	jc "$@" "$T/reduce.spv" >"$T/$name.warm" 2>&1
	check "$name: cold run works" grep -q "result 0x0 kernels [1-9]" "$T/$name.cold"
	check "$name: compiled once" test "$(count "miss, compiled" "$T/$name.cold")" -eq 1
	check "$name: the compile was looked up by the outermost door, $via" \
		test "$(count "^jitcache: $via: miss, compiled" "$T/$name.cold")" -eq 1
	check "$name: one store, one entry" \
		sh -c "grep -q 'jitcache: 0 hits, 1 misses, 1 stores' '$T/$name.cold' && test $(entries) -eq 1"
	check "$name: warm run works" grep -q "result 0x0 kernels [1-9]" "$T/$name.warm"
	check "$name: warm run hits once and compiles nothing" \
		test "$(count ": hit" "$T/$name.warm")" -eq 1 -a "$(count "miss, compiled" "$T/$name.warm")" -eq 0
}

run loader zeModuleCreate "$CLIENT" link
run loader-dlsym "dlsym(zeModuleCreate)" "$DLOPEN" dlsym
run loader-table pfnCreate "$CLIENT" table
run loader-dlsym-table pfnCreate "$DLOPEN" dlsym-table
ZE_ENABLE_TRACING_LAYER=1 run tracing zeModuleCreate "$CLIENT" link
check "the tracing layer was loaded" \
	sh -c "ZE_ENABLE_TRACING_LAYER=1 LD_DEBUG=libs '$CLIENT' link '$T/reduce.spv' 2>&1 | grep -q 'libze_tracing_layer.so'"
finish
