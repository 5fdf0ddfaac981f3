#!/bin/sh
# packaging/debian/make-deb.sh VERSION OUTDIR — `make deb`: builds
# jitcache_VERSION-1_amd64.deb with Debian's own tools (dpkg-buildpackage,
# debhelper; packaging/debian is the debian/ directory) from a copy of the
# checkout's files, then runs lintian on it.  Prints the package's path;
# the build's and lintian's output: build/deb.log (lintian's also in
# build/lintian.txt).  Exit status 1 if the build fails or lintian reports
# an error.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
VERSION=$1 OUT=$2
LOG=$ROOT/build/deb.log
mkdir -p "$ROOT/build" "$OUT"
OUT=$(cd "$OUT" && pwd)
: >"$LOG"
fail() { echo "make deb: $1 (log: build/deb.log)" >&2; tail -n 20 "$LOG" >&2; exit 1; }
for tool in dpkg-buildpackage dh lintian fakeroot; do
	command -v "$tool" >/dev/null || fail "$tool is missing (make deps)"
done
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
src=$W/jitcache-$VERSION
mkdir -p "$src"
# The checkout's files as they are now (tracked, and new ones git does not ignore).
(cd "$ROOT" && git ls-files -co --exclude-standard -z | xargs -0 tar -cf - 2>>"$LOG") |
	tar -xf - -C "$src" || fail "cannot copy the sources"
cp -r "$ROOT/packaging/debian" "$src/debian"
(cd "$src" && dpkg-buildpackage -us -uc -b >>"$LOG" 2>&1) || fail "dpkg-buildpackage failed"
deb=$(ls "$W"/jitcache_"$VERSION"-*_amd64.deb)
cp "$deb" "$OUT/"
deb=$OUT/$(basename "$deb")
lintian --tag-display-limit 0 "$deb" >"$ROOT/build/lintian.txt" 2>&1 || true
cat "$ROOT/build/lintian.txt" >>"$LOG"
if grep -q '^E: ' "$ROOT/build/lintian.txt"; then
	grep '^E: ' "$ROOT/build/lintian.txt" >&2
	fail "lintian reports errors"
fi
echo "$deb"
