#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# `jitcache enable` / `jitcache disable` for a shell and a systemd service
# (issue 37 item 4; Jupyter: enable_jupyter.sh).
#  - shell: the line it prints, eval'd in a real shell (and written into a
#    ~/.profile read by a login shell), preloads the library into the programs
#    the shell starts, once however often it runs, beside an LD_PRELOAD of the
#    user's; disable's line takes it out and keeps the user's, and names the
#    start-up file that still turns it on;
#  - systemd: the drop-in for ollama's unit (ollama.service, as ollama's
#    installer writes it) under --root in the test's directory: LD_PRELOAD, a
#    CacheDirectory= for the service's user and JITCACHE_DIR inside it;
#    systemd-analyze verify accepts it; systemd refuses a broken one; disable
#    removes only what enable wrote.
. "$(dirname "$0")/../lib.sh"
cd "$T" || exit 1
REAL_LIB=$(realpath "$(dirname "$LIB")")/$(basename "$LIB")
OTHER=$(realpath /lib/x86_64-linux-gnu/libdl.so.2 2>/dev/null || realpath "$(ldd /bin/sh | awk '/libc.so/ { print $3 }')")
# preloaded: what the dynamic loader preloads into a program the shell runs
preloaded() { grep -c "libjitcache.so" /proc/self/maps; }

"$JITCACHE" enable shell >shell.out
check "enable shell: one line of shell (the rest comments)" \
	test "$(grep -vc '^#' shell.out)" -eq 1
check "... it names the library by its real path" grep -qF "$REAL_LIB" shell.out
mkdir -p "$T/lib"
ln -s "$LIB" "$T/lib/libjitcache.so.1"
ln -s "$B/libjitcache-core.so.1" "$T/lib/libjitcache-core.so.1"
JITCACHE_LIB=$T/lib/../lib/libjitcache.so.1 "$JITCACHE" enable shell >soname.out
check "... a soname link: its directory resolved, the link kept (it outlives an upgrade)" \
	grep -q "export LD_PRELOAD=\"\${LD_PRELOAD:+\$LD_PRELOAD:}$(realpath "$T/lib")/libjitcache.so.1\"" soname.out
env -u LD_PRELOAD bash -c 'eval "$("$0" enable shell)"; echo "$LD_PRELOAD"; grep -c libjitcache.so /proc/self/maps' \
	"$JITCACHE" >eval.out
check "eval \"\$(jitcache enable shell)\": LD_PRELOAD is the library" \
	test "$(sed -n 1p eval.out)" = "$REAL_LIB"
check "... and the programs the shell starts have it mapped" test "$(sed -n 2p eval.out)" -ge 1
LD_PRELOAD=$OTHER bash -c 'eval "$("$0" enable shell)"; eval "$("$0" enable shell)"; echo "$LD_PRELOAD"' \
	"$JITCACHE" >twice.out
check "twice, beside the user's own LD_PRELOAD: appended once, the user's kept first" \
	test "$(cat twice.out)" = "$OTHER:$REAL_LIB"
LD_PRELOAD="$OTHER $REAL_LIB" dash -c 'eval "$("$0" enable shell)"; echo "$LD_PRELOAD"' \
	"$JITCACHE" >spaces.out 2>&1
check "... a space-separated LD_PRELOAD that has it: unchanged (POSIX sh)" \
	test "$(cat spaces.out)" = "$OTHER $REAL_LIB"
grep -v '^#' shell.out >"$HOME/.profile"
env -u LD_PRELOAD HOME="$HOME" bash -l -c 'grep -c libjitcache.so /proc/self/maps' >login.out 2>&1
check "the line in ~/.profile: a login shell's programs have the library" test "$(cat login.out)" -ge 1
LD_PRELOAD="$OTHER:$REAL_LIB" bash -c 'eval "$("$0" disable shell)"; echo "${LD_PRELOAD-unset}"' \
	"$JITCACHE" >off.out
check "disable shell: the line takes it out and keeps the user's" test "$(cat off.out)" = "$OTHER"
LD_PRELOAD="$REAL_LIB" bash -c 'eval "$("$0" disable shell)"; echo "${LD_PRELOAD-unset}"' \
	"$JITCACHE" >off2.out
check "... LD_PRELOAD that held only it: unset" test "$(cat off2.out)" = unset
mkdir -p "$T/it's"
cp "$OTHER" "$T/it's/other.so"
LD_PRELOAD="$T/it's/other.so /old/libjitcache.so.1.0.0:$REAL_LIB" bash -c \
	'eval "$("$0" disable shell)"; echo "${LD_PRELOAD-unset}"' "$JITCACHE" >off3.out 2>/dev/null
check "... another jitcache's entry taken out too; an entry with a quote kept intact" \
	test "$(cat off3.out)" = "$T/it's/other.so"
echo "# jitcache enable shell was here: a comment, not counted" >>"$HOME/.profile"
"$JITCACHE" disable shell >disable.out
check "... and it names the start-up file that still turns it on" \
	grep -q "^# $HOME/.profile:1 still turns it on" disable.out
check "... not a comment line that names it" sh -c "! grep -q '.profile:2' disable.out"
# Uninstalled with the line still in a start-up file: the shell's programs
# run as before, without the loader's "cannot be preloaded" on every command.
mkdir -p "$T/gone"
cp "$B/libjitcache.so" "$T/gone/libjitcache.so.1"
cp "$B/libjitcache-core.so.1" "$T/gone/"
JITCACHE_LIB=$T/gone/libjitcache.so.1 "$JITCACHE" enable shell | grep -v '^#' >gone.line
rm -rf "$T/gone"
env -u LD_PRELOAD bash -c '. ./gone.line; /bin/true; echo "${LD_PRELOAD-unset}"' >gone.out 2>gone.err
check "the line after an uninstall: no error from any program, LD_PRELOAD left unset" \
	sh -c "test ! -s gone.err && test \"\$(cat gone.out)\" = unset"
check "enable with no way named: usage, status 2" \
	sh -c "'$JITCACHE' enable >/dev/null 2>&1; test \$? -eq 2"

# systemd, in a root of the test's own: ollama's unit as its installer
# writes it, its program, and the system's own units (systemd-analyze
# verify wants sysinit.target and the like).
R=$T/root
mkdir -p "$R/etc/systemd/system" "$R/usr/bin" "$R/usr/lib/systemd"
cat >"$R/etc/systemd/system/ollama.service" <<'UNIT'
[Unit]
Description=Ollama Service
After=network-online.target

[Service]
ExecStart=/usr/bin/ollama serve
User=ollama
Group=ollama
Restart=always
RestartSec=3
Environment="PATH=/usr/local/bin:/usr/bin:/bin"

[Install]
WantedBy=default.target
UNIT
printf '#!/bin/sh\nexec sleep 1000\n' >"$R/usr/bin/ollama"
chmod +x "$R/usr/bin/ollama"
DROPIN=$R/etc/systemd/system/ollama.service.d/jitcache.conf
have_analyze=0
if command -v systemd-analyze >/dev/null && [ -d /usr/lib/systemd/system ]; then
	cp -a /usr/lib/systemd/system "$R/usr/lib/systemd/" && have_analyze=1
	systemd-analyze verify --root="$R" ollama.service >verify-before.out 2>&1
fi
"$JITCACHE" enable systemd ollama --root "$R" >sd.out 2>&1
check "enable systemd ollama --root: succeeds" test $? -eq 0
check "... writes the drop-in for ollama.service" test -f "$DROPIN"
check "... LD_PRELOAD: the library (the unit sets none)" grep -qx "Environment=\"LD_PRELOAD=$REAL_LIB\"" "$DROPIN"
check "... a cache directory systemd makes for the service's user" \
	grep -qx "CacheDirectory=jitcache/ollama" "$DROPIN"
check "... and JITCACHE_DIR is it" grep -qx "Environment=JITCACHE_DIR=%C/jitcache/ollama" "$DROPIN"
if [ $have_analyze = 1 ]; then
	check "... systemd-analyze verified it: no complaint" \
		grep -q "systemd-analyze verify ollama.service: no complaint" sd.out
	check "... (it had none about the unit alone either)" test ! -s verify-before.out
	# systemd's own search of the unit's drop-ins finds it.
	check "systemd-analyze cat-config: the unit's drop-ins include it" \
		sh -c "systemd-analyze cat-config --root='$R' systemd/system/ollama.service 2>/dev/null | grep -qF '# $DROPIN'"
	sed -i 's/^CacheDirectory=.*/CacheDirectory=\/absolute/' "$DROPIN" # systemd refuses absolute paths
	systemd-analyze verify --root="$R" ollama.service >verify-broken.out 2>&1
	check "(a broken drop-in: systemd-analyze names it, so the check can fail)" \
		grep -qF "$DROPIN" verify-broken.out
	rm -f "$DROPIN"
	"$JITCACHE" enable systemd ollama.service --root "$R" >sd2.out 2>&1
	check "enable again (the full unit name): the same drop-in" \
		grep -qx "CacheDirectory=jitcache/ollama" "$DROPIN"
else
	skip "systemd-analyze is not installed (package systemd)"
fi
# The unit's own LD_PRELOAD is kept, the last one systemd would apply (the
# unit, then its drop-ins by name), with the library after it.
cat >"$R/etc/systemd/system/pre.service" <<'UNIT'
[Service]
ExecStart=/usr/bin/ollama serve
Environment="LD_PRELOAD=/opt/first.so" OTHER=1
UNIT
mkdir -p "$R/etc/systemd/system/pre.service.d" "$R/usr/lib/systemd/system/pre.service.d"
printf '[Service]\nEnvironment=LD_PRELOAD=/opt/b.so:/opt/old/libjitcache.so.1\n' \
	>"$R/usr/lib/systemd/system/pre.service.d/20-b.conf"
printf '[Service]\nEnvironment=LD_PRELOAD=/opt/a.so\n' >"$R/etc/systemd/system/pre.service.d/10-a.conf"
"$JITCACHE" enable systemd pre --root "$R" >pre.out 2>&1
check "enable systemd, a unit with an LD_PRELOAD of its own: kept, the library appended" \
	grep -qx "Environment=\"LD_PRELOAD=/opt/b.so:$REAL_LIB\"" "$R/etc/systemd/system/pre.service.d/jitcache.conf"
"$JITCACHE" enable systemd nosuch --root "$R" >nosuch.out 2>&1
check "a unit systemd does not know: refused in one line, status 1, nothing written" \
	sh -c "test $? -eq 1 && test \$(wc -l <nosuch.out) -eq 1 && grep -q 'no such unit' nosuch.out &&
	       test ! -e '$R/etc/systemd/system/nosuch.service.d'"
"$JITCACHE" enable systemd nosuch --root "$R" --force >force.out 2>&1
check "... --force writes it anyway" test -f "$R/etc/systemd/system/nosuch.service.d/jitcache.conf"
# A library another user can rewrite must not go into a system unit: here
# the copy the unit would load under --root is writable by every user.
mkdir -p "$T/userlib" "$R$T/userlib"
cp "$B/libjitcache.so" "$T/userlib/libjitcache.so.1"
cp "$B/libjitcache-core.so.1" "$T/userlib/"
cp "$B/libjitcache.so" "$R$T/userlib/libjitcache.so.1"
chmod 666 "$R$T/userlib/libjitcache.so.1"
rm -rf "$R/etc/systemd/system/ollama.service.d"
JITCACHE_LIB=$T/userlib/libjitcache.so.1 "$JITCACHE" enable systemd ollama --root "$R" >unsafe.out 2>&1
check "a library others can write, into a system unit: refused in one line, status 1" \
	sh -c "test $? -eq 1 && test \$(wc -l <unsafe.out) -eq 1 && grep -q '^jitcache: refused: .*can be written by every user' unsafe.out"
check "... and no drop-in written" test ! -e "$DROPIN"
mkdir -p "$XDG_CONFIG_HOME/systemd/user"
cp "$R/etc/systemd/system/ollama.service" "$XDG_CONFIG_HOME/systemd/user/"
JITCACHE_LIB=$T/userlib/libjitcache.so.1 "$JITCACHE" enable systemd ollama --user >user.out 2>&1
check "... into the user's own unit (--user): allowed" \
	test -f "$XDG_CONFIG_HOME/systemd/user/ollama.service.d/jitcache.conf"
rm -rf "$XDG_CONFIG_HOME/systemd"
# The same of a Jupyter kernel spec other users find: one in a directory of
# root's, outside $HOME (nothing is written: refused before).
chmod 666 "$T/userlib/libjitcache.so.1"
NOWHERE=/jitcache-test-nowhere-$$
JITCACHE_LIB=$T/userlib/libjitcache.so.1 "$JITCACHE" enable jupyter --python /bin/sh \
	--prefix "$NOWHERE" >jup.out 2>&1
check "a system-wide Jupyter kernel spec with a library others can write: refused, status 1" \
	sh -c "test $? -eq 1 && grep -q '^jitcache: refused: .*can be written by every user' jup.out"
[ -d "$NOWHERE" ] && rm -rf "$NOWHERE"
JITCACHE_LIB=$T/userlib/libjitcache.so.1 XDG_DATA_HOME=$HOME/.local/share "$JITCACHE" enable jupyter \
	--python /bin/sh >jup2.out 2>&1
check "... the user's own kernel spec (under \$HOME): allowed" \
	test -f "$HOME/.local/share/jupyter/kernels/python3-jitcache/kernel.json"
"$JITCACHE" enable systemd ollama --root relative >/dev/null 2>&1
check "--root must be absolute: status 2" test $? -eq 2
"$JITCACHE" enable systemd ../etc --root "$R" >/dev/null 2>&1
check "a unit name with a slash: refused (status 2)" test $? -eq 2
mkdir -p "$R/etc/systemd/system/other.service.d"
echo "[Service]" >"$R/etc/systemd/system/other.service.d/jitcache.conf"
"$JITCACHE" disable systemd other --root "$R" >other.out 2>&1
check "disable leaves a jitcache.conf it did not write alone (status 1)" \
	sh -c "test $? -eq 1 && test -f '$R/etc/systemd/system/other.service.d/jitcache.conf'"
"$JITCACHE" disable systemd ollama --root "$R" >sd-off.out 2>&1
check "disable systemd ollama: the drop-in is gone" test ! -e "$DROPIN"
check "... and its directory" test ! -e "$(dirname "$DROPIN")"
check "... the unit itself untouched" grep -q "^ExecStart=/usr/bin/ollama serve" "$R/etc/systemd/system/ollama.service"
"$JITCACHE" disable systemd ollama --root "$R" >sd-off2.out 2>&1
check "disable again: nothing to do, status 0" sh -c "test $? -eq 0 && grep -q 'not enabled' sd-off2.out"
finish
