#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# Entries and recipes are counted apart (issue 30): with recipes on (the
# default), N programs compiled leave N entries and N recipes, and every
# command that shows a number of entries says so: `stats` (text and --json),
# `verify`, `export`, `import` (and its "already present"), `trim` and
# `clear`.  A statistics file whose usage records were written by a jitcache
# that counted recipes as entries (no mark in their fourth word) is recounted
# by `stats`.  Real Level Zero runs on the simulated Arc.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/ze_common.bash"
need_ze
unset JITCACHE_RECIPES # the default: on
MODULES="reduce norm gemm"
for m in $MODULES; do
	check "SPIR-V built with ocloc ($m)" spirv "$m" "$KERNELS/$m.cl"
done
for m in $MODULES; do
	jc "$CLIENT" link "$T/$m.spv" >"$T/$m.out" 2>&1
done
n=$(echo $MODULES | wc -w)
check "the runs compiled $n modules and kept $n recipes (files in the cache)" \
	test "$(entries) $(recipes)" = "$((2 * n)) $n"
bytes=$(find "$JITCACHE_DIR" -mindepth 2 -type f -regex '.*/[0-9a-f][0-9a-f]/[0-9a-f]*' -printf '%s\n' |
	awk '{ s += $1 } END { print s }')

# ---- stats --------------------------------------------------------------------
"$JITCACHE" stats >"$T/stats.txt" 2>&1
check "stats: $n entries (not $((2 * n)))" grep -q "^entries  *$n\$" "$T/stats.txt"
check "stats: $n recipes, on a line of their own" grep -q "^recipes  *$n " "$T/stats.txt"
check "stats --json: \"entries\": $n, \"recipes\": $n, the size of both ($bytes bytes)" \
	test "$(stats_field entries) $(stats_field recipes) $(stats_field size)" = "$n $n $bytes"

# ---- verify -------------------------------------------------------------------
"$JITCACHE" verify >"$T/verify.out" 2>&1
check "verify: $n good entries and $n recipes ($bytes bytes)" \
	grep -q "^$n good entries and $n recipes ($bytes bytes), 0 bad removed\$" "$T/verify.out"

# ---- export, import -----------------------------------------------------------
"$JITCACHE" export "$T/all.tar.zst" >"$T/export.out" 2>&1
check "export: $n entries and $n recipes" \
	grep -q "^exported $n entries and $n recipes, .* to $T/all.tar.zst " "$T/export.out"
JITCACHE_DIR=$T/imported "$JITCACHE" import "$T/all.tar.zst" >"$T/import.out" 2>&1
check "import: $n entries and $n recipes" \
	grep -q "^imported $n entries and $n recipes, .*; 0 already present; 0 refused\$" "$T/import.out"
JITCACHE_DIR=$T/imported "$JITCACHE" import "$T/all.tar.zst" >"$T/import2.out" 2>&1
check "import again: $n entries and $n recipes already present" \
	grep -q "^imported 0 entries, .*; $n entries and $n recipes already present; 0 refused\$" \
	"$T/import2.out"
check "import: the new cache's stats count them apart too" \
	test "$(JITCACHE_DIR=$T/imported stats_field entries) $(JITCACHE_DIR=$T/imported stats_field recipes)" = "$n $n"

# ---- a statistics file of a jitcache that counted recipes as entries ------------
# Each usage record (page 1 on, 32 bytes per subdirectory: size, count,
# oldest, then the recipes with bit 63 set) loses its fourth word, as an
# older jitcache writes it.
python3 - "$JITCACHE_DIR/stats" <<'PY'
import sys
f = open(sys.argv[1], "r+b")
for sub in range(256):
    f.seek(4096 + 32 * sub + 24)
    f.write(bytes(8))
PY
check "older records (recipes not counted apart): stats recounts, $n and $n" \
	test "$(stats_field entries) $(stats_field recipes) $(stats_field size)" = "$n $n $bytes"

# ---- trim, clear --------------------------------------------------------------
"$JITCACHE" trim 1K >"$T/trim.out" 2>&1
check "trim: removed $n entries and $n recipes, none left" \
	grep -q "^removed $n entries and $n recipes (.*); 0 entries (0 bytes) left\$" "$T/trim.out"
JITCACHE_DIR=$T/imported "$JITCACHE" clear >"$T/clear.out" 2>&1
check "clear: removed $n entries and $n recipes" \
	grep -q "^removed $n entries and $n recipes (.*); 0 entries (0 bytes) left\$" "$T/clear.out"

# Where there are no recipes the lines stay as they were.
export JITCACHE_RECIPES=0 JITCACHE_DIR=$T/plain
jc "$CLIENT" link "$T/reduce.spv" >"$T/plain.out" 2>&1
"$JITCACHE" verify >"$T/plain-verify.out" 2>&1
check "no recipes: stats says 0 recipes, verify names none" \
	sh -c "test '$(stats_field recipes)' = 0 && grep -q '^1 good entries ([0-9]* bytes), 0 bad removed\$' '$T/plain-verify.out'"
finish
