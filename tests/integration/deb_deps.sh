#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# `make deb` on a machine without Debian's packaging tools (issue 45 item 1:
# it stopped at "deb: dh is missing (make deps-all)", and deps-all would
# pull the benchmarks' packages): it installs what it lacks of its own list,
# tests/install-deps.sh's group deb, read from packaging/debian/control's
# Build-Depends; where they cannot be installed it ends with the one apt
# line to run, also for a user without sudo; docs/install.md lists them.
# Stand-ins for dpkg-query (nothing installed), apt-get (fails) and a PATH
# without sudo make those machines here; install_routes.sh runs the real
# thing in a clean Debian 12.
. "$(dirname "$0")/../lib.sh"

"$ROOT/tests/install-deps.sh" --list deb >deb.pkgs 2>&1
check "tests/install-deps.sh has the group deb" test -s deb.pkgs
# control's Build-Depends, each name (debhelper-compat is debhelper's)
awk '/^Build-Depends:/ { on = 1; sub(/^Build-Depends:/, ""); print; next } on && /^[ \t]/ { print; next } { on = 0 }' \
	"$ROOT/packaging/debian/control" | tr ',' '\n' | sed 's/(.*//; s/ //g' | grep . |
	sed 's/^debhelper-compat$/debhelper/' >build-depends
check "control's Build-Depends read ($(echo $(cat build-depends)))" test "$(wc -l <build-depends)" -ge 5
for p in $(cat build-depends) dpkg-dev fakeroot; do
	check "the group deb installs $p" grep -qx "$p" deb.pkgs
done
check_not "... and not the benchmarks' or the tests' (lintian, debootstrap, gnuplot-nox, clblast-utils)" \
	grep -qx 'lintian\|debootstrap\|gnuplot-nox\|clblast-utils' deb.pkgs
(cd "$ROOT" && make -n deb) >make-n.txt 2>&1
check "make deb installs the group deb before it builds" \
	sh -c "grep -n 'install-deps.sh deb' make-n.txt | cut -d: -f1 | head -n 1 >a &&
	       grep -n 'make-deb.sh' make-n.txt | cut -d: -f1 | head -n 1 >b && test -s a && test \$(cat a) -lt \$(cat b)"

# docs/install.md's Build dependencies: the apt line and the packages make deb adds.
sed -n '/^## Build dependencies$/,/^## /p' "$ROOT/docs/install.md" >section
for p in $(cat deb.pkgs); do
	check "docs/install.md's build dependencies name $p" grep -q "\\(\`\\| \\)$p\\(\`\\| \\|\$\\)" section
done

# A machine where nothing is installed and apt-get fails: the one line to run.
mkdir -p stand/bin
printf '#!/bin/sh\nexit 1\n' >stand/bin/dpkg-query
printf '#!/bin/sh\necho "E: stand-in apt-get: cannot install" >&2\nexit 100\n' >stand/bin/apt-get
chmod +x stand/bin/*
line="apt-get install --no-install-recommends $(echo $(cat deb.pkgs))"
if [ "$(id -u)" -eq 0 ]; then
	PATH=$T/stand/bin:$PATH DEPS_LOG=$T/deps.log "$ROOT/tests/install-deps.sh" deb >out.txt 2>err.txt
	check "root, apt-get failing: exit 1" test $? -eq 1
	check "... its last line, the one apt line that installs them all: $line" \
		sh -c "tail -n 1 err.txt | grep -q '^deps: install them with: apt-get install --no-install-recommends ' &&
		       test \"\$(tail -n 1 err.txt | cut -d' ' -f8- | tr ' ' '\n' | sort | tr '\n' ' ')\" = \"\$(sort deb.pkgs | tr '\n' ' ')\""
else
	skip "not root: the apt-get-failing case runs as root"
fi
# A user without sudo: the line to run as root, in one line, nothing tried.
cp -r "$ROOT/tests" "$ROOT/packaging" stand/ 2>/dev/null
chmod -R a+rX stand
mkdir -p stand/nosudo
for t in sh awk tr sed grep sort wc id dirname mkdir cat echo printf; do
	ln -sf "$(command -v $t)" stand/nosudo/$t
done
ln -sf "$T/stand/bin/dpkg-query" stand/nosudo/dpkg-query
run_nosudo() { env -i PATH=$T/stand/nosudo DEPS_LOG=/dev/null "$@" sh "$T/stand/tests/install-deps.sh" deb; }
if [ "$(id -u)" -eq 0 ]; then
	chmod a+rx "$T"
	run_nosudo "$(command -v setpriv)" --reuid=65534 --regid=65534 --clear-groups -- >nosudo.out 2>nosudo.err
else
	run_nosudo >nosudo.out 2>nosudo.err
fi
check "not root, no sudo: exit 1" test $? -eq 1
check "... one line: sudo is not installed, and the apt line to run as root, with every package" \
	sh -c "test \$(wc -l <nosudo.err) -eq 1 && grep -q 'sudo is not installed; as root: apt-get install --no-install-recommends [a-z]' nosudo.err && test ! -s nosudo.out &&
	       test \"\$(sed 's/.*--no-install-recommends //' nosudo.err | tr ' ' '\n' | sort | tr '\n' ' ')\" = \"\$(sort deb.pkgs | tr '\n' ' ')\""
finish
