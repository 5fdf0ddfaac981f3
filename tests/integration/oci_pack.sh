#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# Packs as OCI artifacts (bin/push.c) against a real registry: Debian's
# docker-registry on 127.0.0.1 with htpasswd and TLS.  A cache filled by an
# OpenCL program (Intel's driver simulating an Arc GPU, or PoCL) and signed
# is exported and `jitcache push`ed as one artifact whose manifest, read
# with curl as any tool reads it, names the driver and compiler builds, the
# targets with their IP versions and the programs; `jitcache pull` into a
# fresh cache that trusts the key imports it and the program's first run
# compiles nothing.  Refused in one line each: an unsigned pack (push), a
# pull without trusted_keys, a pack signed by another key, a manifest
# naming another driver, an absent tag, a blob that is not its digest.
# Credentials from a helper (credsStore, credHelpers): run by push and
# pull, never by the library inside a program, which says so in one line.
# One tag holds a pack per driver and GPU set (an OCI image index): pull
# picks the one for this machine's driver and GPUs (a simulated A380; a
# driver elsewhere is a library of another build on LD_LIBRARY_PATH), says
# which in one line, and refuses in one line when none is.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/remote_common.bash"
trap 'stop_servers; [ "${KEEP:-0}" = 1 ] || cleanup_dirs' EXIT
unset JITCACHE_REMOTE JITCACHE_SIGNING_KEY JITCACHE_TRUSTED_KEYS REGISTRY_AUTH_FILE
export JITCACHE_LOG=debug POCL_KERNEL_CACHE=0 HOME=$T/home XDG_RUNTIME_DIR=$T/run
mkdir -p "$HOME" "$XDG_RUNTIME_DIR"
CLB=$B/tests/cl_build
if [ ! -x "$CLB" ]; then
	check "test prerequisite $CLB present" false
	finish
	exit $?
fi
need_registry
cl_platform
# this machine: an A380, as its driver names it (PoCL has no Level Zero GPU: --for says it)
PULL_FOR=()
if [ "$PLATFORM" = Intel ]; then export ForceDeviceId=56A5; else PULL_FOR=(--for a380); fi
run_in() { # DIR NAME: the program under jitcache with cache DIR, output in $T/NAME.out
	JITCACHE_DIR=$1 LD_PRELOAD="$LIB" "$CLB" --platform $PLATFORM --source k.cl \
		--options "-DSCALE=0.5f" >"$T/$2.out" 2>&1
}
result() { sed -n 's/.*build=\([0-9-]*\).*/\1/p' "$T/$1.out"; }
jc() { # NAME ARGS...: jitcache, output in $T/NAME.out, status in $T/NAME.rc
	local name=$1; shift
	JITCACHE_LOG=warn "$JITCACHE" "$@" >"$T/$name.out" 2>&1
	echo $? >"$T/$name.rc"
}
rc() { cat "$T/$1.rc"; }
lines() { grep -c '^jitcache: ' "$T/$1.out" || true; }

start_registry "$T/registry" ci s3cret-pw
check "docker-registry started with htpasswd and TLS" test -n "${REGISTRY_HOST:-}"
docker_login "$T/docker" "$REGISTRY_HOST" ci s3cret-pw
export DOCKER_CONFIG=$T/docker
REPO=oci://$REGISTRY_HOST/jitcache/packs
get_manifest() { # REF: what the registry holds under REF (a tag or a digest)
	curl -sf --cacert "$REGISTRY_CA" -u ci:s3cret-pw \
		-H 'Accept: application/vnd.oci.image.manifest.v1+json, application/vnd.oci.image.index.v1+json' \
		"https://$REGISTRY_HOST/v2/jitcache/packs/manifests/$1"
}
manifest() { # TAG: the newest pack's manifest under TAG (through its index, if any)
	local m d
	m=$(get_manifest "$1") || return 0
	d=$(printf '%s' "$m" | grep -o '"manifests":\[.*' | grep -o '"digest":"sha256:[0-9a-f]*"' | tail -1)
	[ -n "$d" ] && m=$(get_manifest "${d:10:71}")
	printf '%s' "$m"
}

# ---- CI: record, sign, export, push ---------------------------------------------------
"$JITCACHE" keygen "$T/ci.key" >/dev/null 2>&1
"$JITCACHE" keygen "$T/other.key" >/dev/null 2>&1
JITCACHE_SIGNING_KEY=$T/ci.key run_in "$T/ci" ci
check "CI: the program ran under jitcache, signing, and compiled" \
	test "$(compiles "$T/ci.out")" -ge 1 -a "$(result ci)" = 0
JITCACHE_DIR=$T/ci "$JITCACHE" export "$T/pack.tar.zst" >/dev/null 2>&1
check "CI: the signed cache exported as a pack" test -s "$T/pack.tar.zst"
JITCACHE_DIR=$T/ci jc push push "$REPO:v1" "$T/pack.tar.zst" --for a380,b580 \
	--programs cl_build --ca-file "$REGISTRY_CA"
check "push: exit 0, one line naming what was pushed" \
	sh -c "[ $(rc push) = 0 ] && grep -q '^pushed .*pack.tar.zst (.* entries, .*signed) to $REPO:v1 as sha256:' '$T/push.out'"
m=$(manifest v1)
has_m() { printf '%s' "$m" | grep -q -- "$1"; }
check "the manifest (curl) is an OCI image manifest with jitcache's artifactType" \
	has_m '"mediaType":"application/vnd.oci.image.manifest.v1+json","artifactType":"application/vnd.jitcache.pack.v1"'
check "... its config is jitcache's own media type" \
	has_m '"config":{"mediaType":"application/vnd.jitcache.pack.config.v1+json"'
check "... its one layer is the pack" has_m '"layers":\[{"mediaType":"application/vnd.jitcache.pack.v1.tar+zstd"'
check "... annotations name the targets with their IP versions" \
	has_m '"org.jitcache.targets":"a380=12.56.5,b580=20.1.0"'
check "... the programs" has_m '"org.jitcache.programs":"cl_build"'
check "... the driver and compiler builds" \
	sh -c "printf '%s' '$m' | grep -q '\"org.jitcache.driver\":\"[^\"]' && printf '%s' '$m' | grep -q '\"org.jitcache.compiler\":\"[^\"]'"

# ---- a user: trusted_keys and jitcache pull -------------------------------------------
export JITCACHE_TRUSTED_KEYS=$T/ci.key.pub
JITCACHE_DIR=$T/user jc pull pull "$REPO:v1" --ca-file "$REGISTRY_CA" "${PULL_FOR[@]}"
check "pull: exit 0, the pack imported, nothing refused" \
	sh -c "[ $(rc pull) = 0 ] && grep -q '^pulled $REPO:v1: imported [1-9][0-9]* entries.* 0 refused' '$T/pull.out'"
run_in "$T/user" first
check "the user's first run: no compile, the build succeeded" \
	test "$(compiles "$T/first.out")" -eq 0 -a "$(result first)" = 0

# ---- one tag, a pack per driver and GPU set --------------------------------------------
# another driver: a library of another build where this one's would be found
mkdir -p "$T/otherdrv"
cp "$LIB" "$T/otherdrv/libze_intel_gpu.so.1"
ix() { get_manifest multi; }
JITCACHE_DIR=$T/ci LD_LIBRARY_PATH=$T/otherdrv${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
	jc m1 push "$REPO:multi" "$T/pack.tar.zst" --for a380,b580 --ca-file "$REGISTRY_CA"
JITCACHE_DIR=$T/ci jc m2 push "$REPO:multi" "$T/pack.tar.zst" --for b580 --ca-file "$REGISTRY_CA"
check "push of a second pack to a tag: it is added beside the first, said in its line" \
	sh -c "[ $(rc m1) = 0 ] && [ $(rc m2) = 0 ] && grep -q 'to $REPO:multi as sha256:[0-9a-f]*, beside 1 other pack\$' '$T/m2.out'"
ix >"$T/ix.json"
in_ix() { grep -q -- "$1" "$T/ix.json"; }
packs_in_ix() { grep -o '"org.jitcache.driver"' "$T/ix.json" | wc -l; }
check "the tag (curl) is an OCI image index of the two packs" \
	sh -c "grep -q '^{\"schemaVersion\":2,\"mediaType\":\"application/vnd.oci.image.index.v1+json\"' '$T/ix.json' && [ $(packs_in_ix) = 2 ]"
check "... each annotated with its driver, compiler and targets" \
	in_ix '"org.jitcache.driver":"libze_intel_gpu.so.1 build-id [0-9a-f]*","org.jitcache.compiler":"[^"]*","org.jitcache.targets":"a380=12.56.5,b580=20.1.0"}},.*"org.jitcache.driver":"libze_intel_gpu.so.1.[0-9.]* build-id [0-9a-f]*","org.jitcache.compiler":"[^"]*","org.jitcache.targets":"b580=20.1.0"'
JITCACHE_DIR=$T/n1 jc none1 pull "$REPO:multi" --ca-file "$REGISTRY_CA" "${PULL_FOR[@]}"
check "pull on an A380 when one pack is another driver's and one another GPU's: one line, exit 1, nothing imported" \
	sh -c "[ $(rc none1) = 1 ] && [ $(lines none1) = 1 ] && grep -q 'none of the 2 packs of $REPO:multi is for this machine (1 for another driver or compiler, 1 for other GPUs; this machine.s GPUs: 12.56.5)' '$T/none1.out' && [ ! -d '$T/n1/00' ]"
JITCACHE_DIR=$T/ci jc m3 push "$REPO:multi" "$T/pack.tar.zst" --for a380 --ca-file "$REGISTRY_CA"
a380=$(sed -n 's/.* as \(sha256:[0-9a-f]*\),.*/\1/p' "$T/m3.out")
b580=$(sed -n 's/.* as \(sha256:[0-9a-f]*\),.*/\1/p' "$T/m2.out")
JITCACHE_DIR=$T/pick jc pick pull "$REPO:multi" --ca-file "$REGISTRY_CA" "${PULL_FOR[@]}"
run_in "$T/pick" pickrun
check "pull on an A380 of three packs: picks this driver's a380 pack, says so in one line, imports it; the first run compiles nothing" \
	sh -c "[ $(rc pick) = 0 ] && grep -q '^pull: $REPO:multi: chose the pack for a380=12.56.5 (this machine.s driver and compiler, GPUs 12.56.5) of 3: $a380\$' '$T/pick.out' && grep -q '^pulled $REPO:multi: imported [1-9]' '$T/pick.out' && [ $(compiles "$T/pickrun.out") = 0 ] && [ '$(result pickrun)' = 0 ]"
JITCACHE_DIR=$T/pickb jc pickb pull "$REPO:multi" --for b580 --ca-file "$REGISTRY_CA"
check "pull --for b580 picks the b580 pack of this driver" \
	sh -c "[ $(rc pickb) = 0 ] && grep -q 'chose the pack for b580=20.1.0 .* of 3: $b580\$' '$T/pickb.out'"
JITCACHE_DIR=$T/ci jc m4 push "$REPO:multi" "$T/pack.tar.zst" --for a380 --ca-file "$REGISTRY_CA"
ix >"$T/ix.json"
check "pushing the a380 pack again replaces it: still three packs" \
	sh -c "grep -q 'beside 2 other packs\$' '$T/m4.out' && [ $(packs_in_ix) = 3 ]"

# ---- credential helpers: the CLI runs docker-credential-NAME; the library does not ---
mkdir -p "$T/hbin" "$T/h1" "$T/h2" "$T/h3"
cat >"$T/hbin/docker-credential-test" <<HELPER
#!/bin/sh
host=\$(cat)
echo "\$1 \$host" >>"$T/helper.log"
[ "\$1" = get ] && [ "\$host" = "$REGISTRY_HOST" ] || exit 1
printf '{"ServerURL":"%s","Username":"ci","Secret":"s3cret-pw"}\n' "\$host"
HELPER
chmod +x "$T/hbin/docker-credential-test"
printf '{"auths":{"%s":{}},"credsStore":"test"}' "$REGISTRY_HOST" >"$T/h1/config.json"
printf '{"credHelpers":{"other.example":"none","%s":"test"}}' "$REGISTRY_HOST" >"$T/h2/config.json"
printf '{"credsStore":"missing"}' >"$T/h3/config.json"
hp() { PATH=$T/hbin:$PATH DOCKER_CONFIG=$T/$1 "${@:2}"; }
JITCACHE_DIR=$T/ci hp h1 jc hpush push "$REPO:helper" "$T/pack.tar.zst" --for a380 --ca-file "$REGISTRY_CA"
check "push, credsStore naming a helper: docker-credential-test get ran with the registry's host; pushed" \
	sh -c "[ $(rc hpush) = 0 ] && grep -qx 'get $REGISTRY_HOST' '$T/helper.log'"
JITCACHE_DIR=$T/hpull hp h2 jc hpull pull "$REPO:helper" --ca-file "$REGISTRY_CA" "${PULL_FOR[@]}"
check "pull, credHelpers naming it for this registry: pulled with its credentials" \
	sh -c "[ $(rc hpull) = 0 ] && grep -q '^pulled $REPO:helper: imported [1-9]' '$T/hpull.out' && [ \$(grep -c . '$T/helper.log') = 2 ]"
JITCACHE_DIR=$T/h3c hp h3 jc hmiss pull "$REPO:helper" --ca-file "$REGISTRY_CA" "${PULL_FOR[@]}"
check "a helper that cannot be run: said in one line, the registry tried without (refused), exit 1" \
	sh -c "[ $(rc hmiss) = 1 ] && grep -q 'cannot run docker-credential-missing' '$T/hmiss.out' && [ ! -d '$T/h3c/00' ]"
rm -f "$T/helper.log"
JITCACHE_DIR=$T/hlib hp h1 env JITCACHE_REMOTE="$REPO|ca-file=$REGISTRY_CA" LD_PRELOAD="$LIB" \
	"$CLB" --platform $PLATFORM --source k.cl --options "-DSCALE=0.5f" >"$T/hlib.out" 2>&1
check "the oci:// remote in a program: the helper is not run, said in one line; the build succeeded" \
	sh -c "[ ! -e '$T/helper.log' ] && [ \$(grep -c 'credentials of docker-credential-test (docker.s config) are not used in a program' '$T/hlib.out') = 1 ] && [ '$(result hlib)' = 0 ]"

# ---- refusals: one line each, nothing imported ----------------------------------------
JITCACHE_DIR=$T/plain run_in "$T/plain" plain
JITCACHE_DIR=$T/plain "$JITCACHE" export "$T/unsigned.tar.zst" >/dev/null 2>&1
JITCACHE_DIR=$T/plain jc unsigned push "$REPO:unsigned" "$T/unsigned.tar.zst" --ca-file "$REGISTRY_CA"
check "push of an unsigned pack: refused in one line, exit 1, no tag made" \
	test "$(rc unsigned)" = 1 -a "$(lines unsigned)" = 1 -a -z "$(manifest unsigned)"
JITCACHE_DIR=$T/u2 env -u JITCACHE_TRUSTED_KEYS "$JITCACHE" pull "$REPO:v1" --ca-file "$REGISTRY_CA" >"$T/nokeys.out" 2>&1
echo $? >"$T/nokeys.rc"
check "pull without trusted_keys: refused in one line, nothing imported" \
	test "$(rc nokeys)" = 1 -a "$(lines nokeys)" = 1 -a ! -d "$T/u2/00"
JITCACHE_DIR=$T/u3 JITCACHE_TRUSTED_KEYS=$T/other.key.pub jc otherkey pull "$REPO:v1" --ca-file "$REGISTRY_CA" "${PULL_FOR[@]}"
check "pull of a pack signed by a key not trusted: exit 1, nothing imported" \
	sh -c "[ $(rc otherkey) = 1 ] && grep -q 'imported 0 entries' '$T/otherkey.out'"
JITCACHE_DIR=$T/u4 jc absent pull "$REPO:nope" --ca-file "$REGISTRY_CA"
check "pull of an absent tag (404): one line, exit 1" \
	sh -c "[ $(rc absent) = 1 ] && [ $(lines absent) = 1 ] && grep -q 'does not exist' '$T/absent.out'"
# a manifest naming another driver: the same artifact, its annotation changed
other=$(printf '%s' "$m" | sed 's/"org.jitcache.driver":"[^"]*"/"org.jitcache.driver":"libze_intel_gpu.so.1.3.99999 build-id 00"/')
printf '%s' "$other" | curl -sf --cacert "$REGISTRY_CA" -u ci:s3cret-pw -X PUT \
	-H 'Content-Type: application/vnd.oci.image.manifest.v1+json' --data-binary @- \
	"https://$REGISTRY_HOST/v2/jitcache/packs/manifests/otherdriver" >/dev/null
JITCACHE_DIR=$T/u5 jc otherdriver pull "$REPO:otherdriver" --ca-file "$REGISTRY_CA" "${PULL_FOR[@]}"
check "pull of a pack naming another driver: refused in one line naming both, nothing imported" \
	sh -c "[ $(rc otherdriver) = 1 ] && [ $(lines otherdriver) = 1 ] && grep -q 'built for another driver (libze_intel_gpu.so.1.3.99999' '$T/otherdriver.out' && [ ! -d '$T/u5/00' ]"
digest=$(printf '%s' "$m" | grep -o '"layers":\[{[^]]*' | grep -o 'sha256:[0-9a-f]*' | head -1)
blob=$REGISTRY_DATA/docker/registry/v2/blobs/sha256/${digest:7:2}/${digest:7}/data
printf 'X' | dd of="$blob" bs=1 seek=200 conv=notrunc 2>/dev/null
JITCACHE_DIR=$T/u6 jc baddigest pull "$REPO:v1" --ca-file "$REGISTRY_CA" "${PULL_FOR[@]}"
check "pull of a pack whose blob is not its digest: refused in one line, exit 1, nothing imported" \
	sh -c "[ $(rc baddigest) = 1 ] && [ $(lines baddigest) = 1 ] && grep -q 'is not what its digest says' '$T/baddigest.out' && [ ! -d '$T/u6/00' ]"
finish
