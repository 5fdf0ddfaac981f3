#!/bin/sh
# SPDX-License-Identifier: MIT
# packaging/debian/make-control.sh HOMEPAGE — debian/control for `make deb`:
# packaging/debian/control with its @HOMEPAGE@ filled from the Makefile's
# HOMEPAGE, the project's public home, set there once for the package and
# the wheel (setup.py reads it too).  Exit status 2, saying why, when
# HOMEPAGE is not an http(s) URL.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case ${1:-} in
http://?*|https://?*) ;;
*) echo "make-control.sh: HOMEPAGE '${1:-}' is not an http(s) URL (the Makefile's HOMEPAGE)" >&2; exit 2 ;;
esac
case $1 in *[\|\&\\[:space:]]*)
	echo "make-control.sh: HOMEPAGE '$1' holds a space, |, & or \\" >&2; exit 2 ;;
esac
sed "s|@HOMEPAGE@|$1|" "$ROOT/packaging/debian/control"
