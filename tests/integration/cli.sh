#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# The `jitcache` command's conventions (issue 36), as ccache's users know
# them: every command's --help, --version with the build's features and the
# ini files read, one error prefix and "did you mean", `config`'s exit
# status, `set NAME VALUE` writing the user's ini file, `trim 0` (no limit,
# as max_size 0) and `trim --older-than`, and the stats screen: short,
# aligned, one date format, plurals right, no line twice, the Redis tier
# named redis in text, JSON (schema 2) and Prometheus.
# No GPU: tests/helpers/jc_store fills the cache, jc_lookup asks it.
. "$(dirname "$0")/../lib.sh"
STORE=$B/tests/jc_store LOOKUP=$B/tests/jc_lookup
[ -x "$STORE" ] && [ -x "$LOOKUP" ] || { skip "build/tests/jc_store, jc_lookup not built (make tests)"; finish; exit; }
cd "$T" || exit 1

# ---- --help, for every command ------------------------------------------------
# As git's (issue 45 item 7): --help is an overview, one line per command;
# `help COMMAND` and `COMMAND --help` give a command's usage, `help --all`
# every command's and the settings.
"$JITCACHE" --help >help.txt 2>help.err
check "--help: exit status 0, nothing on stderr" test $? -eq 0 -a ! -s help.err
cmds=$(sed -n 's/^  \([a-z]*\)  .*/\1/p' help.txt)
check "--help lists the commands, one line each ($(echo $cmds))" \
	test "$(echo "$cmds" | wc -w)" -ge 15 -a "$(echo "$cmds" | sort -u | wc -w)" -eq "$(echo "$cmds" | wc -w)"
check "--help is short: $(wc -l <help.txt) lines (at most 30)" test "$(wc -l <help.txt)" -le 30
check "--help: no line over 80 columns" test "$(awk 'length > 80' help.txt | wc -l)" -eq 0
check "--help says where the rest is (help COMMAND, COMMAND --help, help --all)" \
	sh -c "grep -q 'jitcache help COMMAND' help.txt && grep -q 'COMMAND --help' help.txt && grep -q 'jitcache help --all' help.txt"
"$JITCACHE" help --all >help-all.txt 2>&1
all=$(sed -n 's/^\(usage: \| \{7\}\)jitcache \([a-z]*\).*/\2/p' help-all.txt | grep -vx help | sort -u)
check "help --all: every command's usage, each of them in the overview ($(echo $all))" \
	test "$(echo $all)" = "$(echo "$cmds" | sort | tr '\n' ' ' | sed 's/ $//')"
check "help --all: the settings too" grep -q '^  JITCACHE_DIR=' help-all.txt
check_not "--help: not the settings" grep -q 'JITCACHE_DIR=' help.txt
for c in $cmds; do
	for h in --help -h; do
		"$JITCACHE" "$c" "$h" >"h-$c.out" 2>"h-$c.err"
		check "jitcache $c $h: exit status 0, its usage, nothing on stderr" \
			sh -c "test $? -eq 0 && head -n 1 h-$c.out | grep -q '^usage: jitcache $c' && test ! -s h-$c.err"
	done
	"$JITCACHE" help "$c" >"hh-$c.out" 2>&1
	check "jitcache help $c: the same as $c --help" cmp -s "hh-$c.out" "h-$c.out"
done
"$JITCACHE" help trim >h-help.out 2>&1
check "jitcache help trim: trim's usage" grep -q '^usage: jitcache trim .*--older-than AGE' h-help.out
"$JITCACHE" help run >h-help.out 2>&1
check "jitcache help run: run's usage" grep -q '^usage: jitcache run ' h-help.out
"$JITCACHE" stats --json --help >h-mixed.out 2>&1
check "--help after another option: still the usage, exit 0" \
	sh -c "test $? -eq 0 && grep -q '^usage: jitcache stats' h-mixed.out"

# ---- --version ----------------------------------------------------------------
version=$(sed -n 's/^VERSION *:= *//p' "$ROOT/Makefile")
printf '[cache]\nmax_size = 3G\n' >sys.ini
JITCACHE_SYSTEM_CONFIG=$T/sys.ini "$JITCACHE" --version >version.txt 2>version.err
check "--version: exit status 0, nothing on stderr" test $? -eq 0 -a ! -s version.err
check "--version: jitcache $version first" test "$(head -n 1 version.txt)" = "jitcache $version"
check "--version: the APIs (Level Zero and OpenCL)" \
	sh -c "grep -q '^APIs .*Level Zero' version.txt && grep -q 'OpenCL' version.txt"
check "--version: the tiers, Redis named redis" grep -q '^tiers  *local, redis, layer, http, s3' version.txt
check "--version: libcurl found or not" grep -Eq '^libcurl  *(found|not found)' version.txt
check "--version: signing" grep -q '^signing  *Ed25519' version.txt
check "--version: the library run preloads" grep -q "^library  *$LIB " version.txt
check "--version: the system file, read" grep -q "^config files  *system  *$T/sys.ini (read)" version.txt
check "--version: the user file, not there" \
	grep -q "^  *user  *$XDG_CONFIG_HOME/jitcache/jitcache.ini (not there)" version.txt

# ---- one prefix, one line, "did you mean" -----------------------------------------
# bad ARGS... : exit 2 and exactly one line on stderr, "jitcache: ...".
bad() {
	"$JITCACHE" "$@" >bad.out 2>bad.err
	local rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <bad.err)" -eq 1 ] && grep -q '^jitcache: ' bad.err &&
		! grep -q 'jitcache-admin' bad.err && [ ! -s bad.out ]
}
said() { grep -qF -- "$1" bad.err; }
for args in "stast" "-s" "-M 20G" "stats --jsn" "stats -q" "stats extra" "stats --json --zero" \
	"trim --older-than" "trim --older-than 3x" "trim 12Q" "trim 1G 2G" "clear now" \
	"verify x" "export" "export a b" "export f --since yesterday" "import" "explain --jsno" \
	"keygen" "config x" "set" "set max_size" "set max_szie 1G" "set compress 1" \
	"set max_size lots" "settings --mna" "help stast" "run"; do
	# shellcheck disable=SC2086
	check "jitcache $args: one line, 'jitcache:', exit 2" bad $args
	echo "     $(cat bad.err)"
done
bad stast;            check "an unknown command: the closest" said '(did you mean `jitcache stats`?)'
bad -s;               check "ccache's -s: the command to use" said "unknown option '-s' (did you mean \`jitcache stats\`?)"
bad -z;               check "ccache's -z: stats --zero" said '`jitcache stats --zero`'
bad -M 20G;           check "ccache's -M: set max_size" said '`jitcache set max_size SIZE`'
bad -M20G;            check "... with its value attached" said '`jitcache set max_size SIZE`'
bad --max-size=20G;   check "... or after =" said '`jitcache set max_size SIZE`'
bad stats --jsn;      check "an unknown option: the closest" said "stats: unknown option '--jsn' (did you mean --json?)"
bad explain --jsno;   check "... of any command" said "(did you mean --json?)"
bad trim --older-than; check "an option without its value: said so" said "trim: --older-than needs a value"
bad set max_szie 1G;  check "an unknown setting: the closest" said "(did you mean max_size?)"
bad set compress 1;   check "a name in two sections: asks for one" said "remote.compress"
# Issue 45 item 6: every section named, no "..."; options and ways near a
# known one get their suggestion too.
bad set compress 1;   check "... naming every section it is in" said "(cache.compress or remote.compress)"
bad --verison;        check "a misspelt --version: the closest" said "unknown option '--verison' (did you mean \`jitcache --version\`?)"
bad --hlep;           check "a misspelt --help: the closest" said '(did you mean `jitcache --help`?)'
bad enable bash;      check "enable bash: the shell way" said "enable: unknown way 'bash' (did you mean \`jitcache enable shell\`?)"
bad disable sytemd;   check "disable sytemd: the closest way" said '(did you mean `jitcache disable systemd`?)'
# run's program not there: one line as jitcache's, the shell's status.
"$JITCACHE" run -- "$T/missing" >bad.out 2>bad.err
check "run -- a program that is not there: exit 127, one line" \
	sh -c "test $? -eq 127 && test \"\$(wc -l <bad.err)\" -eq 1"
check "... saying so as jitcache, not the script's exec" said "jitcache: run: $T/missing: no such file"
"$JITCACHE" run -- no-such-command-here >bad.out 2>bad.err
check "run -- a command not in PATH: exit 127, one line" \
	sh -c "test $? -eq 127 && grep -qx 'jitcache: run: no-such-command-here: command not found (not in PATH)' bad.err"

# A command that fails (not bad usage): exit 1, one line.
failed() {
	"$JITCACHE" "$@" >bad.out 2>bad.err
	local rc=$?
	[ $rc -eq 1 ] && [ "$(wc -l <bad.err)" -eq 1 ] && grep -q '^jitcache: ' bad.err
}
check "import of a file that is not there: one line, exit 1" failed import "$T/none.tar.zst"
check "... saying why and what was done" said "jitcache: cannot read $T/none.tar.zst: No such file or directory; nothing imported"
check "export into a directory that is not there: one line, exit 1" failed export "$T/no/dir/x.tar.zst"
check "keygen into a directory that is not there: one line, exit 1" failed keygen "$T/no/dir/key"

# ---- config: exit status 1 when a setting is invalid ------------------------------
"$JITCACHE" config >config.out 2>config.err
check "config, every setting fine: exit status 0" test $? -eq 0 -a ! -s config.err
printf '[cache]\nmax_size = lots\n' >bad-value.ini
JITCACHE_CONFIG=$T/bad-value.ini "$JITCACHE" config >config.out 2>config.err
check "config, a bad value in a file: exit status 1" test $? -eq 1
check "... the value shown INVALID" grep -q "^cache.max_size .*INVALID value in $T/bad-value.ini:2" config.out
check "... the file's line said, and a last line counts it" \
	sh -c "grep -q '^jitcache: $T/bad-value.ini:2: bad value' config.err && tail -n 1 config.err | grep -q '^jitcache: config: 1 problem in the settings'"
JITCACHE_LOCK_TIMEOUT=soon "$JITCACHE" config >/dev/null 2>&1
check "config, a bad value in the environment: exit status 1" test $? -eq 1
printf '[cache]\nmax_szie = 1G\n' >typo.ini
JITCACHE_CONFIG=$T/typo.ini "$JITCACHE" config >/dev/null 2>config.err
check "config, a misspelt name: exit status 1" test $? -eq 1
check "... one line naming the closest setting" \
	grep -q "^jitcache: $T/typo.ini:2: unknown setting \[cache\] max_szie (did you mean \[cache\] max_size?); ignored$" config.err
JITCACHE_CONFIG=$T/nowhere.ini "$JITCACHE" config >/dev/null 2>&1
check "config, JITCACHE_CONFIG naming no file: exit status 1" test $? -eq 1
JITCACHE_CONFIG=$T/typo.ini "$JITCACHE" stats >/dev/null 2>&1
check "other commands carry on past a bad setting (stats: exit 0)" test $? -eq 0

# ---- set NAME VALUE ---------------------------------------------------------------
user=$XDG_CONFIG_HOME/jitcache/jitcache.ini
"$JITCACHE" set max_size 20G >set1.out 2>set1.err
check "set max_size 20G: exit status 0, nothing on stderr" test $? -eq 0 -a ! -s set1.err
check "... says where it wrote" grep -qF "[cache] max_size = 20G written to $user" set1.out
check "... the user's file made, with the setting" \
	test "$(cat "$user")" = "$(printf '[cache]\nmax_size = 20G')"
"$JITCACHE" config >config.out
check "... and config takes it from there" grep -q "^cache.max_size  *= 20G  *($user:2;" config.out
cat >"$user" <<'INI'
; my settings, by hand
[cache]
# the cap
max_size = 1G
compress = 1

[log]
level = info
[cache]
max_size = 2G
INI
chmod 600 "$user"
"$JITCACHE" set max_size 20G >/dev/null 2>&1 && "$JITCACHE" set remote.url redis://cache.lan:6379 >/dev/null 2>&1 &&
	"$JITCACHE" set lock_timeout 30 >/dev/null 2>&1
check "set: a file written by hand keeps its comments and other settings" \
	diff - "$user" <<'INI'
; my settings, by hand
[cache]
# the cap
max_size = 20G
compress = 1
lock_timeout = 30

[log]
level = info
[cache]

[remote]
url = redis://cache.lan:6379
INI
check "set: the file keeps its mode (0600)" test "$(stat -c %a "$user")" = 600
check "set: no temporary file left" test "$(ls "$(dirname "$user")")" = jitcache.ini
mkdir -p sub && (cd sub && "$JITCACHE" set stats_log ./stats.jsonl >/dev/null 2>&1)
check "set: a relative path is written absolute (as typed from the current directory)" \
	grep -qx "stats_log = $T/sub/stats.jsonl" "$user"
cp "$user" before.ini
for args in "max_size lots" "max_szie 1G" "compress 1" "remote.url redis://a ;b" "lock_timeout -1"; do
	# shellcheck disable=SC2086
	"$JITCACHE" set $args >/dev/null 2>&1
	check "set $args: refused (exit 2), the file unchanged" sh -c "test $? -eq 2 && cmp -s before.ini '$user'"
done
JITCACHE_MAX_SIZE=5G "$JITCACHE" set max_size 30G >set2.out 2>set2.err
check "set, the environment overriding it: written, and said in one line" \
	sh -c "grep -q 'max_size = 30G written' set2.out && test \"\$(cat set2.err)\" = 'jitcache: set: max_size is still overridden by env JITCACHE_MAX_SIZE'"
rm -f "$user"

# ---- trim 0, trim --older-than, clear -----------------------------------------------
"$STORE" "$JITCACHE_DIR" 3 4096 >stored.txt
check "3 entries stored" test "$(entries)" -eq 3
"$JITCACHE" trim 0 >trim0.out 2>&1
check "trim 0: exit status 0" test $? -eq 0
check "trim 0: 0 is no limit, as for max_size: nothing removed" test "$(entries)" -eq 3
check "trim 0: says so, and what empties" grep -q '0 is no limit; `jitcache clear` empties the cache' trim0.out
JITCACHE_MAX_SIZE=0 "$JITCACHE" trim >trim-cap0.out 2>&1
check "trim with max_size 0 (no cap): nothing removed" \
	sh -c "test $? -eq 0 && test $(entries) -eq 3 && grep -q 'no cap' trim-cap0.out"
# An entry's mtime is when it was last used (a hit sets it).
touch -d '40 days ago' "$(sed -n 1p stored.txt)" "$(sed -n 2p stored.txt)"
touch -d '10 days ago' "$(sed -n 3p stored.txt)"
"$JITCACHE" trim --older-than 30d >age.out 2>&1
check "trim --older-than 30d: exit status 0" test $? -eq 0
check "trim --older-than 30d: the two entries unused for 40 days removed, one kept" \
	sh -c "test ! -e '$(sed -n 1p stored.txt)' && test ! -e '$(sed -n 2p stored.txt)' && test -e '$(sed -n 3p stored.txt)'"
check "trim --older-than 30d: says so (plural)" grep -q '^removed 2 entries (8.1K); 1 entry (4.1K) left$' age.out
"$JITCACHE" trim --older-than 240h >age2.out 2>&1
check "trim --older-than 240h: one entry (unused 10 days) removed, said in the singular" \
	grep -q '^removed 1 entry (.*); 0 entries (0 bytes) left$' age2.out
"$STORE" "$JITCACHE_DIR" 2 4096 >/dev/null
"$JITCACHE" clear >clear.out 2>&1
check "clear: empties" sh -c "test $? -eq 0 && test $(entries) -eq 0"

# ---- stats: the screen --------------------------------------------------------------
"$STORE" "$JITCACHE_DIR" 3 4096 >stored.txt
key=$(basename "$(sed -n 1p stored.txt)")
"$JITCACHE" stats --zero >/dev/null
"$LOOKUP" "$key" ffffffffffffffffffffffffffffffff >lookup.out
check "one hit, one miss looked up" grep -q "^$key hit" lookup.out
mkdir -p layer
JITCACHE_REMOTE="redis://127.0.0.1:1 http://127.0.0.1:1/c" JITCACHE_LAYERS=$T/layer \
	"$JITCACHE" stats >stats.txt 2>stats.err
check "stats: exit status 0, nothing on stderr" test $? -eq 0 -a ! -s stats.err
cat stats.txt | sed 's/^/     /'
check "stats: at most 20 lines, with a remote and a layer ($(wc -l <stats.txt))" test "$(wc -l <stats.txt)" -le 20
check "stats: the values in one column" \
	awk '{ c = match($0, /  [^ ]/); if (!c || (col && c != col)) bad = 1; col = c } END { exit bad }' stats.txt
check "stats: no label twice" test -z "$(sed 's/  .*//' stats.txt | sort | uniq -d)"
check "stats: 1 hit, of 2 lookups" grep -q '^hits  *1 (50.0% of 2 lookups)$' stats.txt
check "stats: misses by cause, those not 0" grep -q '^misses by cause  *1 found nowhere$' stats.txt
check "stats: hits by tier, the Redis tier named redis" \
	grep -q '^hits by tier  *local 1, redis 0, layer 1: 0, http 0$' stats.txt
check "stats: the remotes' line, in the singular and plural" \
	grep -Eq '^remotes  *(nothing asked yet|[0-9]+ (hit|miss|error)s?.*); .* in, .* out$' stats.txt
check "stats: no '1 <plural>'" test -z "$(grep -E '(^|[^0-9.])1 (hits|misses|entries|recipes|lookups|stores|errors)\b' stats.txt)"
check "stats: no line wider than 80 columns" test "$(awk 'length > 80' stats.txt | wc -l)" -eq 0
check "stats: the date as YYYY-MM-DD HH:MM:SS" \
	grep -Eq '^counted since  *[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}$' stats.txt
check "stats: times saved in seconds, one line" test "$(grep -c ' s CPU, .* s wall' stats.txt)" -eq 1
"$JITCACHE" stats -v >stats-v.txt
check "stats -v: every counter of store.h, each once" \
	sh -c "for l in \$(sed -n 's/^[[:space:]]*X([A-Z_]*, *[a-z_]*, *\"\([^\"]*\)\").*/\1/p' '$ROOT/store/store.h' | tr ' ' '_'); do
		test \"\$(sed 's/  .*//' stats-v.txt | tr ' ' '_' | grep -cx \"\$l\")\" -eq 1 || exit 1; done"
check "stats -v: the values in one column" \
	awk '{ c = match($0, /  [^ ]/); if (!c || (col && c != col)) bad = 1; col = c } END { exit bad }' stats-v.txt
check "stats -v: no label twice" test -z "$(sed 's/  .*//' stats-v.txt | sort | uniq -d)"

"$JITCACHE" stats --json >stats.json
json() { python3 -c "import json,sys; s = json.load(open('stats.json')); print($1)"; }
check "stats --json: schema 2" test "$(json 's["schema"]')" = 2
check "stats --json: hits_by_tier names the Redis tier redis, and no tier remote" \
	test "$(json '"redis" in s["hits_by_tier"], "remote" in s["hits_by_tier"]')" = "True False"
"$JITCACHE" stats --prometheus >prom.txt
check "stats --prometheus: hits of the Redis tier as tier=\"redis\"" grep -q '^jitcache_hits_total{.*tier="redis"} 0$' prom.txt
check_not "stats --prometheus: no hits of a tier=\"remote\"" grep -q '^jitcache_hits_total{.*tier="remote"}' prom.txt
finish
