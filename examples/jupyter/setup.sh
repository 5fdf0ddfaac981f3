#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs a Jupyter kernel (ipykernel, jupyter_client) and pyopencl from
# PyPI (requirements.txt) into a project-local virtual environment (default
# .venv-jupyter/ at the repository root), for the test of
# `jitcache enable jupyter`.  What `make jupyter-env` runs; quick when the
# environment is already there with the same pins.
#   JUPYTER_VENV=DIR PYTHON=python3 examples/jupyter/setup.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/examples/venv.sh"
pinned_venv jupyter "${JUPYTER_VENV:-$root/.venv-jupyter}" "${PYTHON:-/usr/bin/python3}" \
	"$here/requirements.txt" "$root/build/jupyter-env.log" "about 110 MB"
