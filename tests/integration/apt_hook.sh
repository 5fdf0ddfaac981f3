#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# The Debian package's apt hook (issue 37 item 5): packaging/debian/apt/apt-warm,
# run directly as apt's DPkg::Post-Invoke runs it, with a dpkg-query of the
# test's own that reports the versions of Intel's driver and compiler
# packages.  Off unless its configuration says enabled = yes; the first run
# records the versions; a change of them starts `jitcache warm` in the
# background, as the listed user, niced, on a quarter of the cores (at least
# one), with progress and an ETA in its log, and the entries the change
# removed (here: deleted; their recipes kept) are compiled again, on the
# simulated Arc GPU.  The hook itself returns at once and with status 0
# whatever goes wrong.  apt reads the apt.conf.d file as intended.
# The user's warm holds no descriptor of root's (issue 44, item 15): not the
# hook's lock (fd 9), not its log; it writes into a log of its own, and a
# line it prints that reads as one of the hook's is not in the hook's log.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/ze_common.bash"
need_ze
HOOK=$ROOT/packaging/debian/apt/apt-warm
export JITCACHE_APT_CONF=$T/apt-warm.conf JITCACHE_APT_STATE=$T/state/apt-warm.state
export JITCACHE_APT_LOG=$T/log/apt-warm.log JITCACHE_APT_JITCACHE=$T/jitcache
unset JITCACHE_RECIPES # the default: on
LOG=$JITCACHE_APT_LOG
# dpkg-query as the hook calls it: the lines of $T/dpkg (and its arguments kept)
mkdir -p "$T/fakebin"
cat >"$T/fakebin/dpkg-query" <<SH
#!/bin/sh
printf '%s\n' "\$*" >"$T/dpkg-args"
cat "$T/dpkg"
SH
chmod +x "$T/fakebin/dpkg-query"
export PATH=$T/fakebin:$PATH
# The jitcache the hook runs: this build's, with the environment the
# program below runs with (the simulated GPU, the driver's own cache off:
# what its keys were made with), which the hook's clean one lacks.
export -p >"$T/env.sh"
# While $T/inspect exists it says who it is and waits (20 s at most) for
# $T/go, so that its descriptors can be seen from outside; and it prints a
# line that reads as the hook's own.  From the moment its pid is written
# until $T/go it opens no descriptor of its own, so that what is seen is
# what it was given: the pid is written by a child, and the wait is
# builtins and sleep (a redirection or a \$(...) there would, for a moment:
# the pipe of \$(seq 200) was seen at fd 3 when two tests ran at once).
cat >"$T/jitcache" <<SH
#!/bin/bash
if [ -e '$T/inspect' ]; then
	sh -c 'echo \$PPID >"\$1"' sh '$T/standin.pid'
	for ((i = 0; i < 200; i++)); do [ -e '$T/go' ] && break; sleep 0.1; done
	echo "2099-01-01 00:00:00 \$(id -un): jitcache warm ended with status 0"
fi
. '$T/env.sh'
cd '$T/sim' && exec '$JITCACHE' "\$@"
SH
chmod +x "$T/jitcache"
mkdir -p "$T/sim"
printf 'ii  intel-opencl-icd:amd64 22.43.24595.41-1\nii  libigc1:amd64 1.0.12504.6-1\nrc  libigdfcl1:amd64 1.0.12504.6-1\n' >"$T/dpkg"
me=$(id -un)
ULOG=$T/log/apt-warm.$me.log # the user's own
# The hook as apt runs it: with no descriptor beyond 0-2 (apt's ExecFork
# closes the others), whatever this script was given.
hook() {
	(
		for f in "/proc/$BASHPID/fd/"*; do
			[ "${f##*/}" -gt 2 ] && eval "exec ${f##*/}>&-"
		done 2>/dev/null
		exec "$HOOK"
	) >"$T/hook.out" 2>&1
}

printf 'enabled = no\nuser = %s %s   # a comment\n' "$me" "$JITCACHE_DIR" >"$JITCACHE_APT_CONF"
hook
check "off (enabled = no): status 0" test $? -eq 0
check "... nothing recorded, nothing logged" test ! -e "$T/state" -a ! -e "$T/log"
sed -i 's/^enabled = no/enabled = yes  # on/' "$JITCACHE_APT_CONF"
hook
check "on, first run: status 0" test $? -eq 0
check "... the installed driver packages recorded (not the removed one)" \
	test "$(cat "$JITCACHE_APT_STATE")" = "$(printf 'intel-opencl-icd:amd64 22.43.24595.41-1\nlibigc1:amd64 1.0.12504.6-1')"
check "... dpkg-query asked for Intel's packages by pattern (not globbed by the shell)" \
	grep -q "libigc\* libigdfcl\*" "$T/dpkg-args"
check "... logged, nothing warmed" sh -c "grep -q 'recorded the installed driver packages (2)' '$LOG' && ! grep -q warming '$LOG'"
hook
check "the same versions again: nothing more logged" test "$(wc -l <"$LOG")" -eq 1

# Three modules compiled by a program; their entries then lost (as a driver
# upgrade makes them miss), their recipes kept.
for m in reduce gemm norm; do
	check "SPIR-V of $m.cl built with ocloc" spirv "$m" "$KERNELS/$m.cl"
	(cd "$T/sim" && jc "$CLIENT" link "$T/$m.spv" >"$T/$m.out" 2>&1)
done
check "the program stored 3 entries, with their recipes" test "$(entries)/$(recipes)" = 6/3
for f in $(find "$JITCACHE_DIR" -mindepth 2 -maxdepth 2 -type f -regex '.*/[0-9a-f][0-9a-f]/[0-9a-f]*'); do
	[ $(( $(od -An -tu1 -j12 -N1 "$f") & 2 )) -ne 0 ] || rm "$f" # not a recipe (recipes(), lib.sh)
done
check "... entries deleted, recipes kept" test "$(entries)/$(recipes)" = 3/3
sed -i 's/libigc1:amd64 1.0.12504.6-1/libigc1:amd64 1.0.13000.1-1/' "$T/dpkg"
touch "$T/inspect"
start=$(date +%s%N)
hook
rc=$?
took_ms=$(( ($(date +%s%N) - start) / 1000000 ))
check "a driver upgrade: the hook returns status 0" test $rc -eq 0
check "... at once (${took_ms} ms), the warming in the background" test "$took_ms" -lt 5000
for _ in $(seq 600); do [ -s "$T/standin.pid" ] && break; sleep 0.1; done
pid=$(cat "$T/standin.pid" 2>/dev/null)
for f in /proc/${pid:-none}/fd/*; do
	printf '%s %s\n' "${f##*/}" "$(readlink "$f")"
done >"$T/user-fds"
touch "$T/go"
rm "$T/inspect"
check "the user's warm started (pid ${pid:-none}), its descriptors seen" test -s "$T/user-fds"
# bash reads its script through one (255): the stand-in's own.
check "... none beyond 0-2 but its script's (root's lock, fd 9, was one)" \
	test -z "$(awk '$1 > 2 && $2 != "'"$T/jitcache"'"' "$T/user-fds")"
check "... none is the hook's lock or its log (its output was)" \
	sh -c "! grep -e ' $JITCACHE_APT_STATE.lock\$' -e ' $LOG\$' '$T/user-fds'"
for _ in $(seq 300); do grep -q ' done$' "$LOG" && break; sleep 1; done
check "... a line it printed that reads as the hook's: not in the hook's log" \
	sh -c "! grep -q '^2099-01-01' '$LOG' && grep -q '^2099-01-01' '$ULOG'"
check "... the change logged" grep -q "packages changed: libigc1:amd64 1.0.13000.1-1$" "$LOG"
cores=$(nproc); n=$((cores / 4)); [ $n -ge 1 ] || n=1
check "... on $n of $cores cores (a quarter, at least one)" grep -q "warming on $n of $cores cores (CPUs $((cores - n))-$((cores - 1)))" "$LOG"
check "... warm ran as $me, niceness 19, on those CPUs (said in its own log)" \
	grep -q "running as $me, niceness 19, CPUs $((cores - n))" "$ULOG"
check "... the hook's log names that log" grep -q "$me: jitcache warm (cache .*) (its output: $ULOG) \.\.\.$" "$LOG"
check "... progress with an ETA in the user's log" grep -q "warm \[#*\] 3/3, ETA 0:00 ([0-9]* s)" "$ULOG"
check "... the 3 lost entries compiled again" grep -q "3 compiled, 0 already cached, 0 failed" "$ULOG"
check "... and the cache has them" test "$(entries)/$(recipes)" = 6/3
check "... warm ended with status 0" grep -q "$me: jitcache warm ended with status 0" "$LOG"
for m in reduce gemm norm; do
	(cd "$T/sim" && JITCACHE_LOG=info jc "$CLIENT" link "$T/$m.spv" >"$T/$m.next" 2>&1)
	check "... the program's next run of $m: a hit" grep -q "^jitcache: 1 hits, 0 misses" "$T/$m.next"
done
check "the hook left nothing running" sh -c "! pgrep -f 'apt-warm --backgroun[d]' >/dev/null"

# Whatever goes wrong, apt is never failed.
printf 'enabled = yes\nuser = no-such-user-jc\nuser = %s\n' "$me" >"$JITCACHE_APT_CONF"
sed -i 's/1.0.13000.1-1/1.0.13001.1-1/' "$T/dpkg"
JITCACHE_APT_JITCACHE=/nonexistent/jitcache hook
check "a missing user and a missing jitcache: status 0" test $? -eq 0
for _ in $(seq 60); do [ "$(grep -c ' done$' "$LOG")" -ge 2 ] && break; sleep 1; done
check "... each said in the log" \
	sh -c "grep -q 'no-such-user-jc: no such user; skipped' '$LOG' && grep -q '$me: jitcache warm ended with status 127' '$LOG'"
printf '#!/bin/sh\nexit 1\n' >"$T/fakebin/dpkg-query"
hook
check "dpkg-query failing: status 0" test $? -eq 0
chmod 0500 "$T/state"
sed -i 's/1.0.13001.1-1/1.0.13002.1-1/' "$T/dpkg"
if [ ! -w "$T/state" ]; then
	hook
	check "the state not writable: status 0" test $? -eq 0
fi
chmod 0700 "$T/state"
rm -f "$JITCACHE_APT_CONF"
hook
check "no configuration file: status 0, silent" sh -c "test $? -eq 0 && test ! -s '$T/hook.out'"

# apt reads the hook's apt.conf.d file as intended.
if command -v apt-config >/dev/null; then
	apt-config -c "$ROOT/packaging/debian/apt/70jitcache" dump DPkg::Post-Invoke >"$T/aptconf.out" 2>&1
	check "apt-config: DPkg::Post-Invoke runs the hook, never failing" \
		grep -qF 'if [ -x /usr/libexec/jitcache/apt-warm ]; then /usr/libexec/jitcache/apt-warm || true; fi' "$T/aptconf.out"
fi
finish
