#!/usr/bin/env bash
# tier: quick
# Files named by settings are read before the host's main(), so none may
# block it, flood its stderr or take its memory: the ini file
# (JITCACHE_CONFIG) and the Redis password file may be a FIFO nobody
# writes, /dev/zero, /dev/urandom, a directory or a file of a gigabyte.
# Each is refused in one line, the setting keeps its value, and the
# program runs on, at once and in little memory.  No GPU needed: the
# library is preloaded into /bin/true.
. "$(dirname "$0")/../lib.sh"

mkfifo "$T/fifo"
mkdir "$T/adir"
truncate -s 1G "$T/huge"                     # sparse: costs no disk
python3 -c "print('[cache]'); print('\n'.join('no_such_%d = 1' % i for i in range(3000)))" >"$T/bad.ini"

# run NAME VAR=VALUE...: /bin/true with the library, 10 s at most; its
# stderr in NAME.err, "SECONDS KB" in NAME.time.
run() {
	local name=$1; shift
	env "$@" timeout 10 /usr/bin/time -f "%e %M" -o "$T/$name.time" \
		env LD_PRELOAD="$LIB" /bin/true 2>"$T/$name.err"
	echo $? >"$T/$name.rc"
}
quick() { # NAME: exit 0 within 2 s in under 64 MB
	read -r secs kb <"$T/$1.time" && [ "$(cat "$T/$1.rc")" = 0 ] &&
		ge 2 "$secs" && [ "$kb" -lt 65536 ]
}
lines() { grep -c '^jitcache:' "$T/$1.err"; }

for f in fifo /dev/zero /dev/urandom adir huge; do
	case $f in /*) path=$f name=${f#/dev/} ;; *) path=$T/$f name=$f ;; esac
	run ini-$name JITCACHE_CONFIG="$path"
	check "ini file $name: the program ends at once, in little memory ($(cat "$T/ini-$name.time"))" quick ini-$name
	check "ini file $name: one line" test "$(lines ini-$name)" -eq 1
	check "ini file $name: it says why" grep -q "^jitcache: $path: cannot read config (.*); using defaults" "$T/ini-$name.err"
	echo "     $(head -n 1 "$T/ini-$name.err")"

	run pw-$name JITCACHE_REMOTE=redis://127.0.0.1:1 JITCACHE_REMOTE_PASSWORD_FILE="$path"
	check "password file $name: the program ends at once, in little memory ($(cat "$T/pw-$name.time"))" quick pw-$name
	check "password file $name: one line" test "$(lines pw-$name)" -eq 1
	check "password file $name: it says why" \
		grep -q "^jitcache: cannot read the remote's password file $path (.*); remote tier disabled" "$T/pw-$name.err"
done

# The setting keeps its value: `jitcache config` shows the defaults, no file.
JITCACHE_CONFIG=$T/fifo timeout 10 "$JITCACHE" config >"$T/config.out" 2>"$T/config.err"
check "jitcache config with a FIFO as the ini file ends" test $? -eq 0
check "... and shows no config file" grep -q '^config file *= (none)' "$T/config.out"
check "... and the defaults" grep -q '^cache.max_size *= 4G *(default;' "$T/config.out"

# /dev/null stays the way to say "no file", quietly.
run null JITCACHE_CONFIG=/dev/null
check "ini file /dev/null: no line" test "$(lines null)" -eq 0

# A file of 3000 bad lines: a few lines said, the rest counted in one.
run bad JITCACHE_CONFIG="$T/bad.ini"
check "ini file of 3000 bad lines: at most 6 lines ($(lines bad))" test "$(lines bad)" -le 6
check "... the last counts the others" grep -q "^jitcache: $T/bad.ini: [0-9]* more problems not shown" "$T/bad.err"

# A good password file still works (read, not refused).
printf 'secret\n' >"$T/pw"
run pw-good JITCACHE_REMOTE=redis://127.0.0.1:1 JITCACHE_REMOTE_PASSWORD_FILE="$T/pw"
check "a good password file: no line" test "$(lines pw-good)" -eq 0
finish
