#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# Promises about the cache directory that hold without a GPU (the store is
# filled by tests/helpers/jc_store, the commands are `jitcache`'s):
# a shared cache is created 0777 less the umask, as documented; an invalid
# JITCACHE_LAYERS is ignored whole and `jitcache config` says so; `jitcache
# verify` says what it could not check or remove and then exits 1.
. "$(dirname "$0")/../lib.sh"
STORE=$B/tests/jc_store
[ -x "$STORE" ] || { skip "build/tests/jc_store is not built (make tests)"; finish; exit; }
mode() { stat -c %a "$1"; }
# Flip one byte of FILE at OFFSET (the payload starts at 64).
flip() {
	python3 -c "import sys
f = open(sys.argv[1], 'r+b'); f.seek(int(sys.argv[2])); b = f.read(1)
f.seek(int(sys.argv[2])); f.write(bytes([b[0] ^ 0xff]))" "$1" "$2"
}

# ---- item 6: a shared cache honours the umask ---------------------------------
(umask 002 && JITCACHE_SHARED=1 JITCACHE_DIR=$T/team/cache "$JITCACHE" stats >/dev/null 2>"$T/shared.err")
check "shared, umask 002: the new directory is 775 ($(mode "$T/team/cache"))" test "$(mode "$T/team/cache")" = 775
check "shared, umask 002: its statistics file is 660 (the group's; others could hold its locks)" test "$(mode "$T/team/cache/stats")" = 660
(umask 002 && "$STORE" "$T/team/cache" 1 100 >/dev/null 2>&1 || true)
(umask 002 && JITCACHE_SHARED=1 JITCACHE_DIR=$T/team2 "$JITCACHE" stats >/dev/null 2>&1)
check "private (not shared), umask 000: still 700" \
	sh -c "umask 000 && JITCACHE_DIR='$T/private' '$JITCACHE' stats >/dev/null && test \$(stat -c %a '$T/private') = 700"
# A member of the group, not the owner, uses it: lookups and stores work.
if user_setup "$STORE"; then
	chgrp "$OTHER_GID" "$T/team2" "$T/team2/stats" 2>/dev/null
	chmod g+s "$T/team2"
	chmod o+x "$T"
	if as_user test -w "$T/team2"; then
		as_user sh -c "umask 002 && JITCACHE_SHARED=1 '$U/jc_store' '$T/team2' 3 100" >"$T/member.out" 2>&1
		check "shared: a group member ($USER_NAME) stores into it" test "$(wc -l <"$T/member.out")" -eq 3
	else
		skip "shared: $USER_NAME cannot reach $T"
	fi
else
	skip "no other user to be a group member"
fi

# ---- item 7: an invalid JITCACHE_LAYERS is ignored whole ------------------------
mkdir -p "$T/l1" && chmod 755 "$T/l1"
long="$T/l1:$(printf '/x%.0s' $(seq 1 2100))"
JITCACHE_LAYERS=$long "$JITCACHE" config >"$T/layers.out" 2>"$T/layers.err"
check "layers too long: one line says it is ignored" grep -q "^jitcache: JITCACHE_LAYERS='.*' is not valid: .*; ignored" "$T/layers.err"
check "layers too long: no layer in effect" grep -q '^cache.layers *= none ' "$T/layers.out"
check "layers too long: jitcache config says it was invalid" grep -q '^cache.layers .*INVALID value in env JITCACHE_LAYERS ignored' "$T/layers.out"
sed -n 's/^cache.layers/     cache.layers/p' "$T/layers.out" | cut -c1-150

# ---- item 8: verify says what it could not check, and exits 1 --------------------
"$STORE" "$T/v1" 3 5000 >"$T/v1.list"
ln -s "$T/l1" "$T/v1/ab"
JITCACHE_DIR=$T/v1 "$JITCACHE" verify >"$T/v0.out" 2>&1
check "verify, a symlinked subdirectory (not followed): exit 1" test $? -eq 1
flip "$(head -n 1 "$T/v1.list")" 100
JITCACHE_DIR=$T/v1 "$JITCACHE" verify >"$T/v1.out" 2>&1
check "verify, a symlinked subdirectory and a bad entry: exit 1" test $? -eq 1
check "... the subdirectory named" grep -q "^could not check $T/v1/ab: " "$T/v1.out"
check "... the bad entry removed and named" grep -q "^removed $(head -n 1 "$T/v1.list"): checksum mismatch" "$T/v1.out"
check "... the summary counts both" grep -q "^2 good entries (.*), 1 bad removed; 1 entries or subdirectories could not be checked" "$T/v1.out"
rm "$T/v1/ab"
JITCACHE_DIR=$T/v1 "$JITCACHE" verify >"$T/v1b.out" 2>&1
check "verify of a sound cache: exit 0" test $? -eq 0

# A read-only cache (its owner cannot write it): every entry is still
# checked, a bad one named, and the exit status is 1.
if user_setup "$STORE" "$JITCACHE_ADMIN"; then
	as_user "$U/jc_store" "$U/ro" 3 5000 >"$T/ro.list" 2>&1
	bad=$(head -n 1 "$T/ro.list")
	flip "$bad" 100
	chmod -R a-w "$U/ro"
	as_user env JITCACHE_DIR="$U/ro" "$U/jitcache-admin" verify >"$T/ro.out" 2>&1
	check "verify of a read-only cache with a bad entry ($USER_NAME): exit 1" test $? -eq 1
	check "... names the bad entry it could not remove" grep -q "^bad $bad: checksum mismatch; could not remove it" "$T/ro.out"
	check "... and checked the others" grep -q "^2 good entries" "$T/ro.out"
	cat "$T/ro.out" | sed 's/^/     /'
else
	skip "no other user to own a read-only cache"
fi
finish
