#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/testbed/setup.sh — creates or updates the modern-driver test bed:
# a Debian sid chroot holding Intel's 2026 GPU stack (NEO 26.x Level Zero
# and OpenCL drivers, IGC 2.x, ocloc, the Level Zero loader 1.32 and its
# headers), compilers and Python.  Run by `make testbed`; idempotent: a
# second run that finds the same package set installed returns at once.
#
#   tests/testbed/setup.sh            # root needed (sudo is used if not root)
#
# Where:   ${JITCACHE_TESTBED:-/var/tmp/jitcache-testbed} (outside any
#          checkout, so every clone and worktree shares one test bed).
# Archive: the Debian mirror the host's apt already uses (first deb URI of
#          /etc/apt/sources.list or /etc/apt/sources.list.d/*.sources|.list
#          ending in /debian), else deb.debian.org.  JITCACHE_TESTBED_MIRROR
#          overrides it.
# Stamp:   $TESTBED/.jitcache-testbed lists the packages installed; a change
#          of the list below installs the difference (apt-get install).
# Other:   JITCACHE_TESTBED_SUITE (default sid) and JITCACHE_TESTBED_PKGS
#          (default the list below) make another chroot the same way (make
#          debroot: a clean Debian 12 for the package's install test), its
#          lines labelled JITCACHE_TESTBED_LABEL (default testbed).
# Output:  one line per step (packaging/step.sh), debootstrap's and apt's
#          output in $TESTBED.log, shown if a step fails.
# Exit status 0 when the test bed is ready; otherwise 1 after saying why.
set -eu
TESTBED=${JITCACHE_TESTBED:-/var/tmp/jitcache-testbed}
HERE=$(cd "$(dirname "$0")" && pwd)
STAMP=$TESTBED/.jitcache-testbed
STEP_LABEL=${JITCACHE_TESTBED_LABEL:-testbed}

# Everything the modern-driver tests, benches and the SYCL work need inside.
PKGS="gcc make libc6-dev pkg-config libxxhash-dev libinih-dev libzstd-dev libhiredis-dev libsodium-dev
      ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-c-headers clinfo
      intel-opencl-icd libze-intel-gpu1 intel-ocloc libze1 libze-dev
      python3 python3-venv python3-pip ca-certificates procps util-linux gawk libcurl4"
PKGS=$(echo ${JITCACHE_TESTBED_PKGS:-$PKGS})
SUITE=${JITCACHE_TESTBED_SUITE:-sid}

if [ "$(id -u)" -ne 0 ]; then
	exec sudo -E "$0" "$@"
fi

if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$PKGS" ] && [ -x "$TESTBED/usr/bin/apt-get" ]; then
	exit 0
fi

mirror() {
	[ -n "${JITCACHE_TESTBED_MIRROR:-}" ] && { echo "$JITCACHE_TESTBED_MIRROR"; return; }
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		# one-line format "deb [opts] URI suite ..." and deb822 "URIs: URI ..."
		u=$(awk '/^[[:space:]]*deb[[:space:]]/ { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }
		         /^URIs:/ { for (i = 2; i <= NF; i++) print $i }' "$f" |
		    grep -E '/debian/?$' | head -n 1)
		[ -n "$u" ] && { echo "${u%/}"; return; }
	done
	echo http://deb.debian.org/debian
}

# Runs a command in the chroot with /proc, /dev and /sys mounted, in a
# private mount namespace (the mounts vanish with the command).
in_chroot() {
	unshare -m --propagation private sh -c '
		T=$1; shift
		mount -t proc proc "$T/proc" && mount --rbind /dev "$T/dev" &&
		mount --rbind /sys "$T/sys" || exit 1
		exec chroot "$T" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
			DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 "$@"' sh "$TESTBED" "$@"
}

start=$(date +%s)
STEP_LOG=$TESTBED.log
: >"$STEP_LOG"
. "$HERE/../../packaging/step.sh"
MIRROR=$(mirror)
bootstrap() {
	rm -rf "$TESTBED.partial" &&
	debootstrap --variant=minbase "$SUITE" "$TESTBED.partial" "$MIRROR" &&
	rm -rf "$TESTBED" && mv "$TESTBED.partial" "$TESTBED"
}
if [ ! -x "$TESTBED/usr/bin/apt-get" ]; then
	command -v debootstrap >/dev/null || fail "debootstrap is not installed (make deps-all)"
	step "making a minimal Debian $SUITE in $TESTBED (debootstrap from $MIRROR)" bootstrap
fi
echo "deb $MIRROR $SUITE main" > "$TESTBED/etc/apt/sources.list"
cp -L /etc/resolv.conf "$TESTBED/etc/resolv.conf" 2>/dev/null || true
# Keep downloaded .debs out of the test bed (smaller; nothing is reused).
# The archive may be a frozen snapshot whose Release file has passed its
# Valid-Until date: accept it (its signature is still checked).
printf '%s\n' 'APT::Keep-Downloaded-Packages "false";' 'Acquire::Check-Valid-Until "false";' \
	> "$TESTBED/etc/apt/apt.conf.d/99jitcache"
step "apt-get update in the chroot" in_chroot apt-get update -qq
step "installing $(echo $PKGS | wc -w) packages in the chroot (apt-get install; the list: $STAMP)" \
	in_chroot apt-get install -y -qq --no-install-recommends $PKGS
in_chroot apt-get clean
echo "$PKGS" > "$STAMP"
say "ready in $(( $(date +%s) - start )) s, $(du -sh --one-file-system "$TESTBED" | cut -f1) at $TESTBED"
