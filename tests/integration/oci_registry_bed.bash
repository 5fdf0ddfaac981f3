#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# oci_registry_bed.bash — the part of oci_registry.sh that runs inside the
# test bed (Intel's 2026 driver), against the registry oci_registry.sh
# started on the host's loopback (REGISTRY_HOST, REGISTRY_CA, REGISTRY_DATA,
# DOCKER_CONFIG; the test bed shares the network and /tmp).  Not a test of
# its own (tests/run.sh runs only *.sh): its checks are oci_registry.sh's.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/ze_common.bash"
need_modern_driver
need_ze
unset JITCACHE_RECIPES # the default: on
export HOME=$T/home XDG_RUNTIME_DIR=$T/run
mkdir -p "$HOME" "$XDG_RUNTIME_DIR"
MODULES="reduce gemm norm attention conv gemm_reg"
for m in $MODULES; do
	spirv "$m" "$KERNELS/$m.cl" || check "SPIR-V of $m.cl built with ocloc" false
done
N=$(echo $MODULES | wc -w)
run_all() { # NAME: every module once; logs in $T/NAME.*.log
	local m
	for m in ${MODS:-$MODULES}; do JITCACHE_LOG=debug jc "$EXAMPLE" "$T/$m.spv" >"$T/$1.$m.log" 2>&1; done
}
all_logs() { local m; for m in ${MODS:-$MODULES}; do cat "$T/$1.$m.log"; done; }
compiled() { all_logs "$1" | grep -c 'miss, compiled' || true; }
hits() { all_logs "$1" | grep -c ': hit, loaded' || true; }
created() { all_logs "$1" | grep -c '^kernels: [0-9]* created' || true; }
ze_sum() { all_logs "$1" | sed -n 's/^zeModuleCreate: \([0-9.]*\) s.*/\1/p' | awk '{ s += $1 } END { printf "%.4f", s }'; }
jcq() { JITCACHE_LOG=warn "$JITCACHE" "$@"; }

# ---- docs/first-run-warm.md's "Publish packs with your release", as written -----------------
# Its fenced blocks, in page order: 1 keygen, 2 CI, 3 a user's pull, 4 a
# user's ini (the oci:// remote).  Rewritten: the registry's host, its CA
# (given as ca-file), the key's installed path and the program alone.
cat >"$T/my-app" <<EOF
#!/bin/sh
for m in $MODULES; do JITCACHE_LOG=debug "$EXAMPLE" "$T/\$m.spv" >"$T/\$1.\$m.log" 2>&1; done
EOF
chmod +x "$T/my-app"
awk '/^## Publish packs with your release/ { on = 1; next } on && /^## / { exit }
     on && /^```/ { if (inb) { inb = 0; close(f) } else { inb = 1; n++; f = sprintf("%s/doc.%d.%s", dir, n, substr($0, 4)) } next }
     inb { print > f }' dir="$T" "$ROOT/docs/first-run-warm.md"
FROM=("registry.example.com" "/usr/share/my-app/ci.key.pub" "./my-app --self-test"
      "my-app-kernels'" "|read-only" "jitcache push " "jitcache pull " "jitcache ")
TO=("$REGISTRY_HOST" "$T/work/ci.key.pub" "$T/my-app record"
    "my-app-kernels|ca-file=$REGISTRY_CA'" "|ca-file=$REGISTRY_CA|read-only"
    "\"\$JITCACHE\" push --ca-file $REGISTRY_CA " "\"\$JITCACHE\" pull --ca-file $REGISTRY_CA "
    "\"\$JITCACHE\" ")
for i in "${!FROM[@]}"; do echo "oci_registry: docs rewrite: ${FROM[$i]} -> ${TO[$i]}"; done
for f in "$T"/doc.*; do
	for i in "${!FROM[@]}"; do
		python3 -c 'import sys; p, a, b = sys.argv[1:]; s = open(p).read(); open(p, "w").write(s.replace(a, b))' \
			"$f" "${FROM[$i]}" "${TO[$i]}"
	done
done
check "the section has its four blocks (keygen, CI, pull, ini)" \
	test -s "$T/doc.1.sh" -a -s "$T/doc.2.sh" -a -s "$T/doc.3.sh" -a -s "$T/doc.4.ini"
mkdir -p "$T/work"
(cd "$T/work" && export JITCACHE="$JITCACHE" && present a770 && unset JITCACHE_DIR &&
 bash -e "$T/doc.1.sh" && JITCACHE_LOG=warn bash -e "$T/doc.2.sh") >"$T/ci.out" 2>&1
check "CI (the page's block 2): ran to its end" test $? -eq 0
check "CI: every module compiled once on the simulated A770" test "$(compiled record)" -eq "$N"
check "CI: warm --for all wrote a pack" test -s "$T/work/pack.tar.zst"
check "CI: push published it (signed)" grep -q "^pushed .* signed) to oci://$REGISTRY_HOST/myorg/my-app-kernels:1.4.0 as sha256:" "$T/ci.out"
REPO=oci://$REGISTRY_HOST/myorg/my-app-kernels
ENTRIES="myorg/my-app-kernels|ca-file=$REGISTRY_CA"

# ---- the A380's cold run: no cache, no registry ------------------------------------------
(export JITCACHE_DIR=$T/cold; present a380; run_all cold)
check "A380 cold run: every module compiled" test "$(compiled cold)" -eq "$N"

# ---- a fresh A380: the page's block 3 (trusted_keys, jitcache pull), nothing else --------
(export JITCACHE_DIR=$T/a380 JITCACHE="$JITCACHE"; unset JITCACHE_CONFIG; present a380; cd "$T/work" &&
 JITCACHE_LOG=warn bash -e "$T/doc.3.sh" >"$T/pull.out" 2>&1; echo $? >"$T/pull.rc"
 run_all pulled)
check "A380: the page's pull imported the pack, nothing refused" \
	sh -c "[ $(cat "$T/pull.rc") = 0 ] && grep -q '^pulled .* 0 refused' '$T/pull.out'"
check "A380 first run through the pulled pack: every module a hit, no compile" \
	test "$(hits pulled)" -eq "$N" -a "$(compiled pulled)" -eq 0
cold=$(ze_sum cold) pulled=$(ze_sum pulled)
ratio=$(awk -v a="$pulled" -v b="$cold" 'BEGIN { printf "%.4f", (b > 0 ? a / b : 1) }')
echo "oci_registry: A380 first run through a pulled pack: zeModuleCreate $pulled s against $cold s cold: ${ratio}x"
check "A380 first run through the pulled pack: ${ratio}x its cold run (0.05x or less)" \
	awk -v r="$ratio" 'BEGIN { exit !(r <= 0.05) }'

# ---- a fresh A380: the page's block 4 (only the oci:// remote) ------------------------------
(export JITCACHE_DIR=$T/remote1 JITCACHE_CONFIG=$T/doc.4.ini; present a380; run_all remote)
check "A380 first run through the oci:// remote: every module a remote hit, no compile" \
	test "$(all_logs remote | grep -c ': hit')" -eq "$N" -a "$(compiled remote)" -eq 0
rratio=$(awk -v a="$(ze_sum remote)" -v b="$cold" 'BEGIN { printf "%.4f", (b > 0 ? a / b : 1) }')
echo "oci_registry: A380 first run through the oci:// remote: zeModuleCreate $(ze_sum remote) s: ${rratio}x its cold run"
check "A380 first run through the oci:// remote: ${rratio}x its cold run (0.05x or less)" \
	awk -v r="$rratio" 'BEGIN { exit !(r <= 0.05) }'
export JITCACHE_TRUSTED_KEYS=$T/work/ci.key.pub

# ---- faults: one line each, and the program runs with the driver's own result -------------
# (the two quickest modules: each fault compiles them)
MODS="conv gemm_reg" N=2
fault() { # NAME URL-OR-"" [ENV...]: an A380 with an empty cache, every module once
	local name=$1 url=$2; shift 2
	(export JITCACHE_DIR=$T/f-$name JITCACHE_REMOTE="$url" JITCACHE_REMOTE_BACKOFF=3600
	 present a380; for v in "$@"; do export "${v?}"; done; run_all "$name")
}
ran() { test "$(created "$1")" -eq "$N" -a "$(compiled "$1")" -eq "$N"; }
said() { test "$(all_logs "$1" | grep -v 'credentials from' | grep -c "$2")" -eq 1; }
SLOW_PORT=$(free_port)
python3 "$ROOT/tests/helpers/trickle_proxy.py" "$SLOW_PORT" "${REGISTRY_HOST##*:}" "$T/slow.ready" 2>"$T/slow.log" &
STALL=$!
python3 "$ROOT/tests/helpers/oci_fault.py" 500 "$(dirname "$REGISTRY_CA")/srv.pem" \
	"$(dirname "$REGISTRY_CA")/srv.key" >"$T/500.port" 2>"$T/500.log" &
F500=$!
for i in $(seq 50); do [ -e "$T/slow.ready" ] && [ -s "$T/500.port" ] && break; sleep 0.1; done
# the proxy's address has the registry's credentials too
mkdir -p "$T/docker-slow"
sed "s|{\"auths\": {|{\"auths\": {\"127.0.0.1:$SLOW_PORT\": {\"auth\": \"$(printf ci:s3cret-pw | base64 -w0)\"}, |" \
	"$DOCKER_CONFIG/config.json" >"$T/docker-slow/config.json"
fault down "oci://127.0.0.1:$(free_port)/$ENTRIES"
check "registry down: every module created by the driver" ran down
check "... said in one line" said down "cannot connect"
fault slow "oci://127.0.0.1:$SLOW_PORT/$ENTRIES|timeout=1" DOCKER_CONFIG="$T/docker-slow"
check "registry slow (a proxy passing 512 bytes every 0.3 s): every module created by the driver" ran slow
check "... said in one line" said slow "no whole answer to GET within 1 s"
fault e500 "oci://127.0.0.1:$(cat "$T/500.port")/$ENTRIES"
check "registry answering 500: every module created by the driver" ran e500
check "... said in one line" said e500 "failed on the server: HTTP 500"
fault e401 "oci://$REGISTRY_HOST/$ENTRIES" DOCKER_CONFIG="$T/none"
check "registry answering 401 (no credentials): every module created by the driver" ran e401
check "... said in one line" said e401 "HTTP 401"
fault e404 "oci://$REGISTRY_HOST/jitcache/empty|ca-file=$REGISTRY_CA"
check "registry answering 404 (a repository without the entries): every module compiled" ran e404
kill "$STALL" "$F500" 2>/dev/null; wait "$STALL" "$F500" 2>/dev/null
# a blob whose bytes are not its digest, through pull and through the remote:
# every entry and the pack (the blobs over 4 KiB; manifests are blobs too)
for d in "$REGISTRY_DATA"/docker/registry/v2/blobs/sha256/*/*/data; do
	[ "$(stat -c %s "$d")" -gt 4096 ] && printf 'X' | dd of="$d" bs=1 seek=70 conv=notrunc 2>/dev/null
done
fault digest "oci://$REGISTRY_HOST/$ENTRIES"
check "blobs whose bytes are not their digest (remote): every module created by the driver" ran digest
check "... said in one line by each process (each its own blob)" \
	test "$(all_logs digest | grep -c 'is not what its digest says')" -eq "$N"
(export JITCACHE_DIR=$T/f-pulldigest; jcq pull "$REPO:1.4.0" --ca-file "$REGISTRY_CA" >"$T/pulldigest.out" 2>&1)
check "blob not its digest (pull): refused in one line, nothing imported" \
	sh -c "[ \$(grep -c '^jitcache: ' '$T/pulldigest.out') = 1 ] && grep -q 'is not what its digest says' '$T/pulldigest.out' && [ ! -d '$T/f-pulldigest/00' ]"
python3 "$ROOT/tests/helpers/oci_fault.py" put-manifest "$REGISTRY_HOST" "$REGISTRY_CA" \
	myorg/my-app-kernels 1.4.0 other-driver "$DOCKER_CONFIG/config.json" >"$T/other.log" 2>&1
(export JITCACHE_DIR=$T/f-other; present a380
 jcq pull "$REPO:other-driver" --ca-file "$REGISTRY_CA" >"$T/pullother.out" 2>&1; run_all other)
check "a manifest naming another driver (pull): refused in one line" \
	sh -c "[ \$(grep -c '^jitcache: ' '$T/pullother.out') = 1 ] && grep -q 'built for another driver' '$T/pullother.out'"
check "... and the program runs with the driver's own result" ran other
finish
