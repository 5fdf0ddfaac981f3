#!/bin/sh
# Installs pyopencl's PyPI wheel (requirements.txt) into a project-local
# virtual environment (default .venv-pyopencl/ at the repository root), and
# pyopencl's own test files from the sdist of the same version (checked
# against its sha256) into $venv/pyopencl-tests.  What `make pyopencl-env`
# runs; quick when the environment is already there with the same pins.
#   PYOPENCL_VENV=DIR PYTHON=python3 examples/pyopencl/setup.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
venv=${PYOPENCL_VENV:-$root/.venv-pyopencl}
py=${PYTHON:-/usr/bin/python3}
req=$here/requirements.txt
sdist=https://files.pythonhosted.org/packages/0a/a9/b6133777fc20be05faa88c4dbae9cc0d26d6dc1395c45770ec49b56edc4b/pyopencl-2026.1.4.tar.gz
sha=6cb9544a004609061e86873fe36500da6c2101042e9c7b9c3b804a29a12b98bf
stamp=$venv/.jitcache-pins

want="$(grep -v '^#' "$req" | sort | tr '\n' ' ') $sha"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$venv/bin/python" ]; then
	exit 0
fi
log=$root/build/pyopencl-env.log
mkdir -p "$(dirname "$log")"
start=$(date +%s)
echo "installing pyopencl's wheel and test files into $venv (about 120 MB; log: $log)"
if ! { rm -rf "$venv" && "$py" -m venv "$venv" &&
	"$venv/bin/python" -m pip install --disable-pip-version-check -r "$req" &&
	"$venv/bin/python" - "$sdist" "$sha" "$venv/pyopencl-tests" <<'PY'
import hashlib, io, sys, tarfile, urllib.request
url, sha, dest = sys.argv[1:]
data = urllib.request.urlopen(url, timeout=120).read()
if hashlib.sha256(data).hexdigest() != sha:
    sys.exit("pyopencl sdist: sha256 mismatch")
with tarfile.open(fileobj=io.BytesIO(data)) as tar:
    for m in tar.getmembers():
        parts = m.name.split("/")
        if len(parts) == 3 and parts[1] == "test" and m.isfile():
            m.name = parts[2]
            tar.extract(m, dest)
PY
} >"$log" 2>&1; then
	echo "setup.sh: installing pyopencl failed; the last 30 lines of $log:" >&2
	tail -n 30 "$log" >&2
	exit 1
fi
echo '*' > "$venv/.gitignore"
echo "$want" > "$stamp"
echo "pyopencl environment ready in $(( $(date +%s) - start )) s: $(du -sh "$venv" | cut -f1)"
