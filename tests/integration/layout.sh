#!/usr/bin/env bash
# The rooms of the source tree keep to their concerns, read from the built
# objects (nm), not from the sources:
#   - shim/ does no file I/O: its objects call none of the file functions
#     (the request's files are key/'s business, the cache's are cache/'s);
#   - the rooms call downward only: shim -> key -> cache, config; key/ calls
#     nothing of shim/, cache/ nothing of key/ or shim/;
#   - no two files of cache/ (or of key/) call each other, even through
#     others: the call graph between the files of the room has no cycle.
#     (shim/ is left out: its doors and API files call each other by design,
#     the dlsym door asking each API file for its wrappers.)
. "$(dirname "$0")/../lib.sh"

O=$B/obj
if ! command -v nm >/dev/null || ! command -v tsort >/dev/null || [ ! -d "$O/shim" ]; then
	skip "no nm/tsort or no $O (make lib)"
	finish
	exit $?
fi

# The objects of a room's current sources (a reused build directory may
# hold objects of files since removed).
objects() { for c in "$ROOT/$1"/*.c; do [ -e "$O/$1/$(basename "$c" .c).o" ] && echo "$O/$1/$(basename "$c" .c).o"; done; }
undefined() { nm -u "$1" | awk '{ print $2 }' | sort -u; }
defined() { nm --defined-only "$1" | awk '$2 ~ /^[TDBR]$/ { print $3 }' | sort -u; }

# shim/ and file I/O.
file_io='^(open|open64|openat|openat64|creat|read|pread|pread64|readv|write|pwrite|stat|stat64|fstat|fstat64|lstat|lstat64|fstatat|fstatat64|statx|access|faccessat|realpath|fopen|fopen64|opendir|fdopendir|readdir|readlink|unlink|rename|mkdir|mmap|mmap64)$'
for o in $(objects shim); do
	calls=$(undefined "$o" | grep -E "$file_io" | tr '\n' ' ')
	check "shim/$(basename "$o" .o).c does no file I/O${calls:+ (calls $calls)}" test -z "$calls"
done

# Calls between rooms: the symbols each room's objects define, and use.
for room in shim key cache config; do
	[ -n "$(objects $room)" ] || continue
	for o in $(objects $room); do defined "$o"; done | sort -u >"$T/def.$room"
	for o in $(objects $room); do undefined "$o"; done | sort -u >"$T/use.$room"
done
calls_into() { [ -e "$T/use.$1" ] && [ -e "$T/def.$2" ] && comm -12 "$T/use.$1" "$T/def.$2" | tr '\n' ' '; }
for pair in key:shim cache:shim cache:key config:shim config:key config:cache; do
	from=${pair%:*} to=${pair#*:}
	c=$(calls_into "$from" "$to")
	check "$from/ calls nothing of $to/${c:+ (calls $c)}" test -z "$c"
done

# No cycle between the files of a room: edges "caller callee" into tsort,
# which fails on a loop.
for room in cache key; do
	: >"$T/edges.$room"
	for a in $(objects $room); do
		undefined "$a" >"$T/u"
		for b in $(objects $room); do
			[ "$a" = "$b" ] && continue
			defined "$b" >"$T/d"
			[ -n "$(comm -12 "$T/u" "$T/d")" ] && echo "$(basename "$a" .o) $(basename "$b" .o)" >>"$T/edges.$room"
		done
		echo "$(basename "$a" .o) $(basename "$a" .o)" >>"$T/edges.$room" # every file, as a node
	done
	check "no cycle between the files of $room/" tsort "$T/edges.$room"
done

finish
