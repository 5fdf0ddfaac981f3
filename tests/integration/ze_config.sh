#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# Level Zero under a cache that cannot be used, and under a bad config file:
# the program always gets its modules, and jitcache says what was wrong in
# one line.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/ze_common.bash"
need_ze

check "SPIR-V built with ocloc" spirv reduce "$KERNELS/reduce.cl"
works() { grep -q "result 0x0 kernels 19" "$1"; }
jitcache_lines() { count "^jitcache:" "$1"; }

# A file where the cache directory should be.
: >"$T/not-a-dir"
JITCACHE_DIR=$T/not-a-dir jc "$CLIENT" link "$T/reduce.spv" >"$T/file.out" 2>&1
check "file as cache dir: the program works" works "$T/file.out"
check "file as cache dir: one line from jitcache" test "$(jitcache_lines "$T/file.out")" -eq 1
check "file as cache dir: the line names it" grep -q "jitcache: .*$T/not-a-dir" "$T/file.out"

# A directory that cannot be created.
JITCACHE_DIR=/proc/self/no/such/dir jc "$CLIENT" link "$T/reduce.spv" >"$T/proc.out" 2>&1
check "uncreatable cache dir: the program works" works "$T/proc.out"
check "uncreatable cache dir: one line from jitcache" test "$(jitcache_lines "$T/proc.out")" -eq 1

# A missing directory is created.
JITCACHE_DIR=$T/new/deeper/cache jc "$CLIENT" link "$T/reduce.spv" >"$T/new.out" 2>&1
check "missing cache dir: the program works" works "$T/new.out"
check "missing cache dir: created and used" test "$(entries "$T/new/deeper/cache")" -eq 1

# A cache directory this user cannot write.  root writes anywhere, so as
# root this runs as another user (lib.sh's user_setup), in a directory of that
# user's with mode 0500.
if user_setup "$CLIENT" "$T/reduce.spv"; then
	mkdir "$U/ro"
	[ "$(id -u)" -ne 0 ] || chown "$OTHER_UID:$OTHER_GID" "$U/ro"
	chmod 0500 "$U/ro"
	(cd "$U" && JITCACHE_DIR=$U/ro HOME=$U \
		as_user env LD_PRELOAD="$U_LIB" "$U/ze_client" link "$U/reduce.spv") \
		>"$T/ro.out" 2>&1
	check "unwritable cache dir: the program works" works "$T/ro.out"
	check "unwritable cache dir: at most one line from jitcache" test "$(jitcache_lines "$T/ro.out")" -le 1
	check "unwritable cache dir: nothing written" test "$(entries "$U/ro")" -eq 0
else
	skip "unwritable cache dir: as root this needs setpriv (util-linux)"
fi

# A bad ini file: one line naming the file and line, and caching goes on.
printf '[cache]\nthis is not ini\n' >"$T/bad.ini"
JITCACHE_CONFIG=$T/bad.ini jc "$CLIENT" link "$T/reduce.spv" >"$T/ini.out" 2>&1
check "bad ini: the program works" works "$T/ini.out"
check "bad ini: one line from jitcache" test "$(jitcache_lines "$T/ini.out")" -eq 1
check "bad ini: it names file and line" grep -q "^jitcache: $T/bad.ini:2: " "$T/ini.out"
check "bad ini: caching still works" test "$(entries)" -eq 1

finish
