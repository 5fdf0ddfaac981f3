# SPDX-License-Identifier: MIT
# tests/testbed/pip-env.sh — sourced by the tests/testbed/*-env.sh scripts,
# which install PyPI wheels into the test bed with examples/*/setup.sh run
# inside it (tests/testbed/run).  With WHAT set to the make target's name
# (for messages): checks that the test bed exists, becomes root (sudo -E,
# re-running the calling script), and sets TESTBED, ROOT and cert.
#
# pip runs inside the chroot and must trust what the host trusts (a site may
# reach PyPI through a proxy with its own certificate authority): the host's
# CA bundle (SSL_CERT_FILE, PIP_CERT, pip's global.cert, else Debian's
# bundle) is copied into the test bed, and $cert names it there for
# SSL_CERT_FILE and PIP_CERT.  The host's pip settings pass through, but not
# a wheel directory (PIP_FIND_LINKS) the test bed does not have.
TESTBED=${JITCACHE_TESTBED:-/var/tmp/jitcache-testbed}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
if [ ! -f "$TESTBED/.jitcache-testbed" ]; then
	echo "$WHAT: no test bed at $TESTBED (run 'make testbed')" >&2; exit 1
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
