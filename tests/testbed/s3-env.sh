#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/testbed/s3-env.sh — installs Ceph's radosgw (Debian sid, 20.x) into
# the test bed, the S3 server of the S3 tier's tests (tests/lib.sh
# start_radosgw: it runs without a cluster on its SQLite backend).  Run by
# `make testbed-s3`; quick when radosgw is already there.  apt's output:
# build/testbed-s3-env.log.  Root needed (tests/testbed/run uses sudo).
set -eu
TESTBED=${JITCACHE_TESTBED:-/var/tmp/jitcache-testbed}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
if [ ! -f "$TESTBED/.jitcache-testbed" ]; then
	echo "testbed-s3: no test bed at $TESTBED (run 'make testbed')" >&2; exit 1
fi
[ -x "$TESTBED/usr/bin/radosgw" ] && [ -x "$TESTBED/usr/bin/radosgw-admin" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	exec sudo -E "$0" "$@"
fi
STEP_LABEL=testbed-s3 STEP_LOG=$ROOT/build/testbed-s3-env.log
mkdir -p "$ROOT/build" && : >"$STEP_LOG"
. "$ROOT/packaging/step.sh"
run() { "$ROOT/tests/testbed/run" env DEBIAN_FRONTEND=noninteractive "$@"; }
step "apt-get update in the chroot" run apt-get update -qq
step "installing radosgw in the chroot" run apt-get install -y -qq --no-install-recommends radosgw
run apt-get clean
