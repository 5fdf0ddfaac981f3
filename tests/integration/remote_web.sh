#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: full: needs Ceph's radosgw in the test bed (make testbed-s3)
# Real programs through the web and S3 remotes (issue 29): Intel's OpenCL
# driver simulating an Arc GPU builds a kernel; nginx (WebDAV) and Ceph's
# radosgw, started here on 127.0.0.1, hold the entries.  Each node is a
# machine of its own: its own cache directory, sharing only the servers.
#   - a node stores to the server by the time it ends, and another node's
#     first run hits there without compiling, then keeps it locally;
#   - several remotes are asked in order, and a value found in a later one
#     is written back to the writable ones before it;
#   - a read-only remote is never written;
#   - a write never holds the program up: with a remote that takes 20 s to
#     answer a PUT, the build returns at once and the program ends within
#     exit_wait, the write dropped and counted, the value still local;
#   - a signed pack (jitcache export, unpacked under a static server's root)
#     makes a fresh machine's first run warm with trusted_keys, fetching only
#     what it needs; an untrusted pack is refused;
#   - libcurl is loaded only by a process that asks a web or S3 remote.
. "$(dirname "$0")/../lib.sh"
# node NAME CMD...: CMD as machine NAME (its own cache $T/node-NAME), output in $T/NAME.out
node() {
	local name=$1
	shift
	JITCACHE_DIR=$T/node-$name LD_PRELOAD="$LIB" "$@" >"$T/$name.out" 2>&1
}
compiles() { cat "$@" | grep -c -- 'miss, compiled\|: compiled in' || true; }
unset JITCACHE_LOCK_TIMEOUT JITCACHE_COMPRESS JITCACHE_REMOTE_READ_ONLY
export JITCACHE_LOG=debug
CLB=$B/tests/cl_build
if [ ! -x "$CLB" ]; then # make check builds it: its absence is a broken build
	check "test prerequisite $CLB present" false
	finish
	exit $?
fi
sim_dg2
if ! clinfo -l 2>/dev/null | grep -q "Intel(R) OpenCL"; then
	skip "Intel's OpenCL driver does not show a simulated GPU (intel-opencl-icd)"
	finish
	exit $?
fi
stat_of() { stats_in "$T/node-$1" "$2"; } # NODE FIELD
# (not leases/README, which a writable web remote's first miss PUTs: fleets.md)
objects() { find "$1" -type f -not -path '*/leases/*' 2>/dev/null | wc -l; }
# entry_files DIR: files named as a cache directory names entries (<2 hex>/<32 hex>)
entry_files() { find "$1" -type f 2>/dev/null | grep -Ec '/[0-9a-f]{2}/[0-9a-f]{32}$'; }
# build NODE VARIANT [ENV...]: node NODE builds the kernel, variant VARIANT
build() {
	local name=$1 variant=$2
	shift 2
	node "$name" env "$@" "$CLB" --platform Intel --source k.cl --options "-DSCALE=$variant"
}
built() { grep -q '^build=0 ' "$T/$1.out"; }
{ cat "$ROOT/tests/integration/compute.cl"; echo "#warning jitcache-web-test"; } >k.cl

check "nginx started (WebDAV, 127.0.0.1)" start_nginx_dav "$T/ng"
ROOTDIR=$T/ng/root
export JITCACHE_REMOTE=$NGINX_URL/c

# ---- one remote: store, hit, keep --------------------------------------------------
build hA 1.5f
check "http, node A: compiled" test "$(compiles "$T/hA.out")" -eq 1
check "http, node A: its value on the server by the time it ended" \
	test "$(objects "$ROOTDIR/c")" -eq 1 -a "$(stat_of hA remote_stores)" -eq 1
check "http, node A: laid out as a cache directory (<2 hex>/<key>)" \
	test "$(entry_files "$ROOTDIR/c")" -eq 1
build hB 1.5f
check "http, node B: builds" built hB
check "http, node B: no compile, a hit from the web server" \
	test "$(compiles "$T/hB.out")" -eq 0 -a "$(stat_of hB http)" -eq 1
check "http, node B: the build log replayed" grep -q jitcache-web-test "$T/hB.out"
build hB 1.5f
check "http, node B again: a local hit, the server not asked" \
	test "$(stat_of hB http)" -eq 1 -a "$(stat_of hB hits)" -eq 2 -a "$(compiles "$T/hB.out")" -eq 0

# ---- several remotes: order and backfill ---------------------------------------------
build hC 1.5f JITCACHE_REMOTE="$NGINX_URL/team $NGINX_URL/c"
check "two remotes: the second answers (the first has nothing)" \
	test "$(compiles "$T/hC.out")" -eq 0 -a "$(stat_of hC http)" -eq 1
check "two remotes: the value written back to the first by the time it ended" \
	test "$(objects "$ROOTDIR/team")" -eq 1

# ---- read-only remotes ----------------------------------------------------------------
build hD 2.5f JITCACHE_REMOTE="$NGINX_URL/c|read-only $NGINX_URL/w"
check "read-only first, writable second: compiled, written only to the second" \
	eval 'test "$(compiles "$T/hD.out")" -eq 1 -a "$(objects "$ROOTDIR/c")" -eq 1 -a "$(objects "$ROOTDIR/w")" -eq 1'
build hE 3.5f JITCACHE_REMOTE="$NGINX_URL/ro|read-only"
check "a read-only remote: nothing written" \
	test "$(objects "$ROOTDIR/ro")" -eq 0 -a "$(stat_of hE remote_stores)" -eq 0

# ---- a write never holds the program up ----------------------------------------------
port=$(free_port)
rm -f "$T/ready"
python3 "$ROOT/tests/helpers/fault_http.py" slowput "$port" "$T/ready" &
SERVER_PIDS[fault]=$!
for i in $(seq 1 100); do [ -e "$T/ready" ] && break; sleep 0.05; done
slow_env=(JITCACHE_REMOTE="$NGINX_URL/s http://127.0.0.1:$port/x|timeout=20"
	JITCACHE_REMOTE_EXIT_WAIT=1 JITCACHE_LOG=info)
t0=$(date +%s.%N)
build hS 4.5f "${slow_env[@]}"
t1=$(date +%s.%N)
wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
secs=$(sed -n 's/.*seconds=\([0-9.]*\).*/\1/p' "$T/hS.out")
echo "     a PUT answered after 20 s: clBuildProgram ${secs} s, the program ${wall} s"
check "slow remote: the build returned before the write was answered (${secs} s < 10 s)" \
	eval 'built hS && ! ge "${secs:-99}" 10'
check "slow remote: the program ended within exit_wait, not the 20 s timeout (${wall} s)" \
	eval '! ge "$wall" 10'
check "slow remote: the first remote's write was done" test "$(objects "$ROOTDIR/s")" -eq 1
check "slow remote: the unanswered write dropped and counted, said in one line" \
	eval 'test "$(stat_of hS remote_dropped)" -eq 1 && grep -c "remote writes dropped at exit" "$T/hS.out" | grep -qx 1'
build hS 4.5f "${slow_env[@]}"
check "slow remote: the next run hits locally" \
	eval 'built hS && test "$(stat_of hS hits)" -eq 1 && grep -q "1 hits, 0 misses" "$T/hS.out"'
stop_server fault

# ---- faults: the program's result unchanged, nothing lost locally ----------------------
dead=$(free_port)
build fD 9.5f JITCACHE_REMOTE="http://127.0.0.1:$dead/c" JITCACHE_LOG=warn
check "web remote down: the program builds, one line says why" \
	eval 'built fD && test "$(grep -c "^jitcache: " "$T/fD.out")" -eq 1 && grep -q "cannot connect\|connect" "$T/fD.out"'
build fD 9.5f JITCACHE_REMOTE="http://127.0.0.1:$dead/c" JITCACHE_LOG=info
check "web remote down: the next run hits locally" \
	eval 'built fD && grep -q "1 hits, 0 misses" "$T/fD.out"'

# ---- libcurl only where a web or S3 remote is asked ---------------------------------
LD_DEBUG=libs LD_PRELOAD="$LIB" JITCACHE_DIR=$T/node-cat cat /dev/null 2>"$T/cat.libs"
check "a program that looks nothing up, http remote set: no libcurl loaded" \
	eval '! grep -q "libcurl" "$T/cat.libs" && grep -q "libjitcache" "$T/cat.libs"'
build lA 5.5f LD_DEBUG=libs JITCACHE_REMOTE=
check "no remote: no libcurl loaded" eval 'built lA && ! grep -q "init: .*libcurl" "$T/lA.out"'
build lB 5.5f LD_DEBUG=libs
check "an http remote asked: libcurl loaded" eval 'built lB && grep -q "init: .*libcurl" "$T/lB.out"'

# ---- a signed pack on a static server -----------------------------------------------
JITCACHE="$B/jitcache-admin"
"$JITCACHE" keygen "$T/ci.key" "CI" >/dev/null 2>&1
"$JITCACHE" keygen "$T/other.key" "someone else" >/dev/null 2>&1
chmod 700 "$T"
build ci1 6.5f JITCACHE_REMOTE= JITCACHE_SIGNING_KEY="$T/ci.key"
node ci2 env JITCACHE_DIR="$T/node-ci1" JITCACHE_REMOTE= JITCACHE_SIGNING_KEY="$T/ci.key" \
	"$CLB" --platform Intel --source k.cl --options "-DSCALE=7.5f"
JITCACHE_DIR=$T/node-ci1 "$JITCACHE" export "$T/pack.tar.zst" >/dev/null 2>&1
mkdir -p "$ROOTDIR/pack"
tar --zstd -xf "$T/pack.tar.zst" -C "$ROOTDIR/pack"
check "the pack: two signed entries unpacked under the server's root" \
	test "$(entry_files "$ROOTDIR/pack")" -eq 2
gets_before=$(grep -c "GET /pack/" "$T/ng/access.log")
build fresh 6.5f JITCACHE_REMOTE="$NGINX_URL/pack|read-only" JITCACHE_TRUSTED_KEYS="$T/ci.key.pub"
check "a fresh machine, pack + trusted_keys: its first run warm (no compile, a web hit)" \
	eval 'built fresh && test "$(compiles "$T/fresh.out")" -eq 0 -a "$(stat_of fresh http)" -eq 1'
check "... fetching only the entry it needs (1 GET of the pack's 2)" \
	test "$(($(grep -c "GET /pack/" "$T/ng/access.log") - gets_before))" -eq 1
build stranger 6.5f JITCACHE_REMOTE="$NGINX_URL/pack|read-only" JITCACHE_TRUSTED_KEYS="$T/other.key.pub"
check "a machine trusting another key: the pack's entry refused, compiled here" \
	eval 'built stranger && test "$(compiles "$T/stranger.out")" -eq 1 -a "$(stat_of stranger untrusted)" -ge 1'

# ---- S3 (radosgw) ---------------------------------------------------------------------
if [ -x "${JITCACHE_TESTBED:-/var/tmp/jitcache-testbed}/usr/bin/radosgw" ]; then
	check "radosgw started (S3, 127.0.0.1)" start_radosgw "$T/rgw"
	check "bucket made" s3_make_bucket jitcache-web
	export JITCACHE_REMOTE=s3://jitcache-web/fleet
	build sA 8.5f
	check "s3, node A: compiled and stored" \
		test "$(compiles "$T/sA.out")" -eq 1 -a "$(stat_of sA remote_stores)" -eq 1
	build sB 8.5f
	check "s3, node B: no compile, a hit from the bucket" \
		eval 'built sB && test "$(compiles "$T/sB.out")" -eq 0 -a "$(stat_of sB s3)" -eq 1'
	build sW 8.5f AWS_SECRET_ACCESS_KEY=wrong JITCACHE_LOG=warn
	check "s3, wrong secret: the program builds (compiled here), one line says why" \
		eval 'built sW && test "$(grep -c "^jitcache: " "$T/sW.out")" -eq 1 && grep -qi "refused\|403\|denied" "$T/sW.out"'
	build sW 8.5f AWS_SECRET_ACCESS_KEY=wrong JITCACHE_LOG=info
	check "s3, wrong secret: the next run hits locally" eval 'built sW && grep -q "1 hits, 0 misses" "$T/sW.out"'
	stop_server radosgw
else
	# make check installs it (make testbed-s3): its absence is a broken set-up
	check "radosgw in the test bed (make testbed-s3)" false
fi
finish
