#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# The cache directory and each layer are checked once and then held open:
# every later access goes through the directory that was checked, never
# through its path again.  Here a member of the group that may write a
# parent of the cache (a project directory, mode 2775, not sticky) renames
# the victim's cache away while her program runs and puts his own, holding
# an entry he made, in its place: her next lookup must not be served from
# his directory.  The same for a read-only layer.  A second user is needed
# (run as root: $USER_NAME; tests/lib.sh).  Last, with HOME, XDG_CACHE_HOME
# and JITCACHE_DIR all unset there is no cache directory (no fixed name in
# /tmp that someone else could take first).
. "$(dirname "$0")/../lib.sh"
STORE=$B/tests/jc_store LOOKUP=$B/tests/jc_lookup
[ -x "$STORE" ] && [ -x "$LOOKUP" ] || { skip "build/tests/jc_store, jc_lookup not built (make tests)"; finish; exit; }
K1=101316191c1f2225282b2e3134373a3d   # jc_store's first key

# victim NAME VAR=VALUE...: jc_lookup K1 started now, looking only once
# $T/go-NAME exists; its pid in VICTIM.  ready NAME: it has opened the cache.
victim() {
	local name=$1; shift
	env "$@" JC_LOOKUP_AFTER="$T/go-$name" "$LOOKUP" $K1 >"$T/$name.out" 2>&1 &
	VICTIM=$!
}
wait_for() { for i in $(seq 1 200); do [ -e "$1" ] && return 0; sleep 0.025; done; return 1; }

if [ "$(id -u)" -ne 0 ] || ! user_setup "$STORE"; then
	skip "needs root and a second user (setpriv) to play the group member"
else
	# The project directory: root's, its group the member's, 2775.  It sits
	# in $U, the one place the member can surely reach.
	P=$U/proj
	mkdir "$P" && chgrp "$OTHER_GID" "$P" && chmod 2775 "$P"
	# The group member's own entry for K1, in his own cache.
	as_user "$U/jc_store" "$U/evil" 1 100 >"$T/evil.list"
	evil=$(cat "$T/evil.list")
	check "the group member ($USER_NAME) made an entry of his own" test -s "$evil"

	# ---- the cache directory -----------------------------------------------------
	mkdir -p "$P/victim" && chmod 755 "$P/victim"
	victim dir JITCACHE_DIR="$P/victim/cache"
	wait_for "$P/victim/cache/stats"
	check "the victim's cache is in use (hers, not writable by others)" \
		sh -c "test \$(stat -c %u '$P/victim/cache') = 0 && test -z \"\$(find '$P/victim/cache' -maxdepth 0 -perm /022)\""
	as_user sh -c "mv '$P/victim' '$P/victim.old' && mkdir -p '$P/victim/cache/10' &&
		cp '$evil' '$P/victim/cache/10/' && chmod -R go-w '$P/victim'" 2>"$T/swap.err"
	check "the group member swapped the cache directory for his own" \
		test -f "$P/victim/cache/10/$K1" -a -d "$P/victim.old/cache"
	touch "$T/go-dir"; wait "$VICTIM"
	check "her next lookup is a miss: not served from his directory ($(cat "$T/dir.out"))" \
		grep -q "^$K1 miss" "$T/dir.out"
	check "... and her lock went to her own directory, not his" \
		test -e "$P/victim.old/cache/locks" -a ! -e "$P/victim/cache/locks"

	# ---- a layer -----------------------------------------------------------------------
	mkdir -p "$P/layer" && chmod 755 "$P/layer"
	victim layer JITCACHE_DIR="$T/own" JITCACHE_LAYERS="$P/layer"
	wait_for "$T/own/stats"
	as_user sh -c "mv '$P/layer' '$P/layer.old' && mkdir -p '$P/layer/10' &&
		cp '$evil' '$P/layer/10/' && chmod -R go-w '$P/layer'" 2>>"$T/swap.err"
	check "the group member swapped the layer for his own" test -f "$P/layer/10/$K1"
	touch "$T/go-layer"; wait "$VICTIM"
	check "her next lookup is a miss: not served from his layer ($(cat "$T/layer.out"))" \
		grep -q "^$K1 miss" "$T/layer.out"

	# A program started after the swap checks what is there now: his
	# directory is refused, in one line.
	env JITCACHE_DIR="$P/victim/cache" "$LOOKUP" $K1 >"$T/after.out" 2>&1
	check "a program started after the swap refuses his directory" \
		grep -q "^jitcache: cache directory $P/victim/cache belongs to uid $OTHER_UID" "$T/after.out"
	check "... and misses" grep -q "^$K1 miss" "$T/after.out"
fi

# ---- a removed cache directory is made again, and checked again --------------------
"$STORE" "$T/gone" 1 100 >/dev/null
victim gone JITCACHE_DIR="$T/gone"
wait_for "$T/gone/stats"
rm -rf "$T/gone"
touch "$T/go-gone"; wait "$VICTIM"
check "a cache directory removed while the program runs: a miss, and made again (0700)" \
	sh -c "grep -q '^$K1 miss' '$T/gone.out' && test \$(stat -c %a '$T/gone') = 700"

# ---- no /proc: a directory held by its path could be swapped, so it is not used --------
# Without /proc/self/fd a held directory can only be reached by its path
# again; a rename of a parent (above) would then serve the swapped one.
"$STORE" "$T/np" 1 100 >/dev/null
noproc() { unshare -m --propagation private sh -c 'mount -t tmpfs none /proc && exec "$@"' sh "$@"; }
if ! noproc true 2>/dev/null; then
	skip "no /proc: needs a private mount namespace (unshare -m, as root)"
else
	noproc env JITCACHE_DIR="$T/np" "$LOOKUP" $K1 >"$T/np.out" 2>&1
	check "without /proc the cache directory is not used, said in one line ($(head -1 "$T/np.out"))" \
		sh -c "grep -q '^jitcache: /proc/self/fd is not available, so cache directory $T/np cannot be held' '$T/np.out' &&
		       test \$(grep -c '^jitcache:' '$T/np.out') -eq 1"
	check "... its entry is not served: a miss, and no lock taken there" \
		sh -c "grep -q '^$K1 miss' '$T/np.out' && test ! -e '$T/np/locks'"
	noproc env JITCACHE_DIR="$T/np2" JITCACHE_LAYERS="$T/np" "$LOOKUP" $K1 >"$T/npl.out" 2>&1
	check "... nor is a layer's ($(grep -c '^jitcache:' "$T/npl.out") lines)" \
		sh -c "grep -q 'cache directory $T/np cannot be held' '$T/npl.out' && grep -q '^$K1 miss' '$T/npl.out'"
	env JITCACHE_DIR="$T/np" "$LOOKUP" $K1 >"$T/np-proc.out" 2>&1
	check "... while with /proc the same entry is a hit" grep -q "^$K1 hit" "$T/np-proc.out"
fi

# ---- no cache directory at all ----------------------------------------------------------
env -u HOME -u XDG_CACHE_HOME -u JITCACHE_DIR "$JITCACHE" config >"$T/nohome.cfg" 2>&1
check "HOME, XDG_CACHE_HOME and JITCACHE_DIR unset: no cache directory" \
	grep -q '^cache.dir *= none ' "$T/nohome.cfg"
env -u HOME -u XDG_CACHE_HOME -u JITCACHE_DIR "$LOOKUP" $K1 >"$T/nohome.out" 2>&1
check "... a program says so in one line and runs on" \
	sh -c "grep -q '^jitcache: no cache directory: .*set JITCACHE_DIR' '$T/nohome.out' &&
	       test \$(grep -c '^jitcache:' '$T/nohome.out') -eq 1 && grep -q '^$K1 miss' '$T/nohome.out'"
finish
