#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# The library exports exactly the API names it interposes: the list in
# shim/exports.h (from which the build makes its version script), which must
# be the functions shim/ defines with JC_EXPORT.
# Nothing else (xxHash, jitcache internals) may leak into the host
# process's symbol space.
. "$(dirname "$0")/../lib.sh"

if [ ! -e "$LIB" ] || ! command -v nm >/dev/null; then
	skip "no $LIB or no nm (make lib)"
	finish
	exit $?
fi

map=$(sed -n 's/^[[:space:]]*X([a-z]*, *\([A-Za-z_][A-Za-z0-9_]*\)).*/\1/p' "$ROOT/shim/exports.h" | sort -u)
script=$(grep -oE '[A-Za-z_][A-Za-z0-9_]*;' "$B/exports.map" 2>/dev/null | tr -d ';' | sort -u)
# Defined dynamic symbols, without version nodes (type A) or @version suffixes.
exported=$(nm -D --defined-only "$LIB" | awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' | sort -u)
functions=$(nm -D --defined-only "$LIB" | awk '$2 != "A" && $2 != "T" { print $3 }')
# "JC_EXPORT type name(" in shim/*.c and shim/*/*.c (the name on the same line, as every definition in shim/ is written).
defined=$(cat "$ROOT"/shim/*.c "$ROOT"/shim/*/*.c | tr '\n' ' ' | grep -oE 'JC_EXPORT[[:space:]][^;{(]*\(' |
	sed -E 's/.*[^A-Za-z0-9_]([A-Za-z_][A-Za-z0-9_]*)[[:space:]]*\($/\1/' | sort -u)

show_diff() { # label A B: the names in one list and not the other
	local only_a only_b
	only_a=$(comm -23 <(echo "$2") <(echo "$3") | tr '\n' ' ')
	only_b=$(comm -13 <(echo "$2") <(echo "$3") | tr '\n' ' ')
	[ -z "$only_a$only_b" ] || echo "   $1: only in the first: ${only_a:-none}; only in the second: ${only_b:-none}"
}

echo "$map" >"$T/map"; echo "$exported" >"$T/exported"; echo "$defined" >"$T/defined"
check "shim/exports.h lists names" test -n "$map"
check "the build's version script has exactly those names" test "$script" = "$map"
show_diff "library vs exports.h" "$exported" "$map"
check "the library exports exactly the names in shim/exports.h" cmp -s "$T/exported" "$T/map"
show_diff "JC_EXPORT definitions vs exports.h" "$defined" "$map"
check "those are exactly the functions shim/ defines with JC_EXPORT" cmp -s "$T/defined" "$T/map"
check "every export is a function" test -z "$functions"
check "the Level Zero entry points are among them" \
	grep -qx zeModuleCreate <(echo "$exported")
check "... with zeGetModuleProcAddrTable" grep -qx zeGetModuleProcAddrTable <(echo "$exported")
check "... and dlsym" grep -qx dlsym <(echo "$exported")

finish
