#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/registry_run.sh CMD [ARGS...] — runs CMD beside a registry of its
# own: Debian's docker-registry on the host's loopback, with htpasswd and
# TLS (tests/servers.bash's start_registry), its address, CA and a docker
# config with its credentials exported (REGISTRY_HOST, REGISTRY_CA,
# DOCKER_CONFIG) for CMD, and stopped when CMD ends.  The test bed shares
# the host's network and /tmp, so a command run there
# (tests/testbed/run) reaches it.  Without docker-registry, CMD runs
# without a registry (REGISTRY_HOST unset; one line says so).  Exit
# status: CMD's.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) B=$BUILD ;; *) B=$ROOT/$BUILD ;; esac
T=$(mktemp -d /tmp/jitcache-registry.XXXXXX)
chmod 755 "$T"
. "$ROOT/tests/servers.bash"
trap 'stop_server registry; rm -rf "$T"' EXIT
if command -v docker-registry >/dev/null && command -v htpasswd >/dev/null &&
	start_registry "$T/registry" ci bench-pw; then
	chmod 755 "$T/registry"
	docker_login "$T/docker" "$REGISTRY_HOST" ci bench-pw
	export REGISTRY_HOST REGISTRY_CA DOCKER_CONFIG=$T/docker
else
	echo "registry_run: no docker-registry here (make deps): $1 runs without a registry" >&2
	unset REGISTRY_HOST
fi
"$@"
