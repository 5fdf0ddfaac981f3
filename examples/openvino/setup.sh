#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs OpenVINO's PyPI wheel (requirements.txt) into a project-local
# virtual environment (default .venv-openvino/ at the repository root; never
# system-wide).  What `make openvino-env` runs on the host, and (with
# OPENVINO_VENV=/opt/jitcache-openvino) what `make testbed-openvino` runs in
# the test bed.  Quick when the environment is there with the same pins.
#   OPENVINO_VENV=DIR PYTHON=python3 OPENVINO_LOG=FILE examples/openvino/setup.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/examples/venv.sh"
imports() {
	"$venv/bin/python" -c 'import openvino; print(openvino.__version__)'
}
pinned_venv OpenVINO "${OPENVINO_VENV:-$root/.venv-openvino}" "${PYTHON:-python3}" \
	"$here/requirements.txt" "${OPENVINO_LOG:-$root/build/openvino-env.log}" \
	"about 60 MB download" imports
