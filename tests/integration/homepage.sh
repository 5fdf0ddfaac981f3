#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# The project's public home is set once (issue 45 item 9: it was an
# example.org placeholder written twice, in packaging/debian/control and
# pyproject.toml): the Makefile's HOMEPAGE is the Debian package's Homepage
# (packaging/debian/make-control.sh, which `make deb` runs) and the wheel's
# Project-URL (setup.py, which pip runs), and neither file names a URL of
# its own.  Another HOMEPAGE reaches both.  deb_install.sh and wheel.sh
# check the built package's and wheel's metadata.
. "$(dirname "$0")/../lib.sh"

url=$(sed -n 's/^HOMEPAGE *:= *//p' "$ROOT/Makefile")
check "the Makefile sets HOMEPAGE, an http(s) URL ('$url')" \
	sh -c "echo '$url' | grep -Eqx 'https?://[^ ]+'"
check_not "packaging/debian/control names no URL of its own" \
	grep -Eq 'https?://' "$ROOT/packaging/debian/control"
check_not "pyproject.toml names no URL of its own" grep -Eq 'https?://' "$ROOT/pyproject.toml"
check "pyproject.toml: the project URLs come from setup.py (dynamic)" \
	grep -Eq '^dynamic *= *\[.*"urls"' "$ROOT/pyproject.toml"

# What each side makes of a HOMEPAGE: the control file make deb builds with,
# and the project URLs setup.py hands setuptools (a setuptools stand-in that
# records them; the real one needs the build environment pip makes).
sides() { # HOMEPAGE SRCDIR -> "deb URL" and "wheel NAME URL" lines
	"$ROOT/packaging/debian/make-control.sh" "$1" | sed -n 's/^Homepage: /deb /p'
	python3 - "$2/setup.py" <<'PY'
import runpy, sys, types
got = {}
def module(name, **attrs):
    m = types.ModuleType(name)
    m.__dict__.update(attrs)
    sys.modules[name] = m
module("setuptools", setup=lambda **kw: got.update(kw))
module("setuptools.command")
module("setuptools.command.bdist_wheel", bdist_wheel=object)
module("setuptools.command.build_py", build_py=object)
module("setuptools.dist", Distribution=object)
runpy.run_path(sys.argv[1], run_name="__main__")
for name, url in (got.get("project_urls") or {}).items():
    print("wheel", name, url)
PY
}
sides "$url" "$ROOT" >sides.txt 2>&1
check "make deb's control: Homepage: $url" grep -qx "deb $url" sides.txt
check "the wheel's project URLs: Homepage, $url, and no other" \
	test "$(grep '^wheel ' sides.txt)" = "wheel Homepage $url"
# Set once: a copy of the checkout's Makefile with another home gives both it.
mkdir -p src
cp "$ROOT/setup.py" src/
sed 's|^HOMEPAGE *:=.*|HOMEPAGE := https://jitcache.test/home|' "$ROOT/Makefile" >src/Makefile
sides https://jitcache.test/home src >sides2.txt 2>&1
check "another HOMEPAGE reaches both the package and the wheel" \
	test "$(sort sides2.txt | tr '\n' ' ')" = "deb https://jitcache.test/home wheel Homepage https://jitcache.test/home "
(cd "$ROOT" && make -n deb HOMEPAGE=https://jitcache.test/home) >make-n.txt 2>&1
check "make deb passes the Makefile's HOMEPAGE to the package's build" \
	grep -q 'make-deb.sh .* https://jitcache.test/home$' make-n.txt
"$ROOT/packaging/debian/make-control.sh" 'not a url' >/dev/null 2>bad.err
check "a HOMEPAGE that is not an http(s) URL: exit 2, one line saying so" \
	sh -c "test $? -eq 2 && test \$(wc -l <bad.err) -eq 1 && grep -q 'is not an http(s) URL' bad.err"
finish
