#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs pyopencl's PyPI wheel (requirements.txt) into a project-local
# virtual environment (default .venv-pyopencl/ at the repository root), and
# pyopencl's own test files from the sdist of the same version (checked
# against its sha256) into $venv/pyopencl-tests.  What `make pyopencl-env`
# runs; quick when the environment is already there with the same pins.
#   PYOPENCL_VENV=DIR PYTHON=python3 examples/pyopencl/setup.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/examples/venv.sh"
sdist=https://files.pythonhosted.org/packages/0a/a9/b6133777fc20be05faa88c4dbae9cc0d26d6dc1395c45770ec49b56edc4b/pyopencl-2026.1.4.tar.gz
PIN_EXTRA=6cb9544a004609061e86873fe36500da6c2101042e9c7b9c3b804a29a12b98bf # its sha256
test_files() {
	"$venv/bin/python" - "$sdist" "$PIN_EXTRA" "$venv/pyopencl-tests" <<'PY'
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
}
pinned_venv pyopencl "${PYOPENCL_VENV:-$root/.venv-pyopencl}" "${PYTHON:-/usr/bin/python3}" \
	"$here/requirements.txt" "$root/build/pyopencl-env.log" "about 120 MB with its test files" \
	test_files
