#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: full: needs SYCL and oneDNN in the test bed (make testbed-sycl)
# Intel's SYCL runtime and oneDNN's SYCL build, unmodified, on Level Zero,
# on Intel's 2026 driver (the test bed: run through tests/testbed/run, with
# the wheels of `make testbed-sycl` in /opt/jitcache-sycl).  Skipped
# elsewhere.  Every call is counted twice: by jitcache's debug log and
# independently, below jitcache, by the Level Zero loader's validation layer
# (ZEL_LOADER_LOGGING_ENABLE_SUCCESS_PRINT logs every zeModuleCreate that
# reaches the driver) or, for OpenCL and the offline compiler library, by
# examples/sycl/trace.c in a run without jitcache.
#   SYCL    dpctl + dpnp (examples/sycl/workload.py) on level_zero:gpu: cold
#           run compiles and stores every module, warm run hits every one;
#           the same with SYCL's own persistent cache on (its warm path
#           creates modules from native binaries: passed through).
#   oneDNN  build/examples/onednn_sycl creates 12 primitives: every compile
#           door it takes is either cached (clBuildProgram of OpenCL C) or a
#           native load of code oneDNN generated itself (passed through);
#           no door jitcache does not cover (oclocInvoke, clCompileProgram,
#           clLinkProgram, SPIR-V modules outside the counts) is used.
#   NEO     the driver's own cache is on by default, and both caches on
#           together still give every hit.
. "$(dirname "$0")/../lib.sh"

VENV=${SYCL_VENV:-/opt/jitcache-sycl}
ONEDNN=$B/examples/onednn_sycl
TRACER=$B/examples/libtrace.so
need_testbed_env SYCL "$VENV" bin/python testbed-sycl "$ONEDNN" "$TRACER"
sim dg2
# The build's lib/libze_loader.so.1 is the driver under the loader's name
# (for the tests that run without a loader): here the real loader must answer.
unset LD_LIBRARY_PATH
export SYCL_VENV=$VENV ONEAPI_DEVICE_SELECTOR=level_zero:gpu
KERNELS=4
"$VENV/bin/python" - "$KERNELS" "$T/program.spv" <<EOF
import sys; sys.path.insert(0, "$ROOT/examples/sycl")
import workload
spv, why = workload.make_spirv(int(sys.argv[1]))
if spv is None: sys.exit(why)
open(sys.argv[2], "wb").write(spv)
EOF
check "SPIR-V for the dpctl program (ocloc)" test -s "$T/program.spv"

# The loader's validation layer logs each zeModuleCreate reaching the driver
# into DIR/ze_loader.log.
layer() { # layer DIR CMD...
	local dir=$1; shift
	mkdir -p "$dir"
	ZE_ENABLE_VALIDATION_LAYER=1 ZEL_ENABLE_LOADER_LOGGING=1 ZEL_LOADER_LOGGING_LEVEL=trace \
		ZEL_LOADER_LOGGING_ENABLE_SUCCESS_PRINT=1 ZEL_LOADER_LOG_DIR=$dir "$@"
}
driver_calls() { grep -c ' in zeModuleCreate(' "$1/ze_loader.log" 2>/dev/null || echo 0; }
# jitcache's own account of zeModuleCreate: hits + misses + passthroughs.
jc_calls() { grep -cE ': (hit, loaded|miss, compiled|passed through|build failed)' "$1"; }
jc_n() { grep -cE "$1" "$2"; }
SYCL=("$ROOT/examples/sycl/run.sh" level_zero:gpu --spv "$T/program.spv" --kernels "$KERNELS")
cached() { JITCACHE_LOG=debug "$JITCACHE" run -- "$@"; }

# ---- SYCL on Level Zero ---------------------------------------------------------
layer "$T/ze-plain" "${SYCL[@]}" >"$T/sycl-plain.out" 2>&1
check "SYCL level_zero:gpu runs on the 2026 driver" grep -q '^device: level_zero:gpu' "$T/sycl-plain.out"
n_plain=$(driver_calls "$T/ze-plain")
check "the runtime makes zeModuleCreate calls (validation layer: $n_plain)" positive "$n_plain"

export JITCACHE_DIR=$T/cache-sycl
layer "$T/ze-cold" cached "${SYCL[@]}" >"$T/sycl-cold.out" 2>&1
check "SYCL cold under jitcache completes" grep -q '^checksum: ' "$T/sycl-cold.out"
check "SYCL cold: the runtime makes the same calls under jitcache" \
	same "$(driver_calls "$T/ze-cold")" "$n_plain"
check "SYCL cold: jitcache sees every call ($(jc_calls "$T/sycl-cold.out") of $n_plain)" \
	same "$(jc_calls "$T/sycl-cold.out")" "$n_plain"
check "SYCL cold: every call is a SPIR-V compile, stored" \
	same "$(summary stores "$T/sycl-cold.out")" "$n_plain"
layer "$T/ze-warm" cached "${SYCL[@]}" >"$T/sycl-warm.out" 2>&1
check "SYCL warm under jitcache completes" grep -q '^checksum: ' "$T/sycl-warm.out"
check "SYCL warm: jitcache sees every call" same "$(jc_calls "$T/sycl-warm.out")" "$(driver_calls "$T/ze-warm")"
check "SYCL warm: every call hits" same "$(summary hits "$T/sycl-warm.out")" "$n_plain"
check "SYCL warm: no miss" same "$(summary misses "$T/sycl-warm.out")" 0

# With SYCL's own persistent cache: its warm run loads native binaries.
export JITCACHE_DIR=$T/cache-sycl-pc SYCL_CACHE_PERSISTENT=1 SYCL_CACHE_DIR=$T/sycl-cache
layer "$T/ze-pc-cold" cached "${SYCL[@]}" >"$T/sycl-pc-cold.out" 2>&1
layer "$T/ze-pc-warm" cached "${SYCL[@]}" >"$T/sycl-pc-warm.out" 2>&1
unset SYCL_CACHE_PERSISTENT SYCL_CACHE_DIR
check "SYCL's cache + jitcache: cold and warm complete" \
	grep -q '^checksum: ' "$T/sycl-pc-cold.out" "$T/sycl-pc-warm.out"
check "SYCL's cache + jitcache cold: jitcache sees every call" \
	same "$(jc_calls "$T/sycl-pc-cold.out")" "$(driver_calls "$T/ze-pc-cold")"
check "SYCL's cache + jitcache warm: jitcache sees every call" \
	same "$(jc_calls "$T/sycl-pc-warm.out")" "$(driver_calls "$T/ze-pc-warm")"
check "SYCL's cache warm: SYCL loads native binaries (passed through)" \
	positive "$(jc_n 'passed through \(native input\)' "$T/sycl-pc-warm.out")"
check "SYCL's cache warm: what SYCL's cache does not hold (dpctl's program) hits" \
	positive "$(summary hits "$T/sycl-pc-warm.out")"
check "SYCL's cache warm: no miss" same "$(summary misses "$T/sycl-pc-warm.out")" 0

# ---- oneDNN's SYCL build ----------------------------------------------------------
TRACE_OUT=$T/trace.log LD_PRELOAD=$TRACER "$ONEDNN" >"$T/dnnl-trace.out" 2>&1
check "oneDNN creates its primitives on the SYCL GPU engine" \
	grep -q '^primitives: 12 created' "$T/dnnl-trace.out"
check "oneDNN's GPU runtime is SYCL" grep -q 'GPU runtime SYCL' "$T/dnnl-trace.out"
check "oneDNN fuses the attention graph into one SDPA partition" \
	grep -q '^sdpa: partition 0 of 1: 5 ops fused' "$T/dnnl-trace.out"
tr_n() { grep -v resolved "$T/trace.log" | grep -cE "$1"; }
cl_builds=$(tr_n '\] (dlsym|symbol) +clBuildProgram ')
ze_native=$(tr_n '\] (dlsym|symbol) +zeModuleCreate format=1 ')
ze_spirv=$(tr_n '\] (dlsym|symbol) +zeModuleCreate format=0 ')
check "oneDNN compiles OpenCL C (tracer: $cl_builds clBuildProgram)" positive "$cl_builds"
check "oneDNN loads native modules (tracer: $ze_native zeModuleCreate NATIVE, $ze_spirv SPIR-V)" \
	positive "$ze_native"
check "oneDNN takes no door jitcache does not cover (oclocInvoke, clCompileProgram, clLinkProgram, from binary)" \
	same "$(tr_n '\] (dlsym|symbol) +(oclocInvoke|clCompileProgram|clLinkProgram|clCreateProgramWithBinary) ')" 0

export JITCACHE_DIR=$T/cache-dnnl
layer "$T/dz-cold" cached "$ONEDNN" >"$T/dnnl-cold.out" 2>&1
layer "$T/dz-warm" cached "$ONEDNN" >"$T/dnnl-warm.out" 2>&1
check "oneDNN cold and warm under jitcache create every primitive" \
	grep -q '^primitives: 12 created' "$T/dnnl-cold.out" "$T/dnnl-warm.out"
check "oneDNN cold: every clBuildProgram is a jitcache miss ($cl_builds)" \
	same "$(jc_n 'OpenCL build [0-9a-f]+: miss$' "$T/dnnl-cold.out")" "$cl_builds"
check "oneDNN cold: every OpenCL build is stored" same "$(summary stores "$T/dnnl-cold.out")" "$cl_builds"
check "oneDNN cold: jitcache sees every zeModuleCreate" \
	same "$(jc_calls "$T/dnnl-cold.out")" "$(driver_calls "$T/dz-cold")"
check "oneDNN cold: as many native loads as without jitcache" \
	same "$(jc_n 'passed through \(native input\)' "$T/dnnl-cold.out")" "$ze_native"
check "oneDNN warm: every OpenCL build hits" same "$(summary hits "$T/dnnl-warm.out")" "$cl_builds"
check "oneDNN warm: no miss" same "$(summary misses "$T/dnnl-warm.out")" 0
check "oneDNN warm: jitcache sees every zeModuleCreate" \
	same "$(jc_calls "$T/dnnl-warm.out")" "$(driver_calls "$T/dz-warm")"

# ---- the driver's own cache -----------------------------------------------------
# On by default in the 2026 driver: a run with no NEO_* setting fills
# ~/.cache/neo_compiler_cache.
mkdir -p "$T/home"
(unset NEO_CACHE_PERSISTENT NEO_CACHE_DIR XDG_CACHE_HOME; HOME=$T/home "$ONEDNN" >"$T/dnnl-neo-default.out" 2>&1)
check "NEO's cache is on by default (files in ~/.cache/neo_compiler_cache)" \
	test -n "$(find "$T/home/.cache/neo_compiler_cache" -name '*.cl_cache' 2>/dev/null | head -n 1)"
# Both caches on: jitcache still serves every build and module.
mkdir -p "$T/neo-both"
export NEO_CACHE_PERSISTENT=1 NEO_CACHE_DIR=$T/neo-both JITCACHE_DIR=$T/cache-both
cached "$ONEDNN" >"$T/dnnl-both-cold.out" 2>&1
cached "$ONEDNN" >"$T/dnnl-both-warm.out" 2>&1
cached "${SYCL[@]}" >"$T/sycl-both-cold.out" 2>&1
cached "${SYCL[@]}" >"$T/sycl-both-warm.out" 2>&1
export NEO_CACHE_PERSISTENT=0
check "NEO's cache + jitcache: oneDNN warm hits every build" \
	same "$(summary hits "$T/dnnl-both-warm.out")" "$cl_builds"
check "NEO's cache + jitcache: SYCL warm hits every module" \
	same "$(summary hits "$T/sycl-both-warm.out")" "$n_plain"
check "NEO's cache + jitcache: NEO stored too" \
	test -n "$(find "$T/neo-both" -type f -name '*cache' | head -n 1)"

t() { sed -n "s/^$1: \\([0-9.]*\\) s.*/\\1/p" "$2" | head -n 1; }
p() { sed -n 's/^primitives: [0-9]* created in \([0-9.]*\) s/\1/p' "$1"; }
echo "   calls: SYCL $n_plain zeModuleCreate (validation layer) = jitcache $(jc_calls "$T/sycl-cold.out") cold," \
	"$(jc_calls "$T/sycl-warm.out") warm; oneDNN $cl_builds clBuildProgram, $ze_native native zeModuleCreate (tracer)"
echo "   SYCL last result: plain $(t 'time to last result' "$T/sycl-plain.out") s," \
	"jitcache cold $(t 'time to last result' "$T/sycl-cold.out") s, warm $(t 'time to last result' "$T/sycl-warm.out") s;" \
	"oneDNN primitives: cold $(p "$T/dnnl-cold.out") s, warm $(p "$T/dnnl-warm.out") s"
finish
