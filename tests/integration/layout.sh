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
#     own room or of rooms below it, never above (nor the other API's);
#   - from the built objects (nm): no room calls a function defined in a
#     room above it, and the calls between the files of one room have no
#     cycle (tsort);
# and shim/ does no file I/O: its objects call none of the file functions
# (the request's files are key/'s business, the cache's the store's).
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
