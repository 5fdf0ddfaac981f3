#!/bin/sh
# Installs JAX's PyPI wheel (requirements.txt) into a project-local
# virtual environment (default .venv-jax/ at the repository root; never
# system-wide).  What `make jax-env` runs on the host, and (with
# JAX_VENV=/opt/jitcache-jax) what `make testbed-jax` runs in
# the test bed.  Quick when the environment is there with the same pins.
#   JAX_VENV=DIR PYTHON=python3 JAX_LOG=FILE examples/jax/setup.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
venv=${JAX_VENV:-$root/.venv-jax}
py=${PYTHON:-python3.13}
req=$here/requirements.txt
stamp=$venv/.jitcache-pins

want=$(grep -v '^#' "$req" | sort | tr '\n' ' ')
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$venv/bin/python" ]; then
	exit 0
fi
log=${JAX_LOG:-$root/build/jax-env.log}
mkdir -p "$(dirname "$log")"
start=$(date +%s)
echo "installing JAX into $venv (about 1.5 GB download; log: $log)"
if ! { rm -rf "$venv" && "$py" -m venv "$venv" &&
	"$venv/bin/python" -m pip install --disable-pip-version-check -r "$req" &&
	"$venv/bin/python" -c 'import jax, jax_plugins.intel_extension_for_openxla; print(jax.__version__)'; } >"$log" 2>&1; then
	echo "setup.sh: installing JAX failed; the last 30 lines of $log:" >&2
	tail -n 30 "$log" >&2
	exit 1
fi
echo '*' > "$venv/.gitignore"
echo "$want" > "$stamp"
echo "JAX environment ready in $(( $(date +%s) - start )) s: $(du -sh "$venv" | cut -f1) in $venv"
