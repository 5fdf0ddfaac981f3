#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: full: needs the test bed (make testbed) and Debian's docker-registry
# First run warm from a registry, end to end (issue 48 item 4): a machine
# with no GPU runs the project's Level Zero examples once under jitcache on
# Intel's 2026 driver (the test bed, a simulated A770), warms their recipes
# `--for all`, signs and pushes the pack to a real registry (Debian's
# docker-registry, started here on the host's loopback with htpasswd and
# TLS); then a fresh A380 (an empty cache, the public key in trusted_keys,
# and only `jitcache pull`, or only the oci:// remote) runs its first process
# at 0.05x or less of its cold run, compiling nothing.  Faults: the registry
# down, slow, answering 401, 404 and 500, blobs whose bytes are not their
# digest, a manifest naming another driver: one line each, and the program
# runs with the driver's own result.  The steps run in the test bed
# (oci_registry_bed.bash, with MODERN_BUILD); the registry runs here.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/remote_common.bash"
trap 'stop_servers; [ "${KEEP:-0}" = 1 ] || cleanup_dirs' EXIT
if [ -z "${MODERN_BUILD:-}" ] || [ ! -x "$ROOT/$MODERN_BUILD/jitcache-admin" ]; then
	skip "no build of the test bed's (make check-all builds MODERN_BUILD inside tests/testbed/run)"
	finish; exit $?
fi
need_registry # as the quick tier's oci scripts: a skip with its reason where it is missing
start_registry "$T/registry" ci s3cret-pw
check "docker-registry started on the loopback with htpasswd and TLS" test -n "${REGISTRY_HOST:-}"
docker_login "$T/docker" "$REGISTRY_HOST" ci s3cret-pw
chmod 755 "$T" "$T/registry" # the test bed's root reads the CA there
"$ROOT/tests/testbed/run" env BUILD="$MODERN_BUILD" REGISTRY_HOST="$REGISTRY_HOST" \
	REGISTRY_CA="$REGISTRY_CA" REGISTRY_DATA="$REGISTRY_DATA" DOCKER_CONFIG="$T/docker" \
	KEEP="${KEEP:-0}" bash "$ROOT/tests/integration/oci_registry_bed.bash" >"$T/bed.out" 2>&1
status=$?
grep '^oci_registry: ' "$T/bed.out"
# the test bed's checks, as this script's
while IFS= read -r line; do
	case $line in
	"ok   oci_registry_bed.bash: "*) check "${line#ok   oci_registry_bed.bash: }" true ;;
	"FAIL oci_registry_bed.bash: "*) line=${line#FAIL oci_registry_bed.bash: }; check "${line%%   \[*}" false ;;
	"skip oci_registry_bed.bash: "*) skip "${line#skip oci_registry_bed.bash: }" ;;
	esac
done <"$T/bed.out"
check "the test bed's part ran to its end (status $status)" grep -q '^[0-9]* passed, ' "$T/bed.out"
finish
