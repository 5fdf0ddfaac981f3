#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: full: needs the clean Debian 12 chroot (make debroot)
# The Debian package (`make deb`: dist/jitcache_VERSION-1_amd64.deb) in a
# clean Debian 12 chroot (`make debroot`: debootstrap, as the test bed is
# made, with only the drivers and loaders): `apt-get install ./...deb`, then
# a Level Zero program (simulated Arc) and an OpenCL program (PoCL) run cold
# -> warm through the installed `jitcache`; the man page and the conffile
# /etc/jitcache.ini are there; the apt hook (off by default), switched on,
# runs after apt's dpkg run and records the driver packages (purge takes its
# state too); `apt-get remove` takes the library and
# command and keeps the conffile, `purge` takes it too, and the chroot's
# files are then exactly what they were before.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/ze_common.bash"
need_ze
DEBROOT=${JITCACHE_DEBROOT:-/var/tmp/jitcache-deb12}
# `make deb` again: one line per step, each saying what it does, lintian's
# verdict on the line of its step, the last line the package (issue 30).
(cd "$ROOT" && make deb) >"$T/make-deb.out" 2>&1
check "make deb: exit status 0" test $? -eq 0
check "make deb: one line per step, 'deb: WHAT ... done (N s)', then lintian's, then the package" \
	awk '{ n++; last = $0 }
		/^deb: checking it with lintian \.\.\. [0-9]+ errors(| \(.*\)), [0-9]+ warnings/ { lintian++; next }
		!/^deb: [a-z].* \.\.\. done \([0-9]+ s\)$/ && !/^deb: built \/.*\.deb / { bad = 1 }
		END { exit !(n == 4 && lintian == 1 && !bad && last ~ /^deb: built \/.*_amd64\.deb /) }' "$T/make-deb.out"
check "make deb: lintian's verdict names its warnings by tag" \
	sh -c "w=\$(grep -c '^W: ' '$ROOT/build/lintian.txt'); grep -q \"^deb: checking it with lintian \.\.\. 0 errors, \$w warnings\" '$T/make-deb.out' &&
	       for t in \$(sed -n 's/^W: [^ ]*: \([^ ]*\).*/\1/p' '$ROOT/build/lintian.txt'); do grep -q \"\$t\" '$T/make-deb.out' || exit 1; done"
DEB=$(ls "$ROOT"/dist/jitcache_*_amd64.deb 2>/dev/null | tail -n 1)
[ -n "$DEB" ] || { check "dist/ holds the package (make deb)" false; finish; exit; }
# The size docs/install.md gives the package (built on Debian 12), within 3%.
kb=$(( ($(stat -c %s "$DEB") + 512) / 1024 ))
said=$(sed -n 's/^ *make deb .*(\([0-9]*\) KB[^)]*)$/\1/p' "$ROOT/docs/install.md")
check "the package is $kb KB, as docs/install.md says (${said:-no size} KB, within 3%)" \
	test -n "$said" -a $(( (kb - ${said:-0}) * 100 )) -le $(( 3 * ${said:-0} )) \
	-a $(( (${said:-0} - kb) * 100 )) -le $(( 3 * ${said:-0} ))
HOMEPAGE=$(sed -n 's/^HOMEPAGE *:= *//p' "$ROOT/Makefile")
check "the package's Homepage is the Makefile's HOMEPAGE ($HOMEPAGE)" \
	test "$(dpkg-deb -f "$DEB" Homepage)" = "$HOMEPAGE"
if ! JITCACHE_TESTBED=$DEBROOT "$ROOT/tests/testbed/run" true 2>/dev/null; then
	check "the clean Debian 12 chroot is there (make debroot)" false; finish; exit
fi
check "SPIR-V built with ocloc (on the host)" spirv reduce "$KERNELS/reduce.cl"
cp "$ROOT/tests/integration/compute.cl" "$T/k.cl"
chmod -R a+rX "$T"
# install_routes.sh's overlays sit on the chroot: wait until none does.
exec 9>"$DEBROOT.lock" && flock 9
cat >"$T/in.sh" <<SH
set -u
export DEBIAN_FRONTEND=noninteractive
unset JITCACHE_LIB JITCACHE_ADMIN JITCACHE_CONFIG
snapshot() { find / -xdev \\( -path /proc -o -path /sys -o -path /dev -o -path /tmp -o -path /var/cache \\
	-o -path /var/log -o -path /var/lib/apt/lists -o -path "$ROOT" -o -path /run \\) -prune -o -print | sort; }
dpkg --purge jitcache >/dev/null 2>&1 # a run cut short before
snapshot >"$T/before.txt"
apt-get install -y -qq "$DEB" >"$T/apt-install.log" 2>&1; echo "install \$?"
echo "version \$(jitcache --version)"
echo "lib \$(ls /usr/lib/x86_64-linux-gnu/libjitcache.so.1 2>/dev/null)"
echo "core \$(ls /usr/lib/x86_64-linux-gnu/libjitcache-core.so* 2>/dev/null | tr '\\n' ' ')"
echo "conffile \$(dpkg-query -W -f='\${Conffiles}' jitcache | awk '\$1 == "/etc/jitcache.ini" { print \$1 }')"
MANWIDTH=80 man jitcache 2>/dev/null | grep -q 'JITCACHE_DIR=' && echo "man ok"
echo "doc \$(ls /usr/share/doc/jitcache/README.md.gz /usr/share/doc/jitcache/docs/trust.md.gz 2>/dev/null | wc -l)"
echo "ini points at \$(sed -n 's|.*the docs: \(/usr/share/doc/jitcache/\)).*|\1|p' /etc/jitcache.ini)"
echo "ini shared \$(grep -c 'see docs/trust.md' /etc/jitcache.ini)"
echo "hook conffiles \$(dpkg-query -W -f='\${Conffiles}' jitcache | grep -c -e ' /etc/apt/apt.conf.d/70jitcache ' -e ' /etc/jitcache/apt-warm.conf ')"
# The apt hook switched on: apt runs it after dpkg (its first run records the driver packages).
sed -i 's/^enabled = no\$/enabled = yes/' /etc/jitcache/apt-warm.conf
apt-get install -y -qq --reinstall "$DEB" >>"$T/apt-install.log" 2>&1; echo "reinstall with the hook on \$?"
echo "hook recorded \$(grep -c intel-opencl-icd /var/lib/jitcache/apt-warm.state 2>/dev/null)"
export NEOReadDebugKeys=1 SetCommandStreamReceiver=1 ProductFamilyOverride=dg2 OverrideMaxWorkgroupSize=256
export JITCACHE_LOG=info JITCACHE_DIR="$T/c" POCL_KERNEL_CACHE=0 HOME="$T"
cd "$T"
for r in cold warm; do
	jitcache run -- "$CLIENT" link "$T/reduce.spv" >"$T/ze-\$r.out" 2>&1
	jitcache run -- "$B/tests/cl_build" --platform Portable --source "$T/k.cl" --options -DSCALE=3.0f >"$T/cl-\$r.out" 2>&1
done
apt-get remove -y -qq jitcache >"$T/apt-remove.log" 2>&1; echo "remove \$?"
echo "after remove: lib \$(ls /usr/lib/x86_64-linux-gnu/libjitcache*.so* 2>/dev/null | wc -l) bin \$(ls /usr/bin/jitcache 2>/dev/null | wc -l) conffile \$(ls /etc/jitcache.ini 2>/dev/null | wc -l)"
# --autoremove: what apt installed with it (libcurl4, its Recommends), so that
# a chroot without them (a fresh make debroot) is left as it was.
apt-get purge -y -qq --autoremove jitcache >>"$T/apt-remove.log" 2>&1; echo "purge \$?"
echo "after purge: conffile \$(ls /etc/jitcache.ini 2>/dev/null | wc -l)"
snapshot >"$T/after.txt"
SH
JITCACHE_TESTBED=$DEBROOT "$ROOT/tests/testbed/run" env -u LD_LIBRARY_PATH bash "$T/in.sh" >"$T/in.out" 2>&1
check "apt-get install ./$(basename "$DEB") in a clean Debian 12 chroot" grep -q '^install 0$' "$T/in.out"
check "installed: jitcache --version" grep -q '^version jitcache ' "$T/in.out"
check "installed: the library in the multiarch directory, under its soname" \
	grep -q '^lib /usr/lib/x86_64-linux-gnu/libjitcache.so.1$' "$T/in.out"
check "installed: its core beside it, under its soname only" \
	grep -qx 'core /usr/lib/x86_64-linux-gnu/libjitcache-core.so.1 /usr/lib/x86_64-linux-gnu/libjitcache-core.so.1.0.0 ' "$T/in.out"
check "installed: /etc/jitcache.ini is a conffile" grep -q '^conffile /etc/jitcache.ini$' "$T/in.out"
check "installed: man jitcache" grep -q '^man ok$' "$T/in.out"
check "installed: the README and docs/ (trust.md among them)" grep -q '^doc 2$' "$T/in.out"
check "/etc/jitcache.ini points at them, and its 'shared' at docs/trust.md" \
	sh -c "grep -q '^ini points at /usr/share/doc/jitcache/$' '$T/in.out' && grep -q '^ini shared 1$' '$T/in.out'"
check "installed: the apt hook's two conffiles" grep -q '^hook conffiles 2$' "$T/in.out"
check "the apt hook on: apt runs it after dpkg, and succeeds" grep -q '^reinstall with the hook on 0$' "$T/in.out"
check "... it recorded the driver packages (intel-opencl-icd)" grep -q '^hook recorded 1$' "$T/in.out"
check "Level Zero: cold stores" grep -q '^jitcache: 0 hits, 1 misses, 1 stores' "$T/ze-cold.out"
check "Level Zero: warm hits" grep -q '^jitcache: 1 hits, 0 misses' "$T/ze-warm.out"
check "OpenCL (PoCL): cold stores" grep -q '^jitcache: 0 hits, 1 misses, 1 stores' "$T/cl-cold.out"
check "OpenCL (PoCL): warm hits" grep -q '^jitcache: 1 hits, 0 misses' "$T/cl-warm.out"
check "apt-get remove: library and command gone, the conffile kept" \
	grep -q '^after remove: lib 0 bin 0 conffile 1$' "$T/in.out"
check "apt-get purge: the conffile gone too" grep -q '^after purge: conffile 0$' "$T/in.out"
check "purged: the chroot's files as they were before the install" diff "$T/before.txt" "$T/after.txt"
finish
