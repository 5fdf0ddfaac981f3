#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick (the built package's part runs where `make deb` made one: make check-all)
# The licence (issue 36): LICENSE is MIT; packaging/debian/copyright is in
# Debian's machine-readable format, says MIT for jitcache's files, and names,
# with each licence's text, the libraries the built library and commands
# carry inside them (found here in the build, not assumed: libsodium, ISC;
# hiredis, BSD-3-Clause); the wheel's licence files are the upstream
# copyright files of what the wheel carries (libsodium, hiredis linked in;
# libzstd, libinih vendored by auditwheel).  The wheel's metadata is checked
# in wheel.sh, lintian in deb_install.sh (make deb).
. "$(dirname "$0")/../lib.sh"
C=$ROOT/packaging/debian/copyright

# Every source file of the project says its licence in its first lines.
if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
	git -C "$ROOT" ls-files -- '*.c' '*.h' '*.cl' '*.sh' '*.bash' '*.py' '*.mk' '*.gp' '*.toml' \
		Makefile bin/jitcache tests/testbed/run .ci/run packaging/debian/rules \
		packaging/man/jitcache.1.in | grep -v '/corpus-' >"$T/sources"
	while read -r f; do
		head -n 3 "$ROOT/$f" | grep -q 'SPDX-License-Identifier: MIT' || echo "$f"
	done <"$T/sources" >"$T/no-spdx"
	check "SPDX: every one of the $(wc -l <"$T/sources") source files says MIT in its first lines ($(wc -l <"$T/no-spdx") do not)" \
		test ! -s "$T/no-spdx"
	head -n 5 "$T/no-spdx"
else
	skip "SPDX: not a git checkout"
fi

check "LICENSE: the MIT licence" grep -q '^MIT License$' "$ROOT/LICENSE"
check "LICENSE: Copyright (c) 2026 the jitcache authors" \
	grep -qx 'Copyright (c) 2026 the jitcache authors' "$ROOT/LICENSE"
check "LICENSE: MIT's permission notice, whole" \
	sh -c "grep -q '^Permission is hereby granted, free of charge' '$ROOT/LICENSE' &&
	       grep -q '^SOFTWARE\\.\$' '$ROOT/LICENSE'"

# DEP-5, read here with awk: paragraphs separated by blank lines; a
# continuation line starts with a space.
check "copyright: Format is copyright-format 1.0" \
	grep -qx 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' "$C"
check "copyright: no 'not chosen' licence left" sh -c "! grep -qi 'not-yet-chosen\|not chosen' '$C'"
check "copyright: every line is a field, a continuation or a paragraph break" \
	sh -c "! grep -vE '^([A-Z][A-Za-z-]*: ?.*| .*|)\$' '$C'"
awk 'BEGIN { RS = "" } /^Files: \*\n/' "$C" >"$T/files"
check "copyright: Files: * is MIT, by the jitcache authors" \
	sh -c "grep -qx 'License: MIT' '$T/files' && grep -qx 'Copyright: 2026 the jitcache authors' '$T/files'"
# Each short name used has one paragraph with its text (a License: line
# followed by continuation lines).
awk 'BEGIN { RS = "" } /^License: / && split($0, l, "\n") > 2 { sub(/^License: /, "", l[1]); print l[1] }' \
	"$C" | sort >"$T/texts"
for lic in MIT ISC BSD-3-Clause BSD-2-clause CC0-1.0; do
	check "copyright: the text of $lic, once" test "$(grep -cx "$lic" "$T/texts")" -eq 1
done
check "copyright: MIT's text is LICENSE's" \
	sh -c "awk 'BEGIN { RS = \"\" } /^License: MIT\\n/' '$C' | sed '1d; s/^ //; s/^\\.\$//' |
	       tr -s ' \\n' ' ' >'$T/mit-deb' &&
	       sed '1,4d' '$ROOT/LICENSE' | tr -s ' \\n' ' ' >'$T/mit' && cmp -s '$T/mit' '$T/mit-deb'"

# What is linked in: the build itself says.
if [ -x "$B/jitcache-admin" ] && [ -e "$LIB" ]; then
	for bin in "$LIB" "$B/libjitcache-core.so" "$B/jitcache-admin"; do nm "$bin" 2>/dev/null; done >"$T/syms"
	if grep -q ' [Tt] sodium_init$' "$T/syms"; then
		check "libsodium is linked in: the copyright names it, ISC" \
			sh -c "grep -q '^ libsodium: Copyright .*Frank Denis' '$C' && grep -q 'ISC' '$C'"
	fi
	if grep -q ' [Tt] redisConnect' "$T/syms"; then
		check "hiredis is linked in: the copyright names it, BSD-3-Clause" \
			sh -c "grep -q '^ hiredis: Copyright .*Salvatore Sanfilippo' '$C' && grep -q '^ BSD-3-Clause\\.' '$C'"
	fi
	check "the library's dynamic dependencies are not in the copyright's statically linked list" \
		sh -c "! ldd '$LIB' '$B/libjitcache-core.so' | grep -q -e libsodium -e libhiredis"
else
	check "the library and jitcache-admin are built ($B)" false
fi

# The package `make deb` built, if there is one: its copyright file is this
# one, and lintian found nothing in it.
DEB=$(ls "$ROOT"/dist/jitcache_*_amd64.deb 2>/dev/null | tail -n 1)
if [ -n "$DEB" ] && [ "$DEB" -nt "$C" ]; then
	check "the package's /usr/share/doc/jitcache/copyright is packaging/debian/copyright" \
		sh -c "dpkg-deb --fsys-tarfile '$DEB' | tar -xOf - ./usr/share/doc/jitcache/copyright | cmp -s - '$C'"
	if [ -s "$ROOT/build/lintian.txt" ]; then
		check "lintian: no tag about the copyright file or a licence (build/lintian.txt)" \
			sh -c "! grep -E '^[EWI]: .*(copyright|licen[cs]e|dep5)' '$ROOT/build/lintian.txt'"
	fi
else
	skip "no package newer than packaging/debian/copyright in dist/ (make deb)"
fi

# The wheel's licence files: the upstream copyright files, as Debian ships them.
check "pyproject.toml's license-files: LICENSE and packaging/licenses/*.copyright" \
	grep -qF 'license-files = ["LICENSE", "packaging/licenses/*.copyright"]' "$ROOT/pyproject.toml"
for f in libsodium:libsodium-dev hiredis:libhiredis-dev zstd:libzstd-dev inih:libinih-dev; do
	name=${f%%:*} pkg=${f#*:}
	if [ -r "/usr/share/doc/$pkg/copyright" ]; then
		check "packaging/licenses/$name.copyright is $pkg's copyright file" \
			cmp -s "/usr/share/doc/$pkg/copyright" "$ROOT/packaging/licenses/$name.copyright"
	else
		check "packaging/licenses/$name.copyright is there" test -s "$ROOT/packaging/licenses/$name.copyright"
	fi
done
finish
