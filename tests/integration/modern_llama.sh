#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: full: needs llama.cpp and ollama in the test bed (make testbed-llama)
# ipex-llm's llama.cpp (bigdl-core-cpp 2.6.0 from PyPI: llama-cli,
# llama-server, libggml-sycl.so on the oneAPI 2025.3 runtime wheels),
# unmodified, on Intel's 2026 driver simulating an Arc A770 (the test bed,
# with the wheels of `make testbed-llama` in /opt/jitcache-llama).  Skipped
# elsewhere.  The model is made here: a tiny llama with random weights
# (examples/llama/make_model.py, the gguf package).  Greedy sampling, a fixed
# seed.  Every kernel build happens in the first evaluation (the model's
# warm-up): SYCL's Level Zero backend creates its modules from SPIR-V
# (cached), oneDNN loads native code it generated (passed through).
#   doors    counted by the independent tracer (examples/sycl/trace.c) in a
#            run without jitcache, and by jitcache's debug log: they agree;
#   cold     llama-server answers a completion over HTTP from a client on
#            127.0.0.1 (examples/llama/serve.py): every cacheable build stored;
#   warm     llama-server and llama-cli: every cacheable build hits, none missed;
#   both     jitcache and the driver's own cache on together: every hit;
#   results  the generated token ids (llama-server) and text (llama-cli) are
#            the same without jitcache, cold and warm.  (A simulated GPU runs
#            no kernel for real: the ids are what the program computes from
#            the device's buffers, the same whenever the same code runs.)
. "$(dirname "$0")/../lib.sh"

VENV=${LLAMA_VENV:-/opt/jitcache-llama}
TRACER=$B/examples/libtrace.so
need_testbed_env llama.cpp "$VENV" llama/llama-server testbed-llama "$TRACER"
sim acm-g10 56A0 # an Arc A770
# The wheels' libraries and the binaries' own folder (their RUNPATH is the
# build machine's), and the real Level Zero loader (not the build's lib/).
# ggml-sycl's virtual-memory pool does not work on the simulation.
export LD_LIBRARY_PATH=$VENV/lib:$VENV/llama GGML_SYCL_ENABLE_VMM=0
"$VENV/bin/python" "$ROOT/examples/llama/make_model.py" "$T/tiny.gguf" --layers 2 --embd 256 --heads 2 --ff 512 \
	>"$T/model.out" 2>&1
check "a tiny llama written with gguf" test -s "$T/tiny.gguf"
SERVER=("$VENV/bin/python" "$ROOT/examples/llama/serve.py" -n 8 -- "$VENV/llama/llama-server"
	-m "$T/tiny.gguf" -ngl 99 -c 256 --seed 1)
SERVER_JC=("$VENV/bin/python" "$ROOT/examples/llama/serve.py" -n 8 -- "$JITCACHE" run -- "$VENV/llama/llama-server"
	-m "$T/tiny.gguf" -ngl 99 -c 256 --seed 1)
CLI=("$VENV/llama/llama-cli" -m "$T/tiny.gguf" -p "once upon a time" -n 8 -ngl 99 -c 256 --temp 0 --seed 1
	-no-cnv --ignore-eos)
field() { sed -n "s/^$1: //p" "$2"; }
# llama-cli writes the prompt and what it generates to stdout (*.txt), its
# log and jitcache's to stderr (*.out).
generated() { sed -n 's/^ once upon a time//p' "$1"; }

# ---- without jitcache, traced; the driver's own cache on, for llama-cli after it
NEO=(NEO_CACHE_PERSISTENT=1 NEO_CACHE_DIR=$T/neo)
mkdir -p "$T/neo"
env "${NEO[@]}" TRACE_OUT=$T/trace.log LD_PRELOAD=$TRACER "${SERVER[@]}" >"$T/plain.out" 2>&1
check "llama-server answers a completion on the simulated A770, traced" \
	test -n "$(field tokens "$T/plain.out")"
tr_n() { grep -v resolved "$T/trace.log" | grep -cE "$1"; }
ze_spirv=$(tr_n '\] (dlsym|symbol) +zeModuleCreate format=0 ')
ze_native=$(tr_n '\] (dlsym|symbol) +zeModuleCreate format=1 ')
ze_linked=$(tr_n '\] (dlsym|symbol) +zeModuleCreate format=0 .*PROGRAM_EXP_DESC count=[2-9]')
cl_source=$(tr_n '\] (dlsym|symbol) +clCreateProgramWithSource ')
cl_builds=$(tr_n '\] (dlsym|symbol) +clBuildProgram ')
check "tracer: ggml-sycl's kernels reach the driver as SPIR-V ($ze_spirv zeModuleCreate, $ze_linked linked)" \
	positive "$ze_spirv"
check "tracer: every OpenCL build is of a program from source ($cl_builds = $cl_source)" same "$cl_builds" "$cl_source"
check "tracer: no door jitcache does not cover (IL, compile, link, oclocInvoke)" \
	same "$(tr_n '\] (dlsym|symbol) +(clCreateProgramWithIL|clCompileProgram|clLinkProgram|oclocInvoke) ')" 0
env "${NEO[@]}" "${CLI[@]}" >"$T/cli-plain.txt" 2>"$T/cli-plain.out"
check "llama-cli generates text without jitcache" test -n "$(generated "$T/cli-plain.txt")"

# ---- jitcache: cold, warm, both --------------------------------------------------
export JITCACHE_LOG=debug
jc_n() { grep -cE "^jitcache: $1" "$2"; }
"${SERVER_JC[@]}" >"$T/cold.out" 2>&1
"${SERVER_JC[@]}" >"$T/warm.out" 2>&1
for run in cold warm; do
	check "$run: llama-server answers under jitcache" test -n "$(field tokens "$T/$run.out")"
	check "$run: every SPIR-V module jitcache sees ($ze_spirv)" \
		same "$(jc_n '(dlsym\()?zeModuleCreate\)?: (miss|hit)' "$T/$run.out")" "$ze_spirv"
	check "$run: every native module passed through, one line each ($ze_native)" \
		same "$(jc_n '(dlsym\()?zeModuleCreate\)?: passed through \(native input\)' "$T/$run.out")" "$ze_native"
	check "$run: every OpenCL build from source looked up ($cl_source)" \
		same "$(jc_n 'OpenCL build [0-9a-f]+: (miss|hit)$' "$T/$run.out")" "$cl_source"
	check "$run: the generated token ids are the same as without jitcache" \
		same "$(field tokens "$T/$run.out")" "$(field tokens "$T/plain.out")"
	check "$run: the server ends as it does without jitcache (status $(field exit "$T/plain.out"))" \
		same "$(field exit "$T/$run.out")" "$(field exit "$T/plain.out")"
done
# llama-server ends by aborting (see examples/llama/serve.py), before the
# exit line: its account is the one line per build.
cacheable=$((ze_spirv + cl_source))
check "cold: every cacheable build compiled and stored ($cacheable)" \
	same "$(jc_n '.*: miss, compiled in [0-9.]+ s, stored' "$T/cold.out")" "$cacheable"
check "warm: every cacheable build hits ($cacheable)" \
	same "$(jc_n '(.*: hit, loaded|OpenCL build [0-9a-f]+: hit$)' "$T/warm.out")" "$cacheable"
check "warm: no miss" same "$(jc_n '.*: miss' "$T/warm.out")" 0

"$JITCACHE" run -- "${CLI[@]}" >"$T/cli-warm.txt" 2>"$T/cli-warm.out"
check "llama-cli warm: every build hits, none missed (the exit line)" \
	sh -c "test $(summary hits "$T/cli-warm.out") -gt 0 -a $(summary misses "$T/cli-warm.out") -eq 0"
check "llama-cli warm: the same output as without jitcache" cmp "$T/cli-warm.txt" "$T/cli-plain.txt"
env "${NEO[@]}" "$JITCACHE" run -- "${CLI[@]}" >"$T/cli-both.txt" 2>"$T/cli-both.out"
check "llama-cli with both caches: every build hits, none missed" \
	sh -c "test $(summary hits "$T/cli-both.out") -gt 0 -a $(summary misses "$T/cli-both.out") -eq 0"
check "llama-cli with both caches: the same output" cmp "$T/cli-both.txt" "$T/cli-plain.txt"

echo "   doors (tracer = jitcache): $ze_spirv zeModuleCreate SPIR-V ($ze_linked linked; cached)," \
	"$ze_native native (passed through), $cl_source clBuildProgram from source (cached)"
echo "   llama-server, first token after ready: plain (traced) $(field first_token "$T/plain.out") s," \
	"jitcache cold $(field first_token "$T/cold.out") s, warm $(field first_token "$T/warm.out") s;" \
	"process: $(field wall "$T/plain.out") s, $(field wall "$T/cold.out") s, $(field wall "$T/warm.out") s"
finish
