#!/bin/sh
# tests/testbed/openvino-env.sh — installs OpenVINO's PyPI wheel
# (examples/openvino/requirements.txt) into the test bed, as
# /opt/jitcache-openvino inside it, with the test bed's Python.  Run by
# `make testbed-openvino`; quick when the pins match the stamp.  Its pip log:
# build/testbed-openvino-env.log.  Root needed (tests/testbed/run uses sudo).
# pip trusts what the host trusts, as in tests/testbed/sycl-env.sh.
set -eu
TESTBED=${JITCACHE_TESTBED:-/var/tmp/jitcache-testbed}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
if [ ! -f "$TESTBED/.jitcache-testbed" ]; then
	echo "testbed-openvino: no test bed at $TESTBED (run 'make testbed')" >&2; exit 1
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
[ -d "$TESTBED${PIP_FIND_LINKS:-/nonexistent}" ] || unset PIP_FIND_LINKS
exec "$ROOT/tests/testbed/run" env SSL_CERT_FILE=$cert PIP_CERT=$cert \
	OPENVINO_VENV=/opt/jitcache-openvino PYTHON=python3 \
	OPENVINO_LOG="$ROOT/build/testbed-openvino-env.log" \
	"$ROOT/examples/openvino/setup.sh"
