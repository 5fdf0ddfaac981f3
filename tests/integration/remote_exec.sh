#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# A program that compiles and then replaces itself with execve() (a
# launcher, a wrapper script's `exec`) runs no exit handler: its queued
# remote writes were lost without a line or a count (issue 35, item 9).
# jitcache interposes every exec function (shim/exec.c), as gcov's runtime
# does to save its counters: the queued writes get exit_wait, and those left
# are dropped, counted and said, as at exit.  Real OpenCL builds (PoCL),
# tests/helpers/cl_exec; servers started here on 127.0.0.1:
#   - Redis, each of the eight exec functions: every value stored by the
#     program is on the server, and the new program runs;
#   - nginx (WebDAV) and radosgw (S3): the same with execv;
#   - a web server that never answers a PUT: the program is replaced within
#     exit_wait, the writes dropped, counted (remote_dropped) and said;
#   - a program that compiled nothing is not held up at exec.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/remote_common.bash"
need_redis
trap 'stop_all_redis; cleanup_dirs' EXIT # the web servers too
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
# run NAME HOW N [VAR=VALUE...]: node NAME builds N programs, then execs /bin/echo by HOW
run() {
	local name=$1 how=$2 n=$3
	shift 3
	node "$name" env CL_EXEC_TAG="$name" "$@" timeout 60 "$CLX" "$n" "$how" /bin/echo
}
ran() { grep -qx "built $2" "$T/$1.out" && grep -qx exec-ok "$T/$1.out"; }

check "redis-server started" start_redis main
for how in execve execv execvp execvpe execl execlp execle fexecve; do
	before=$(rcli main DBSIZE)
	run "r-$how" "$how" 3 JITCACHE_REMOTE="redis+unix://$REDIS_SOCK_main"
	check "Redis, $how: the new program runs" ran "r-$how" 3
	check "... and the 3 values stored before it are on the server" \
		test "$(rcli main DBSIZE)" -eq $((before + 3))
done

if start_nginx_dav "$T/ng" 2>"$T/ng.err"; then
	run ng-execv execv 5 JITCACHE_REMOTE="$NGINX_URL/c"
	check "nginx, execv: the new program runs" ran ng-execv 5
	check "... and the 5 values stored before it are on the server" \
		test "$(find "$T/ng/root/c" -type f -not -path '*/leases/*' 2>/dev/null | wc -l)" -eq 5
else
	cat "$T/ng.err"
	check "nginx started (nginx-light)" false
fi
if [ ! -x "${JITCACHE_TESTBED:-/var/tmp/jitcache-testbed}/usr/bin/radosgw" ]; then
	skip "the S3 part: no radosgw in the test bed (make testbed-s3; make check-all sets it up)"
elif start_radosgw "$T/rgw" 2>"$T/rgw.err" && s3_make_bucket jitcache; then
	run s3-execv execv 5 JITCACHE_REMOTE=s3://jitcache/exec
	check "radosgw, execv: the new program runs" ran s3-execv 5
	node s3-fresh env CL_EXEC_TAG=s3-execv JITCACHE_REMOTE=s3://jitcache/exec \
		timeout 60 "$CLX" 5 execv /bin/echo
	check "... and the 5 values stored before it are on the server (another node hits them)" \
		test "$(stat_of s3-fresh remote_hits)" = 5
else
	cat "$T/rgw.err"
	check "radosgw started from the test bed (make testbed-s3)" false
fi

port=$(free_port)
rm -f "$T/ready"
python3 "$ROOT/tests/helpers/fault_http.py" slowput "$port" "$T/ready" &
SERVER_PIDS[fault]=$!
for i in $(seq 1 100); do [ -e "$T/ready" ] && break; sleep 0.05; done
run slow execve 3 JITCACHE_REMOTE="http://127.0.0.1:$port/c" JITCACHE_REMOTE_EXIT_WAIT=1
check "a server that never answers a PUT, exit_wait 1 s: the new program runs" ran slow 3
check "... the 3 writes dropped and counted" test "$(stat_of slow remote_dropped)" = 3
check "... and said in one line" grep -q "^jitcache: 3 remote writes dropped at exec after 1.0 s" "$T/slow.out"
check "... the values kept locally" test "$(entries "$T/node-slow")" -eq 3
t2=$(date +%s.%N)
run none execve 0 JITCACHE_REMOTE="http://127.0.0.1:$port/c" JITCACHE_REMOTE_EXIT_WAIT=5
t3=$(date +%s.%N)
check "a program that compiled nothing: its exec is not held up ($(awk -v a="$t2" -v b="$t3" 'BEGIN { printf "%.2f", b - a }') s)" \
	eval 'ran none 0 && awk -v a="$t2" -v b="$t3" "BEGIN { exit !(b - a < 4) }"'
finish
