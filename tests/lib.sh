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

set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) B=$BUILD ;; *) B=$ROOT/$BUILD ;; esac
LIB=$B/libjitcache.so
JITCACHE=$ROOT/bin/jitcache
export JITCACHE_LIB=$LIB JITCACHE_ADMIN=$B/jitcache-admin
export LD_LIBRARY_PATH=$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

T=$(mktemp -d "${TMPDIR:-/tmp}/jitcache-test.XXXXXX")
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$T"' EXIT
export JITCACHE_DIR=$T/cache JITCACHE_CONFIG=/dev/null XDG_CONFIG_HOME=$T/xdg-config
export NEO_CACHE_PERSISTENT=0 NEO_CACHE_DIR=$T/neo-cache
unset JITCACHE_MAX_SIZE JITCACHE_DISABLE JITCACHE_LOG JITCACHE_SHARED JITCACHE_LOCK_TIMEOUT JITCACHE_COMPRESS \
	JITCACHE_LAYERS JITCACHE_REMOTE JITCACHE_REMOTE_PASSWORD_FILE JITCACHE_REMOTE_READ_ONLY JITCACHE_REMOTE_CONNECT_TIMEOUT \
	JITCACHE_REMOTE_TIMEOUT JITCACHE_REMOTE_BACKOFF JITCACHE_REMOTE_LEASE JITCACHE_REMOTE_COMPRESS
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

# sim PRODUCT: simulate that GPU (dg2, bmg, mtl, ...: ProductFamilyOverride).
# The 2026 driver needs three more keys: without UseAubStream=0 zeInit
# crashes, without HardwareInfoOverride it offers no driver, and without
# UseBindlessMode=0 it aborts.
sim() {
	export NEOReadDebugKeys=1 SetCommandStreamReceiver=1 ProductFamilyOverride=$1
	export OverrideMaxWorkgroupSize=256
	if modern_driver; then
		export UseAubStream=0 HardwareInfoOverride=1x4x16 UseBindlessMode=0
		# Gen12 LP parts abort on 4 subslices per slice.
		case $1 in tgllp | dg1) HardwareInfoOverride=1x6x16 ;; esac
	fi
}
sim_dg2() { sim dg2; }

# Number of entries in the cache directory.
entries() {
	find "${1:-$JITCACHE_DIR}" -mindepth 2 -maxdepth 2 -type f -regex '.*/[0-9a-f][0-9a-f]/[0-9a-f]*' 2>/dev/null | wc -l
}

# Compare two floating-point numbers: ge A B  ->  A >= B
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }

finish() {
	echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
	[ "$FAILED" -eq 0 ]
}
