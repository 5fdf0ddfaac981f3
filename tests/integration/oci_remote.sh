#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# The OCI registry tier (oci://HOST[:PORT]/REPOSITORY, tiers/oci.c) against a
# real registry: Debian's docker-registry started here on 127.0.0.1 with
# htpasswd auth and TLS (a CA made here, given as ca-file), the credentials
# in a docker config.json.  OpenCL programs on Intel's driver simulating an
# Arc GPU (PoCL if not, or under AddressSanitizer): node A compiles and
# stores the entry as a blob tagged jc-<key>; node B, with its own empty
# cache, gets it without compiling; a blob altered in the registry's
# storage (its digest no longer its bytes), wrong credentials, no
# credentials and the registry down each cost one line, and the program
# builds with the driver's own result.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/remote_common.bash"
trap 'stop_all_redis; stop_servers; [ "${KEEP:-0}" = 1 ] || rm -rf "$T"' EXIT
unset JITCACHE_LOCK_TIMEOUT JITCACHE_COMPRESS JITCACHE_REMOTE_READ_ONLY REGISTRY_AUTH_FILE
export JITCACHE_LOG=debug POCL_KERNEL_CACHE=0 HOME=$T/home XDG_RUNTIME_DIR=$T/run
mkdir -p "$HOME" "$XDG_RUNTIME_DIR"
CLB=$B/tests/cl_build
if [ ! -x "$CLB" ]; then # make check builds it: its absence is a broken build
	check "test prerequisite $CLB present" false
	finish
	exit $?
fi
need_registry
stat_of() { stats_in "$T/node-$1" "$2"; } # NODE FIELD
result() { sed -n 's/.*build=\([0-9-]*\).*/\1/p' "$T/$1.out"; }
cl_platform
build() { "$CLB" --platform $PLATFORM --source k.cl --options "$1"; } # OPTIONS

start_registry "$T/registry" ci s3cret-pw
check "docker-registry started with htpasswd and TLS" test -n "${REGISTRY_HOST:-}"
docker_login "$T/docker" "$REGISTRY_HOST" ci s3cret-pw
export DOCKER_CONFIG=$T/docker
URL="oci://$REGISTRY_HOST/jitcache/kernels"
export JITCACHE_REMOTE="$URL|ca-file=$REGISTRY_CA"
manifest() { # TAG: the manifest, as any client reads it
	curl -sf --cacert "$REGISTRY_CA" -u ci:s3cret-pw \
		-H 'Accept: application/vnd.oci.image.manifest.v1+json' \
		"https://$REGISTRY_HOST/v2/jitcache/kernels/manifests/$1"
}
tags() {
	curl -sf --cacert "$REGISTRY_CA" -u ci:s3cret-pw "https://$REGISTRY_HOST/v2/jitcache/kernels/tags/list"
}

node A build "-DSCALE=0.5f"
check "node A: compiled, and stored in the registry" \
	test "$(compiles "$T/A.out")" -eq 1 -a "$(stat_of A remote_stores)" -eq 1
check "node A: the build succeeded" test "$(result A)" = 0
tag=$(tags | grep -o 'jc-[0-9a-f]\{32\}' | head -1)
check "the registry lists one tag, jc-<32 hex of the key>" \
	test -n "$tag" -a "$(tags | grep -o 'jc-[0-9a-f]\{32\}' | wc -l)" -eq 1
m=$(manifest "$tag")
check "its manifest is an OCI image manifest whose one layer is a jitcache entry" \
	sh -c "printf '%s' '$m' | grep -q '\"artifactType\":\"application/vnd.jitcache.entry.v1\"' &&
		printf '%s' '$m' | grep -q '\"layers\":\[{\"mediaType\":\"application/vnd.jitcache.entry.v1\"'"

node B build "-DSCALE=0.5f"
check "node B (its own cache directory): no compile, a remote hit" \
	test "$(compiles "$T/B.out")" -eq 0 -a "$(stat_of B remote_hits)" -eq 1
check "node B: the build succeeded" test "$(result B)" = 0
check "node B: jitcache stats counts it as the oci tier's hit" \
	sh -c "JITCACHE_DIR='$T/node-B' '$B/jitcache-admin' stats | grep -q 'oci 1'"

# containers' auth.json before docker's config.json; an auths key written as a URL
mkdir -p "$T/podman"
sed "s|\"$REGISTRY_HOST\"|\"https://$REGISTRY_HOST\"|" "$T/docker/config.json" >"$T/podman/auth.json"
node B2 env DOCKER_CONFIG="$T/none" REGISTRY_AUTH_FILE="$T/podman/auth.json" "$CLB" --platform $PLATFORM \
	--source k.cl --options "-DSCALE=0.5f"
check "credentials from \$REGISTRY_AUTH_FILE (containers' auth.json, keyed https://HOST:PORT): a hit" \
	test "$(compiles "$T/B2.out")" -eq 0 -a "$(stat_of B2 remote_hits)" -eq 1
mkdir -p "$XDG_RUNTIME_DIR/containers"
cp "$T/podman/auth.json" "$XDG_RUNTIME_DIR/containers/auth.json"
node B3 env DOCKER_CONFIG="$T/none" "$CLB" --platform $PLATFORM --source k.cl --options "-DSCALE=0.5f"
check "credentials from \$XDG_RUNTIME_DIR/containers/auth.json: a hit" \
	test "$(compiles "$T/B3.out")" -eq 0 -a "$(stat_of B3 remote_hits)" -eq 1
rm "$XDG_RUNTIME_DIR/containers/auth.json"

# ---- Bearer tokens (every public registry): a registry that takes only those -----------
python3 "$ROOT/tests/helpers/oci_bearer.py" "$T/registry/srv.pem" "$T/registry/srv.key" tok tok-pw \
	"$T/bearer.log" >"$T/bearer.port" 2>"$T/bearer.err" &
BEARER=$!
for i in $(seq 50); do [ -s "$T/bearer.port" ] && break; sleep 0.1; done
BHOST=127.0.0.1:$(cat "$T/bearer.port")
docker_login "$T/tok" "$BHOST" tok tok-pw
BURL="oci://$BHOST/team/jc|ca-file=$REGISTRY_CA"
node P env DOCKER_CONFIG="$T/tok" JITCACHE_REMOTE="$BURL" "$CLB" --platform $PLATFORM --source k.cl \
	--options "-DSCALE=0.5f"
node Q env DOCKER_CONFIG="$T/tok" JITCACHE_REMOTE="$BURL" "$CLB" --platform $PLATFORM --source k.cl \
	--options "-DSCALE=0.5f"
check "Bearer: node P compiled and stored through a registry that takes only tokens" \
	test "$(compiles "$T/P.out")" -eq 1 -a "$(stat_of P remote_stores)" -eq 1
check "Bearer: node Q hits it, compiling nothing" \
	test "$(compiles "$T/Q.out")" -eq 0 -a "$(stat_of Q remote_hits)" -eq 1
check "Bearer: the token was asked for once per process, with the credentials (Basic), then used" \
	test "$(grep -c '^GET /token Basic' "$T/bearer.log")" -eq 2 -a \
		"$(grep -c 'Bearer$' "$T/bearer.log")" -ge 5
docker_login "$T/tok-wrong" "$BHOST" tok wrong
node R env DOCKER_CONFIG="$T/tok-wrong" JITCACHE_REMOTE="$BURL" "$CLB" --platform $PLATFORM \
	--source k.cl --options "-DSCALE=0.5f"
check "Bearer, wrong password: the token refused in one line, the build succeeded" \
	test "$(grep -c 'the token request refused: HTTP 401' "$T/R.out")" -eq 1 -a "$(result R)" = 0
kill "$BEARER"; wait "$BEARER" 2>/dev/null

# ---- faults: one line each, and the program builds --------------------------------
digest=$(printf '%s' "$m" | grep -o '"layers":\[{[^]]*' | grep -o 'sha256:[0-9a-f]*')
blob=$REGISTRY_DATA/docker/registry/v2/blobs/sha256/${digest:7:2}/${digest:7}/data
check "the entry's blob is in the registry's storage" test -f "$blob"
cp "$blob" "$T/blob.good"
printf 'X' | dd of="$blob" bs=1 seek=100 conv=notrunc 2>/dev/null
node C build "-DSCALE=0.5f"
check "a blob whose bytes are not its digest: refused, compiled here, the build succeeded" \
	test "$(compiles "$T/C.out")" -eq 1 -a "$(result C)" = 0 -a "$(stat_of C remote_hits)" -eq 0
check "... said in one line" test "$(grep -c 'is not what its digest says' "$T/C.out")" -eq 1
cp "$T/blob.good" "$blob"

docker_login "$T/wrong" "$REGISTRY_HOST" ci not-the-password
node D env DOCKER_CONFIG="$T/wrong" "$CLB" --platform $PLATFORM --source k.cl --options "-DSCALE=0.5f"
check "wrong credentials (401): compiled here, the build succeeded" \
	test "$(compiles "$T/D.out")" -eq 1 -a "$(result D)" = 0
check "... said in one line, naming where credentials come from" \
	test "$(grep -c 'HTTP 401 (check the credentials in the docker config.json' "$T/D.out")" -eq 1
node E env DOCKER_CONFIG="$T/none" "$CLB" --platform $PLATFORM --source k.cl --options "-DSCALE=0.5f"
check "no credentials at all (401): compiled here, the build succeeded, one line" \
	test "$(compiles "$T/E.out")" -eq 1 -a "$(result E)" = 0 -a "$(grep -c 'HTTP 401' "$T/E.out")" -eq 1
node F env JITCACHE_REMOTE="$URL" "$CLB" --platform $PLATFORM --source k.cl --options "-DSCALE=0.5f"
check "a registry whose CA is not given (no ca-file): TLS refused in one line, the build succeeded" \
	test "$(grep -c 'TLS failed' "$T/F.out")" -eq 1 -a "$(result F)" = 0

node G build "-DSCALE=0.25f"
check "a key the registry lacks (404): a miss, compiled, stored, said nothing" \
	test "$(compiles "$T/G.out")" -eq 1 -a "$(stat_of G remote_stores)" -eq 1 -a \
		"$(grep -v "credentials from" "$T/G.out" | grep -c "remote oci")" -eq 0
stop_server registry
node H build "-DSCALE=0.5f"
check "the registry down: compiled here, the build succeeded, one line" \
	test "$(compiles "$T/H.out")" -eq 1 -a "$(result H)" = 0 -a "$(grep -c 'cannot connect' "$T/H.out")" -eq 1
node I env JITCACHE_REMOTE="oci://$REGISTRY_HOST/jitcache/kernels:v1" "$CLB" --platform $PLATFORM \
	--source k.cl --options "-DSCALE=0.5f"
check "an oci remote naming a tag: refused in one line, the build succeeded" \
	test "$(grep -c 'names no tag' "$T/I.out")" -eq 1 -a "$(result I)" = 0
finish
