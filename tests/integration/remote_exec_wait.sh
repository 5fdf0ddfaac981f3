#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# The wait before an exec (shim/exec.c, tiers/remote.c) with remote writes
# that never end (a web server that never answers a PUT), real OpenCL
# builds on PoCL (tests/helpers/cl_exec):
#   - issue 44, item 11: a PATH search done by the program (execv() in each
#     directory, as Python's os.execvp does) waits once and counts each
#     write dropped once, however many execv() calls fail first;
#   - issue 44, item 10: a signal handler that execs while the exit handler
#     waits exit_wait for the queued writes does not hang: the exit
#     handler holds no lock across its wait, and the exec wrapper waits for
#     none; the new program runs, the writes are counted dropped once.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/remote_common.bash"
trap 'cleanup_dirs' EXIT
CLX=$B/tests/cl_exec
if [ ! -x "$CLX" ]; then # make check builds it
	check "test prerequisite $CLX built (make tests)" false
	finish; exit $?
fi
if ! clinfo -l 2>/dev/null | grep -q "Portable Computing Language"; then
	skip "PoCL is not installed (pocl-opencl-icd)"
	finish; exit $?
fi
unset JITCACHE_LOCK_TIMEOUT JITCACHE_COMPRESS JITCACHE_REMOTE_READ_ONLY
export POCL_KERNEL_CACHE=0 JITCACHE_LOG=info
stat_of() { stats_in "$T/node-$1" "$2"; } # NODE FIELD
ran() { grep -qx "built $2" "$T/$1.out" && grep -qx exec-ok "$T/$1.out"; }
said() { grep -c "remote writes dropped at exec" "$T/$1.out"; }

port=$(free_port)
python3 "$ROOT/tests/helpers/fault_http.py" slowput "$port" "$T/ready" &
SERVER_PIDS[fault]=$!
for i in $(seq 1 100); do [ -e "$T/ready" ] && break; sleep 0.05; done
URL=http://127.0.0.1:$port/c

# ---- item 11: a PATH search by the program --------------------------------------
mkdir -p "$T/bin"
ln -s /bin/echo "$T/bin/echo"
dirs=$T/no1:$T/no2:$T/no3:$T/no4:$T/no5:$T/bin:$PATH # (PoCL runs ld)
node path timeout 60 env CL_EXEC_TAG=path PATH="$dirs" JITCACHE_REMOTE="$URL" \
	JITCACHE_REMOTE_EXIT_WAIT=1 "$CLX" 3 path echo
cat "$T/path.out"
check "a PATH search through 5 missing directories: the new program runs" ran path 3
check "... the 3 writes counted dropped once each ($(stat_of path remote_dropped))" \
	test "$(stat_of path remote_dropped)" = 3
check "... said in one line, by the first execv() alone ($(said path))" test "$(said path)" = 1
check "... the values kept locally" test "$(entries "$T/node-path")" -eq 3

# ---- item 10: an exec from a signal handler during the exit handler's wait ------
node sig env CL_EXEC_TAG=sig JITCACHE_REMOTE="$URL" JITCACHE_REMOTE_EXIT_WAIT=5 \
	timeout 60 "$CLX" 3 exit-signal /bin/echo
rc=$?
cat "$T/sig.out"
check "an exec from a signal handler while the exit handler waits: no hang (rc $rc)" \
	test "$rc" -ne 124
check "... the new program runs" ran sig 3
check "... the 3 writes counted dropped once each ($(stat_of sig remote_dropped))" \
	test "$(stat_of sig remote_dropped)" = 3
check "... said in one line" test "$(said sig)" = 1
finish
