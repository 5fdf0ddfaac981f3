#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: full: needs JAX and Intel's OpenXLA plugin in the test bed (make testbed-jax)
# JAX 0.5.0 on Intel's OpenXLA plugin (intel-extension-for-openxla 0.7.0,
# the oneAPI 2025.2 runtime wheels), unmodified, on Intel's 2026 driver (the
# test bed, with the wheels of `make testbed-jax` in /opt/jitcache-jax and
# its python3.13).  Skipped elsewhere.  examples/jax/workload.py runs jitted
# MLP forward, loss+grad and attention steps at two shapes on the plugin's
# `sycl` device.  Every compile door it takes is counted twice: by the
# independent tracer (examples/sycl/trace.c, in a run without jitcache) and
# by jitcache's debug log, and they must agree:
#   zeModuleCreate from SPIR-V (XLA's kernels)       cached
#   zeModuleCreate of native code (oneDNN's nGEN)    passed through
#   clBuildProgram of a program from source          cached (oneDNN's probe)
#   clBuildProgram of programs from binaries         passed through
# Cold then warm: every cacheable build hits.  What the program sees is the
# same with and without jitcache: the outputs' shapes and dtypes on the GPU
# (a simulated GPU runs no kernel for real), and the outputs' values on
# JAX's CPU device.
. "$(dirname "$0")/../lib.sh"

VENV=${JAX_VENV:-/opt/jitcache-jax}
TRACER=$B/examples/libtrace.so
need_testbed_env JAX "$VENV" bin/python testbed-jax "$TRACER"
sim dg2
# The oneAPI wheels' libraries (the plugin dlopens libccl, libmkl_sycl_*),
# and the real Level Zero loader (not the build's lib/, see modern_sycl.sh).
export LD_LIBRARY_PATH=$VENV/lib
JAX=("$VENV/bin/python" "$ROOT/examples/jax/workload.py")

TRACE_OUT=$T/trace.log LD_PRELOAD=$TRACER "${JAX[@]}" --dump "$T/plain.json" >"$T/plain.out" 2>&1
check "JAX runs on the simulated GPU (sycl device), traced" grep -q '^device: sycl ' "$T/plain.out"
check "JAX's six steps ran" test "$(grep -c '^step ' "$T/plain.out")" -eq 6
tr_n() { grep -v resolved "$T/trace.log" | grep -cE "$1"; }
ze_spirv=$(tr_n '\] (dlsym|symbol) +zeModuleCreate format=0 ')
ze_native=$(tr_n '\] (dlsym|symbol) +zeModuleCreate format=1 ')
cl_builds=$(tr_n '\] (dlsym|symbol) +clBuildProgram ')
cl_source=$(tr_n '\] (dlsym|symbol) +clCreateProgramWithSource ')
cl_binary=$(tr_n '\] (dlsym|symbol) +clCreateProgramWithBinary ')
check "tracer: XLA's kernels reach the driver as SPIR-V ($ze_spirv zeModuleCreate)" positive "$ze_spirv"
check "tracer: every clBuildProgram is of a program from source or binaries ($cl_builds = $cl_source + $cl_binary)" \
	same "$cl_builds" $((cl_source + cl_binary))
check "tracer: no door jitcache does not cover (IL, compile, link, oclocInvoke)" \
	same "$(tr_n '\] (dlsym|symbol) +(clCreateProgramWithIL|clCompileProgram|clLinkProgram|oclocInvoke) ')" 0

export JITCACHE_LOG=debug
cached() { "$JITCACHE" run -- "$@"; }
jc_n() { grep -cE "^jitcache: $1" "$2"; }
cached "${JAX[@]}" --dump "$T/cold.json" >"$T/cold.out" 2>&1
cached "${JAX[@]}" --dump "$T/warm.json" >"$T/warm.out" 2>&1
for run in cold warm; do
	check "$run: JAX's six steps ran under jitcache" test "$(grep -c '^step ' "$T/$run.out")" -eq 6
	check "$run: every SPIR-V module jitcache sees ($ze_spirv)" \
		same "$(jc_n 'zeModuleCreate: (miss|hit)' "$T/$run.out")" "$ze_spirv"
	check "$run: every native module passed through, one line each ($ze_native)" \
		same "$(jc_n '(dlsym\()?zeModuleCreate\)?: passed through \(native input\)' "$T/$run.out")" "$ze_native"
	check "$run: every build from source looked up ($cl_source)" \
		same "$(jc_n 'OpenCL build [0-9a-f]+: (miss|hit)$' "$T/$run.out")" "$cl_source"
	check "$run: every build from binaries passed through, one line each ($cl_binary)" \
		same "$(jc_n 'OpenCL build: passed through \(a program created from binaries' "$T/$run.out")" "$cl_binary"
done
cacheable=$((ze_spirv + cl_source))
check "cold: every cacheable build stored ($cacheable)" \
	sh -c "test $(summary misses "$T/cold.out") -eq $cacheable -a $(summary stores "$T/cold.out") -eq $cacheable"
check "warm: every cacheable build hits ($cacheable), no miss" \
	sh -c "test $(summary hits "$T/warm.out") -eq $cacheable -a $(summary misses "$T/warm.out") -eq 0"

# What the program sees.
shapes() { # the outputs' shapes and dtypes, from a --dump file
	"$VENV/bin/python" -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(sorted((k, [(l["shape"], l["dtype"]) for l in v]) for k, v in d.items()))' "$1"
}
check "GPU: output shapes and dtypes the same cold under jitcache as without" \
	same "$(shapes "$T/cold.json")" "$(shapes "$T/plain.json")"
check "GPU: output shapes and dtypes the same warm" \
	same "$(shapes "$T/warm.json")" "$(shapes "$T/plain.json")"
"${JAX[@]}" --device cpu --dump "$T/cpu-plain.json" >"$T/cpu-plain.out" 2>&1
cached "${JAX[@]}" --device cpu --dump "$T/cpu-jc.json" >"$T/cpu-jc.out" 2>&1
check "CPU device: outputs computed" grep -q '^out grad 32x128' "$T/cpu-plain.out"
check "CPU device: output values identical under jitcache" cmp -s "$T/cpu-plain.json" "$T/cpu-jc.json"

t() { sed -n 's/^steps: \([0-9.]*\) s$/\1/p' "$1"; }
echo "   doors (tracer = jitcache): $ze_spirv zeModuleCreate SPIR-V (cached), $ze_native native (passed through)," \
	"$cl_source clBuildProgram from source (cached), $cl_binary from binaries (passed through)"
echo "   steps' first calls: plain (traced) $(t "$T/plain.out") s, jitcache cold $(t "$T/cold.out") s, warm $(t "$T/warm.out") s"
finish
