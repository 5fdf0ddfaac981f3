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
# No setting from the caller's environment (every variable of config/config.h's
# table), but a cache of the test's own.
unset $(sed -n 's/.*"\(JITCACHE_[A-Z_]*\)",.*/\1/p' "$ROOT/config/config.h")
export JITCACHE_DIR=$T/cache JITCACHE_CONFIG=/dev/null XDG_CONFIG_HOME=$T/xdg-config
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

# ---- servers for the remote tiers -------------------------------------------
# Started by the test on 127.0.0.1 and a free port, with every file in the
# directory given, and stopped when the script exits (stop_servers): never a
# system or shared instance.
#
#   free_port                        a TCP port nobody listens on now
#   start_nginx_dav DIR [CERT KEY]   nginx (Debian's nginx-light) serving DIR/root with
#                                    WebDAV PUT: sets NGINX_URL (https:// with CERT and KEY);
#                                    NGINX_EXTRA: more lines for its location block
#   start_radosgw DIR                Ceph's radosgw (S3, its SQLite backend) from the test
#                                    bed (make testbed-s3), one user: exports
#                                    AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION and
#                                    AWS_ENDPOINT_URL (its http://127.0.0.1:PORT)
#   s3_make_bucket NAME              make a bucket there (needs $B/tests/jc_http_tool)
#   stop_server nginx|radosgw        stop it (SIGTERM, then wait)
declare -A SERVER_PIDS=()
# A proxy of the host's is not for these servers.
no_proxy=127.0.0.1,localhost${no_proxy:+,$no_proxy}
export no_proxy NO_PROXY=$no_proxy

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

stop_server() {
	local pid=${SERVER_PIDS[$1]:-}
	[ -n "$pid" ] || return 0
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	unset "SERVER_PIDS[$1]"
}

stop_servers() {
	local n
	for n in "${!SERVER_PIDS[@]}"; do stop_server "$n"; done
}

# wait_http URL: until something answers HTTP there (5 s at most).
wait_http() {
	local i
	for i in $(seq 1 100); do
		curl -sk -o /dev/null --max-time 1 "$1" && return 0
		sleep 0.05
	done
	return 1
}

start_nginx_dav() {
	local dir=$1 cert=${2:-} key=${3:-} port scheme=http ssl=""
	command -v nginx >/dev/null || { echo "nginx is not installed (make deps)" >&2; return 1; }
	port=$(free_port)
	mkdir -p "$dir/root" "$dir/tmp"
	if [ -n "$cert" ]; then
		scheme=https
		ssl="ssl; ssl_certificate $cert; ssl_certificate_key $key"
	fi
	cat >"$dir/nginx.conf" <<EOF
daemon off;
worker_processes 1;
user $(id -un) $(id -gn);
pid $dir/nginx.pid;
error_log $dir/error.log;
events { worker_connections 64; }
http {
	access_log $dir/access.log;
	client_body_temp_path $dir/tmp/body;
	proxy_temp_path $dir/tmp/proxy;
	fastcgi_temp_path $dir/tmp/fastcgi;
	uwsgi_temp_path $dir/tmp/uwsgi;
	scgi_temp_path $dir/tmp/scgi;
	client_max_body_size 0;
	server {
		listen 127.0.0.1:$port $ssl;
		root $dir/root;
		location / {
			dav_methods PUT DELETE;
			create_full_put_path on;
			${NGINX_EXTRA:-}
		}
	}
}
EOF
	nginx -p "$dir" -e "$dir/error.log" -c "$dir/nginx.conf" 2>>"$dir/error.log" &
	SERVER_PIDS[nginx]=$!
	NGINX_URL=$scheme://127.0.0.1:$port
	wait_http "$NGINX_URL/" || { cat "$dir/error.log" >&2; return 1; }
}

start_radosgw() {
	local dir=$1 port testbed=${JITCACHE_TESTBED:-/var/tmp/jitcache-testbed}
	if [ ! -x "$testbed/usr/bin/radosgw" ]; then
		echo "no radosgw in the test bed $testbed (make testbed-s3)" >&2
		return 1
	fi
	port=$(free_port)
	mkdir -p "$dir"
	cat >"$dir/ceph.conf" <<EOF
[global]
auth_cluster_required = none
auth_service_required = none
auth_client_required = none
log_file = $dir/radosgw.log
admin_socket = $dir/radosgw.asok
[client]
rgw_backend_store = dbstore
rgw_config_store = dbstore
dbstore_db_dir = $dir
rgw_data = $dir
run_dir = $dir
rgw_frontends = beast endpoint=127.0.0.1:$port tcp_nodelay=1
EOF
	export AWS_ACCESS_KEY_ID=jitcache-test AWS_SECRET_ACCESS_KEY=secret-$RANDOM$RANDOM
	export AWS_REGION=us-east-1 AWS_ENDPOINT_URL=http://127.0.0.1:$port
	"$ROOT/tests/testbed/run" radosgw-admin -c "$dir/ceph.conf" --no-mon-config user create \
		--uid=jitcache --display-name=jitcache --access-key="$AWS_ACCESS_KEY_ID" \
		--secret-key="$AWS_SECRET_ACCESS_KEY" >"$dir/user.log" 2>&1 ||
		{ cat "$dir/user.log" >&2; return 1; }
	"$ROOT/tests/testbed/run" radosgw -c "$dir/ceph.conf" --no-mon-config -f \
		>"$dir/radosgw.out" 2>&1 &
	SERVER_PIDS[radosgw]=$!
	wait_http "$AWS_ENDPOINT_URL/" || { tail -n 20 "$dir/radosgw.out" >&2; return 1; }
}

s3_make_bucket() {
	"$B/tests/jc_http_tool" "$AWS_ENDPOINT_URL" sign PUT "/$1" >"$T/s3-sign-$1" &&
		curl -sf -o /dev/null -X PUT -H @"$T/s3-sign-$1" "$AWS_ENDPOINT_URL/$1"
}
