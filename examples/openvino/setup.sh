#!/bin/sh
# Installs OpenVINO's PyPI wheel (requirements.txt) into a project-local
# virtual environment (default .venv-openvino/ at the repository root; never
# system-wide).  What `make openvino-env` runs on the host, and (with
# OPENVINO_VENV=/opt/jitcache-openvino) what `make testbed-openvino` runs in
# the test bed.  Quick when the environment is there with the same pins.
#   OPENVINO_VENV=DIR PYTHON=python3 OPENVINO_LOG=FILE examples/openvino/setup.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
venv=${OPENVINO_VENV:-$root/.venv-openvino}
py=${PYTHON:-python3}
req=$here/requirements.txt
stamp=$venv/.jitcache-pins

want=$(grep -v '^#' "$req" | sort | tr '\n' ' ')
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$venv/bin/python" ]; then
	exit 0
fi
log=${OPENVINO_LOG:-$root/build/openvino-env.log}
mkdir -p "$(dirname "$log")"
start=$(date +%s)
echo "installing OpenVINO into $venv (about 60 MB download; log: $log)"
if ! { rm -rf "$venv" && "$py" -m venv "$venv" &&
	"$venv/bin/python" -m pip install --disable-pip-version-check -r "$req" &&
	"$venv/bin/python" -c 'import openvino; print(openvino.__version__)'; } >"$log" 2>&1; then
	echo "setup.sh: installing OpenVINO failed; the last 30 lines of $log:" >&2
	tail -n 30 "$log" >&2
	exit 1
fi
echo '*' > "$venv/.gitignore"
echo "$want" > "$stamp"
echo "OpenVINO environment ready in $(( $(date +%s) - start )) s: $(du -sh "$venv" | cut -f1) in $venv"
