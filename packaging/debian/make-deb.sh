#!/bin/sh
# SPDX-License-Identifier: MIT
# packaging/debian/make-deb.sh VERSION OUTDIR HOMEPAGE — `make deb`: builds
# jitcache_VERSION-1_amd64.deb with Debian's own tools (dpkg-buildpackage,
# debhelper; packaging/debian is the debian/ directory, its control's
# Homepage the Makefile's HOMEPAGE) from a copy of the checkout's files,
# compiling with one job per core, then runs lintian on it when lintian is
# installed (`make deps-all`; `make deb` first installs the tools the build
# needs, tests/install-deps.sh deb, but not lintian).  One line per step,
# the last two lintian's verdict (its errors and warnings by tag) and the
# package's path with the command that installs it; the build's and lintian's
# output: build/deb.log (lintian's also in build/lintian.txt), shown if a
# step fails.  Exit status 1 if the build fails or lintian reports an error.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
VERSION=$1 OUT=$2 HOMEPAGE=$3
mkdir -p "$ROOT/build" "$OUT"
OUT=$(cd "$OUT" && pwd)
STEP_LABEL=deb STEP_LOG=$ROOT/build/deb.log
: >"$STEP_LOG"
. "$ROOT/packaging/step.sh"
for tool in dpkg-buildpackage dh fakeroot git; do
	command -v "$tool" >/dev/null || fail "$tool is missing (tests/install-deps.sh deb installs it)"
done
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
src=$W/jitcache-$VERSION
mkdir -p "$src"
# The checkout's files as they are now (tracked, and new ones git does not ignore).
copy() {
	(cd "$ROOT" && git ls-files -co --exclude-standard -z | xargs -0 tar -cf -) |
		tar -xf - -C "$src" && cp -r "$ROOT/packaging/debian" "$src/debian" &&
		"$ROOT/packaging/debian/make-control.sh" "$HOMEPAGE" >"$src/debian/control"
}
step "copying the checkout's files (git ls-files) with packaging/debian as debian/" copy
jobs=$(nproc 2>/dev/null || echo 1)
step "building jitcache_$VERSION-1_amd64.deb (dpkg-buildpackage -b, debhelper, $jobs jobs)" \
	sh -c 'cd "$1" && dpkg-buildpackage -us -uc -b -J"$2"' sh "$src" "$jobs"
deb=$(ls "$W"/jitcache_"$VERSION"-*_amd64.deb)
cp "$deb" "$OUT/"
deb=$OUT/$(basename "$deb")
# "built PATH (N KB); install it with: sudo apt install ./dist/NAME.deb"
built() {
	case $deb in "$PWD"/*) rel=./${deb#"$PWD"/} ;; *) rel=$deb ;; esac
	say "built $deb ($(( ($(stat -c %s "$deb") + 512) / 1024 )) KB); install it with: sudo apt install $rel"
}
if ! command -v lintian >/dev/null; then
	say "not checked with lintian (not installed; make deps-all installs it)"
	built
	exit 0
fi
# lintian's verdict ends its step's line: "0 errors, 2 warnings (TAG, TAG)".
printf 'deb: checking it with lintian ... '
t0=$(date +%s)
lintian --tag-display-limit 0 "$deb" >"$ROOT/build/lintian.txt" 2>&1 || true
cat "$ROOT/build/lintian.txt" >>"$STEP_LOG"
# "E: jitcache: TAG [detail]" -> "TAG", each once, in order
tags() { sed -n "s/^$1: [^ ]*: \([^ ]*\).*/\1/p" "$ROOT/build/lintian.txt" | awk '!seen[$0]++' |
	paste -sd, - | sed 's/,/, /g'; }
errors=$(grep -c '^E: ' "$ROOT/build/lintian.txt" || true)
warnings=$(grep -c '^W: ' "$ROOT/build/lintian.txt" || true)
verdict="$errors errors"
[ "$errors" -gt 0 ] && verdict="$verdict ($(tags E))"
verdict="$verdict, $warnings warnings"
[ "$warnings" -gt 0 ] && verdict="$verdict ($(tags W))"
echo "$verdict ($(( $(date +%s) - t0 )) s; build/lintian.txt)"
[ "$errors" -eq 0 ] || fail "lintian reports errors"
built
