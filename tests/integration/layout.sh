#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# The rooms of the source tree (docs/design.md) and the one direction of
# calls between them, top to bottom:
#
#   shim/ze/  shim/cl/   the two APIs' entry points (neither uses the other)
#   shim/                what both APIs share: doors, dlsym, compile once, runtime
#   key/                 requests and their keys
#   cache/               the cache as the shim sees it, across the tiers
#   tiers/               read-only layers, the remotes (Redis, HTTP(S), S3), archives
#   store/               the local on-disk store
#   trust/               signing and verifying
#   config/              settings and logging
#
# Checked two ways, so that it stays true:
#   - from the include graph of the sources: a file includes headers of its
#     own room or of rooms below it, never above (nor the other API's), and
#     a room's internal.h (struct jc_store, struct jc_cache) is included by
#     that room's files alone, and no two files of a room include each
#     other's header;
#   - from the built objects (nm): no room calls a function defined in a
#     room above it, and the calls between the files of one room have no
#     cycle (tsort);
# and nothing outside store/ builds a path in the cache directory (its
# objects are named by store/object.h alone);
# and every function is declared in a header of the room that defines it,
# one named after a room (jc_store_*, jc_cache_*, jc_layers_*, ...) in that
# room; and shim/ does no file I/O: its objects call none of the file
# functions (the request's files are key/'s business, the cache's the
# store's).
. "$(dirname "$0")/../lib.sh"

ROOMS="shim/ze shim/cl shim key cache tiers store trust config"
# rank ROOM: its place from the top (the two API rooms share the first).
rank() {
	case $1 in
	shim/ze | shim/cl) echo 0 ;; shim) echo 1 ;; key) echo 2 ;; cache) echo 3 ;;
	tiers) echo 4 ;; store) echo 5 ;; trust) echo 6 ;; config) echo 7 ;; *) echo -1 ;;
	esac
}
# room_of PATH: the room a source or header belongs to ("" if none).
room_of() {
	case $1 in
	shim/ze/*) echo shim/ze ;; shim/cl/*) echo shim/cl ;; shim/*) echo shim ;;
	key/* | cache/* | tiers/* | store/* | trust/* | config/*) echo "${1%%/*}" ;;
	esac
}

# ---- the include graph ---------------------------------------------------------
for room in $ROOMS; do
	bad=""
	for f in "$ROOT/$room"/*.[ch]; do
		[ -e "$f" ] || continue
		for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
			to=$(room_of "$inc")
			[ -n "$to" ] || continue
			if [ "$(rank "$to")" -lt "$(rank "$room")" ] ||
				{ [ "$to" != "$room" ] && [ "$(rank "$to")" = 0 ]; }; then
				bad="$bad ${f#"$ROOT"/}->$inc"
			fi
		done
	done
	check "$room/ includes nothing of a room above it${bad:+ (includes$bad)}" test -z "$bad"
done

# No two files of a room include each other's header (a.c includes b.h and
# b.c a.h): the calls may still run one way, but neither file can then be
# read, or moved to another room, without the other.  What both need goes
# into a header below them (config/settings.h: the table that config.c and
# capture.c both read).
bad=""
for room in $ROOMS; do
	for f in "$ROOT/$room"/*.c; do
		[ -e "$f" ] || continue
		a=${f#"$ROOT"/} && a=${a%.c}
		for inc in $(sed -n 's/^#include "\([^"]*\)\.h".*/\1/p' "$f"); do
			[[ "$a" < "$inc" ]] && [ -e "$ROOT/$inc.c" ] &&
				grep -q "^#include \"$a\.h\"" "$ROOT/$inc.c" && bad="$bad $a.c<->$inc.c"
		done
	done
done
check "no two files of a room include each other's header${bad:+ ($bad)}" test -z "$bad"

# A kind of remote is its own files' business: remote.c and everything
# outside tiers/ see the kinds through tiers/tier.h's table of operations
# alone, so that a new kind is its file and one line in the list of kinds
# (docs/design.md, "Adding a tier").
kind_headers='tiers/(redis|http|s3_lease|sigv4|curl_abi)\.h'
bad=$(grep -lE "^#include \"$kind_headers\"" "$ROOT"/tiers/remote.[ch] "$ROOT"/tiers/tier.[ch] \
	"$ROOT"/shim/*.[ch] "$ROOT"/shim/ze/*.[ch] "$ROOT"/shim/cl/*.[ch] "$ROOT"/key/*.[ch] \
	"$ROOT"/cache/*.[ch] "$ROOT"/store/*.[ch] "$ROOT"/trust/*.[ch] "$ROOT"/config/*.[ch] \
	"$ROOT"/bin/*.c 2>/dev/null | sed "s|^$ROOT/||" | tr '\n' ' ')
check "the remotes' kinds are seen through tiers/tier.h alone${bad:+ (the header of a kind in $bad)}" \
	test -z "$bad"
# ... and remote.c names no kind: its dispatch goes through the operations.
bad=$(grep -nE 'JC_REMOTE_(REDIS|HTTP|S3|FILE)\>|jc_(redis|http|s3|file)_' "$ROOT"/tiers/remote.c |
	cut -d: -f1 | tr '\n' ' ')
check "tiers/remote.c names no kind of remote${bad:+ (lines $bad)}" test -z "$bad"

# The cache directory's files are the store's alone (docs/design.md, "The
# store"): nothing outside store/ formats the name of an object
# ("<2 hex>/<32 hex>", any layout: store/object.h names them for the cache,
# the layers and the file:// and http(s):// remotes alike), nor of the
# directory's other files (DIR/locks, a spool or temporary file there),
# peeks at an entry's header bytes itself, or asks the store for the path
# that would let it (jc_store_path, jc_layers_dir, gone).  Comments may
# name the layout.  config/tempfile.c names a temporary file beside any
# target it is given (config/tempfile.h), the cache's among others.
path_fmt='/%02x|%02x/|"%02x", *key->bytes\[0\]|"ac"|/ac/|/locks"|%s/\.tmp\.|O_TMPFILE|\[12\]|jc_store_path *\(|jc_layers_dir *\('
bad=$(for room in $ROOMS bin; do
	[ "$room" = store ] && continue
	grep -nE "$path_fmt" "$ROOT/$room"/*.[ch] 2>/dev/null
done | grep -v '^[^:]*/config/tempfile\.c:' | grep -vE '^[^:]*:[0-9]+:[[:space:]]*(\*|/\*|//)' | sed "s|^$ROOT/||" | cut -d: -f1,2 | tr '\n' ' ')
check "nothing outside store/ builds a path in the cache directory${bad:+ (at $bad)}" test -z "$bad"

# A room's internal.h is its own: no file elsewhere (other rooms, bin/,
# tests, benchmarks, examples) includes it.
for room in $ROOMS; do
	[ -e "$ROOT/$room/internal.h" ] || continue
	bad=$(grep -rlE --include='*.[ch]' "^#include \"$room/internal\.h\"" \
		"$ROOT"/shim "$ROOT"/key "$ROOT"/cache "$ROOT"/tiers "$ROOT"/store "$ROOT"/trust \
		"$ROOT"/config "$ROOT"/bin "$ROOT"/tests "$ROOT"/bench "$ROOT"/examples 2>/dev/null |
		sed "s|^$ROOT/||" | grep -v "^$room/[^/]*\$" | tr '\n' ' ')
	check "$room/internal.h is included by $room/ alone${bad:+ (included by $bad)}" test -z "$bad"
done

# The room a function's name gives it ("" if none).
room_of_name() {
	case $1 in
	jc_store_*) echo store ;; jc_cache_*) echo cache ;;
	jc_remote_url_* | jc_remote_list_*) echo config ;; # the remote setting's values
	jc_layers_* | jc_remote_* | jc_redis_* | jc_http_* | jc_sigv4_* | jc_archive_*) echo tiers ;;
	esac
}
# The functions a room's headers declare: prototypes at the start of a line.
declared() {
	for h in "$ROOT/$1"/*.h; do
		[ -e "$h" ] && sed -n 's/^[A-Za-z_][A-Za-z0-9_ *]*[ *]\(jc_[a-z0-9_]*\)(.*/\1/p' "$h"
	done | sort -u
}
for room in $ROOMS; do
	bad=""
	for f in $(declared "$room"); do
		to=$(room_of_name "$f")
		[ -z "$to" ] || [ "$to" = "$room" ] || bad="$bad $f"
	done
	check "$room/ declares no function named after another room${bad:+ (declares$bad)}" test -z "$bad"
done

# ---- the built objects -----------------------------------------------------------
O=$B/obj
if ! command -v nm >/dev/null || ! command -v tsort >/dev/null || [ ! -d "$O/shim" ]; then
	skip "no nm/tsort or no $O (make lib): calls not checked"
	finish
	exit $?
fi

# The objects of a room's current sources (a reused build directory may
# hold objects of files since moved or removed).
objects() { for c in "$ROOT/$1"/*.c; do [ -e "$O/$1/$(basename "$c" .c).o" ] && echo "$O/$1/$(basename "$c" .c).o"; done; }
undefined() { nm -u "$1" | awk '{ print $2 }' | sort -u; }
defined() { nm --defined-only "$1" | awk '$2 ~ /^[TDBR]$/ { print $3 }' | sort -u; }

# shim/ and file I/O.
file_io='^(open|open64|openat|openat64|creat|read|pread|pread64|readv|write|pwrite|stat|stat64|fstat|fstat64|lstat|lstat64|fstatat|fstatat64|statx|access|faccessat|realpath|fopen|fopen64|opendir|fdopendir|readdir|readlink|unlink|rename|mkdir|mmap|mmap64)$'
for o in $(objects shim) $(objects shim/ze) $(objects shim/cl); do
	calls=$(undefined "$o" | grep -E "$file_io" | tr '\n' ' ')
	check "${o#"$O"/} does no file I/O${calls:+ (calls $calls)}" test -z "$calls"
done

# Calls between rooms: what each room's objects define, and use.
key_of() { echo "$1" | tr / _; }
for room in $ROOMS; do
	k=$(key_of "$room")
	for o in $(objects "$room"); do defined "$o"; done | sort -u >"$T/def.$k"
	for o in $(objects "$room"); do undefined "$o"; done | sort -u >"$T/use.$k"
done
for from in $ROOMS; do
	for to in $ROOMS; do
		[ "$from" = "$to" ] && continue
		above=0
		[ "$(rank "$to")" -lt "$(rank "$from")" ] && above=1
		[ "$(rank "$to")" = 0 ] && [ "$(rank "$from")" = 0 ] && above=1 # the other API
		[ "$above" = 1 ] || continue
		c=$(comm -12 "$T/use.$(key_of "$from")" "$T/def.$(key_of "$to")" | tr '\n' ' ')
		check "$from/ calls nothing of $to/${c:+ (calls $c)}" test -z "$c"
	done
done

# Every function a room defines is declared in a header of that room, and
# one named after a room is defined there.
for room in $ROOMS; do
	k=$(key_of "$room")
	for o in $(objects "$room"); do nm --defined-only "$o"; done |
		awk '$2 == "T" && $3 ~ /^jc_/ { print $3 }' | sort -u >"$T/fn.$k"
	declared "$room" >"$T/decl.$k"
	c=$(comm -23 "$T/fn.$k" "$T/decl.$k" | tr '\n' ' ')
	check "every function $room/ defines is declared in $room/*.h${c:+ (not: $c)}" test -z "$c"
	bad=""
	for f in $(cat "$T/fn.$k"); do
		to=$(room_of_name "$f")
		[ -z "$to" ] || [ "$to" = "$room" ] || bad="$bad $f"
	done
	check "$room/ defines no function named after another room${bad:+ (defines$bad)}" test -z "$bad"
done

# No cycle between the files of a room (the shim's three as one): edges
# "caller callee" into tsort, which fails on a loop.  The edges come from
# one join of "symbol user" and "symbol definer" lists (nm once per object).
for room in shim key cache tiers store trust config; do
	objs=$(objects "$room")
	[ "$room" = shim ] && objs="$objs $(objects shim/ze) $(objects shim/cl)"
	: >"$T/edges" && : >"$T/uses" && : >"$T/defs"
	for a in $objs; do
		undefined "$a" | sed "s|\$| ${a#"$O"/}|" >>"$T/uses"
		defined "$a" | sed "s|\$| ${a#"$O"/}|" >>"$T/defs"
		echo "${a#"$O"/} ${a#"$O"/}" >>"$T/edges" # every file, as a node
	done
	sort -o "$T/uses" "$T/uses" && sort -o "$T/defs" "$T/defs"
	join "$T/uses" "$T/defs" | awk '$2 != $3 { print $2, $3 }' | sort -u >>"$T/edges"
	check "no cycle of calls between the files of $room/" tsort "$T/edges"
done

finish
