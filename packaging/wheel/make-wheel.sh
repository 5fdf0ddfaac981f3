#!/bin/sh
# SPDX-License-Identifier: MIT
# packaging/wheel/make-wheel.sh BUILD VERSION OUTDIR NAME — `make wheel`:
# compiles the library, the command's tools and the man page into BUILD
# (-O2, one job per core), then builds the wheel of distribution NAME as
# `pip wheel .` does, from pyproject.toml (setuptools with setup.py's make
# step, then auditwheel through packaging/wheel/backend.py: libinih and
# libzstd vendored, hiredis and libsodium linked in, the manylinux tag its
# glibc symbols allow).  pip runs from the venv .venv-wheel/ (made the first
# time) and fetches the build requirements from PyPI into its isolated build
# environment.  One line per step; make's and pip's output: build/wheel.log,
# shown if a step fails.  Ends with the wheel's path.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$1 VERSION=$2 OUT=$3 NAME=$4
VENV=$ROOT/.venv-wheel
# The file name's spelling of the name (PEP 427): jitcache-gpu -> jitcache_gpu.
STEM=$(echo "$NAME" | sed 's/[-_.][-_.]*/_/g' | tr 'A-Z' 'a-z')-$VERSION
mkdir -p "$ROOT/build" "$OUT"
STEP_LABEL=wheel STEP_LOG=$ROOT/build/wheel.log
: >"$STEP_LOG"
. "$ROOT/packaging/step.sh"

[ "$BUILD" = build-wheel ] || fail "pyproject.toml's build (setup.py) compiles into build-wheel/, not $BUILD"
grep -qx "name = \"$NAME\"" "$ROOT/pyproject.toml" || fail "pyproject.toml does not name the distribution $NAME"
jobs=$(nproc 2>/dev/null || echo 1)
step "compiling the library, jitcache-admin, jitcache-replay and the man page into $BUILD/ (-O2, $jobs jobs)" \
	${MAKE:-make} -C "$ROOT" -j"$jobs" BUILD="$BUILD" CFLAGS=-O2 lib admin man
if [ ! -x "$VENV/bin/pip" ]; then
	step "making the venv .venv-wheel/ for pip (first time only)" python3 -m venv "$VENV"
fi
raw=$(mktemp -d)
trap 'rm -rf "$raw"' EXIT
step "building $STEM with pip wheel (pyproject.toml: setuptools, then auditwheel repair)" \
	"$VENV/bin/pip" wheel --no-deps --disable-pip-version-check -w "$raw/repaired" "$ROOT"
# The old wheel goes only once the new one is made.
rm -f "$OUT/$STEM"-*.whl
mv "$raw/repaired/$STEM"-*.whl "$OUT/"
whl=$(ls "$OUT/$STEM"-py3-none-manylinux_*.whl)
say "built $whl ($(du -k "$whl" | cut -f1) KB); install it with: pip install $OUT/${STEM%-"$VERSION"}-*.whl"
