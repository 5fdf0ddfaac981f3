#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: full: needs OpenVINO's wheel in .venv-openvino (make openvino-env)
# OpenVINO's GPU plugin, unmodified (PyPI wheel: examples/openvino), under
# jitcache on Intel's driver simulating an Arc GPU: Debian 12's NEO 22.43 on
# the host (.venv-openvino, `make openvino-env`) and the 2026 driver in the
# test bed (/opt/jitcache-openvino, `make testbed-openvino`).  The workload
# compiles a CNN and a transformer block with compile_model(model, "GPU").
#   - Every OpenCL build door it takes is counted by an independent tracer
#     (examples/sycl/trace.c: clBuildProgram by how its program was made) and
#     by jitcache's debug log, and they agree: each build from source has one
#     "OpenCL build" hit or miss line, and each build of a program created
#     from binaries (oneDNN's) one "passed through" line.
#   - Cold then warm under jitcache: the warm run hits every build from
#     source and misses nothing.
#   - The kernels embedded in compiled.export_model(): cold under jitcache,
#     what was asked of the driver (each image's SPIR-V and options) is the
#     same as without jitcache (the driver's native code is not compared:
#     Debian 12's driver compiles one of oneDNN's kernels to one of two
#     binaries run to run, with or without jitcache); warm, every image is
#     byte for byte what the cold run stored.
# OpenVINO's telemetry is opted out of (it starts a forkserver that re-runs
# the script): HOME is a test directory holding intel/openvino_telemetry = 0.
. "$(dirname "$0")/../lib.sh"

if modern_driver; then VENV=${OPENVINO_VENV:-/opt/jitcache-openvino}; else VENV=${OPENVINO_VENV:-$ROOT/.venv-openvino}; fi
TRACER=$B/examples/libtrace.so
if [ ! -x "$VENV/bin/python" ]; then
	skip "no OpenVINO in $VENV: 'make openvino-env' (host) / 'make testbed-openvino' installs it"
	finish
	exit $?
fi
for f in "$LIB" "$TRACER"; do
	if [ ! -r "$f" ]; then
		skip "$f not built ('make examples'; in the test bed 'make modern-build')"
		finish
		exit $?
	fi
done

sim dg2
export OverrideMaxWorkgroupSize=1024 # a real Arc's: oneDNN's CNN kernels need it
export HOME=$T/home
mkdir -p "$HOME/intel" && echo 0 >"$HOME/intel/openvino_telemetry"
export JITCACHE_DIR=$T/cache
W=$ROOT/examples/openvino/workload.py
KERNELS=$ROOT/examples/openvino/kernels.py

# The ELF kernels of a run's exported models (blob, size, sha256), sorted: the
# plugin compiles on several threads, so their order in a blob may vary.
kernels() { "$VENV/bin/python" "$KERNELS" "$T/$1"/*.blob | awk '{print $1, $3, $4}' | sort; }
inputs() { "$VENV/bin/python" "$KERNELS" --inputs "$T/$1"/*.blob | awk '{print $1, $4}' | sort; }
door() { awk -f "$ROOT/examples/openvino/doors.awk" "$T/trace.log" | sed -n "s/^$1 //p"; }
# (the debug line of each build: "hit", "hit, a failed build ... replayed"
# or "miss"; not the line that says why it missed, "miss: CAUSE")
logged() { grep -c "^jitcache: OpenCL build [0-9a-f]*: $2\($\|,\)" "$T/$1.out"; }
zero() { [ "${1:-1}" -eq 0 ]; }

TRACE_OUT=$T/trace.log LD_PRELOAD=$TRACER "$VENV/bin/python" "$W" --export "$T/plain" >"$T/plain.out" 2>&1
check "compile_model on GPU runs without jitcache (under the tracer)" grep -q '^compile_model total ' "$T/plain.out"
src=$(door source) bin=$(door binary)
echo "     tracer: $src clBuildProgram of programs from source, $bin from binaries, $(door il) from IL"
check "the tracer sees builds from source" positive "$src"
check "the tracer classifies every build" zero "$(door other)"
check "the exported models embed kernels" positive "$(kernels plain | wc -l)"

JITCACHE_LOG=debug "$JITCACHE" run -- "$VENV/bin/python" "$W" --export "$T/cold" >"$T/cold.out" 2>&1
check "cold under jitcache: compile_model runs" grep -q '^compile_model total ' "$T/cold.out"
n_log=$(grep -c '^jitcache: OpenCL build [0-9a-f]*: \(hit\|miss\)\($\|,\)' "$T/cold.out")
echo "     jitcache's log (cold): $n_log OpenCL builds ($(logged cold miss) misses, $(logged cold hit) hits)"
check "cold: jitcache's log has one line per build from source the tracer counts" same "$n_log" "$src"
n_pass=$(grep -c '^jitcache: OpenCL build: passed through (a program created from binaries' "$T/cold.out")
check "cold: and one 'passed through' line per build from binaries ($n_pass, tracer $bin)" same "$n_pass" "$bin"
check "cold: it stores what it compiled" positive "$(summary stores "$T/cold.out")"
check "cold: exported kernels built from what they are without jitcache (SPIR-V, options)" \
	same "$(inputs cold)" "$(inputs plain)"

JITCACHE_LOG=debug "$JITCACHE" run -- "$VENV/bin/python" "$W" --export "$T/warm" >"$T/warm.out" 2>&1
check "warm under jitcache: compile_model runs" grep -q '^compile_model total ' "$T/warm.out"
check "warm: every build from source hits (log lines)" same "$(logged warm hit)" "$src"
check "warm: hits in the exit line = builds from source" same "$(summary hits "$T/warm.out")" "$src"
check "warm: no misses" zero "$(summary misses "$T/warm.out")"
check "warm: exported kernels byte for byte as the cold run stored them" \
	same "$(kernels warm)" "$(kernels cold)"
finish
