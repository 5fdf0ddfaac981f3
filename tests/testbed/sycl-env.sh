#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/testbed/sycl-env.sh — installs Intel's SYCL runtime, dpctl/dpnp and
# oneDNN's SYCL build (PyPI wheels pinned in examples/sycl/requirements-testbed.txt)
# into the test bed, as /opt/jitcache-sycl inside it: one virtual environment
# shared by every clone, made with the test bed's Python (3.14).  Run by
# `make testbed-sycl`; idempotent (examples/sycl/setup.sh compares the pins
# with a stamp and returns at once when they match).
#
#   tests/testbed/sycl-env.sh          # root needed (tests/testbed/run uses sudo)
#
# pip trusts what the host trusts (tests/testbed/pip-env.sh).
# The oneDNN wheel has no headers: those of the same C API (Debian sid's
# libdnnl-dev 3.12, for the wheel's 3.13) are unpacked into
# /opt/jitcache-sycl/include, not installed (its libdnnl.so.3 would stand
# beside the wheel's).  examples/sycl/onednn.c builds against them.
# Exit status 0 when the environment is ready; otherwise the failing step's message.
set -eu
WHAT=testbed-sycl
. "$(dirname "$0")/pip-env.sh"
VENV=/opt/jitcache-sycl
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
