#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# The remote tier with Level Zero on Intel's real driver (simulated Arc):
# a fleet of "nodes" (processes with their own cache directories) sharing
# one Redis that this test starts on a random loopback port.
#
#   - node A compiles and stores locally and remotely; node B hits the
#     remote without compiling (compiles counted from the debug log), keeps
#     the entry locally, and its zeModuleCreate is >= 10x faster than A's;
#   - 4 nodes cold at once compile once in total (one takes the lease in
#     Redis, the others wait for its value);
#   - a read-only node uses the remote's entries and writes nothing to it;
#   - a well-formed value of another key planted under a key is refused,
#     counted, compiled anew and replaced;
#   - values zstd-compressed on the wire are read by a node that is not;
#   - `jitcache stats` shows the remote counters, `jitcache config` the
#     remote settings without the password.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/ze_common.bash"
. "$ROOT/tests/integration/remote_common.bash"
need_ze
need_redis
unset JITCACHE_LOCK_TIMEOUT JITCACHE_COMPRESS
# Values sent as the entry files, so that their sizes can be compared;
# compressed ones (the default) are tested below.
export JITCACHE_LOG=debug JITCACHE_REMOTE_COMPRESS=0

check "SPIR-V built with ocloc (~1 s of JIT)" spirv conv "$KERNELS/conv.cl"
check "SPIR-V built with ocloc (~0.5 s of JIT)" spirv reduce "$KERNELS/reduce.cl"
check "redis-server started on 127.0.0.1" start_redis main
export JITCACHE_REMOTE=redis://127.0.0.1:$REDIS_PORT_main
stat_of() { stats_in "$T/node-$1" "$2"; } # NODE FIELD
key_of() { # FILE: the key a node's debug log says it stored
	sed -n 's/.*stored [0-9]* bytes as \([0-9a-f]*\).*/\1/p' "$1" | head -n 1
}

# ---- A compiles, B hits the remote ------------------------------------------
node A "$CLIENT" link "$T/conv.spv"
check "node A: module created" grep -q "result 0x0 kernels 22" "$T/A.out"
check "node A: compiled once" test "$(compiles "$T/A.out")" -eq 1
check "node A: one value in Redis" test "$(rcli main DBSIZE)" -eq 1
check "node A: stats count the remote store" test "$(stat_of A remote_stores)" -eq 1
check "node A: ... and the bytes sent" test "$(stat_of A remote_bytes_out)" -gt 100000
key=$(key_of "$T/A.out")
check "node A: the value is the entry, under jitcache:v1:<key>" \
	test "$(rcli main STRLEN "jitcache:v1:$key")" -eq "$(stat -c %s "$T/node-A/${key:0:2}/$key")"
check "node A: no lease left behind" test "$(rcli main EXISTS "jitcache:{jitcache:v1:$key}:lease")" -eq 0

node B "$CLIENT" link "$T/conv.spv"
check "node B: module created" grep -q "result 0x0 kernels 22" "$T/B.out"
check "node B: compiled nothing" test "$(compiles "$T/B.out")" -eq 0
check "node B: a hit" grep -q ": hit, loaded" "$T/B.out"
check "node B: counted as a remote hit" test "$(stat_of B remote_hits)" -eq 1
check "node B: ... of the value's bytes" test "$(stat_of B remote_bytes_in)" -eq "$(rcli main STRLEN "jitcache:v1:$key")"
check "node B: kept the entry in its own directory" test "$(entries "$T/node-B")" -eq 1
cold=$(ze_time "$T/A.out")
warm=$(ze_time "$T/B.out")
ratio=$(awk -v a="$cold" -v b="$warm" 'BEGIN { printf "%.0f", a / b }')
echo "     zeModuleCreate: node A cold ${cold} s, node B remote hit ${warm} s (${ratio}x)"
check "node B's remote hit is >= 10x faster than node A's compile (${ratio}x)" \
	ge "$cold" "$(awk -v b="$warm" 'BEGIN { print b * 10 }')"
node B2 env JITCACHE_DIR=$T/node-B "$CLIENT" link "$T/conv.spv"
check "node B again: a local hit, the remote not asked" \
	test "$(stat_of B remote_hits)" -eq 1 -a "$(stat_of B hits)" -eq 2
JITCACHE_DIR=$T/node-B "$JITCACHE" stats >"$T/stats.txt"
check "jitcache stats: the remotes' row" grep -q "^remotes  *1 hit[,;]" "$T/stats.txt"
check "jitcache stats: remote traffic" grep -q "^remotes .*; .* in, 0 bytes out$" "$T/stats.txt"
check "jitcache stats: the hit from the Redis tier" grep -q "^hits by tier .*redis 1" "$T/stats.txt"

# ---- 4 nodes cold at once compile once ----------------------------------------
rcli main FLUSHALL >/dev/null
pids=()
for n in 1 2 3 4; do
	node "cold$n" "$CLIENT" link "$T/conv.spv" &
	pids+=($!)
done
wait "${pids[@]}" # (not the Redis)
check "4 cold nodes: all created the module" \
	test "$(cat "$T"/cold?.out | grep -c "result 0x0 kernels 22")" -eq 4
n_comp=$(compiles "$T"/cold?.out)
check "4 cold nodes: one compile in total ($n_comp)" test "$n_comp" -eq 1
check "4 cold nodes: the 3 others hit" test "$(cat "$T"/cold?.out | grep -c ": hit, loaded")" -eq 3
check "4 cold nodes: they waited for the compiling node" \
	test "$(cat "$T"/cold?.out | grep -c "compiled by another thread or process meanwhile")" -ge 1
echo "     4 nodes cold at once: $n_comp compile(s)"

# ---- read-only -------------------------------------------------------------------
before=$(rcli main DBSIZE)
node ro env JITCACHE_REMOTE_READ_ONLY=1 "$CLIENT" link "$T/reduce.spv"
check "read-only node: module created" grep -q "result 0x0 kernels 19" "$T/ro.out"
check "read-only node: compiled and stored locally" test "$(entries "$T/node-ro")" -eq 1
check "read-only node: wrote nothing to Redis (no value, no lease)" \
	test "$(rcli main DBSIZE)" -eq "$before"
check "read-only node: no remote store counted" test "$(stat_of ro remote_stores)" -eq 0
node ro2 env JITCACHE_DIR=$T/node-ro JITCACHE_REMOTE_READ_ONLY=1 "$CLIENT" link "$T/conv.spv"
check "read-only node: reads the remote" test "$(stat_of ro remote_hits)" -eq 1
check "read-only node: ... without compiling" test "$(compiles "$T/ro2.out")" -eq 0

# ---- a value of another key planted under a key ------------------------------------
rkey=$(key_of "$T/ro.out")
ckey=$(key_of "$T/cold1.out" ; key_of "$T/cold2.out"; key_of "$T/cold3.out"; key_of "$T/cold4.out")
ckey=$(echo "$ckey" | head -n 1)
rcli main COPY "jitcache:v1:$ckey" "jitcache:v1:$rkey" REPLACE >/dev/null
check "planted conv's value under reduce's key" \
	test "$(rcli main STRLEN "jitcache:v1:$rkey")" -eq "$(rcli main STRLEN "jitcache:v1:$ckey")"
node planted "$CLIENT" link "$T/reduce.spv"
check "planted: the module is reduce's, created" grep -q "result 0x0 kernels 19" "$T/planted.out"
check "planted: refused in one line" \
	test "$(grep -c "remote's value for $rkey is not a valid entry (holds another key)" "$T/planted.out")" -eq 1
check "planted: compiled instead" test "$(compiles "$T/planted.out")" -eq 1
check "planted: counted as a bad remote value" test "$(stat_of planted remote_corrupt)" -eq 1
check "planted: the store replaced it" \
	test "$(rcli main STRLEN "jitcache:v1:$rkey")" -eq "$(stat -c %s "$T/node-planted/${rkey:0:2}/$rkey")"
node after "$CLIENT" link "$T/reduce.spv"
check "planted: the next node hits the replaced value" \
	test "$(compiles "$T/after.out")" -eq 0 -a "$(stat_of after remote_hits)" -eq 1

# ---- zstd on the wire ------------------------------------------------------------------
rcli main FLUSHALL >/dev/null
node zA env -u JITCACHE_REMOTE_COMPRESS "$CLIENT" link "$T/conv.spv" # the default
zkey=$(key_of "$T/zA.out")
zlen=$(rcli main STRLEN "jitcache:v1:$zkey")
flen=$(stat -c %s "$T/node-zA/${zkey:0:2}/$zkey")
check "compressed on the wire by default: the value is under half the entry ($zlen of $flen bytes)" \
	test "$((zlen * 2))" -lt "$flen"
node zB "$CLIENT" link "$T/conv.spv"
check "compressed on the wire: a plain node hits it" \
	test "$(compiles "$T/zB.out")" -eq 0 -a "$(stat_of zB remote_hits)" -eq 1
check "compressed on the wire: kept uncompressed locally" \
	test "$(stat -c %s "$T/node-zB/${zkey:0:2}/$zkey")" -eq "$flen"

# ---- configuration ---------------------------------------------------------------------
JITCACHE_REMOTE="redis://ci:S3cretPw@127.0.0.1:$REDIS_PORT_main/2" "$JITCACHE" config >"$T/config.txt" 2>&1
check "jitcache config: the remote URL" grep -q "^remote.url *= redis://\*\*\*@127.0.0.1:$REDIS_PORT_main/2 " "$T/config.txt"
check_not "jitcache config: never the password" grep -q S3cretPw "$T/config.txt"
check "jitcache config: the other remote settings" \
	test "$(grep -c '^remote\.\(password_file\|read_only\|connect_timeout\|timeout\|backoff\|lease\|compress\) ' "$T/config.txt")" -eq 7
JITCACHE_REMOTE="redis://ci:S3cretPw@127.0.0.1:99999" "$JITCACHE" config >"$T/badurl.txt" 2>&1
check "a bad URL: one line" grep -q "JITCACHE_REMOTE='redis://\*\*\*@127.0.0.1:99999' is not valid: port" "$T/badurl.txt"
check_not "a bad URL: the password not printed" grep -q S3cretPw "$T/badurl.txt"
JITCACHE_REMOTE= "$JITCACHE" config >"$T/off.txt" 2>&1
check "JITCACHE_REMOTE= (empty) turns it off" grep -q "^remote.url *= off " "$T/off.txt"
finish
