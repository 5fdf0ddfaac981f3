#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# Idle is free (issue 37, item 1): a process that calls no intercepted API
# creates, opens, holds and reads nothing of jitcache's: no cache directory,
# no descriptor, no file, no thread, no settings file.  What must be fixed
# at start still is (issue 35, item 11): a relative JITCACHE_DIR is the one
# of the starting directory, for children started from elsewhere too; "~"
# in JITCACHE_DIR is each process's own HOME, not frozen to its parent's;
# and `jitcache run` with a library whose path has a space says it cannot
# preload it, in one line, and runs the command.
. "$(dirname "$0")/../lib.sh"

# ---- nothing made, nothing held, nothing started ---------------------------------
export JITCACHE_REMOTE=redis://127.0.0.1:1   # a remote too: nothing may connect
"$JITCACHE" run -- true
check "jitcache run -- true: exit status 0" test $? -eq 0
"$JITCACHE" run -- ls / >ls.out
check "jitcache run -- ls: it lists" grep -q '^tmp$' ls.out
check_not "an idle process made no cache directory" test -e "$JITCACHE_DIR"

mkdir -p "$JITCACHE_DIR"
# From inside: the descriptors of ls (it reads /proc/self/fd itself) and of
# a shell that looks at its own, and the shell's threads; each the same as
# without jitcache (the descriptors this test inherited included).
fds() { awk '/ -> / { print $(NF - 2) }' "$1" | sort -n | tr '\n' ' '; }
"$JITCACHE" run -- ls -l /proc/self/fd/ >fd-ls.out
ls -l /proc/self/fd/ >fd-ls-plain.out
"$JITCACHE" run -- sh -c 'ls -l /proc/$$/fd/; echo "threads=$(ls /proc/$$/task | wc -l)"' >fd-sh.out
sh -c 'ls -l /proc/$$/fd/' >fd-sh-plain.out
check "ls listed its descriptors" grep -q ' 0 -> ' fd-ls.out
check_not "ls holds no descriptor to the cache directory" grep -q -- "-> $JITCACHE_DIR" fd-ls.out
check "ls holds the descriptors it holds without jitcache ($(fds fd-ls.out))" \
	test "$(fds fd-ls.out)" = "$(fds fd-ls-plain.out)"
check_not "a shell holds no descriptor to the cache directory" grep -q -- "-> $JITCACHE_DIR" fd-sh.out
check "a shell holds the descriptors it holds without jitcache ($(fds fd-sh.out))" \
	test "$(fds fd-sh.out)" = "$(fds fd-sh-plain.out)"
check "a shell runs one thread" grep -q '^threads=1$' fd-sh.out

# From outside: the system calls of an idle process never name the cache,
# its settings file or /proc/self/fd, and start no thread.
if command -v strace >/dev/null; then
	printf '[cache]\nmax_size = 1G\n' >"$T/jc.ini"
	JITCACHE_CONFIG=$T/jc.ini strace -f -o "$T/idle.strace" env LD_PRELOAD="$LIB" /bin/true
	check "strace: the idle process ran" test -s "$T/idle.strace"
	check_not "strace: the cache directory is never named" grep -q -- "$JITCACHE_DIR" "$T/idle.strace"
	check_not "strace: the settings file is never opened" grep -q 'jc\.ini' "$T/idle.strace"
	check_not "strace: no /proc/self/fd" grep -q '/proc/self/fd' "$T/idle.strace"
	check_not "strace: no thread started, no socket" \
		grep -qE '^[0-9]+ +(clone3?|socket|connect)\(' "$T/idle.strace"
	check_not "strace: no directory made, no getcwd for an absolute JITCACHE_DIR" \
		grep -qE '^[0-9]+ +(mkdir|mkdirat|getcwd)\(' "$T/idle.strace"
else
	skip "strace not installed: the system calls of an idle process are not looked at"
fi
unset JITCACHE_REMOTE

# The C library's functions a program calls are the C library's: none is
# wrapped by the preloaded library (issue 46: PoCL's access() and rename()
# are hooked in PoCL alone, once a PoCL program is watched: shim/got.h).
cat >libc_own.py <<'PY'
import ctypes
g, c = ctypes.CDLL(None), ctypes.CDLL("libc.so.6")
for n in ("access", "rename", "open", "stat", "mkdir", "unlink"):
    own = ctypes.cast(getattr(g, n), ctypes.c_void_p).value == ctypes.cast(getattr(c, n), ctypes.c_void_p).value
    print(n, "libc" if own else "wrapped")
PY
LD_PRELOAD=$LIB python3 libc_own.py >libc_own.out 2>&1
check "an idle process's access, rename, open, stat, mkdir, unlink are the C library's" \
	test "$(grep -c ' libc$' libc_own.out)" = 6

# ---- what must be fixed at start -----------------------------------------------
if ! clinfo -l 2>/dev/null | grep -q "Portable Computing Language"; then
	skip "PoCL not installed (pocl-opencl-icd): the settings are not followed to a compile"
	finish
	exit
fi
CLB=$B/tests/cl_build
export POCL_KERNEL_CACHE=0
echo 'kernel void k(global float *a) { a[0] = 1; }' >"$T/tiny.cl"

# A relative JITCACHE_DIR: the starting directory's, for a child started
# from elsewhere, after a program that compiled nothing.
mkdir -p start/sub
(cd start && JITCACHE_DIR=rel "$JITCACHE" run -- sh -c 'cd sub && exec "$0" --platform Portable --source "$1"' \
	"$CLB" "$T/tiny.cl" >"$T/rel.out" 2>"$T/rel.err")
check "relative JITCACHE_DIR: the compile succeeded" grep -q '^build=0' rel.out
check "relative JITCACHE_DIR: the cache is in the starting directory" test -f start/rel/stats
check_not "relative JITCACHE_DIR: none in the child's directory" test -e start/sub/rel

# The same with more settings' text than the preloaded library keeps in
# its own page (1 KB: config/capture.h): the copy made at start goes to the
# heap, and reads the same.
pad=$(printf 'x%.0s' $(seq 1500))
(cd start && JITCACHE_NOTE_PAD=$pad JITCACHE_DIR=big "$JITCACHE" run -- sh -c 'cd sub && exec "$0" --platform Portable --source "$1"' \
	"$CLB" "$T/tiny.cl" >"$T/big.out" 2>"$T/big.err")
check "long settings' text: the compile succeeded" grep -q '^build=0' big.out
check "long settings' text: the cache is in the starting directory" test -f start/big/stats
check_not "long settings' text: none in the child's directory" test -e start/sub/big

# "~" is the HOME of the process that compiles, not of the one that started it.
mkdir -p h1 h2
HOME=$T/h1 JITCACHE_DIR='~/jc' "$JITCACHE" run -- sh -c 'HOME=$1 exec "$0" --platform Portable --source "$2"' \
	"$CLB" "$T/h2" "$T/tiny.cl" >"$T/home.out" 2>"$T/home.err"
check "~ in JITCACHE_DIR: the compile succeeded" grep -q '^build=0' home.out
check "~ in JITCACHE_DIR: the cache is in the child's HOME" test -f h2/jc/stats
check_not "~ in JITCACHE_DIR: none in the parent's HOME" test -e h1/jc

# A library whose path has a space: one line, and the command runs uncached.
mkdir -p "$T/with space"
cp "$LIB" "$T/with space/libjitcache.so"
JITCACHE_LIB="$T/with space/libjitcache.so" "$JITCACHE" run -- "$CLB" --platform Portable \
	--source "$T/tiny.cl" >space.out 2>space.err
check "library path with a space: the program ran" grep -q '^build=0' space.out
check "library path with a space: said in one line" \
	test "$(grep -c '^jitcache: cannot preload .*LD_PRELOAD cannot hold a path with a space' space.err)" -eq 1
check_not "library path with a space: no ld.so error" grep -q 'cannot be preloaded' space.err
finish
