#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs tinygrad's PyPI wheel (requirements.txt) into a project-local
# virtual environment (default .venv-tinygrad/ at the repository root), for
# `make bench-apps`' tinygrad rows and tests/integration/cl_pocl_apps.sh.
# What `make tinygrad-env` runs; quick when the environment is already
# there with the same pins.
#   TINYGRAD_VENV=DIR PYTHON=python3 examples/tinygrad/setup.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/examples/venv.sh"
pinned_venv tinygrad "${TINYGRAD_VENV:-$root/.venv-tinygrad}" "${PYTHON:-/usr/bin/python3}" \
	"$here/requirements.txt" "$root/build/tinygrad-env.log" "about 5 MB"
