#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# Which core the preloaded library loads (issue 44, item 13; shim/core_file.h).
# It looked beside the name the loader gave it, i.e. beside a symlink (the
# workaround `jitcache run` suggests for a path with a space): nothing was
# cached there, and where the symlink sat in a directory others can write
# (/tmp), another user's libjitcache-core.so.1 was loaded into every process
# that compiled.  Now the core is the one beside the real file, and it is
# loaded only if no user but root and the library's owner could have
# written it or a directory above it (sshd's StrictModes): else one line,
# and every call reaches the driver.  Real OpenCL builds on PoCL.
. "$(dirname "$0")/../lib.sh"
CLB=$B/tests/cl_build
if [ ! -x "$CLB" ]; then # make check builds it
	check "test prerequisite $CLB built (make tests)" false
	finish; exit $?
fi
if ! clinfo -l 2>/dev/null | grep -q "Portable Computing Language"; then
	skip "PoCL is not installed (pocl-opencl-icd)"
	finish; exit $?
fi
export POCL_KERNEL_CACHE=0
chmod 755 "$T"
# install DIR: the library and its core in DIR
install_in() {
	mkdir -p "$1"
	cp "$LIB" "$1/libjitcache.so"
	cp "$B/libjitcache-core.so" "$1/libjitcache-core.so.1"
}
n=0
# build NAME PRELOAD: a build of its own kernel in a cache of its own
build() {
	n=$((n + 1))
	printf 'kernel void k(global float *o) { o[0] = %d.0f; }\n' "$n" >"$T/$1.cl"
	JITCACHE_DIR=$T/cache-$1 LD_PRELOAD=$2 "$CLB" --platform Portable --source "$T/$1.cl" \
		>"$T/$1.out" 2>"$T/$1.err"
	cat "$T/$1.err"
}
built() { grep -q '^build=0 ' "$T/$1.out"; }
cached() { test "$(entries "$T/cache-$1")" = 1; }
refused() { # NAME WHY: one line saying WHY, nothing cached, the driver's build
	test "$(grep -c "^jitcache: cannot load its core: .*$2" "$T/$1.err")" = 1 &&
		test "$(grep -c '^jitcache' "$T/$1.err")" = 1 && ! cached "$1" && built "$1"
}

# ---- the core beside the real file, not beside a symlink -------------------------
install_in "$T/real"
mkdir -p "$T/link"
ln -s "$T/real/libjitcache.so" "$T/link/libjitcache.so"
build link "$T/link/libjitcache.so"
check "preloaded through a symlink: the build succeeds" built link
check "... and is cached (the core beside the real file)" cached link
check_not "... without a word" grep -q '^jitcache' "$T/link.err"

# A core planted beside the symlink, in a directory anyone can write (as /tmp).
mkdir -p "$T/pub"
chmod 1777 "$T/pub"
ln -s "$T/real/libjitcache.so" "$T/pub/libjitcache.so"
cat >"$T/planted.c" <<C
#include <stdio.h>
__attribute__((constructor)) static void planted(void)
{
	FILE *f = fopen("$T/planted.ran", "w");
	if (f)
		fclose(f);
}
C
if cc -shared -fPIC -o "$T/pub/libjitcache-core.so.1" "$T/planted.c" 2>"$T/planted.cc.err"; then
	[ "$(id -u)" -eq 0 ] && chown "$OTHER_UID" "$T/pub/libjitcache-core.so.1"
	build pub "$T/pub/libjitcache.so"
	check_not "a core planted beside the symlink (in a 1777 directory) is never loaded" \
		test -e "$T/planted.ran"
	check "... the real one is: the build is cached" cached pub
else
	check "the planted library builds (cc)" false
fi

# ---- refused: what another user could have written --------------------------------
install_in "$T/ow"
chmod o+w "$T/ow/libjitcache-core.so.1"
build ow "$T/ow/libjitcache.so"
check "a core writable by others is refused, in one line; the driver builds" \
	refused ow "libjitcache-core.so.1 can be written by every user"

# A group another account belongs to (nogroup: nobody's); the owner's own
# private group (Debian's umask 002 leaves files writable by it) is fine.
install_in "$T/gw"
chmod g+w "$T/gw"
chgrp nogroup "$T/gw" 2>/dev/null || chgrp "$(id -gn nobody)" "$T/gw"
build gw "$T/gw/libjitcache.so"
check "a directory of the library writable by a shared group: refused" \
	refused gw "$T/gw can be written by its group"
me=$(id -un)
if [ "$(getent group "$me" | cut -d: -f1,4)" = "$me:" ] || [ "$(getent group "$me" | cut -d: -f4)" = "$me" ]; then
	install_in "$T/upg"
	chgrp "$me" "$T/upg" "$T/upg/libjitcache-core.so.1" && chmod g+w "$T/upg" "$T/upg/libjitcache-core.so.1"
	build upg "$T/upg/libjitcache.so"
	check "writable by the owner's private group only (umask 002): the build is cached" cached upg
else
	skip "$me has no private group of its own here: the umask 002 case not run"
fi

install_in "$T/deep/lib"
chmod 777 "$T/deep"
build deep "$T/deep/lib/libjitcache.so"
check "a directory above it writable by others (no sticky bit): refused" \
	refused deep "$T/deep can be written by every user"

if [ "$(id -u)" -eq 0 ]; then
	install_in "$T/other"
	chown "$OTHER_UID" "$T/other/libjitcache-core.so.1"
	build other "$T/other/libjitcache.so"
	check "a core owned by another user than the library's (and not root): refused" \
		refused other "owned by uid $OTHER_UID, neither root nor the owner"
	# The library and its core both that user's: loaded (root preloaded it).
	install_in "$T/theirs"
	chown -R "$OTHER_UID" "$T/theirs"
	build theirs "$T/theirs/libjitcache.so"
	check "a library and core of one owner are loaded" cached theirs
else
	skip "another user's core: not root (cannot give a file away)"
fi
finish
