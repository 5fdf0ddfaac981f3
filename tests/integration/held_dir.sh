#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# The cache directory's descriptor never collides with the program's (issue
# 35, items 1, 7 and 8): jitcache holds no descriptor until the first
# compile, then the directory at whatever number the kernel gives, checked
# (device and inode) before each use and opened again at a new number if the
# program closed or reused it; never placed on a number it chose.
#  - a shell script's `exec 200>lockfile; flock -n 200` locks as without
#    jitcache: a second instance is locked out, and writes to 200 reach the
#    file;
#  - threads opening files while the main thread closes jitcache's
#    descriptor and compiles never find the cache directory under their own
#    descriptor (jitcache once re-took number 200 with dup3: a race);
#  - after the program put its own directory under jitcache's number,
#    nothing of jitcache's (the remote's back-off file) is written into it,
#    and once the cache directory cannot be taken again, no remote is asked.
. "$(dirname "$0")/../lib.sh"
# (CL_FD_GAMES: the helper from another build, to run this against a build
# of an older commit that lacks it.)
GAMES=${CL_FD_GAMES:-$B/tests/cl_fd_games}
[ -x "$GAMES" ] || { skip "build/tests/cl_fd_games not built (make tests)"; finish; exit; }

# ---- bash's lock idiom on descriptor 200 ---------------------------------------
cat >lock.sh <<'SH'
exec 200>"$1"
flock -n 200 || { echo "locked-out"; exit 9; }
echo "held by $$" >&200 || echo "write-failed"
sleep "$2"
echo "done"
SH
if command -v flock >/dev/null; then
	"$JITCACHE" run -- bash lock.sh "$T/lockfile" 3 >lock-a.out 2>&1 &
	first=$!
	for i in $(seq 1 100); do [ -s "$T/lockfile" ] && break; sleep 0.05; done
	cp "$T/lockfile" "$T/lockfile.first" 2>/dev/null
	"$JITCACHE" run -- bash lock.sh "$T/lockfile" 0 >lock-b.out 2>&1
	echo "rc=$?" >>lock-b.out
	wait $first
	check "exec 200> + flock -n 200: the second instance is locked out" grep -q '^locked-out' lock-b.out
	check "exec 200> + flock -n 200: the second instance exits 9" grep -q '^rc=9' lock-b.out
	check "exec 200>: writes to 200 reach the lock file" grep -q "^held by" "$T/lockfile.first"
	check_not "exec 200>: no write to 200 failed" grep -q 'write-failed\|Bad file descriptor' lock-a.out
	check "the first instance ran to its end" grep -q '^done' lock-a.out
	check_not "an idle shell made no cache directory" test -e "$JITCACHE_DIR"
else
	skip "flock(1) not installed (util-linux)"
fi

if ! clinfo -l 2>/dev/null | grep -q "Portable Computing Language"; then
	skip "PoCL not installed (pocl-opencl-icd)"
	finish
	exit
fi
export POCL_KERNEL_CACHE=0
cat >k.cl <<'CL'
kernel void twice(global float *out, global const float *in, uint n)
{
	size_t i = get_global_id(0);
	if (i < n)
		out[i] = in[i] * 2 + 1;
}
CL

# ---- threads opening files while jitcache's descriptor is lost ------------------
rm -rf "$JITCACHE_DIR"
LD_PRELOAD=$LIB "$GAMES" race --platform Portable --source k.cl --seconds 3 >race.out 2>race.err
check "race: every build succeeded" grep -q 'failed=0' race.out
check "race: no descriptor of the program was ever the cache directory" \
	grep -q '^program_fd_was_dir=0$' race.out
check "race: the cache stored the program" test -n "$(entries)"

# ---- the program's own directory under jitcache's number ------------------------
# Warm the first program only, without a remote: its build is then a local
# hit, and only the second program (a miss) asks the remote.
warm() {
	rm -rf "$JITCACHE_DIR" own && mkdir own
	LD_PRELOAD=$LIB "$GAMES" race --platform Portable --source k.cl --seconds 0 >warm.out 2>&1
}
warm
JITCACHE_REMOTE=redis://127.0.0.1:1 LD_PRELOAD=$LIB \
	"$GAMES" reuse --platform Portable --source k.cl --own "$T/own" >reuse.out 2>reuse.err
check "reuse: both builds succeeded" grep -q '^build2=0' reuse.out
check "reuse: the program reused jitcache's number" grep -q '^reused=[1-9]' reuse.out
check "reuse: its descriptors are still its directory" grep -q '^own_fds=ok' reuse.out
check "reuse: the remote failed (back-off file in the cache directory)" \
	sh -c "ls '$JITCACHE_DIR' | grep -q '^remote-.*\.down$'"
check "reuse: nothing written into the program's directory" test -z "$(ls -A own)"
check "reuse: the second program was stored all the same" \
	sh -c "[ \$(find '$JITCACHE_DIR' -name '[0-9a-f]*' -type f -path '*/??/*' | wc -l) -ge 2 ]"

# Once the directory cannot be had again (made writable by all meanwhile), the
# process caches nothing more and asks no remote.
cat >listen.py <<'PY'
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    c, _ = s.accept()
    with open(sys.argv[2], "a") as f:
        f.write("connection\n")
    c.close()
PY
python3 listen.py "$T/port" "$T/conns" &
LISTENER=$!
for i in $(seq 1 100); do [ -s "$T/port" ] && break; sleep 0.05; done
warm
JITCACHE_REMOTE=redis://127.0.0.1:$(cat "$T/port") LD_PRELOAD=$LIB \
	"$GAMES" reuse --platform Portable --source k.cl --own "$T/own" \
	--break-cache "$JITCACHE_DIR" >lost.out 2>lost.err
kill $LISTENER 2>/dev/null; wait $LISTENER 2>/dev/null
check "lost: both builds succeeded" grep -q '^build2=0' lost.out
check "lost: said why the cache is not used" grep -q 'writable by group or others' lost.err
check_not "lost: no remote was asked" test -s "$T/conns"
check "lost: nothing written into the program's directory" test -z "$(ls -A own)"
finish
