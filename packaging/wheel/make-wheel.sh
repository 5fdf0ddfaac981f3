#!/bin/sh
# packaging/wheel/make-wheel.sh BUILD VERSION OUTDIR NAME — `make wheel`:
# compiles the library, the command's tools and the man page into BUILD
# (-O2, one job per core), writes the wheel of distribution NAME
# (packaging/wheel/build.py), then auditwheel (pinned, installed into
# .venv-wheel/ from PyPI the first time) vendors the library's own
# dependencies (libinih, libzstd; hiredis and libsodium are linked in) and
# gives it the manylinux tag its glibc symbols allow.  One line per step;
# make's, pip's and auditwheel's output: build/wheel.log, shown if a step
# fails.  Ends with the wheel's path.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$1 VERSION=$2 OUT=$3 NAME=$4
AUDITWHEEL=auditwheel==6.1.0
VENV=$ROOT/.venv-wheel
# The file name's spelling of the name (PEP 427): jitcache-gpu -> jitcache_gpu.
STEM=$(echo "$NAME" | sed 's/[-_.][-_.]*/_/g' | tr 'A-Z' 'a-z')-$VERSION
mkdir -p "$ROOT/build" "$OUT"
STEP_LABEL=wheel STEP_LOG=$ROOT/build/wheel.log
: >"$STEP_LOG"
. "$ROOT/packaging/step.sh"

command -v patchelf >/dev/null || fail "patchelf is missing (make deps)"
jobs=$(nproc 2>/dev/null || echo 1)
step "compiling the library, jitcache-admin, jitcache-replay and the man page into $BUILD/ (-O2, $jobs jobs)" \
	${MAKE:-make} -C "$ROOT" -j"$jobs" BUILD="$BUILD" CFLAGS=-O2 lib admin man
if [ ! -x "$VENV/bin/auditwheel" ]; then
	step "making the venv .venv-wheel/ for auditwheel" python3 -m venv "$VENV"
	step "installing $AUDITWHEEL from PyPI into .venv-wheel/ (first time only)" \
		"$VENV/bin/pip" install "$AUDITWHEEL"
fi
raw=$(mktemp -d)
trap 'rm -rf "$raw"' EXIT
step "writing $STEM (packaging/wheel/build.py: the package jitcache, from packaging/files.list)" \
	python3 "$ROOT/packaging/wheel/build.py" "$BUILD" "$VERSION" "$raw" "$NAME"
step "reading the glibc symbols the library needs (auditwheel show)" \
	sh -c '"$1" show "$2"/*.whl >"$2/show.txt"' sh "$VENV/bin/auditwheel" "$raw"
cat "$raw/show.txt" >>"$STEP_LOG"
# The oldest manylinux tag the library's glibc symbols allow, as auditwheel says.
plat=$(tr '\n' ' ' <"$raw/show.txt" | sed -n 's/.*constrains the platform tag to "\(manylinux_[0-9_]*x86_64\)".*/\1/p')
[ -n "$plat" ] || fail "auditwheel show named no manylinux tag"
step "vendoring libzstd and libinih, tagging it $plat (auditwheel repair)" \
	"$VENV/bin/auditwheel" repair --plat "$plat" -w "$raw/repaired" "$raw/$STEM"-*.whl
# The old wheel goes only once the new one is made.
rm -f "$OUT/$STEM"-*.whl
mv "$raw/repaired/$STEM"-*.whl "$OUT/"
whl=$(ls "$OUT/$STEM"-py3-none-manylinux_*.whl)
say "built $whl ($(du -k "$whl" | cut -f1) KB); install it with: pip install $OUT/${STEM%-"$VERSION"}-*.whl"
