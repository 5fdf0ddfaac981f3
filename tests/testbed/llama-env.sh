#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/testbed/llama-env.sh — installs ipex-llm's llama.cpp and ollama
# (bigdl-core-cpp's PyPI wheel, the oneAPI 2025.3 runtime wheels and gguf:
# examples/llama/requirements.txt) into the test bed, as /opt/jitcache-llama
# inside it, with the test bed's python3.  Run by `make testbed-llama`; quick
# when the pins match the stamp.  Its pip log: build/testbed-llama-env.log.
# Root needed (tests/testbed/run uses sudo).  pip trusts what the host
# trusts (tests/testbed/pip-env.sh).
set -eu
WHAT=testbed-llama
. "$(dirname "$0")/pip-env.sh"
exec "$ROOT/tests/testbed/run" env SSL_CERT_FILE=$cert PIP_CERT=$cert \
	LLAMA_VENV=/opt/jitcache-llama PYTHON=python3 \
	LLAMA_LOG="$ROOT/build/testbed-llama-env.log" \
	"$ROOT/examples/llama/setup.sh"
