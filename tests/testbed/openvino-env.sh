#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/testbed/openvino-env.sh — installs OpenVINO's PyPI wheel
# (examples/openvino/requirements.txt) into the test bed, as
# /opt/jitcache-openvino inside it, with the test bed's Python.  Run by
# `make testbed-openvino`; quick when the pins match the stamp.  Its pip log:
# build/testbed-openvino-env.log.  Root needed (tests/testbed/run uses sudo).
# pip trusts what the host trusts (tests/testbed/pip-env.sh).
set -eu
WHAT=testbed-openvino
. "$(dirname "$0")/pip-env.sh"
exec "$ROOT/tests/testbed/run" env SSL_CERT_FILE=$cert PIP_CERT=$cert \
	OPENVINO_VENV=/opt/jitcache-openvino PYTHON=python3 \
	OPENVINO_LOG="$ROOT/build/testbed-openvino-env.log" \
	"$ROOT/examples/openvino/setup.sh"
