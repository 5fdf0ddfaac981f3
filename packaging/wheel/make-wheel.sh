#!/bin/sh
# packaging/wheel/make-wheel.sh BUILD VERSION OUTDIR — `make wheel`: the
# wheel of the library and command built in BUILD (packaging/wheel/build.py),
# then auditwheel (pinned, installed into .venv-wheel/ from PyPI the first
# time) vendors the library's own dependencies (libinih, libzstd; hiredis
# and libsodium are linked in) and gives it the manylinux tag its glibc
# symbols allow.  Prints the wheel's path.  pip's and auditwheel's output:
# build/wheel.log, shown if a step fails.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$1 VERSION=$2 OUT=$3
VENV=$ROOT/.venv-wheel
LOG=$ROOT/build/wheel.log
mkdir -p "$ROOT/build" "$OUT"
: >"$LOG"
fail() { echo "make wheel: $1 (log: build/wheel.log)" >&2; tail -n 20 "$LOG" >&2; exit 1; }
if [ ! -x "$VENV/bin/auditwheel" ]; then
	python3 -m venv "$VENV" >>"$LOG" 2>&1 || fail "cannot make $VENV"
	"$VENV/bin/pip" install -q auditwheel==6.1.0 >>"$LOG" 2>&1 || fail "pip install auditwheel failed"
fi
command -v patchelf >/dev/null || fail "patchelf is missing (make deps)"
raw=$(mktemp -d)
trap 'rm -rf "$raw"' EXIT
python3 "$ROOT/packaging/wheel/build.py" "$BUILD" "$VERSION" "$raw" >>"$LOG" 2>&1 || fail "build.py failed"
rm -f "$OUT"/jitcache-"$VERSION"-*.whl
# The oldest manylinux tag the library's glibc symbols allow, as auditwheel says.
"$VENV/bin/auditwheel" show "$raw"/jitcache-"$VERSION"-*.whl >"$raw/show.txt" 2>>"$LOG" ||
	fail "auditwheel show failed"
cat "$raw/show.txt" >>"$LOG"
plat=$(tr '\n' ' ' <"$raw/show.txt" | sed -n 's/.*constrains the platform tag to "\(manylinux_[0-9_]*x86_64\)".*/\1/p')
[ -n "$plat" ] || fail "auditwheel show named no manylinux tag"
"$VENV/bin/auditwheel" repair --plat "$plat" -w "$OUT" "$raw"/jitcache-"$VERSION"-*.whl >>"$LOG" 2>&1 ||
	fail "auditwheel repair failed"
ls "$OUT"/jitcache-"$VERSION"-py3-none-manylinux_*.whl
