#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/testbed/jax-env.sh — installs JAX's PyPI wheel
# (examples/jax/requirements.txt: JAX 0.5.0, intel-extension-for-openxla
# 0.7.0, oneAPI 2025.2 runtime wheels) into the test bed, as
# /opt/jitcache-jax inside it, with python3.13.  Run by
# `make testbed-jax`; quick when the pins match the stamp.  Its pip log:
# build/testbed-jax-env.log.  Root needed (tests/testbed/run uses sudo).
# pip trusts what the host trusts (tests/testbed/pip-env.sh).
set -eu
WHAT=testbed-jax
. "$(dirname "$0")/pip-env.sh"
# The plugin's wheels need Python <= 3.13; sid's default is 3.14.
if ! "$ROOT/tests/testbed/run" sh -c 'command -v python3.13 >/dev/null && python3.13 -c "import ensurepip"' 2>/dev/null; then
	echo "testbed-jax: installing python3.13 into the test bed"
	"$ROOT/tests/testbed/run" sh -c 'apt-get install -y -qq python3.13 python3.13-venv' >"$ROOT/build/testbed-jax-python.log" 2>&1 ||
		{ echo "testbed-jax: apt-get install python3.13 failed (build/testbed-jax-python.log)" >&2; exit 1; }
fi
exec "$ROOT/tests/testbed/run" env SSL_CERT_FILE=$cert PIP_CERT=$cert \
	JAX_VENV=/opt/jitcache-jax PYTHON=python3.13 \
	JAX_LOG="$ROOT/build/testbed-jax-env.log" \
	"$ROOT/examples/jax/setup.sh"
