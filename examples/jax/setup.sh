#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs JAX's PyPI wheel (requirements.txt) into a project-local
# virtual environment (default .venv-jax/ at the repository root; never
# system-wide).  What `make jax-env` runs on the host, and (with
# JAX_VENV=/opt/jitcache-jax) what `make testbed-jax` runs in
# the test bed.  Quick when the environment is there with the same pins.
#   JAX_VENV=DIR PYTHON=python3 JAX_LOG=FILE examples/jax/setup.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/examples/venv.sh"
imports() {
	"$venv/bin/python" -c 'import jax, jax_plugins.intel_extension_for_openxla; print(jax.__version__)'
}
pinned_venv JAX "${JAX_VENV:-$root/.venv-jax}" "${PYTHON:-python3.13}" "$here/requirements.txt" \
	"${JAX_LOG:-$root/build/jax-env.log}" "about 1.5 GB download" imports
