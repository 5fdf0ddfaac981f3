#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# The file tier (file:///PATH, tiers/file.c) in a directory others may write
# (issue 44, items 16 and 17), with the cache's own lookups (jc_lookup: no
# GPU needed):
# - a file planted under an entry's name is judged by its 64-byte header
#   before anything more is read: a 3.9 GB sparse file of zeros, or one whose
#   header is another key's, costs a lookup its header, not 4 GB of memory
#   (the lookup's peak RSS, from /usr/bin/time, stays under 200 MB);
# - a subdirectory 00..ff that is a symbolic link is never followed: the
#   victim's store does not land in the directory it points to (the victim's
#   own private one), nor is an entry read from there;
# - a subdirectory of another user in a directory only its owner may write is
#   not used; in a shared directory (mode 1777) it is, as before.
. "$(dirname "$0")/../lib.sh"
LOOKUP=$B/tests/jc_lookup
if [ ! -x "$LOOKUP" ]; then
	check "jc_lookup built (make tests)" false
	finish; exit $?
fi
TIME=/usr/bin/time
key() { printf '%02x%s' "$1" 0123456789abcdef0123456789abcd; } # the key of first byte N
K1=$(key 1) K2=$(key 2) K4=$(key 4) K5=$(key 5) K6=$(key 6) K7=$(key 7)
# look REMOTE_DIR KEY [ENV...]: a node with a fresh local cache asks the
# file remote for KEY (and stores 1000 bytes there on a miss); its line and
# its own lines in $T/look.out
n=0
look() {
	local dir=$1 k=$2
	shift 2
	n=$((n + 1))
	env JITCACHE_DIR="$T/node-$n" JITCACHE_REMOTE="file://$dir" "$@" \
		timeout 120 "$LOOKUP" "$k" >"$T/look.out" 2>&1
}
hit() { grep -q "^$1 hit " "$T/look.out"; }
miss() { grep -q "^$1 miss " "$T/look.out"; }

# Sound entries of K2 and K4, as a node stores them.
mkdir -p "$T/seed" "$T/shared" "$T/private"
look "$T/seed" "$K2" JC_LOOKUP_STORE=1000
look "$T/seed" "$K4" JC_LOOKUP_STORE=1000
check "a node stored sound entries of two keys in a file remote" \
	test -s "$T/seed/02/$K2" -a -s "$T/seed/04/$K4"

# ---- item 16: the header before the rest -------------------------------------
mkdir -p "$T/shared/05" "$T/shared/06"
truncate -s 3900M "$T/shared/05/$K5"
$TIME -f %M -o "$T/rss-zeros" env JITCACHE_DIR="$T/node-z" JITCACHE_REMOTE="file://$T/shared" \
	timeout 120 "$LOOKUP" "$K5" >"$T/look.out" 2>&1
check "3.9 GB of zeros under an entry's name (max_size 4G): a miss" miss "$K5"
rss=$(tail -n 1 "$T/rss-zeros")
check "... refused from its header: peak RSS $((rss / 1024)) MB < 200 MB (not 4 GB)" \
	test "$rss" -lt 204800
# A sound entry's header (K2's) then 3.9 GB: another key's entry.
cp "$T/seed/02/$K2" "$T/shared/06/$K6"
truncate -s 3900M "$T/shared/06/$K6"
$TIME -f %M -o "$T/rss-other" env JITCACHE_DIR="$T/node-o" JITCACHE_REMOTE="file://$T/shared" \
	timeout 120 "$LOOKUP" "$K6" >"$T/look.out" 2>&1
rss=$(tail -n 1 "$T/rss-other")
check "another key's header, 3.9 GB in all: a miss, peak RSS $((rss / 1024)) MB < 200 MB" \
	sh -c "grep -q '^$K6 miss ' '$T/look.out' && test $rss -lt 204800"
rm -f "$T/shared/05/$K5" "$T/shared/06/$K6"

# ---- item 17: no link followed, no other user's directory -------------------
ln -s "$T/private" "$T/shared/01"
look "$T/shared" "$K1" JC_LOOKUP_STORE=1000
check "subdirectory 01 a symlink to the victim's private directory: a miss" miss "$K1"
check "... nothing written into the private directory" test -z "$(ls -A "$T/private")"
check "... said in one line" grep -q "shared/01 is a symbolic link or not a directory: not followed" \
	"$T/look.out"
cp "$T/seed/02/$K2" "$T/private/$K2"
ln -s "$T/private" "$T/shared/02"
look "$T/shared" "$K2"
check "subdirectory 02 a symlink to a directory holding K2's sound entry: not read (a miss)" \
	miss "$K2"
rm "$T/shared/02" "$T/private/$K2"
mkdir "$T/shared/02"
cp "$T/seed/02/$K2" "$T/shared/02/$K2"
look "$T/shared" "$K2"
check "the same entry in a real subdirectory: a hit" hit "$K2"
look "$T/shared" "$K7" JC_LOOKUP_STORE=1000
check "a store into a subdirectory made there: written" test -s "$T/shared/07/$K7"
check "... and nothing else in the private directory" test -z "$(ls -A "$T/private")"

if [ "$(id -u)" -eq 0 ]; then
	# A remote directory only its owner (this user) may write, whose
	# subdirectory 04 someone else owns.
	mkdir -m 0755 "$T/mine" "$T/mine/04"
	cp "$T/seed/04/$K4" "$T/mine/04/"
	chown -R "$OTHER_UID" "$T/mine/04"
	look "$T/mine" "$K4"
	check "a private remote's subdirectory owned by uid $OTHER_UID: not used (a miss)" miss "$K4"
	check "... said in one line" grep -q "mine/04 belongs to uid $OTHER_UID" "$T/look.out"
	chmod 1777 "$T/mine"
	look "$T/mine" "$K4"
	check "the same in a shared directory (mode 1777): used (a hit)" hit "$K4"
else
	skip "subdirectories of another user: needs root to give one away"
fi
finish
