#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# The file tier (file:///PATH, tiers/file.c): caches on several machines
# sharing one directory (NFS, a mounted volume), as ccache's file storage.
# OpenCL programs on Intel's driver simulating an Arc GPU (PoCL if not, or
# under AddressSanitizer):
# node A compiles and writes the entry into the shared directory; node B,
# with its own empty cache directory, gets it from there without
# compiling; a read-only node writes nothing there; an entry spoilt in the
# directory is refused, compiled and replaced; a directory that does not
# exist is said in one line, never made, and the program works.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/remote_common.bash"
unset JITCACHE_LOCK_TIMEOUT JITCACHE_COMPRESS JITCACHE_REMOTE_READ_ONLY
export JITCACHE_LOG=debug POCL_KERNEL_CACHE=0
CLB=$B/tests/cl_build
if [ ! -x "$CLB" ]; then # make check builds it: its absence is a broken build
	check "test prerequisite $CLB present" false
	finish
	exit $?
fi
stat_of() { stats_in "$T/node-$1" "$2"; } # NODE FIELD
result() { sed -n 's/.*build=\([0-9-]*\).*/\1/p' "$T/$1.out"; }
shared_entries() { find "$T/shared" -type f | wc -l; }

cl_platform
build() { "$CLB" --platform $PLATFORM --source k.cl --options "$1"; } # OPTIONS
mkdir "$T/shared"
export JITCACHE_REMOTE="file://$T/shared/"

node A build "-DSCALE=0.5f"
check "node A: compiled, and stored in the shared directory" \
	test "$(compiles "$T/A.out")" -eq 1 -a "$(stat_of A remote_stores)" -eq 1
check "node A: the build succeeded" test "$(result A)" = 0
check "the shared directory holds one entry, as a cache directory lays it out (<2 hex>/<32 hex>)" \
	test "$(shared_entries)" -eq 1 -a -n "$(find "$T/shared" -regextype posix-extended \
		-regex '.*/shared/[0-9a-f]{2}/[0-9a-f]{32}' -type f)"

node B build "-DSCALE=0.5f"
check "node B (its own cache directory): no compile, a remote hit" \
	test "$(compiles "$T/B.out")" -eq 0 -a "$(stat_of B remote_hits)" -eq 1
check "node B: the build succeeded" test "$(result B)" = 0
check "node B: jitcache stats counts it as the file tier's hit" \
	sh -c "JITCACHE_DIR='$T/node-B' '$B/jitcache-admin' stats | grep -q 'file 1'"

node RO env JITCACHE_REMOTE="file://$T/shared|read-only" "$CLB" --platform $PLATFORM \
	--source k.cl --options "-DSCALE=0.25f"
check "a read-only node: compiles, writes nothing to the shared directory" \
	test "$(compiles "$T/RO.out")" -eq 1 -a "$(stat_of RO remote_stores)" -eq 0 -a "$(shared_entries)" -eq 1

f=$(find "$T/shared" -type f)
printf 'not an entry' >"$f"
node C build "-DSCALE=0.5f"
check "an entry spoilt in the shared directory: refused, compiled" \
	test "$(compiles "$T/C.out")" -eq 1 -a "$(result C)" = 0
node D build "-DSCALE=0.5f"
check "... and replaced by a sound one, that node D hits" \
	test "$(compiles "$T/D.out")" -eq 0 -a "$(stat_of D remote_hits)" -eq 1

node E env JITCACHE_REMOTE="file://$T/absent" "$CLB" --platform $PLATFORM --source k.cl \
	--options "-DSCALE=0.5f"
check "a directory that does not exist: the program builds" test "$(result E)" = 0
check "... said in one line, and not made" \
	test "$(grep -c 'does not exist' "$T/E.out")" -eq 1 -a ! -e "$T/absent"
check "no temporary file left in the shared directory" \
	test -z "$(find "$T/shared" -name '.tmp*')"
finish
