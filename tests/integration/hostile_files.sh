#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# What others can put into a cache directory they may write, or hold on the
# files in it (issue 35, items 3, 4 and 11).  A FIFO (or socket, or any file
# that is not a regular one) in place of an entry, DIR/stats, DIR/misses,
# DIR/locks, a layer's entry, the remote's back-off file or the stats_log
# is never waited on: every run here has a timeout, and a hang is a failure.
# The files that carry locks are not readable by others, and a lock on the
# counters held by anyone (a reader outside the group on an older cache, a
# process stopped inside it) costs a hit a few milliseconds at most.
. "$(dirname "$0")/../lib.sh"

STORE=$B/tests/jc_store
LOOKUP=$B/tests/jc_lookup
# The system's python: another user may not reach a python of root's own.
PY=$(command -v /usr/bin/python3 || command -v python3)
WAIT=20 # seconds a run may take before it counts as hung
lines() { grep -c "^jitcache:" "$1"; }
key_of() { basename "$1"; } # an entry's path -> its key
# t OUT CMD...: CMD with a timeout, its output in $T/OUT; its status 124 if hung
t() { local out=$1; shift; timeout -k 2 "$WAIT" "$@" >"$T/$out" 2>&1; }

# ---- a FIFO in place of an entry --------------------------------------------
D=$T/fifo-entry
E=$("$STORE" "$D" 2 100 | head -n 1)
K=$(key_of "$E")
rm "$E" && mkfifo "$E"
t entry.out env JITCACHE_DIR="$D" "$LOOKUP" "$K"
check "entry FIFO: the lookup ends (no hang)" test $? -ne 124
check "entry FIFO: it is a miss" grep -q "^$K miss" "$T/entry.out"
check "entry FIFO: one line says it is not a regular file" \
	grep -q "^jitcache: cannot open cache entry $D/.*$K (not a regular file); treating it as a miss" "$T/entry.out"
echo "     $(grep '^jitcache:' "$T/entry.out")"
t verify.out env JITCACHE_DIR="$D" "$JITCACHE" verify
check "entry FIFO: jitcache verify ends" test $? -ne 124
check "entry FIFO: verify names it" \
	grep -q "^removed $D/.*$K: not a regular file (a FIFO)" "$T/verify.out"
check "entry FIFO: verify counts it as bad removed" grep -q ", 1 bad removed" "$T/verify.out"
check "entry FIFO: it is gone" test ! -e "$E"
sed 's/^/     /' "$T/verify.out"

# ---- export with a FIFO entry, FIFO stats and misses ----------------------------
D=$T/fifo-export
E=$("$STORE" "$D" 3 100 | head -n 1)
rm "$E" "$D/stats" && mkfifo "$E" "$D/stats" && rm -f "$D/misses" && mkfifo "$D/misses"
t export.out env JITCACHE_DIR="$D" "$JITCACHE" export "$T/out.jcar"
check "export with FIFOs: it ends" test $? -ne 124
check "export with FIFOs: the two good entries exported" \
	sh -c "env JITCACHE_DIR='$T/imported' '$JITCACHE' import '$T/out.jcar' | grep -q '^imported 2 entries'"
t explain.out env JITCACHE_DIR="$D" "$JITCACHE" explain
check "explain with a FIFO misses file: it ends" test $? -ne 124

# ---- DIR/stats, DIR/misses and DIR/locks as FIFOs, in a running program --------
D=$T/fifo-stats
E=$("$STORE" "$D" 1 100)
K=$(key_of "$E")
M=ffffffffffffffffffffffffffffffff
rm "$D/stats" && mkfifo "$D/stats" "$D/misses" && rm -f "$D/locks" && mkfifo "$D/locks"
t stats.out env JITCACHE_DIR="$D" "$LOOKUP" "$K" "$M"
check "stats, locks FIFOs: the lookups end" test $? -ne 124
check "stats, locks FIFOs: the entry is still a hit" grep -q "^$K hit" "$T/stats.out"
check "stats, locks FIFOs: the other key a miss" grep -q "^$M miss" "$T/stats.out"
check "stats FIFO: replaced by a regular file" test -f "$D/stats" -a ! -p "$D/stats"
check "locks FIFO: replaced by a regular file" test -f "$D/locks" -a ! -p "$D/locks"
check "stats FIFO: the hit was counted in the new file" \
	test "$(JITCACHE_DIR=$D timeout -k 2 "$WAIT" "$JITCACHE" stats --json | sed -n 's/.*"hits": *\([0-9]*\).*/\1/p')" -ge 1
t run.out env JITCACHE_DIR="$D" "$JITCACHE" run -- true
check "jitcache run -- true with DIR/stats a FIFO: it ends" test $? -ne 124

# ---- a layer's entry ------------------------------------------------------------
L=$T/layer
E=$("$STORE" "$L" 1 100)
K=$(key_of "$E")
rm "$E" && mkfifo "$E"
t layer.out env JITCACHE_DIR="$T/above" JITCACHE_LAYERS="$L" "$LOOKUP" "$K"
check "layer entry FIFO: the lookup ends" test $? -ne 124
check "layer entry FIFO: a miss" grep -q "^$K miss" "$T/layer.out"
check "layer entry FIFO: one line" grep -q "^jitcache: cannot open cache layer entry .*(not a regular file)" "$T/layer.out"

# ---- the remote's back-off file ---------------------------------------------------
D=$T/fifo-backoff
R="redis://127.0.0.1:1"
t backoff1.out env JITCACHE_DIR="$D" JITCACHE_REMOTE="$R" JITCACHE_REMOTE_BACKOFF=60 "$LOOKUP" "$M"
DOWN=$(ls "$D"/remote-*.down 2>/dev/null | head -n 1)
check "back-off: a failed remote leaves its back-off file" test -n "$DOWN"
if [ -n "$DOWN" ]; then
	rm "$DOWN" && mkfifo "$DOWN"
	t backoff2.out env JITCACHE_DIR="$D" JITCACHE_REMOTE="$R" JITCACHE_REMOTE_BACKOFF=60 "$LOOKUP" "$M"
	check "back-off file FIFO: the lookup ends" test $? -ne 124
	check "back-off file FIFO: a miss" grep -q "^$M miss" "$T/backoff2.out"
fi

# ---- stats_log a FIFO whose reader has gone -----------------------------------------
if [ -x "$B/tests/ze_client" ] && command -v ocloc >/dev/null && [ -e "$B/lib/libze_loader.so.1" ]; then
	. "$ROOT/tests/integration/ze_common.bash"
	sim_dg2
	spirv reduce "$KERNELS/reduce.cl"
	mkfifo "$T/stats.fifo"
	for i in 1 2; do
		t slog$i.out env JITCACHE_LOG=info JITCACHE_DIR="$T/slog" JITCACHE_STATS_LOG="$T/stats.fifo" \
			LD_PRELOAD="$LIB" "$CLIENT" link "$T/reduce.spv"
		check "stats_log FIFO without a reader, run $i: the program ends" test $? -ne 124
		check "stats_log FIFO without a reader, run $i: the program works" \
			grep -q "result 0x0 kernels 19" "$T/slog$i.out"
	done
	check "stats_log FIFO: it says why nothing was logged" \
		grep -q "^jitcache: cannot append to stats_log $T/stats.fifo (not a regular file)" "$T/slog2.out"
	echo "     $(grep '^jitcache: cannot' "$T/slog2.out")"
else
	skip "stats_log FIFO: needs Intel's Level Zero driver and ocloc"
fi

# ---- a planted statistics file with impossible numbers --------------------------------
D=$T/absurd
E=$("$STORE" "$D" 1 100)
SIZE=$(stat -c %s "$E")
"$PY" - "$D/stats" <<'EOF'
import struct, sys
with open(sys.argv[1], "r+b") as f:
    f.seek(16); f.write(struct.pack("<Q", 2**64 - 1))           # hits
    f.seek(4096 + 0x10 * 32); f.write(struct.pack("<Q", 2**63))  # sub 10's bytes
EOF
JITCACHE_DIR=$D timeout "$WAIT" "$JITCACHE" stats --json >"$T/absurd.json" 2>"$T/absurd.err"
check "impossible counters: shown as 0, not 18446744073709551615" grep -q '"hits": 0[,}]' "$T/absurd.json"
check "impossible counters: one line says so" \
	test "$(grep -c "^jitcache.*impossible counts" "$T/absurd.err")" -eq 1
check "impossible usage record: recounted (the size is the entry's, $SIZE bytes)" \
	grep -q "\"size\": $SIZE[,}]" "$T/absurd.json"
echo "     $(cat "$T/absurd.err")"

# ---- jitcache explain shows what came from programs escaped ----------------------------
# Build options, an environment value and program names carrying newlines,
# terminal escapes and bytes that are not UTF-8; a program named in hex digits.
if clinfo -l 2>/dev/null | grep -q "Portable Computing Language"; then
	export POCL_KERNEL_CACHE=0
	X=$T/explain
	mkdir -p "$X/inc" && cd "$X" || exit 1
	cp "$ROOT/tests/integration/compute.cl" k.cl
	cp "$B/tests/cl_build" "$X/deadbeef"
	cp "$B/tests/cl_build" "$X/"$'prog\xff\xc3'
	build() { # PROGRAM OPTIONS [VAR=VALUE...]
		local prog=$1 opts=$2; shift 2
		t explain-build.out env JITCACHE_DIR="$X/cache" "$@" "$JITCACHE" run -- "$prog" \
			--platform Portable --source k.cl --options "$opts"
	}
	build "$X/deadbeef" "-DA=1"
	build "$X/deadbeef" $'-DA=1\n2001-01-01 00:00:00 forged[1] 00: never seen before'
	build "$X/deadbeef" $'-DA=1 -DB=\e]0;pwned\a\e[2J'
	POCL_JC_TEST=$'x\e[31my\nz' build "$X/deadbeef" $'-DA=1 -DB=\e]0;pwned\a\e[2J'
	build "$X/"$'prog\xff\xc3' "-DA=2"
	JITCACHE_DIR=$X/cache timeout "$WAIT" "$JITCACHE" explain >"$T/explain.txt" 2>&1
	JITCACHE_DIR=$X/cache timeout "$WAIT" "$JITCACHE" explain --json >"$T/explain.json" 2>&1
	cd "$T" || exit 1
	sed 's/^/     /' "$T/explain.txt"
	check "explain: misses were recorded" test "$(grep -c . "$T/explain.txt")" -ge 4
	check "explain: no forged line (every line is one miss of ours)" \
		test "$(grep -c . "$T/explain.txt")" -eq 5 -a "$(grep -vc "^20[0-9-]* [0-9:]* \(deadbeef\|prog\)" "$T/explain.txt")" -eq 0
	check "explain: the newline in build options shown as \\n" grep -qF '\n2001-01-01' "$T/explain.txt"
	check "explain: no escape character reaches the terminal" \
		test "$(tr -d '\n' <"$T/explain.txt" | tr -dc '\000-\037\177' | wc -c)" -eq 0
	check "explain: the escape shown as \\x1b" grep -qF '\x1b]0;pwned\x07' "$T/explain.txt"
	check "explain: an environment value escaped" grep -qF 'x\x1b[31my\nz' "$T/explain.txt"
	check "explain: a program name that is not UTF-8 escaped" grep -qF 'prog\xff\xc3[' "$T/explain.txt"
	check "explain --json: valid UTF-8 JSON" "$PY" -c '
import json, sys
data = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))
assert any(m["program"].startswith("prog") for m in data)' "$T/explain.json"
	check "explain --json: no control character inside" \
		test "$(tr -d '\n' <"$T/explain.json" | tr -dc '\000-\037\177' | wc -c)" -eq 0
	check "explain deadbeef: a program named in hex digits is found by name" \
		sh -c "JITCACHE_DIR='$X/cache' '$JITCACHE' explain deadbeef | grep -q ' deadbeef\\['"
	check "explain --program deadbeef: by name only" \
		sh -c "JITCACHE_DIR='$X/cache' '$JITCACHE' explain --program deadbeef | grep -q ' deadbeef\\['"
	K1=$(sed -n 's/.*\] \([0-9a-f]*\): .*/\1/p' "$T/explain.txt" | head -n 1)
	check "explain --key: by key only" \
		sh -c "JITCACHE_DIR='$X/cache' '$JITCACHE' explain --key '$K1' | grep -q ' $K1:'"
else
	skip "jitcache explain escaping: PoCL is not installed (pocl-opencl-icd)"
fi

# ---- the files that carry locks are not readable by others ------------------------------
D=$T/shared
mkdir -m 2775 "$D"
(umask 002 && JITCACHE_SHARED=1 "$STORE" "$D" 1 100 >"$T/shared-store.out" &&
	JITCACHE_DIR="$D" JITCACHE_SHARED=1 "$LOOKUP" "$M" >/dev/null 2>&1)
for f in stats locks; do
	check "shared cache, umask 002: $f exists" test -f "$D/$f"
	check "shared cache, umask 002: $f is not readable by others (mode $(stat -c %a "$D/$f" 2>/dev/null))" \
		test "$(( 0$(stat -c %a "$D/$f" 2>/dev/null || echo 7) & 7 ))" -eq 0
done
check "shared cache: entries stay readable by the group" \
	test "$(( 0$(stat -c %a "$(cat "$T/shared-store.out")") & 040 ))" -ne 0

# ---- a lock on the counters held elsewhere costs a hit milliseconds -----------------
# hold.py FILE TYPE START LEN: take an open file description lock on the range
# and keep it until stdin closes (as a process stopped inside the lock would).
P=$(mktemp -d "${TMPDIR:-/tmp}/jitcache-public.XXXXXX") # others may reach it
CLEANUP_DIRS="$CLEANUP_DIRS $P"
chmod 755 "$P"
cat >"$P/hold.py" <<'EOF'
import fcntl, os, struct, sys
path, kind, start, length = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
fd = os.open(path, os.O_RDONLY if kind == "r" else os.O_RDWR)
F_OFD_SETLKW = 38
lock = struct.pack("hhqqi", fcntl.F_RDLCK if kind == "r" else fcntl.F_WRLCK, 0, start, length, 0)
fcntl.fcntl(fd, F_OFD_SETLKW, lock + b"\0" * 4)
print("held", flush=True)
sys.stdin.read()
EOF
chmod a+r "$P/hold.py"
HOLD_PY=$P/hold.py
D=$T/busy
K=$(key_of "$("$STORE" "$D" 1 100)")
keys() { local i; for i in 1 2 3 4 5 6 7 8 9 10; do echo "$K"; done; }
slowest() { awk '$2 == "hit" { if ($3 > m) m = $3; n++ } END { if (n != 10) print 99; else print m + 0 }' "$1"; }
t quiet.out env JITCACHE_DIR="$D" "$LOOKUP" $(keys)
QUIET=$(slowest "$T/quiet.out")
# busy KIND HOLDER...: 10 hits in one process while HOLDER holds a KIND lock
# on the counters (page 0 of DIR/stats); the slowest hit in $BUSY.
busy() {
	local kind=$1; shift
	coproc HOLD { "$@" "$PY" "$HOLD_PY" "$D/stats" "$kind" 0 4096; }
	local ready="" pid=$HOLD_PID in=${HOLD[1]}
	read -r -t 10 ready <&"${HOLD[0]}"
	t busy-$kind.out env JITCACHE_DIR="$D" JITCACHE_SHARED="${SHARED:-0}" "$LOOKUP" $(keys)
	exec {in}>&-; wait "$pid" 2>/dev/null
	BUSY=$(slowest "$T/busy-$kind.out")
	[ "$ready" = held ]
}
check "counters held by a stopped process of this user: the lock was taken" busy w env
echo "     slowest of 10 hits: ${QUIET} s alone, ${BUSY} s with the counters' lock held"
check "counters held by this user: every hit served, none 0.25 s slower than alone" \
	ge "$(awk -v q="$QUIET" 'BEGIN { print q + 0.25 }')" "$BUSY"
check "counters held by this user: those hits are counted once the lock is free" \
	sh -c "env JITCACHE_DIR='$D' '$LOOKUP' '$K' >/dev/null 2>&1; test \"\$(JITCACHE_DIR='$D' timeout $WAIT '$JITCACHE' stats --json | sed -n 's/.*\"hits\": *\\([0-9]*\\).*/\\1/p')\" -ge 1"
if [ "$(id -u)" -eq 0 ] && user_setup "$P/hold.py"; then
	# An older shared cache: DIR/stats readable by others, and a reader from
	# outside the group holding a read lock on its counters.  Both in $U,
	# which that user can reach however private this checkout and TMPDIR.
	HOLD_PY=$U/hold.py
	D=$U/old-shared
	mkdir -m 2775 "$D"
	K=$(key_of "$(JITCACHE_SHARED=1 "$STORE" "$D" 1 100)")
	chmod 664 "$D/stats"; : >"$D/locks"; chmod 664 "$D/locks"
	SHARED=1
	check "outsider holds a read lock on an older cache's counters" \
		busy r as_user
	echo "     slowest of 10 hits with an outsider's read lock: ${BUSY} s"
	check "outsider's read lock: every hit served, none 0.25 s slower than alone" \
		ge "$(awk -v q="$QUIET" 'BEGIN { print q + 0.25 }')" "$BUSY"
	check "older shared cache: stats made private" \
		test "$(( 0$(stat -c %a "$D/stats") & 7 ))" -eq 0
	# The outsider holds the compile-once lock of key M (one byte of
	# DIR/locks, cache/lock.c) on the older, world-readable file.
	coproc KEYHOLD { as_user \
		"$PY" "$HOLD_PY" "$D/locks" r $(( (0x${M:0:16} >> 2) & 0x3fffffffffffffff )) 1; }
	pid=$KEYHOLD_PID in=${KEYHOLD[1]} ready=""
	read -r -t 10 ready <&"${KEYHOLD[0]}"
	check "outsider holds a key's lock in an older cache's locks file" test "$ready" = held
	t keyheld.out env JITCACHE_DIR="$D" JITCACHE_SHARED=1 JITCACHE_LOCK_TIMEOUT=6 "$LOOKUP" "$M"
	exec {in}>&-; wait "$pid" 2>/dev/null
	echo "     a miss while an outsider holds its key's lock (lock_timeout 6 s): $(awk '{ print $3 }' "$T/keyheld.out") s"
	check "outsider's key lock: the miss does not wait lock_timeout (well under 6 s)" \
		awk '$2 == "miss" && $3 < 3 { ok = 1 } END { exit !ok }' "$T/keyheld.out"
	check "older shared cache: locks made private after a miss" \
		test "$(( 0$(stat -c %a "$D/locks") & 7 ))" -eq 0
	check_not "an outsider can no longer open stats" \
		as_user cat "$D/stats"
	check_not "an outsider can no longer open locks" \
		as_user cat "$D/locks"
else
	skip "a reader from outside the cache's group: needs root (and setpriv) to be another user"
fi

finish
