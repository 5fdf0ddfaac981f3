# SPDX-License-Identifier: MIT
# tests/lib.sh — sourced by every tests/integration/*.sh script.
#
#   . "$(dirname "$0")/../lib.sh"
#   check "warm run hits the cache" grep -q hit "$T/log"   # command must succeed
#   check_not "nothing stored" ls "$T/cache"/*/*           # command must fail
#   skip "why"                                            # counts as skipped
#   finish                                                # last line: N passed, N failed
#
# Each script gets its own temporary directory $T (removed at exit unless
# KEEP=1), a private cache in $T/cache (JITCACHE_DIR), and no user config.
# sim_dg2 exports the variables that make Intel's driver simulate an Arc
# (DG2) GPU (sim PRODUCT: another GPU; modern_driver: is this Intel's 2026
# stack, i.e. inside the test bed of tests/testbed/); run simulated programs
# with cwd inside $T (the driver writes .aub files to the current directory).
# The driver's own persistent cache (NEO_CACHE_PERSISTENT, on by default in
# the 2026 driver) is kept in $T/neo-cache and switched off, so that tests
# see jitcache alone; a test may switch it on again.
#
# Nothing may depend on the host: the C locale, umask 022, and a
# HOME and XDG directories of the test's own are set here, so that neither the
# user's ~/.cache (PoCL's, jitcache's) nor their language, nor a missing or
# read-only home changes a result.  Programs run as another user go through
# user_setup/as_user below, never straight from the checkout (it may sit in a
# 0700 directory); tests/integration/checkout_private.sh enforces both.

set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) B=$BUILD ;; *) B=$ROOT/$BUILD ;; esac
LIB=$B/libjitcache.so
JITCACHE=$ROOT/bin/jitcache
export JITCACHE_LIB=$LIB JITCACHE_ADMIN=$B/jitcache-admin
ORIG_LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}
export LD_LIBRARY_PATH=$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LC_ALL=C
umask 022

T=$(mktemp -d "${TMPDIR:-/tmp}/jitcache-test.XXXXXX")
[ "${KEEP:-0}" = 1 ] || trap 'cleanup_dirs' EXIT
CLEANUP_DIRS=$T
cleanup_dirs() {
	stop_servers
	# $U may hold files made read-only by a test: make them removable first.
	for d in $CLEANUP_DIRS; do chmod -R u+rwX "$d" 2>/dev/null; rm -rf "$d"; done
}
mkdir -p "$T/home"
# Only the OpenCL drivers the tests are written for, Debian's (intel-opencl-icd
# and PoCL): other ICDs on the host (a CPU runtime, NVIDIA's, Mesa's) would
# change which platform comes first and what "Intel" matches.
mkdir -p "$T/icd"
for icd in /etc/OpenCL/vendors/intel.icd /etc/OpenCL/vendors/pocl.icd; do
	[ -r "$icd" ] && cp "$icd" "$T/icd/"
done
export OCL_ICD_VENDORS=$T/icd
export HOME=$T/home XDG_CACHE_HOME=$T/home/.cache
# No setting from the caller's environment (every variable of config/settings.h's
# table), but a cache of the test's own.
unset $(sed -n 's/.*"\(JITCACHE_[A-Z_]*\)",.*/\1/p' "$ROOT/config/settings.h")
export JITCACHE_DIR=$T/cache JITCACHE_CONFIG=/dev/null XDG_CONFIG_HOME=$T/xdg-config
# Nor the host's /etc/jitcache.ini, which every command reads first.
export JITCACHE_SYSTEM_CONFIG=/dev/null
# Recipes (on by default) are entry files too: the scripts that count entries
# count compiled results alone; the warm*.sh scripts switch them on again.
export JITCACHE_RECIPES=0
export NEO_CACHE_PERSISTENT=0 NEO_CACHE_DIR=$T/neo-cache
cd "$T" || exit 1

PASSED=0 FAILED=0 SKIPPED=0
NAME=$(basename "$0" .sh)

check() {
	local what=$1; shift
	if "$@" >>"$T/check.log" 2>&1; then
		PASSED=$((PASSED + 1)); echo "ok   $NAME: $what"
	else
		FAILED=$((FAILED + 1)); echo "FAIL $NAME: $what   [$*]"
	fi
}

check_not() {
	local what=$1; shift
	if "$@" >>"$T/check.log" 2>&1; then
		FAILED=$((FAILED + 1)); echo "FAIL $NAME: $what   [expected failure: $*]"
	else
		PASSED=$((PASSED + 1)); echo "ok   $NAME: $what"
	fi
}

skip() {
	SKIPPED=$((SKIPPED + 1)); echo "skip $NAME: $*"
}

# Intel's 2026 driver (NEO 26.x with IGC 2.x, in the sid test bed), rather
# than Debian 12's NEO 22.43?  tests/testbed/run says so; else the compiler
# library's major version tells.
modern_driver() {
	[ "${JITCACHE_TESTBED_DRIVER:-}" = neo-2026 ] && return 0
	compgen -G "/usr/lib/*/libigc.so.2" >/dev/null
}

# need_modern_driver: a script for Intel's 2026 driver only skips (and ends)
# anywhere else.
need_modern_driver() {
	modern_driver && return 0
	skip "Intel's 2026 driver is not here (run in the test bed: tests/testbed/run)"
	finish
	exit $?
}

# need_pocl: a script for PoCL (Debian's pocl-opencl-icd) skips (and ends)
# where clinfo lists no PoCL platform.
need_pocl() {
	clinfo -l 2>/dev/null | grep -q "Portable Computing Language" && return 0
	skip "PoCL is not installed (pocl-opencl-icd)"
	finish
	exit $?
}

# need_testbed_env WHAT VENV PROGRAM TARGET [FILE...]: a framework test on
# Intel's 2026 driver (it skips elsewhere), whose environment `make TARGET`
# installs into VENV (VENV/PROGRAM must run), with the library and each FILE
# built; else it skips, saying what is missing, and ends.
need_testbed_env() {
	local what=$1 venv=$2 prog=$3 target=$4 need
	shift 4
	need_modern_driver
	if [ ! -x "$venv/$prog" ]; then
		skip "no $what environment in $venv ('make $target' installs it)"
		finish; exit $?
	fi
	for need in "$LIB" "$@"; do
		if [ ! -e "$need" ]; then
			skip "$need not built (tests/testbed/run make BUILD=$BUILD ...)"
			finish; exit $?
		fi
	done
}

# sim PRODUCT [DEVICE-ID]: simulate that GPU (dg2, bmg, acm-g10, ...:
# ProductFamilyOverride; ForceDeviceId if given), compiling as a real GPU
# does.  The 2026 driver needs three more keys: without UseAubStream=0 zeInit
# crashes, without HardwareInfoOverride it offers no driver, and its default
# bindless mode aborts without UseExternalAllocatorForSshAndDsh=0 (kept,
# rather than UseBindlessMode=0, which makes every Level Zero kernel differ
# from a real GPU's).  OverrideMaxWorkgroupSize is what a real Arc reports
# (1024); Debian 12's 2022 driver needs 256 or zeKernelCreate fails.
sim() {
	export NEOReadDebugKeys=1 SetCommandStreamReceiver=1 ProductFamilyOverride=$1
	unset ForceDeviceId
	[ -n "${2:-}" ] && export ForceDeviceId=$2
	export OverrideMaxWorkgroupSize=256
	if modern_driver; then
		export UseAubStream=0 HardwareInfoOverride=1x4x16
		export UseExternalAllocatorForSshAndDsh=0 OverrideMaxWorkgroupSize=1024
		# Gen12 LP parts abort on 4 subslices per slice.
		case $1 in tgllp | dg1) HardwareInfoOverride=1x6x16 ;; esac
	fi
}
sim_dg2() { sim dg2; }

# ---- another user ---------------------------------------------------------------
# OTHER_UID/OTHER_GID: a user that is not this one: nobody's ids, or 65534 where
# no such user exists (root can switch to any uid, named or not).
OTHER_UID=$(id -u nobody 2>/dev/null || echo 65534)
OTHER_GID=$(id -g nobody 2>/dev/null || echo 65534)

# root writes anywhere, so tests of permissions drop to OTHER_UID when run as
# root (and run as themselves otherwise).  That user cannot be assumed to
# reach anything of ours: the checkout and the build may sit in a 0700
# directory, $TMPDIR may be private.  user_setup FILE... makes a directory $U
# owned by the user who runs the programs, in the first of $TMPDIR, /tmp,
# /var/tmp and /dev/shm that user can reach, and copies into it the library
# ($U_LIB), build/lib's links to the driver ($U/lib) and each FILE ($U/NAME).
# as_user CMD... runs CMD as that user with $U/lib on LD_LIBRARY_PATH.
# USER_NAME says who it is.  Returns 1 (after which the caller skips) only as
# root without setpriv, or when that user can reach none of those directories.
#   if user_setup "$CLIENT" "$T/reduce.spv"; then
#   	(cd "$U" && as_user env LD_PRELOAD="$U_LIB" "$U/ze_client" link "$U/reduce.spv")
U="" U_LIB="" USER_NAME=""
as_user() { return 1; }
user_setup() {
	local base f
	if [ "$(id -u)" -eq 0 ]; then
		command -v setpriv >/dev/null || return 1
		USER_NAME="uid $OTHER_UID"
		[ "$(id -un "$OTHER_UID" 2>/dev/null)" = nobody ] && USER_NAME=nobody
		as_user() {
			setpriv --reuid="$OTHER_UID" --regid="$OTHER_GID" --clear-groups -- \
				env LD_LIBRARY_PATH="$U/lib${ORIG_LD_LIBRARY_PATH:+:$ORIG_LD_LIBRARY_PATH}" "$@"
		}
		U=""
		for base in ${TMPDIR:-} /tmp /var/tmp /dev/shm; do
			[ -d "$base" ] && as_user test -x "$base" || continue
			U=$(mktemp -d "$base/jitcache-user.XXXXXX") && break
		done
		[ -n "$U" ] || return 1
	else
		USER_NAME=$(id -un 2>/dev/null || id -u)
		as_user() {
			env LD_LIBRARY_PATH="$U/lib${ORIG_LD_LIBRARY_PATH:+:$ORIG_LD_LIBRARY_PATH}" "$@"
		}
		U=$(mktemp -d "$T/user.XXXXXX") || return 1
	fi
	CLEANUP_DIRS="$CLEANUP_DIRS $U"
	mkdir -p "$U/lib"
	cp "$LIB" "$U/lib/libjitcache.so"
	cp "$B/libjitcache-core.so" "$U/lib/libjitcache-core.so.1" # loaded from beside it
	U_LIB=$U/lib/libjitcache.so
	[ -d "$B/lib" ] && cp -P "$B"/lib/* "$U/lib/" 2>/dev/null
	for f in "$@"; do cp "$f" "$U/"; done
	chmod -R a+rX,u+w "$U"
	[ "$(id -u)" -ne 0 ] || chown -R -h "$OTHER_UID:$OTHER_GID" "$U"
}

# key_lock_held DIR: does any process hold a compile-once lock in cache DIR
# (a byte of DIR/locks, cache/lock.c)?  Read from /proc/locks, which lists
# every lock with its file's device:inode.  tests/helpers/keylock.py takes
# or tests one key's lock.
key_lock_held() {
	local ino
	ino=$(stat -c %i "$1/locks" 2>/dev/null) || return 1
	awk -v ino="$ino" '{ n = split($6, f, ":"); if (f[n] == ino) found = 1 } END { exit !found }' /proc/locks
}

# stats_field FIELD [JITCACHE]: a number of `jitcache stats --json` (the
# jitcache command: $JITCACHE, or an installed one).
stats_field() {
	"${2:-$JITCACHE}" stats --json 2>/dev/null | sed -n "s/.*\"$1\": *\([0-9]*\).*/\1/p"
}

# stats_in DIR FIELD: the same for the cache in DIR.
stats_in() {
	JITCACHE_DIR=$1 stats_field "$2"
}

# Number of entries in the cache directory.
entries() {
	find "${1:-$JITCACHE_DIR}" -mindepth 2 -maxdepth 2 -type f -regex '.*/[0-9a-f][0-9a-f]/[0-9a-f]*' 2>/dev/null | wc -l
}

# Number of recipes in the cache directory (entry files flagged as recipes:
# bit 1 of the header's flags byte at offset 12, cache/entry.h).
recipes() {
	local f n=0
	for f in $(find "${1:-$JITCACHE_DIR}" -mindepth 2 -maxdepth 2 -type f \
			-regex '.*/[0-9a-f][0-9a-f]/[0-9a-f]*' 2>/dev/null); do
		[ $(( $(od -An -tu1 -j12 -N1 "$f") & 2 )) -ne 0 ] && n=$((n + 1))
	done
	echo "$n"
}

# Compare two floating-point numbers: ge A B  ->  A >= B
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }
# same A B: two counts (or texts) that must agree, A not empty; positive N.
same() { [ -n "$1" ] && [ "$1" = "$2" ]; }
positive() { [ "${1:-0}" -gt 0 ]; }
# summary hits|misses|stores LOG: that field of jitcache's exit line in LOG
# ("jitcache: H hits, M misses, S stores; ..."), 0 when there is none.
summary() {
	grep -E '^jitcache: [0-9]+ hits' "$2" | tail -n 1 | sed -E "s/.* ([0-9]+) $1[,;].*/\\1/;t;s/.*/0/"
}

finish() {
	echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
	[ "$FAILED" -eq 0 ]
}

# ---- servers for the remote tiers: tests/servers.bash (shared with bench/) ----
. "$ROOT/tests/servers.bash"
