#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# Loaders under another name, as manylinux wheels ship them: auditwheel
# copies libOpenCL.so.1 into the wheel as libOpenCL-<hash>.so.1.0.0 (pyopencl
# does), and the extension module, loaded RTLD_LOCAL by Python, links that
# name.  jitcache's exported entry point wins the extension's symbol lookup
# (the global scope comes first), so it must find the real function where
# the extension's own call would have gone: in the extension's dependencies.
# The same for Level Zero's loader.  The clients here are the tests' own
# (cl_build.c, ze_client.c) built as shared objects that link renamed copies
# of Debian's real loaders, loaded by a runner that links no GPU library.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/ze_common.bash"
export POCL_KERNEL_CACHE=0 JITCACHE_LOG=info
CC=${CC:-cc}

if ! command -v patchelf >/dev/null; then
	check "patchelf is installed (make deps)" false
	finish; exit $?
fi
# renamed LIB NEWNAME: a copy of the real library LIB named and sonamed NEWNAME.
renamed() {
	local real
	real=$(ldconfig -p | awk -v l="$1" '$1 == l { print $NF; exit }')
	[ -n "$real" ] && cp "$(readlink -f "$real")" "libs/$2" &&
		patchelf --set-soname "$2" "libs/$2"
}
# client NAME SOURCE LOADER: SOURCE as a shared object linking only LOADER
# (and not the loader's usual name).
client() {
	"$CC" -shared -fPIC -O1 -Dmain=jc_ext_main -I"$ROOT" -I"$ROOT/tests/helpers" \
		-Wno-deprecated-declarations -o "$1.so" "$2" -L"$T/libs" -l:"$3" \
		-Wl,-rpath,"$T/libs" -lpthread -ldl -lm 2>"$1.cc.log" &&
		readelf -d "$1.so" | grep -q "NEEDED.*\[$3\]" &&
		! readelf -d "$1.so" | grep -qE 'NEEDED.*\[(libOpenCL.so.1|libze_loader.so.1)\]'
}
mkdir -p libs
check "runner built (links no GPU library)" \
	"$CC" -O1 -o runner "$ROOT/tests/helpers/ext/runner.c" -ldl
check_not "the runner does not link a loader" sh -c "ldd runner | grep -qE 'libOpenCL|libze_loader'"
RUN=$T/runner

# --- OpenCL, on PoCL: the result is checked, cold and warm -------------------
CL_LOADER=libOpenCL-1a2b3c4d.so.1.0.0
if ! clinfo -l 2>/dev/null | grep -q "Portable Computing Language"; then
	skip "PoCL is not installed (pocl-opencl-icd)"
else
	check "a renamed copy of the OpenCL ICD loader" renamed libOpenCL.so.1 "$CL_LOADER"
	check "cl_build as an extension linking only $CL_LOADER" \
		client cl_ext "$ROOT/tests/helpers/cl_build.c" "$CL_LOADER"
	cp "$ROOT/tests/integration/compute.cl" k.cl
	ARGS=(--platform Portable --source k.cl --options "-DSCALE=2.0f" --run compute)
	"$RUN" "$T/cl_ext.so" "${ARGS[@]}" >plain.out 2>plain.err
	result() { sed -n 's/.*result=\([0-9a-f]*\).*/\1/p' "$1"; }
	expected=$(result plain.out)
	check "without jitcache: the kernel runs" grep -q '^run=0 ' plain.out
	LD_PRELOAD=$LIB "$RUN" "$T/cl_ext.so" "${ARGS[@]}" >cold.out 2>cold.err
	check "cold: results bit-identical to a run without jitcache" test "$(result cold.out)" = "$expected"
	check "cold: stored" grep -q 'jitcache: 0 hits, 1 misses, 1 stores' cold.err
	check_not "cold: no 'loader not found' warning" grep -q 'OpenCL loader' cold.err
	LD_PRELOAD=$LIB "$RUN" "$T/cl_ext.so" "${ARGS[@]}" >warm.out 2>warm.err
	check "warm: results bit-identical" test "$(result warm.out)" = "$expected"
	check "warm: a hit through the renamed loader" grep -q 'jitcache: 1 hits, 0 misses, 0 stores' warm.err
	# Found by name, a renamed loader's functions are wrapped too (dlsym door).
	LD_PRELOAD=$LIB "$RUN" "$T/cl_ext.so" "${ARGS[@]}" --dlopen-name "$CL_LOADER" >dl.out 2>dl.err
	check "dlopen($CL_LOADER) + dlsym: a hit" grep -q 'jitcache: 1 hits, 0 misses, 0 stores' dl.err
	check "dlopen($CL_LOADER) + dlsym: results bit-identical" test "$(result dl.out)" = "$expected"
fi

# --- Level Zero, on Intel's simulated GPU -------------------------------------
ZE_LOADER=libze_loader-5e6f7a8b.so.1
if [ -n "$ASAN_RT" ] || ! command -v ocloc >/dev/null || ! ldconfig -p | grep -q 'libze_loader.so.1 '; then
	skip "Level Zero loader, Intel's driver or ocloc missing, or an ASan build"
else
	sim_dg2
	export LD_LIBRARY_PATH=${LD_LIBRARY_PATH#$B/lib} # the real loader, not the driver's link
	check "a renamed copy of the Level Zero loader" renamed libze_loader.so.1 "$ZE_LOADER"
	check "ze_client as an extension linking only $ZE_LOADER" \
		client ze_ext "$ROOT/tests/helpers/ze_client.c" "$ZE_LOADER"
	check "SPIR-V built with ocloc" spirv reduce "$KERNELS/reduce.cl"
	"$RUN" "$T/ze_ext.so" link "$T/reduce.spv" >zplain.out 2>&1
	n=$(sed -n 's/.*result 0x0 kernels \([0-9]*\).*/\1/p' zplain.out | head -n 1)
	check "without jitcache: the module is created" test "${n:-0}" -gt 0
	for run in cold warm; do
		LD_PRELOAD=$LIB "$RUN" "$T/ze_ext.so" link "$T/reduce.spv" >z$run.out 2>&1
		check "$run: the same kernels as without jitcache" grep -q "result 0x0 kernels ${n:-x}\b" z$run.out
	done
	check "cold: stored" grep -q 'jitcache: 0 hits, 1 misses, 1 stores' zcold.out
	check "warm: a hit through the renamed loader" grep -q 'jitcache: 1 hits, 0 misses, 0 stores' zwarm.out
fi
finish
