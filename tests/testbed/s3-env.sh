#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/testbed/s3-env.sh — installs Ceph's radosgw (Debian sid, 20.x) into
# the test bed, the S3 server of the S3 tier's tests (tests/servers.bash
# start_radosgw: it runs without a cluster on its SQLite backend), and
# ceph-mon and ceph-osd, the one-node cluster of start_radosgw_cluster
# (radosgw on RADOS, which honours conditional writes: the S3 leases'
# tests).  No service is started: a policy-rc.d keeps the packages'
# scripts from asking systemd, which the chroot has not.  Run by
# `make testbed-s3`; quick when all are already there.  apt's output:
# build/testbed-s3-env.log.  Root needed (tests/testbed/run uses sudo).
set -eu
TESTBED=${JITCACHE_TESTBED:-/var/tmp/jitcache-testbed}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
if [ ! -f "$TESTBED/.jitcache-testbed" ]; then
	echo "testbed-s3: no test bed at $TESTBED (run 'make testbed')" >&2; exit 1
fi
configured() { # every package named is installed and configured in the test bed
	for p in "$@"; do
		grep -A2 -x "Package: $p" "$TESTBED/var/lib/dpkg/status" |
			grep -qx 'Status: install ok installed' || return 1
	done
}
configured radosgw ceph-mon ceph-osd && exit 0
if [ "$(id -u)" -ne 0 ]; then
	exec sudo -E "$0" "$@"
fi
STEP_LABEL=testbed-s3 STEP_LOG=$ROOT/build/testbed-s3-env.log
mkdir -p "$ROOT/build" && : >"$STEP_LOG"
. "$ROOT/packaging/step.sh"
run() { "$ROOT/tests/testbed/run" env DEBIAN_FRONTEND=noninteractive "$@"; }
step "apt-get update in the chroot" run apt-get update -qq
POLICY=$TESTBED/usr/sbin/policy-rc.d
[ -e "$POLICY" ] || { printf '#!/bin/sh\nexit 101\n' >"$POLICY" && chmod 755 "$POLICY" &&
	trap 'rm -f "$POLICY"' EXIT; }
step "installing radosgw, ceph-mon and ceph-osd in the chroot" run apt-get install -y -qq \
	--no-install-recommends radosgw ceph-mon ceph-osd
step "configuring them" run dpkg --configure -a
run apt-get clean
