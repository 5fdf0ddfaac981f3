#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# Real file-system faults under Level Zero programs on the simulated Arc:
# a full disk (a small tmpfs), a read-only file system (a read-only bind
# mount of a warm cache), permission denied (a user who cannot write the
# cache), the cache directory removed while programs run, and a cache path
# through a symlink.  The program always gets its modules from the driver;
# jitcache says what went wrong in at most one line (at the default level).
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/ze_common.bash"
need_ze

MOUNTS=""
cleanup() {
	for m in $MOUNTS; do umount "$m" 2>/dev/null || umount -l "$m"; done
	[ "${KEEP:-0}" = 1 ] || cleanup_dirs
}
trap cleanup EXIT
# mount ARGS... TARGET, remembering TARGET for the cleanup.
try_mount() {
	mount "$@" 2>"$T/mount.err" || return 1
	MOUNTS="${*: -1} $MOUNTS"
}

check "SPIR-V built with ocloc (reduce)" spirv reduce "$KERNELS/reduce.cl"
check "SPIR-V built with ocloc (norm)" spirv norm "$KERNELS/norm.cl"
check "SPIR-V built with ocloc (gemm_reg: a 300 KB native binary, ~3 s of JIT)" \
	spirv big "$KERNELS/gemm_reg.cl"

works() { grep -q "result 0x0 kernels ${2:-19}" "$1"; }
lines() { count "^jitcache:" "$1"; }
# The client on MODULE.spv under jitcache, with the VAR=VALUE settings given.
run() { # OUT [VAR=VALUE...] MODULE
	local out=$1; shift
	local module=${*: -1}
	env "${@:1:$#-1}" LD_PRELOAD="$LIB" "$CLIENT" link "$T/$module.spv" >"$T/$out" 2>&1
}
# Has process PID a lock file open (it is waiting for, or holding, a key)?
waits_on_lock() { find "/proc/$1/fd" -lname '*/locks' 2>/dev/null | grep -q .; }
show() { echo "     $1: $(grep '^jitcache:' "$T/$2" | head -n 1)"; }

# ---- disk full --------------------------------------------------------------
# A 256 KiB tmpfs; entries uncompressed, so that the 300 KB native binary
# cannot fit.  The store fails, its temporary file is removed, and a small
# module is stored there afterwards.
mkdir "$T/small"
if try_mount -t tmpfs -o size=256k,mode=0700 tmpfs "$T/small"; then
	D=$T/small/cache
	run full.out JITCACHE_DIR="$D" JITCACHE_COMPRESS=0 big
	check "disk full: the program works" works "$T/full.out" 18
	check "disk full: one line from jitcache" test "$(lines "$T/full.out")" -eq 1
	check "disk full: the line says so" grep -q "^jitcache: .*$D.*No space left on device" "$T/full.out"
	show "disk full" full.out
	check "disk full: nothing stored" test "$(entries "$D")" -eq 0
	check "disk full: no temporary file left" test -z "$(find "$D" -name '.tmp.*')"
	check "disk full: counted as a store failure" test "$(stats_in "$D" store_failures)" -eq 1
	run fits.out JITCACHE_DIR="$D" JITCACHE_COMPRESS=0 reduce
	check "disk full: a module that fits is stored afterwards" \
		sh -c "grep -q 'result 0x0 kernels 19' '$T/fits.out' && test $(entries "$D") -eq 1"
	check "disk full: no line for it" test "$(lines "$T/fits.out")" -eq 0
else
	skip "disk full: cannot mount a tmpfs (needs root / CAP_SYS_ADMIN): $(head -n 1 "$T/mount.err")"
fi

# ---- read-only file system --------------------------------------------------
mkdir -m 0700 "$T/rw" "$T/ro"
run warm.out JITCACHE_DIR="$T/rw" reduce
if try_mount --bind "$T/rw" "$T/ro" && mount -o remount,ro,bind "$T/ro" 2>>"$T/mount.err"; then
	check "read-only: the mount is read-only" sh -c "! touch '$T/ro/probe' 2>/dev/null"
	run ro-hit.out JITCACHE_DIR="$T/ro" reduce
	check "read-only, hit: the program works" works "$T/ro-hit.out"
	check "read-only, hit: no line from jitcache" test "$(lines "$T/ro-hit.out")" -eq 0
	run ro-hit-debug.out JITCACHE_DIR="$T/ro" JITCACHE_LOG=debug reduce
	check "read-only, hit: loaded from the cache" grep -q "hit, loaded" "$T/ro-hit-debug.out"
	run ro-miss.out JITCACHE_DIR="$T/ro" norm
	check "read-only, miss: the program works" works "$T/ro-miss.out" 11
	check "read-only, miss: one line from jitcache" test "$(lines "$T/ro-miss.out")" -eq 1
	check "read-only, miss: the line says so" \
		grep -q "^jitcache: .*$T/ro.*Read-only file system" "$T/ro-miss.out"
	show "read-only, miss" ro-miss.out
	check "read-only, miss: nothing written" test "$(entries "$T/rw")" -eq 1
	run ro-miss2.out JITCACHE_DIR="$T/ro" norm
	check "read-only, miss again: compiled again, works" works "$T/ro-miss2.out" 11
else
	skip "read-only: cannot bind-mount read-only (needs root / CAP_SYS_ADMIN): $(head -n 1 "$T/mount.err")"
fi

# ---- permission denied --------------------------------------------------------
# A user's own warm cache made read-only (directories 0500, files 0400).
# root writes anywhere, so as root this runs as another user (lib.sh's
# user_setup), on that user's cache, from copies that user can reach.
user_run() { # OUT [VAR=VALUE...] MODULE, in $U as the user
	local out=$1; shift
	local module=${*: -1}
	(cd "$U" && as_user env HOME="$U" JITCACHE_DIR="$U/cache" "${@:1:$#-1}" LD_PRELOAD="$U_LIB" \
		"$U/ze_client" link "$U/$module.spv") >"$T/$out" 2>&1
}
if user_setup "$CLIENT" "$T/reduce.spv" "$T/norm.spv"; then
	who=$USER_NAME
	user_run user-warm.out reduce
	check "permission: $who stores in its own cache" test "$(entries "$U/cache")" -eq 1
	chmod -R a-w "$U/cache"
	check_not "permission: $who cannot write it now" as_user touch "$U/cache/probe"
	user_run user-hit.out reduce
	check "permission, hit: the program works" works "$T/user-hit.out"
	check "permission, hit: no line from jitcache" test "$(lines "$T/user-hit.out")" -eq 0
	user_run user-hit-debug.out JITCACHE_LOG=debug reduce
	check "permission, hit: loaded from the cache" grep -q "hit, loaded" "$T/user-hit-debug.out"
	user_run user-miss.out norm
	check "permission, miss: the program works" works "$T/user-miss.out" 11
	check "permission, miss: one line from jitcache" test "$(lines "$T/user-miss.out")" -eq 1
	check "permission, miss: the line says so" \
		grep -q "^jitcache: .*$U/cache.*Permission denied" "$T/user-miss.out"
	show "permission denied, miss" user-miss.out
	check "permission, miss: nothing written" test "$(entries "$U/cache")" -eq 1
	# Issue 45 item 6: one line, the real reason, once per process, however
	# many writes are refused (the statistics, the lock, the record of the
	# miss, the entry), even with JITCACHE_LOG=info; in a directory made
	# read-only before anything was written in it, too.
	user_run user-miss-info.out JITCACHE_LOG=info norm
	check "permission, miss, info: the program works" works "$T/user-miss-info.out" 11
	check "permission, miss, info: one line about the directory, with the real reason" \
		test "$(grep -c "^jitcache: cannot write the cache directory $U/cache (Permission denied)" "$T/user-miss-info.out")" -eq 1
	check_not "permission, miss, info: no other line about writing it" \
		grep -E "^jitcache: cannot (update|lock|record|create)|No such file" "$T/user-miss-info.out"
	show "permission denied, miss, info" user-miss-info.out
	mkdir "$U/empty" && chmod 555 "$U/empty" && { [ "$(id -u)" -ne 0 ] || chown -h "$OTHER_UID:$OTHER_GID" "$U/empty"; }
	user_run user-empty.out JITCACHE_DIR="$U/empty" JITCACHE_LOG=info norm
	check "permission, an empty read-only directory, info: one line about it, the real reason" \
		test "$(grep -c "^jitcache: cannot write the cache directory $U/empty (Permission denied)" "$T/user-empty.out")" -eq 1
	check_not "... no other line about writing it (never 'No such file or directory')" \
		grep -E "^jitcache: cannot (update|lock|record|create)|No such file" "$T/user-empty.out"
	# What the commands say of it, run as that user.
	cp "$B/jitcache-admin" "$U/" && chmod a+rx "$U/jitcache-admin"
	admin_as_user() { (cd "$U" && as_user env HOME="$U" JITCACHE_CONFIG=/dev/null "$@"); }
	admin_as_user JITCACHE_DIR="$U/cache" "$U/jitcache-admin" stats >"$T/user-stats.out" 2>&1
	check "permission: jitcache stats says the directory cannot be written, and why" \
		grep -q "cannot be written (Permission denied)" "$T/user-stats.out"
	admin_as_user JITCACHE_DIR="$U/empty" "$U/jitcache-admin" stats >"$T/user-stats-empty.out" 2>&1
	check "permission: ... also where there are no statistics yet" \
		grep -q "^jitcache: cannot read the statistics in $U/empty: the directory cannot be written (Permission denied)" "$T/user-stats-empty.out"
	admin_as_user JITCACHE_DIR="$U/cache" "$U/jitcache-admin" config >"$T/user-config.out" 2>&1
	check "permission: jitcache config exits 1 for a directory it cannot use ($?)" test $? -eq 1
	check "... saying why in one line" \
		grep -q "^jitcache: config: cannot use the cache directory $U/cache (Permission denied)" "$T/user-config.out"
else
	skip "permission denied: as root this needs setpriv (util-linux)"
fi

# ---- the cache directory removed while programs run -------------------------
# A long program compiles the big module (it holds the key's lock meanwhile);
# a short one stores norm; the whole directory is removed; another short
# one runs; then the long one stores.  All work and the cache recovers.
D=$T/removed
LD_PRELOAD=$LIB JITCACHE_DIR=$D "$CLIENT" link "$T/big.spv" >"$T/long.out" 2>&1 &
long=$!
held=""
for _ in $(seq 1 200); do # until the long one holds its lock: it is compiling
	key_lock_held "$D" && held=1 && break
	sleep 0.05
done
check "removed: the long program is compiling" test -n "$held"
run short1.out JITCACHE_DIR="$D" norm
check "removed: a short program stores meanwhile" test "$(entries "$D")" -eq 1
rm -rf "$D"
run short2.out JITCACHE_DIR="$D" norm
check "removed: the next program works" works "$T/short2.out" 11
check "removed: ... and re-creates the cache directory (0700)" test "$(stat -c %a "$D")" = 700
wait $long
check "removed: the long program works" works "$T/long.out" 18
check "removed: the long program's module is stored in the new directory" \
	test "$(entries "$D")" -eq 2
check "removed: no line from jitcache" test "$(cat "$T"/long.out "$T"/short?.out | lines /dev/stdin)" -eq 0
run again.out JITCACHE_DIR="$D" JITCACHE_LOG=debug big
check "removed: both load from the cache afterwards" \
	sh -c "grep -q 'hit, loaded' '$T/again.out' && JITCACHE_DIR='$D' '$JITCACHE' verify"
check "removed: stats recounted (2 entries)" test "$(stats_in "$D" entries)" -eq 2

# A program waiting for another's lock when the directory goes: the lock is
# held here, on reduce's key, until the directory has been removed.
run key.out JITCACHE_DIR="$T/scratch" JITCACHE_LOG=debug reduce
kr=$(sed -n 's/.* as \([0-9a-f]*\)$/\1/p' "$T/key.out")
D=$T/removed2
mkdir -m 0700 "$D"
sleep 600 2>/dev/null | python3 "$ROOT/tests/helpers/keylock.py" hold "$D" "$kr" >"$T/holder.out" &
holder=$!
for _ in $(seq 1 100); do grep -q held "$T/holder.out" && break; sleep 0.05; done
LD_PRELOAD=$LIB JITCACHE_DIR=$D JITCACHE_LOG=debug "$CLIENT" link "$T/reduce.spv" >"$T/waiter.out" 2>&1 &
waiter=$!
for _ in $(seq 1 200); do
	waits_on_lock $waiter && break
	sleep 0.05
done
check "removed while waiting: the program waits on the lock" waits_on_lock $waiter
rm -rf "$D"
kill $holder
wait $waiter
check "removed while waiting: the program works" works "$T/waiter.out"
check "removed while waiting: it compiled and stored in a new directory" \
	sh -c "grep -q 'miss, compiled' '$T/waiter.out' && test $(entries "$D") -eq 1"
check_not "removed while waiting: it did not give up waiting" grep -q "gave up" "$T/waiter.out"
check "removed while waiting: the new directory is 0700" test "$(stat -c %a "$D")" = 700

# ---- a cache path through a symlink -------------------------------------------
mkdir -m 0700 "$T/real"
ln -s "$T/real" "$T/link"
run link1.out JITCACHE_DIR="$T/link" reduce
check "symlink: the program works" works "$T/link1.out"
check "symlink: no line from jitcache" test "$(lines "$T/link1.out")" -eq 0
check "symlink: the entry lands in the target directory" test "$(entries "$T/real")" -eq 1
check "symlink: the link is left a link" test -L "$T/link"
run link2.out JITCACHE_DIR="$T/link" JITCACHE_LOG=debug reduce
check "symlink: the next run loads from the cache" grep -q "hit, loaded" "$T/link2.out"
check "symlink: stats through the link" test "$(stats_in "$T/link" entries)" -eq 1
ln -s "$T/nowhere/cache" "$T/dangling"
run dangling.out JITCACHE_DIR="$T/dangling" reduce
check "dangling symlink: the program works" works "$T/dangling.out"
check "dangling symlink: one line from jitcache" test "$(lines "$T/dangling.out")" -eq 1
check "dangling symlink: the line names it" grep -q "^jitcache: .*$T/dangling" "$T/dangling.out"
show "dangling symlink" dangling.out

finish
