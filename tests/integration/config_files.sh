#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# Files named by settings are read on the first intercepted call (never in a
# process that makes none: idle is free, issue 37), inside the host's own
# call, so none may block it, flood its stderr or take its memory: the ini
# file (JITCACHE_CONFIG) and the Redis password file may be a FIFO nobody
# writes, /dev/zero, /dev/urandom, a directory or a file of a gigabyte.
# Each is refused in one line, the setting keeps its value, and the
# program runs on, at once and in little memory.  The program is
# cl_build on PoCL (a hit: the cache is warmed first); /bin/true, which
# calls nothing of jitcache's, must not even look at the files.
. "$(dirname "$0")/../lib.sh"
CLB=$B/tests/cl_build
if [ ! -x "$CLB" ] || ! clinfo -l 2>/dev/null | grep -q "Portable Computing Language"; then
	skip "needs PoCL (pocl-opencl-icd) and build/tests/cl_build (make tests)"
	finish
	exit
fi
export POCL_KERNEL_CACHE=0

mkfifo "$T/fifo"
mkdir "$T/adir"
truncate -s 1G "$T/huge"                     # sparse: costs no disk
python3 -c "print('[cache]'); print('\n'.join('no_such_%d = 1' % i for i in range(3000)))" >"$T/bad.ini"
echo 'kernel void k(global float *a) { a[0] = 1; }' >"$T/tiny.cl"
LD_PRELOAD=$LIB "$CLB" --platform Portable --source "$T/tiny.cl" >/dev/null 2>&1 # warm

# run NAME VAR=VALUE...: cl_build with the library, 10 s at most; its
# stderr in NAME.err, "SECONDS KB" in NAME.time.  idle NAME VAR=VALUE...:
# the same with /bin/true.
run() {
	local name=$1; shift
	env "$@" timeout 10 /usr/bin/time -f "%e %M" -o "$T/$name.time" \
		env LD_PRELOAD="$LIB" "$CLB" --platform Portable --source "$T/tiny.cl" \
		>/dev/null 2>"$T/$name.err"
	echo $? >"$T/$name.rc"
}
idle() {
	local name=$1; shift
	env "$@" timeout 10 env LD_PRELOAD="$LIB" /bin/true 2>"$T/$name.err"
	echo $? >"$T/$name.rc"
}
run base JITCACHE_CONFIG=/dev/null
read -r base_secs base_kb <"$T/base.time"
quick() { # NAME: exit 0 within 3 s more than a plain run, in under 64 MB more
	read -r secs kb <"$T/$1.time" && [ "$(cat "$T/$1.rc")" = 0 ] &&
		ge "$(awk -v b="$base_secs" 'BEGIN { print b + 3 }')" "$secs" &&
		[ "$kb" -lt $((base_kb + 65536)) ]
}
lines() { grep -c '^jitcache:' "$T/$1.err"; }

for f in fifo /dev/zero /dev/urandom adir huge; do
	case $f in /*) path=$f name=${f#/dev/} ;; *) path=$T/$f name=$f ;; esac
	run ini-$name JITCACHE_CONFIG="$path"
	check "ini file $name: the program ends at once, in little memory ($(cat "$T/ini-$name.time"))" quick ini-$name
	check "ini file $name: one line" test "$(lines ini-$name)" -eq 1
	check "ini file $name: it says why" grep -q "^jitcache: $path: cannot read config (.*); its settings are not used" "$T/ini-$name.err"
	echo "     $(head -n 1 "$T/ini-$name.err")"
	idle idle-ini-$name JITCACHE_CONFIG="$path"
	check "ini file $name: an idle /bin/true ends, saying nothing" \
		test "$(cat "$T/idle-ini-$name.rc")" = 0 -a ! -s "$T/idle-ini-$name.err"

	run pw-$name JITCACHE_REMOTE=redis://127.0.0.1:1 JITCACHE_REMOTE_PASSWORD_FILE="$path"
	check "password file $name: the program ends at once, in little memory ($(cat "$T/pw-$name.time"))" quick pw-$name
	check "password file $name: one line" test "$(lines pw-$name)" -eq 1
	check "password file $name: it says why" \
		grep -q "^jitcache: cannot read the remote's password file $path (.*); remote tier disabled" "$T/pw-$name.err"
done

# The setting keeps its value: `jitcache config` shows the defaults, and the
# file it could not read (exit status 1: a setting is not what was asked).
JITCACHE_CONFIG=$T/fifo timeout 10 "$JITCACHE" config >"$T/config.out" 2>"$T/config.err"
check "jitcache config with a FIFO as the ini file ends, exit status 1" test $? -eq 1
check "... and shows the file unread" grep -q "^JITCACHE_CONFIG *= $T/fifo *(INVALID: cannot be read)" "$T/config.out"
check "... and the defaults" grep -q '^cache.max_size *= 4G *(default;' "$T/config.out"

# /dev/null stays the way to say "no file", quietly.
run null JITCACHE_CONFIG=/dev/null
check "ini file /dev/null: no line" test "$(lines null)" -eq 0

# A file of 3000 bad lines: a few lines said, the rest counted in one.
run bad JITCACHE_CONFIG="$T/bad.ini"
check "ini file of 3000 bad lines: at most 6 lines ($(lines bad))" test "$(lines bad)" -le 6
check "... the last counts the others" grep -q "^jitcache: $T/bad.ini: [0-9]* more problems not shown" "$T/bad.err"

# Several files, each overriding the one before: the system file
# (JITCACHE_SYSTEM_CONFIG here, /etc/jitcache.ini by default), the user's,
# JITCACHE_CONFIG, then the environment.  A user's file no longer hides the
# system's remote and trusted keys; `jitcache config` names where each value
# came from.  (Before, the first file found won.)
mkdir -p "$XDG_CONFIG_HOME/jitcache"
user=$XDG_CONFIG_HOME/jitcache/jitcache.ini
printf '[cache]\nmax_size = 1G\nlock_timeout = 5\n[remote]\nurl = redis://10.0.0.1\n[trust]\ntrusted_keys = /etc/jitcache/fleet.pub\n' >"$T/system.ini"
printf '[cache]\nmax_size = 2G\nlock_timeout = 6\n' >"$user"
printf '[cache]\nlock_timeout = 7\n' >"$T/explicit.ini"
JITCACHE_SYSTEM_CONFIG=$T/system.ini JITCACHE_CONFIG=$T/explicit.ini JITCACHE_LOG=error \
	"$JITCACHE" config >"$T/layers.out" 2>"$T/layers.err"
check "several files: config exits 0, says nothing" test $? -eq 0 -a ! -s "$T/layers.err"
check "several files: the system file's remote stays" grep -q "^remote.url *= redis://10.0.0.1 *($T/system.ini:5;" "$T/layers.out"
check "several files: ... and its trusted keys" grep -q "^trust.trusted_keys *= /etc/jitcache/fleet.pub *($T/system.ini:7;" "$T/layers.out"
check "several files: the user's file overrides the system's" grep -q "^cache.max_size *= 2G *($user:2;" "$T/layers.out"
check "several files: JITCACHE_CONFIG overrides both" grep -q "^cache.lock_timeout *= 7 *($T/explicit.ini:2;" "$T/layers.out"
check "several files: the environment overrides every file" grep -q "^log.level *= error *(env JITCACHE_LOG;" "$T/layers.out"
check "several files: each file listed, read" \
	sh -c "grep -q '^system file *= $T/system.ini *(read)' '$T/layers.out' && grep -q '^user file *= $user *(read)' '$T/layers.out' && grep -q '^JITCACHE_CONFIG *= $T/explicit.ini *(read)' '$T/layers.out'"
JITCACHE_SYSTEM_CONFIG=$T/system.ini "$JITCACHE" stats --json >"$T/layers.json" 2>/dev/null
check "several files: the commands use them (stats: max_size 2G)" grep -q '"max_size": 2147483648,' "$T/layers.json"
rm -f "$user"
JITCACHE_SYSTEM_CONFIG=$T/no-such.ini "$JITCACHE" config >"$T/nosys.out" 2>"$T/nosys.err"
check "JITCACHE_SYSTEM_CONFIG naming no file: one line, config exits 1" \
	sh -c "test $? -eq 1 && grep -q '^jitcache: $T/no-such.ini: cannot read config' '$T/nosys.err'"
check "a user file that is not there: nothing said" \
	sh -c "grep -q '^user file *= $user *(not there)' '$T/nosys.out' && ! grep -q '$user' '$T/nosys.err'"

# A good password file still works (read, not refused).
printf 'secret\n' >"$T/pw"
run pw-good JITCACHE_REMOTE=redis://127.0.0.1:1 JITCACHE_REMOTE_PASSWORD_FILE="$T/pw"
check "a good password file: no line" test "$(lines pw-good)" -eq 0
finish
