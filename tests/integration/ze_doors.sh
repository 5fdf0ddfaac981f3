#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# Level Zero: every way a program reaches zeModuleCreate is cached, and a call
# that passes two jitcache doors is looked up and stored once.
#   link         the exported symbol (door 1)
#   dlsym        dlopen("libze_loader.so.1") + dlsym(handle, "zeModuleCreate") (door 2)
#   table        zeGetModuleProcAddrTable, then table.pfnCreate (door 3)
#   dlsym-table  zeGetModuleProcAddrTable looked up on the handle, then pfnCreate (2 + 3)
#   nested       a loader between the program and the driver: door 1 calls
#                the loader, which calls the driver through door 3
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/ze_common.bash"
need_ze
export JITCACHE_LOG=debug JITCACHE_LOCK_TIMEOUT=10

check "SPIR-V built with ocloc" spirv reduce "$KERNELS/reduce.cl"


door link "zeModuleCreate" "$CLIENT" link
door dlsym "dlsym(zeModuleCreate)" "$DLOPEN" dlsym
door table "pfnCreate" "$CLIENT" table
door dlsym-table "pfnCreate" "$DLOPEN" dlsym-table

# A program that dlclose()s its GPU stack unloads it, cold and warm, through
# doors 2 and 2 + 3: jitcache keeps no reference to the loader or the driver
# (it used to keep one from each lookup of their functions, so a program that
# reloads its GPU stack went on with the first driver).
JC_TEST_UNLOAD=1 "$DLOPEN" dlsym "$T/reduce.spv" >"$T/unload-plain.out" 2>&1
if grep -q "after dlclose: libze_intel_gpu.so unmapped" "$T/unload-plain.out"; then
	for mode in dlsym dlsym-table; do
		for run in cold warm; do
			JITCACHE_DIR=$T/cache-unload-$mode JC_TEST_UNLOAD=1 jc "$DLOPEN" $mode "$T/reduce.spv" \
				>"$T/unload-$mode.$run" 2>&1
			check "$mode, $run: after the program's dlclose() the loader and the driver are unloaded" \
				sh -c "grep -q 'result 0x0' '$T/unload-$mode.$run' &&
				       test \$(grep -c 'after dlclose: .* unmapped' '$T/unload-$mode.$run') -eq 2"
		done
		check "$mode: the warm run hit" grep -q "^jitcache: .*: hit" "$T/unload-$mode.warm"
	done
else
	skip "this driver stays loaded after dlclose() even without jitcache"
fi

# The same module through another door is the same entry.
export JITCACHE_DIR=$T/cache-link
jc "$DLOPEN" dlsym "$T/reduce.spv" >"$T/cross.out" 2>&1
check "an entry stored through door 1 is hit through door 2" \
	grep -q "^jitcache: dlsym(zeModuleCreate): hit" "$T/cross.out"

# Nested: a stand-in loader, preloaded after jitcache, that reaches the
# driver through its dispatch table as the real loader does.
mkdir -p "$T/loader"
check "stand-in loader builds" cc -shared -fPIC -O1 -D_GNU_SOURCE -I"$ROOT" -o "$T/loader/libfakeze.so" \
	"$ROOT/tests/helpers/loader/ze_fake_loader.c" -L"$B/lib" -Wl,--no-as-needed -lze_loader -ldl -pthread
export JITCACHE_DIR=$T/cache-nested
for run in cold warm; do
	LD_PRELOAD="$LIB:$T/loader/libfakeze.so" \
		"$CLIENT" link "$T/reduce.spv" >"$T/nested.$run" 2>&1
done
check "nested: the loader's pfnCreate is jitcache's wrapper" \
	grep -q "^fake loader: pfnCreate is in .*libjitcache-core.so" "$T/nested.cold"
check "nested: cold run works" grep -q "result 0x0 kernels [1-9]" "$T/nested.cold"
check "nested: one compile, by the outer door" \
	test "$(count "miss, compiled" "$T/nested.cold")" -eq 1 -a \
	     "$(count "^jitcache: zeModuleCreate: miss, compiled" "$T/nested.cold")" -eq 1
check "nested: the inner door stayed out of it" test "$(count "pfnCreate:" "$T/nested.cold")" -eq 0
check "nested: one store" grep -q "jitcache: 0 hits, 1 misses, 1 stores" "$T/nested.cold"
check "nested: one entry" test "$(entries)" -eq 1
check "nested: warm run hits once, by the outer door" \
	test "$(count "^jitcache: zeModuleCreate: hit" "$T/nested.warm")" -eq 1 -a \
	     "$(count "pfnCreate:" "$T/nested.warm")" -eq 0
check "nested: warm run works" grep -q "result 0x0 kernels [1-9]" "$T/nested.warm"

finish
