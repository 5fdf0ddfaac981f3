#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# Who can put GPU code into this user's cache.  A new cache directory is
# private (0700, files 0600); a directory that others can write, or that
# another user owns, is refused in one line unless marked shared (env or
# ini); below the directory, symlinks planted in place of an entry, a lock
# file or the statistics file are never followed.  Programs keep working in
# every case, with the driver's own results.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/ze_common.bash"
need_ze

check "SPIR-V built with ocloc" spirv reduce "$KERNELS/reduce.cl"
works() { grep -q "result 0x0 kernels 19" "$1"; }
lines() { count "^jitcache:" "$1"; }
run() { # OUT [VAR=VALUE...]: reduce through jitcache
	local out=$1; shift
	env "$@" LD_PRELOAD="$LIB" "$CLIENT" link "$T/reduce.spv" >"$T/$out" 2>&1
}
mode() { stat -c %a "$1"; }

# ---- a new cache directory is private, whatever the umask -------------------
D=$T/home/.cache/jitcache
(umask 000 && run new.out JITCACHE_DIR="$D")
check "new: the program works" works "$T/new.out"
check "new: one entry" test "$(entries "$D")" -eq 1
check "new: the directory is 0700 (under umask 000)" test "$(mode "$D")" = 700
check "new: missing parents too are 0700" test "$(mode "$T/home/.cache")" = 700
check "new: subdirectories are 0700" \
	test -z "$(find "$D" -mindepth 1 -type d ! -perm 0700)" -a -n "$(find "$D" -mindepth 1 -type d)"
check "new: files (entry, lock, statistics) are 0600" \
	test -z "$(find "$D" -type f ! -perm 0600)" -a "$(find "$D" -type f | wc -l)" -ge 3

# ---- a directory others can write is refused, unless shared ----------------
for m in 777 770 1777; do
	D=$T/open$m
	mkdir "$D" && chmod $m "$D"
	run open$m.out JITCACHE_DIR="$D"
	check "mode $m: the program works" works "$T/open$m.out"
	check "mode $m: one line from jitcache" test "$(lines "$T/open$m.out")" -eq 1
	check "mode $m: it says why and how to share" \
		grep -q "^jitcache: cache directory $D is writable by group or others (mode ${m: -3}).*JITCACHE_SHARED=1" \
		"$T/open$m.out"
	check "mode $m: nothing written" test -z "$(ls -A "$D")"
done
echo "     mode 777: $(grep '^jitcache:' "$T/open777.out")"
check_not "mode 777: the admin command refuses it too" env JITCACHE_DIR="$T/open777" "$JITCACHE" stats

run shared-env.out JITCACHE_DIR="$T/open777" JITCACHE_SHARED=1
check "mode 777, JITCACHE_SHARED=1: the program works" works "$T/shared-env.out"
check "mode 777, JITCACHE_SHARED=1: no line" test "$(lines "$T/shared-env.out")" -eq 0
check "mode 777, JITCACHE_SHARED=1: stored" test "$(entries "$T/open777")" -eq 1

printf '[cache]\nshared = 1\n' >"$T/shared.ini"
run shared-ini.out JITCACHE_DIR="$T/open770" JITCACHE_CONFIG="$T/shared.ini"
check "mode 770, [cache] shared = 1 in the ini: the program works" works "$T/shared-ini.out"
check "mode 770, [cache] shared = 1 in the ini: no line" test "$(lines "$T/shared-ini.out")" -eq 0
check "mode 770, [cache] shared = 1 in the ini: stored" test "$(entries "$T/open770")" -eq 1
check "mode 770, shared: jitcache config names the ini line" \
	sh -c "JITCACHE_CONFIG='$T/shared.ini' '$JITCACHE' config | grep -q '^cache.shared  *= 1  *($T/shared.ini:2;'"

# ---- a directory owned by another user is refused, unless shared -------------
if [ "$(id -u)" -eq 0 ]; then
	D=$T/theirs
	mkdir -m 0700 "$D"
	chown "$OTHER_UID" "$D"
	run theirs.out JITCACHE_DIR="$D"
	check "owned by another user: the program works" works "$T/theirs.out"
	check "owned by another user: one line from jitcache" test "$(lines "$T/theirs.out")" -eq 1
	check "owned by another user: it names the owner" \
		grep -q "^jitcache: cache directory $D belongs to uid $OTHER_UID, not to this user" \
		"$T/theirs.out"
	echo "     owned by another user: $(grep '^jitcache:' "$T/theirs.out")"
	check "owned by another user: nothing written (even by root)" test -z "$(ls -A "$D")"
	run theirs-shared.out JITCACHE_DIR="$D" JITCACHE_SHARED=1
	check "owned by another user, JITCACHE_SHARED=1: stored" test "$(entries "$D")" -eq 1
else
	skip "owned by another user: needs root (to chown a directory to another uid)"
fi

# ---- symlinks below the cache directory are not followed --------------------
# An entry replaced by a symlink to a valid entry kept elsewhere (what an
# attacker with write access to some other place would plant): followed, it
# would load; not followed, it is a miss and the symlink is replaced.
D=$T/cache
run warm.out JITCACHE_LOG=debug
key=$(sed -n 's/.*miss, compiled in .* as \([0-9a-f]*\)$/\1/p' "$T/warm.out")
E=$D/${key:0:2}/$key
check "symlinked entry: a warm entry to replace" test -f "$E"
cp "$E" "$T/planted"
cp "$E" "$T/planted.orig"
rm "$E"
ln -s "$T/planted" "$E"
run entry-link.out JITCACHE_LOG=debug
check "symlinked entry: the program works" works "$T/entry-link.out"
check_not "symlinked entry: not loaded through the link" grep -q "hit, loaded" "$T/entry-link.out"
check "symlinked entry: compiled instead" grep -q "miss, compiled" "$T/entry-link.out"
check "symlinked entry: it says it could not open it" \
	grep -q "^jitcache: cannot open cache entry $E (Too many levels of symbolic links)" \
	"$T/entry-link.out"
check "symlinked entry: replaced by a regular file" test -f "$E" -a ! -L "$E"
check "symlinked entry: the link's target is untouched" cmp "$T/planted" "$T/planted.orig"
run entry-after.out JITCACHE_LOG=debug
check "symlinked entry: the new entry hits" grep -q "hit, loaded" "$T/entry-after.out"

# The locks file replaced by a dangling symlink (opened with O_CREAT, it would
# create the target), and the statistics file by a symlink to a copy of a
# real one elsewhere (followed, that copy's counters would change).
rm "$E"
cp "$D/stats" "$T/victim-stats"
cp "$D/stats" "$T/victim-stats.orig"
rm "$D/stats"
rm -f "$D/locks"
ln -sf "$T/victim-lock" "$D/locks"
ln -s "$T/victim-stats" "$D/stats"
run links.out
check "symlinked lock and stats files: the program works" works "$T/links.out"
check "symlinked lock and stats files: no line at the default level" \
	test "$(lines "$T/links.out")" -eq 0
check "symlinked lock file: its target is not created" test ! -e "$T/victim-lock"
check "symlinked stats file: its target is not written" cmp "$T/victim-stats" "$T/victim-stats.orig"
check "symlinked lock file: the link is left as it is" test -L "$D/locks"
check "symlinked stats file: replaced by a regular file (rename replaces the link)" \
	test -f "$D/stats" -a ! -L "$D/stats"
check "symlinked lock and stats files: the entry is stored all the same" test -f "$E" -a ! -L "$E"

finish
