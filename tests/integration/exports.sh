#!/usr/bin/env bash
# The library exports exactly the API names it interposes: the global list of
# shim/exports.map, which must be the functions shim/ defines with JC_EXPORT.
# Nothing else (xxHash, inih, jitcache internals) may leak into the host
# process's symbol space.
. "$(dirname "$0")/../lib.sh"

if [ ! -e "$LIB" ] || ! command -v nm >/dev/null; then
	skip "no $LIB or no nm (make lib)"
	finish
	exit $?
fi

map=$(sed -n '/global:/,/local:/p' "$ROOT/shim/exports.map" |
	sed -n 's/^[[:space:]]*\([A-Za-z_][A-Za-z0-9_]*\);.*/\1/p' | sort -u)
# Defined dynamic symbols, without version nodes (type A) or @version suffixes.
exported=$(nm -D --defined-only "$LIB" | awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' | sort -u)
functions=$(nm -D --defined-only "$LIB" | awk '$2 != "A" && $2 != "T" { print $3 }')
# "JC_EXPORT type name(" in shim/*.c (the name on the same line, as STYLE.md writes it).
defined=$(cat "$ROOT"/shim/*.c | tr '\n' ' ' | grep -oE 'JC_EXPORT[^;{(]*\(' |
	sed -E 's/.*[^A-Za-z0-9_]([A-Za-z_][A-Za-z0-9_]*)[[:space:]]*\($/\1/' | sort -u)

show_diff() { # label A B: the names in one list and not the other
	local only_a only_b
	only_a=$(comm -23 <(echo "$2") <(echo "$3") | tr '\n' ' ')
	only_b=$(comm -13 <(echo "$2") <(echo "$3") | tr '\n' ' ')
	[ -z "$only_a$only_b" ] || echo "   $1: only in the first: ${only_a:-none}; only in the second: ${only_b:-none}"
}

echo "$map" >"$T/map"; echo "$exported" >"$T/exported"; echo "$defined" >"$T/defined"
check "exports.map lists names" test -n "$map"
show_diff "library vs exports.map" "$exported" "$map"
check "the library exports exactly the names in shim/exports.map" cmp -s "$T/exported" "$T/map"
show_diff "JC_EXPORT definitions vs exports.map" "$defined" "$map"
check "those are exactly the functions shim/ defines with JC_EXPORT" cmp -s "$T/defined" "$T/map"
check "every export is a function" test -z "$functions"
check "the Level Zero entry points are among them" \
	grep -qx zeModuleCreate <(echo "$exported")
check "... with zeGetModuleProcAddrTable" grep -qx zeGetModuleProcAddrTable <(echo "$exported")
check "... and dlsym" grep -qx dlsym <(echo "$exported")

finish
