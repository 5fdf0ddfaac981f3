#!/bin/sh
# tests/testbed/sycl-env.sh — installs Intel's SYCL runtime, dpctl/dpnp and
# oneDNN's SYCL build (PyPI wheels pinned in examples/sycl/requirements-testbed.txt)
# into the test bed, as /opt/jitcache-sycl inside it: one virtual environment
# shared by every clone, made with the test bed's Python (3.14).  Run by
# `make testbed-sycl`; idempotent (examples/sycl/setup.sh compares the pins
# with a stamp and returns at once when they match).
#
#   tests/testbed/sycl-env.sh          # root needed (tests/testbed/run uses sudo)
#
# pip runs inside the chroot and must trust what the host trusts (a site may
# reach PyPI through a proxy with its own certificate authority): the host's
# CA bundle (SSL_CERT_FILE, PIP_CERT, pip's global.cert, else Debian's
# bundle) is copied into the test bed and named by SSL_CERT_FILE for pip.
# The oneDNN wheel has no headers: those of the same C API (Debian sid's
# libdnnl-dev 3.12, for the wheel's 3.13) are unpacked into
# /opt/jitcache-sycl/include, not installed (its libdnnl.so.3 would stand
# beside the wheel's).  examples/sycl/onednn.c builds against them.
# Exit status 0 when the environment is ready; otherwise the failing step's message.
set -eu
TESTBED=${JITCACHE_TESTBED:-/var/tmp/jitcache-testbed}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
VENV=/opt/jitcache-sycl
if [ ! -f "$TESTBED/.jitcache-testbed" ]; then
	echo "testbed-sycl: no test bed at $TESTBED (run 'make testbed')" >&2; exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
	exec sudo -E "$0" "$@"
fi
ca=${SSL_CERT_FILE:-${PIP_CERT:-$(pip3 config get global.cert 2>/dev/null || true)}}
[ -r "${ca:-}" ] || ca=/etc/ssl/certs/ca-certificates.crt
if [ -r "$ca" ]; then
	cp -L "$ca" "$TESTBED/etc/ssl/jitcache-host-ca.crt"
	cert=/etc/ssl/jitcache-host-ca.crt
else
	cert=/etc/ssl/certs/ca-certificates.crt
fi
# The host's pip settings pass through, but not a wheel directory the
# test bed does not have.
[ -d "$TESTBED${PIP_FIND_LINKS:-/nonexistent}" ] || unset PIP_FIND_LINKS
"$ROOT/tests/testbed/run" env SSL_CERT_FILE=$cert PIP_CERT=$cert \
	SYCL_VENV=$VENV PYTHON=python3 \
	SYCL_REQUIREMENTS="$ROOT/examples/sycl/requirements-testbed.txt" \
	"$ROOT/examples/sycl/setup.sh"

[ -f "$TESTBED$VENV/include/oneapi/dnnl/dnnl.h" ] && exit 0
tmp=$(mktemp -d /tmp/jitcache-dnnl-hdr.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
"$ROOT/tests/testbed/run" sh -c 'cd "$1" && apt-get download -qq libdnnl-dev 2>/dev/null &&
	dpkg-deb -x libdnnl-dev_*.deb x && mkdir -p "$2/include" && cp -r x/usr/include/. "$2/include/"' \
	sh "$tmp" "$VENV" || { echo "testbed-sycl: cannot unpack oneDNN's headers (libdnnl-dev)" >&2; exit 1; }
echo "testbed-sycl: oneDNN headers in $VENV/include"
