#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# The remote tier never costs a result and never much time.  A node (a
# process creating two Level Zero modules cold, one after the other, on the
# simulated Arc) runs against a Redis that is stopped, unreachable, paused
# (CLIENT PAUSE), a server answering garbage, a host that does not answer
# (connect timeout), or a Redis that refuses the password: every module is
# created with the driver's result, jitcache says what is wrong in one
# line, the first failed exchange costs at most the timeout and the remote
# is then skipped (one error counted, not one per call), also by a second
# process of the same cache directory.  A Redis out of memory refuses
# writes: said once, no back-off.  Then the right password (from a file,
# and an ACL user limited to jitcache's keys) works.  Every server here is
# started by this test.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/ze_common.bash"
. "$ROOT/tests/integration/remote_common.bash"
need_ze
need_redis
unset JITCACHE_LOCK_TIMEOUT JITCACHE_COMPRESS JITCACHE_REMOTE
export JITCACHE_LOG=info JITCACHE_REMOTE_TIMEOUT=1 JITCACHE_REMOTE_CONNECT_TIMEOUT=1
TIMEOUT=1

check "SPIR-V built with ocloc" spirv reduce "$KERNELS/reduce.cl"
check "SPIR-V built with ocloc" spirv norm "$KERNELS/norm.cl"
# said_of_remote FILE: a line about the remote tier, but the exit line
# (which counts the stores that also went there).
said_of_remote() { grep -v '^jitcache: [0-9]* hits' "$1" | grep -q remote; }
stat_of() { stats_in "$T/node-$1" "$2"; } # NODE FIELD
run_pair() { # NODE [env ...]: both modules, one after the other; prints the wall time
	local name=$1
	shift
	elapsed node "$name" env "$@" "$CLIENT" link -s "$T/reduce.spv" "$T/norm.spv"
}
created() { # NODE: both modules created with the driver's result
	grep -q "result 0x0 kernels 19" "$T/$1.out" && grep -q "result 0x0 kernels 11" "$T/$1.out"
}

base=$(run_pair base)
check "no remote: both modules created" created base
echo "     no remote: ${base} s"

# fault NODE WHAT PATTERN URL: a node against URL; PATTERN is its one line.
fault() {
	local name=$1 what=$2 pattern=$3 url=$4 t lost
	t=$(run_pair "$name" JITCACHE_REMOTE="$url")
	lost=$(awk -v a="$t" -v b="$base" 'BEGIN { printf "%.2f", a - b }')
	echo "     $what: ${t} s (${lost} s more than without a remote)"
	check "$what: both modules created, the driver's results" created "$name"
	check "$what: said so in one line" test "$(grep -c "^jitcache: remote .*$pattern" "$T/$name.out")" -eq 1
	check "$what: nothing else said about the remote" test "$(grep -c "remote" "$T/$name.out")" -eq 1
	check "$what: one failed exchange, then skipped ($(stat_of "$name" remote_errors))" \
		test "$(stat_of "$name" remote_errors)" -eq 1
	check "$what: both modules compiled and stored locally" test "$(entries "$T/node-$name")" -eq 2
	# Every remote call paying the timeout would cost 8 of them.  What the
	# program waited for the remote, by its own clock (stats), is the
	# timeout at most; the wall time of the whole run, beside another
	# test on a busy machine, gets the noise of a loaded 2-core box.
	local waited
	waited=$(awk -v n="$(stat_of "$name" remote_wait_ns)" 'BEGIN { printf "%.2f", n / 1e9 }')
	check "$what: waited at most the timeout for the remote (${waited} s)" \
		ge "$(awk -v t=$TIMEOUT 'BEGIN { print t + 0.25 }')" "$waited"
	check "$what: no more lost in all, plus noise (${lost} s)" \
		ge "$(awk -v t=$TIMEOUT 'BEGIN { print t + 4 }')" "$lost"
}

# ---- stopped -----------------------------------------------------------------------
check "redis-server started" start_redis gone
port=$REDIS_PORT_gone
stop_redis gone
fault stopped "Redis stopped" "cannot connect (Connection refused)" "redis://127.0.0.1:$port"

# ---- unreachable (TEST-NET-1: routed nowhere; refused or dropped, as the
# network here decides; a host that drops requests is tested below) -------------
fault unreach "Redis unreachable" "cannot connect" "redis://192.0.2.1:6379"

# ---- paused --------------------------------------------------------------------------------
check "redis-server started" start_redis paused
check "CLIENT PAUSE" test "$(rcli paused CLIENT PAUSE 120000 ALL)" = OK
fault paused "Redis paused" "no answer to GET within 1 s" "redis://127.0.0.1:$REDIS_PORT_paused"
# A second process of the same cache directory, missing another module:
# the back-off the first one left there spares it the timeout too.
t=$(elapsed node paused2 env JITCACHE_DIR="$T/node-paused" \
	JITCACHE_REMOTE="redis://127.0.0.1:$REDIS_PORT_paused" "$CLIENT" link -f -cl-mad-enable "$T/reduce.spv")
check "paused, second process: module created" grep -q "result 0x0 kernels 19" "$T/paused2.out"
check "paused, second process: compiled" test "$(entries "$T/node-paused")" -eq 3
check "paused, second process: did not try the remote (errors still 1)" \
	test "$(stat_of paused remote_errors)" -eq 1
check_not "paused, second process: said nothing" grep -q "remote" "$T/paused2.out"
echo "     paused, a second process of the same cache directory: ${t} s"
stop_redis paused # (CLIENT UNPAUSE would wait for the pause to end, too)

# ---- servers that are not Redis ----------------------------------------------------
fake() { # MODE: a fake server (tests/helpers/fake_redis.py); sets FAKE_PORT
	local _
	FAKE_PORT=$(free_port)
	python3 "$ROOT/tests/helpers/fake_redis.py" "$FAKE_PORT" "$1" "$T/ready-$1" &
	REDIS_PIDS[fake$1]=$!
	for _ in $(seq 1 200); do
		[ -e "$T/ready-$1" ] && return 0
		sleep 0.025
	done
	return 1
}
check "a server answering junk started" fake junk
fault junk "a server answering junk" "the answer to GET is not Redis protocol" "redis://127.0.0.1:$FAKE_PORT"
check "a server answering +OK started" fake ok
fault okay "a server answering +OK to everything" "unexpected answer to GET" "redis://127.0.0.1:$FAKE_PORT"
# A listener whose queue is full: the kernel drops the connection request,
# as for a host that does not answer, and connect() waits for its timeout.
check "a server that never accepts started" fake mute
fault mute "a host that does not answer" "cannot connect (Connection timed out)" "redis://127.0.0.1:$FAKE_PORT"

# ---- a Redis that refuses writes (out of memory) ---------------------------------------
# A refusal is not a failure of the connection: said once, counted, and the
# remote stays in use (no back-off, nothing waits).
check "redis-server with no room started" start_redis full --maxmemory 1 --maxmemory-policy noeviction
t=$(run_pair full JITCACHE_REMOTE="redis://127.0.0.1:$REDIS_PORT_full")
check "Redis out of memory: both modules created" created full
check "Redis out of memory: said so in one line" \
	test "$(grep -c "^jitcache: remote .*refused (OOM" "$T/full.out")" -eq 1
check "Redis out of memory: nothing stored there" test "$(rcli full DBSIZE)" -eq 0
check "Redis out of memory: still asked for each module (2 remote misses)" \
	test "$(stat_of full remote_misses)" -eq 2
echo "     Redis out of memory: ${t} s ($(stat_of full remote_errors) refusals counted)"

# ---- passwords ---------------------------------------------------------------------------
check "redis-server with a password and an ACL user started" start_redis auth \
	--requirepass Right-Pass-1 --user ci on '>Ci-Pass-2' '~jitcache:*' '+@all'
P=$REDIS_PORT_auth
fault wrongpw "wrong password" "login refused (WRONGPASS" "redis://:Wrong-Pass-9@127.0.0.1:$P"
check_not "wrong password: not printed" grep -q "Wrong-Pass-9" "$T/wrongpw.out"
# Issue 45: a password to fix, not a network to look at.  The second
# module's miss came in the back-off the refusal started: refused as well.
JITCACHE_DIR=$T/node-wrongpw "$JITCACHE" explain >"$T/wrongpw.explain" 2>&1
check "wrong password: explain says the login was refused, for both misses" \
	test "$(grep -c 'refused the login' "$T/wrongpw.explain")" -eq 2
check_not "wrong password: ... not that the server did not answer" \
	grep -q 'did not answer' "$T/wrongpw.explain"
check "wrong password: stats counts both misses as login refused" \
	test "$(stat_of wrongpw miss_login_refused)" -eq 2 -a "$(stat_of wrongpw miss_unreachable)" -eq 0
JITCACHE_DIR=$T/node-wrongpw "$JITCACHE" stats >"$T/wrongpw.stats" 2>&1
check "wrong password: jitcache stats says 2 login refused" \
	grep -q '^ *misses by cause .*2 login refused' "$T/wrongpw.stats"
# A later process, in the back-off the first one started (an hour: no
# race with the clock), never asks: still a refused login, read from the
# back-off file.  (The entries are removed in between: it misses again.)
run_pair wrongpw2 JITCACHE_REMOTE="redis://:Wrong-Pass-9@127.0.0.1:$P" JITCACHE_REMOTE_BACKOFF=3600 >/dev/null
find "$T/node-wrongpw2" -mindepth 2 -maxdepth 2 -type f -regex '.*/[0-9a-f][0-9a-f]/[0-9a-f]*' -delete
run_pair wrongpw2 JITCACHE_REMOTE="redis://:Wrong-Pass-9@127.0.0.1:$P" JITCACHE_REMOTE_BACKOFF=3600 >/dev/null
check "wrong password, a second process in the back-off: asked nothing ($(stat_of wrongpw2 remote_errors) error)" \
	test "$(stat_of wrongpw2 remote_errors)" -eq 1
check "... its misses are login refused too ($(stat_of wrongpw2 miss_login_refused) of 4)" \
	test "$(stat_of wrongpw2 miss_login_refused)" -eq 4 -a "$(stat_of wrongpw2 misses)" -eq 4

printf 'Right-Pass-1\n' >"$T/pw"
chmod 600 "$T/pw"
run_pair pwfile JITCACHE_REMOTE="redis://127.0.0.1:$P" JITCACHE_REMOTE_PASSWORD_FILE="$T/pw" >/dev/null
check "password from a file: both modules created" created pwfile
check "password from a file: stored remotely" test "$(stat_of pwfile remote_stores)" -eq 2
check_not "password from a file: nothing said" said_of_remote "$T/pwfile.out"
run_pair acl JITCACHE_REMOTE="redis://ci:Ci-Pass-2@127.0.0.1:$P" >/dev/null
check "ACL user limited to jitcache:* keys: hits both" \
	test "$(stat_of acl remote_hits)" -eq 2 -a "$(stat_of acl remote_errors)" -eq 0
check_not "ACL user: nothing said" said_of_remote "$T/acl.out"
# The hardening docs/trust.md recommends (issue 45): the ACL user in the
# URL, its password in a file, not in the URL.
printf 'Ci-Pass-2\n' >"$T/ci-pw"
chmod 600 "$T/ci-pw"
run_pair aclfile JITCACHE_REMOTE="redis://ci@127.0.0.1:$P" JITCACHE_REMOTE_PASSWORD_FILE="$T/ci-pw" >/dev/null
check "ACL user in the URL, its password from a file: hits both" \
	test "$(stat_of aclfile remote_hits)" -eq 2 -a "$(stat_of aclfile remote_errors)" -eq 0
check_not "... nothing said" said_of_remote "$T/aclfile.out"
run_pair aclnone JITCACHE_REMOTE="redis://ci@127.0.0.1:$P" >/dev/null
check "ACL user without any password: one line, remote off" \
	grep -q "^jitcache: remote redis://\*\*\*@127.0.0.1:$P: its user needs a password .*; remote tier disabled" "$T/aclnone.out"
check "ACL user without any password: both modules created" created aclnone
printf '' >"$T/empty-pw"
run_pair badfile JITCACHE_REMOTE="redis://127.0.0.1:$P" JITCACHE_REMOTE_PASSWORD_FILE="$T/empty-pw" >/dev/null
check "an empty password file: one line, remote off" \
	grep -q "^jitcache: cannot read the remote's password file $T/empty-pw (empty file); remote tier disabled" "$T/badfile.out"
check "an empty password file: both modules created" created badfile
# ---- an S3 bucket that is not there, on a slow server ------------------------------------
# Every request answered 404 NoSuchBucket after 0.2 s (tests/helpers/fault_http.py): the
# lease cannot be written, which is said once; the time those requests took is no wait for
# another process's compile, and the exit line does not say it is (fleet_s3's radosgw under
# load made it say "waited 0.01 s for other processes' compiles").
port=$(free_port)
rm -f "$T/ready"
python3 "$ROOT/tests/helpers/fault_http.py" nobucket "$port" "$T/ready" &
SERVER_PIDS[nobucket]=$!
for i in $(seq 1 100); do [ -e "$T/ready" ] && break; sleep 0.05; done
run_pair nobucket JITCACHE_REMOTE=s3://no-such-bucket/x AWS_ENDPOINT_URL="http://127.0.0.1:$port" \
	AWS_ACCESS_KEY_ID=AKIDEXAMPLE AWS_SECRET_ACCESS_KEY=secret AWS_REGION=us-east-1 >/dev/null
check "S3 without its bucket: both modules created" created nobucket
check "... the lease said once" test "$(grep -c "compile lease cannot be written" "$T/nobucket.out")" -eq 1
check_not "... and no wait for other processes said ($(grep -o "waited [0-9.]* s" "$T/nobucket.out"))" \
	grep -q "waited .* for other processes" "$T/nobucket.out"
check "... (the exit line said)" grep -q "^jitcache: 0 hits, 2 misses" "$T/nobucket.out"
stop_server nobucket

finish
