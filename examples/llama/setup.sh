#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs ipex-llm's llama.cpp and ollama (bigdl-core-cpp's PyPI wheel),
# the oneAPI runtime wheels they load and gguf (requirements.txt, every
# package pinned, installed without their declared dependencies) into a
# virtual environment, and links its binaries' folder to VENV/llama
# (llama-cli, llama-server, ollama, libggml-sycl.so; their RUNPATH is the
# build machine's: run them with VENV/lib:VENV/llama on LD_LIBRARY_PATH).  What `make
# testbed-llama` runs in the test bed (LLAMA_VENV=/opt/jitcache-llama, the
# test bed's python3).  Quick when the environment is there with the same pins.
#   LLAMA_VENV=DIR PYTHON=python3 LLAMA_LOG=FILE examples/llama/setup.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/examples/venv.sh"
finish() {
	libs=$("$venv/bin/python" -c 'import bigdl.cpp, os; print(os.path.dirname(bigdl.cpp.__file__))')/libs
	ln -sfn "$libs" "$venv/llama"
	"$venv/bin/python" -c 'import gguf'
	# Every library the programs need is there (running one needs a GPU).
	! LD_LIBRARY_PATH=$venv/lib:$venv/llama ldd "$venv/llama/llama-cli" "$venv/llama/llama-server" \
		"$venv/llama/libggml-sycl.so" "$venv/llama/ollama-lib" | grep 'not found'
}
PIP_NO_DEPS=1 pinned_venv llama.cpp "${LLAMA_VENV:-$root/.venv-llama}" "${PYTHON:-python3}" \
	"$here/requirements.txt" "${LLAMA_LOG:-$root/build/llama-env.log}" "about 1 GB download" finish
