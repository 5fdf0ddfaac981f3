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
# Exit status 0 when the environment is ready; otherwise setup.sh's message.
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
exec "$ROOT/tests/testbed/run" env SSL_CERT_FILE=$cert PIP_CERT=$cert \
	SYCL_VENV=$VENV PYTHON=python3 \
	SYCL_REQUIREMENTS="$ROOT/examples/sycl/requirements-testbed.txt" \
	"$ROOT/examples/sycl/setup.sh"
