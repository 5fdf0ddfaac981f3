#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# Signed entries (trust/sign.h): with trusted_keys set, a party that can
# write the Redis database, a layer or an archive, but holds no private key,
# cannot choose the code a reader runs.  Each forged case below is served
# by a reader without trusted keys (today's trust model: the "without
# trusted keys" checks) and refused, counted and compiled anew with them:
#   - an unsigned value, a value signed by another key, a signed value whose
#     payload was changed or that was moved to another key (checksums made
#     to match again, the signature kept), in Redis, in a layer and in an
#     archive for `jitcache import`;
#   - trusted keys that cannot be read, or an invalid setting: nothing from
#     Redis, layers or archives is accepted (fail closed);
#   - properly signed entries hit, and keep their signature when kept
#     locally or imported;
#   - end to end on the real driver (simulated Arc): a signing node stores a
#     Level Zero module in Redis, a node with only the public key hits it;
#     an unsigned value makes that node compile, with the same kernels.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/ze_common.bash"
. "$ROOT/tests/integration/remote_common.bash"
need_ze
need_redis
STORE=$B/tests/jc_store LOOKUP=$B/tests/jc_lookup FORGE=$B/tests/jc_forge
for p in "$STORE" "$LOOKUP" "$FORGE"; do
	[ -x "$p" ] || { check "$p built (make tests)" false; finish; exit; }
done
unset JITCACHE_LOCK_TIMEOUT JITCACHE_COMPRESS JITCACHE_SIGNING_KEY JITCACHE_TRUSTED_KEYS
export JITCACHE_REMOTE_COMPRESS=0

# ---- keys -----------------------------------------------------------------------------
"$JITCACHE" keygen "$T/a.key" "ci signer" >"$T/keygen.out" 2>&1
check "keygen: makes a private and a public key" test -s "$T/a.key" -a -s "$T/a.key.pub"
check "keygen: the private key is 0600" test "$(stat -c %a "$T/a.key")" = 600
check "keygen: prints the public key line" \
	grep -qE '^jitcache-ed25519 [A-Za-z0-9+/=]{44} ci signer$' "$T/keygen.out"
check_not "keygen: never overwrites a key" "$JITCACHE" keygen "$T/a.key"
"$JITCACHE" keygen "$T/b.key" >/dev/null 2>&1
A=$T/a.key.pub OTHER=$T/b.key.pub
K1=101316191c1f2225282b2e3134373a3d # jc_store's first key
K2=1114171a1d202326292c2f3235383b3e # its second
lookup() { # NAME VAR=VALUE... -- KEY: jc_lookup's answer ("hit" or "miss")
	local name=$1; shift
	local vars=()
	while [ "$1" != -- ]; do vars+=("$1"); shift; done
	shift
	env JITCACHE_DIR="$T/node-$name" "${vars[@]}" "$LOOKUP" "$1" >"$T/$name.out" 2>&1
	awk -v k="$1" '$1 == k { print $2 }' "$T/$name.out"
}
untrusted() { # NAME: the untrusted count in that node's statistics
	JITCACHE_DIR=$T/node-$1 "$JITCACHE" stats --json |
		python3 -c "import json,sys; print(json.load(sys.stdin)['untrusted'])"
}

# A signed cache and an unsigned one, two entries each.
JITCACHE_SIGNING_KEY=$T/a.key "$STORE" "$T/signed" 2 4000 >"$T/signed.list"
"$STORE" "$T/plain" 2 4000 >"$T/plain.list"
S1=$(sed -n 1p "$T/signed.list") P1=$(sed -n 1p "$T/plain.list")
check "a signing node's entry is flagged signed and 72 bytes longer" \
	sh -c "test $(( $(od -An -tu1 -j12 -N1 "$S1") & 4 )) -eq 4 && test $(stat -c %s "$S1") -eq $(( $(stat -c %s "$P1") + 72 ))"
check "a node without keys reads a signed entry (hit)" \
	test "$(JITCACHE_DIR=$T/signed "$LOOKUP" "$K1" | awk '{ print $2 }')" = hit

# ---- Redis ----------------------------------------------------------------------------
check "redis-server started" start_redis main
URL=redis+unix://$REDIS_SOCK_main
put() { rcli main -x SET "jitcache:v1:$1" <"$2" >/dev/null; }
R=(JITCACHE_REMOTE="$URL")
TR=(JITCACHE_REMOTE="$URL" JITCACHE_TRUSTED_KEYS="$A")

put "$K1" "$S1"
check "Redis, signed by a trusted key: a hit" test "$(lookup r-signed "${TR[@]}" -- "$K1")" = hit
kept=$T/node-r-signed/${K1:0:2}/$K1
check "... kept locally with its signature" test "$(stat -c %s "$kept" 2>/dev/null)" = "$(stat -c %s "$S1")"

put "$K1" "$P1"
check "Redis, unsigned: served without trusted keys" test "$(lookup r-plain0 "${R[@]}" -- "$K1")" = hit
check "Redis, unsigned: refused with trusted keys (a miss)" test "$(lookup r-plain "${TR[@]}" -- "$K1")" = miss
check "... counted" test "$(untrusted r-plain)" -ge 1
check "... said in one line" grep -q "^jitcache: the remote's value for $K1 is refused: not signed" "$T/r-plain.out"
check "... nothing kept locally" test "$(entries "$T/node-r-plain")" -eq 0

JITCACHE_SIGNING_KEY=$T/b.key "$STORE" "$T/signed-b" 1 4000 >"$T/b.list"
put "$K1" "$(cat "$T/b.list")"
check "Redis, signed by a key not trusted: refused" test "$(lookup r-other "${TR[@]}" -- "$K1")" = miss
check "... said why" grep -q "signed by a key that is not trusted" "$T/r-other.out"

cp "$S1" "$T/flipped" && "$FORGE" flip "$T/flipped"
put "$K1" "$T/flipped"
check "Redis, signed payload changed (checksum redone): served without trusted keys" \
	test "$(lookup r-flip0 "${R[@]}" -- "$K1")" = hit
check "Redis, signed payload changed: refused with trusted keys" \
	test "$(lookup r-flip "${TR[@]}" -- "$K1")" = miss
check "... said why" grep -q "the signature does not verify" "$T/r-flip.out"

cp "$S1" "$T/moved" && "$FORGE" rekey "$T/moved" "$K2"
put "$K2" "$T/moved"
check "Redis, a signed value moved to another key: served without trusted keys" \
	test "$(lookup r-move0 "${R[@]}" -- "$K2")" = hit
check "Redis, a signed value moved to another key: refused with trusted keys" \
	test "$(lookup r-move "${TR[@]}" -- "$K2")" = miss

put "$K1" "$S1"
check "trusted keys unreadable: a signed value is refused too (fail closed)" \
	test "$(lookup r-nokeys JITCACHE_REMOTE="$URL" JITCACHE_TRUSTED_KEYS="$T/none.pub" -- "$K1")" = miss
check "... said in one line" grep -q "no trusted key could be read" "$T/r-nokeys.out"
long=$(printf '/x%.0s' $(seq 1 3000))
check "trusted keys setting invalid (too long): refused too" \
	test "$(lookup r-invalid JITCACHE_REMOTE="$URL" JITCACHE_TRUSTED_KEYS="$A:$long" -- "$K1")" = miss
check "... said so" grep -q "trusted_keys has an invalid value" "$T/r-invalid.out"

# A list naming no file ("$A:$B" with both unset) is a list given: it fails
# closed, as an unreadable one does, rather than turning verification off.
put "$K1" "$P1"
for v in ":" "" "::"; do
	check "trusted keys '$v' (a list naming no file): an unsigned value is refused" \
		test "$(lookup "r-empty$v" JITCACHE_REMOTE="$URL" JITCACHE_TRUSTED_KEYS="$v" -- "$K1")" = miss
done
check "... said in one line" grep -q "JITCACHE_TRUSTED_KEYS=':' is not valid: names no file; nothing from Redis, layers or archives is accepted" "$T/r-empty:.out"
printf '[trust]\ntrusted_keys = :\n' >"$T/empty-keys.ini"
check "trusted_keys = : in the ini file: refused too" \
	test "$(lookup r-emptyini JITCACHE_REMOTE="$URL" JITCACHE_CONFIG="$T/empty-keys.ini" -- "$K1")" = miss
JITCACHE_TRUSTED_KEYS=: "$JITCACHE" config >"$T/config-empty.out" 2>&1
check "jitcache config says nothing is accepted (not 'none')" \
	grep -q "^trust.trusted_keys *= INVALID: nothing from Redis, layers or archives is accepted" "$T/config-empty.out"

# Trust anchors are checked as the cache directory and the signing key are:
# a public key file others can change is no anchor (refused in one line; with
# no other key, nothing is accepted).
put "$K1" "$S1"
mkdir -p "$T/keys-gw" "$T/keys-ow" "$T/keys-sticky"
cp "$A" "$T/keys-gw/a.pub" && chmod 664 "$T/keys-gw/a.pub"
check "a key file writable by the group: a signed value is refused" \
	test "$(lookup r-keygw JITCACHE_REMOTE="$URL" JITCACHE_TRUSTED_KEYS="$T/keys-gw/a.pub" -- "$K1")" = miss
check "... said in one line" grep -q "trusted key $T/keys-gw/a.pub: is writable by group or others" "$T/r-keygw.out"
cp "$A" "$T/keys-ow/a.pub" && chmod 644 "$T/keys-ow/a.pub" && chmod 777 "$T/keys-ow"
check "a key file in a directory others can write (not sticky): refused" \
	test "$(lookup r-keyow JITCACHE_REMOTE="$URL" JITCACHE_TRUSTED_KEYS="$T/keys-ow/a.pub" -- "$K1")" = miss
check "... said in one line" grep -q "trusted key $T/keys-ow/a.pub: is in a directory writable by group or others" "$T/r-keyow.out"
ln -s "$T/keys-ow/a.pub" "$T/a-link.pub"
check "... also through a symlink to it" \
	test "$(lookup r-keylink JITCACHE_REMOTE="$URL" JITCACHE_TRUSTED_KEYS="$T/a-link.pub" -- "$K1")" = miss
cp "$A" "$T/keys-sticky/a.pub" && chmod 644 "$T/keys-sticky/a.pub" && chmod 1777 "$T/keys-sticky"
check "a key file of the user's in a sticky directory (as /tmp): a hit" \
	test "$(lookup r-keysticky JITCACHE_REMOTE="$URL" JITCACHE_TRUSTED_KEYS="$T/keys-sticky/a.pub" -- "$K1")" = hit
check "an unsafe key beside a safe one: the safe one still verifies" \
	test "$(lookup r-keyboth JITCACHE_REMOTE="$URL" JITCACHE_TRUSTED_KEYS="$T/keys-gw/a.pub:$A" -- "$K1")" = hit
chmod 755 "$T/keys-ow" "$T/keys-sticky"
rcli main FLUSHALL >/dev/null

# ---- layers ---------------------------------------------------------------------------
chmod -R go-w "$T/signed" "$T/plain" "$T/signed-b"
check "layer, signed by a trusted key: a hit" \
	test "$(lookup l-signed JITCACHE_LAYERS="$T/signed" JITCACHE_TRUSTED_KEYS="$A" -- "$K1")" = hit
check "layer, unsigned: served without trusted keys" \
	test "$(lookup l-plain0 JITCACHE_LAYERS="$T/plain" -- "$K1")" = hit
check "layer, unsigned: refused with trusted keys" \
	test "$(lookup l-plain JITCACHE_LAYERS="$T/plain" JITCACHE_TRUSTED_KEYS="$A" -- "$K1")" = miss
check "... counted" test "$(untrusted l-plain)" -ge 1
mkdir -p "$T/forged/${K1:0:2}" && cp "$S1" "$T/forged/${K1:0:2}/$K1" && "$FORGE" flip "$T/forged/${K1:0:2}/$K1"
chmod -R go-w "$T/forged"
check "layer, signed entry changed: served without trusted keys" \
	test "$(lookup l-flip0 JITCACHE_LAYERS="$T/forged" -- "$K1")" = hit
check "layer, signed entry changed: refused with trusted keys" \
	test "$(lookup l-flip JITCACHE_LAYERS="$T/forged" JITCACHE_TRUSTED_KEYS="$A" -- "$K1")" = miss
check "layer, signed by a key not trusted: refused" \
	test "$(lookup l-other JITCACHE_LAYERS="$T/signed-b" JITCACHE_TRUSTED_KEYS="$A" -- "$K1")" = miss
check "layer, unsigned, trusted keys ':' (naming no file): refused" \
	test "$(lookup l-empty JITCACHE_LAYERS="$T/plain" JITCACHE_TRUSTED_KEYS=: -- "$K1")" = miss

# ---- archives -------------------------------------------------------------------------
JITCACHE_DIR=$T/plain "$JITCACHE" export "$T/plain.tar.zst" >/dev/null 2>&1
JITCACHE_DIR=$T/signed "$JITCACHE" export "$T/signed.tar.zst" >/dev/null 2>&1
JITCACHE_DIR=$T/imp-plain0 "$JITCACHE" import "$T/plain.tar.zst" >"$T/imp-plain0.out" 2>&1
check "import, unsigned: accepted without trusted keys" test "$(entries "$T/imp-plain0")" -eq 2
JITCACHE_DIR=$T/imp-plain JITCACHE_TRUSTED_KEYS=$A "$JITCACHE" import "$T/plain.tar.zst" >"$T/imp-plain.out" 2>&1
check "import, unsigned: every member refused with trusted keys" \
	sh -c "test $(entries "$T/imp-plain") -eq 0 && grep -q '; 2 refused' '$T/imp-plain.out'"
check "... said why, one line per member" test "$(grep -c ': not signed; refused' "$T/imp-plain.out")" -eq 2
JITCACHE_DIR=$T/imp-signed JITCACHE_TRUSTED_KEYS=$A "$JITCACHE" import "$T/signed.tar.zst" >"$T/imp-signed.out" 2>&1
check "import, signed by a trusted key: accepted" test "$(entries "$T/imp-signed")" -eq 2
check "... with their signatures (a layer of it serves a trusting node)" \
	test "$(chmod -R go-w "$T/imp-signed"; lookup l-imp JITCACHE_LAYERS="$T/imp-signed" JITCACHE_TRUSTED_KEYS="$A" -- "$K2")" = hit

# ---- end to end: a Level Zero module on the real driver ----------------------------
check "SPIR-V built with ocloc" spirv reduce "$KERNELS/reduce.cl"
want=$(kernels "$T/reduce.spv")
export JITCACHE_REMOTE=$URL JITCACHE_LOG=debug
JITCACHE_SIGNING_KEY=$T/a.key node writer "$CLIENT" link "$T/reduce.spv"
JITCACHE_TRUSTED_KEYS=$A node reader "$CLIENT" link "$T/reduce.spv"
check "driver: the signing node compiled and stored" grep -q 'miss, compiled' "$T/writer.out"
check "driver: a node with the public key hits Redis ($want kernels)" \
	sh -c "grep -q 'hit, loaded' '$T/reader.out' && grep -q 'result 0x0 kernels $want' '$T/reader.out'"
rcli main FLUSHALL >/dev/null
node plainwriter "$CLIENT" link "$T/reduce.spv"
JITCACHE_TRUSTED_KEYS=$A node reader2 "$CLIENT" link "$T/reduce.spv"
check "driver: an unsigned value is refused and compiled anew, same kernels" \
	sh -c "grep -q 'miss, compiled' '$T/reader2.out' && grep -q 'result 0x0 kernels $want' '$T/reader2.out'"
finish
