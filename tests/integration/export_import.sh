#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# `jitcache export` and `jitcache import` after real Level Zero runs on the
# simulated Arc: a round trip (the imported cache serves hits), importing
# again (nothing added), the archive read by GNU tar and unpacked as a layer,
# a truncated and a tampered archive (refused member by member, the rest
# imported), --since DATE, and an import that respects max_size.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/ze_common.bash"
need_ze
unset JITCACHE_LOCK_TIMEOUT JITCACHE_COMPRESS JITCACHE_LAYERS

MODULES="reduce norm gemm attention"
for k in $MODULES; do
	check "SPIR-V built with ocloc ($k)" spirv $k "$KERNELS/$k.cl"
done

works() { grep -q "result 0x0 kernels [1-9]" "$1"; }
run() { # OUT DIR MODULE [VAR=VALUE...]
	local out=$1 dir=$2 module=$3; shift 3
	env JITCACHE_LOG=debug JITCACHE_DIR="$dir" "$@" LD_PRELOAD="$LIB" "$CLIENT" link \
		"$T/$module.spv" >"$T/$out" 2>&1
}
jcd() { # DIR jitcache-ARGS...: the command on cache DIR
	local dir=$1; shift
	JITCACHE_DIR=$dir "$JITCACHE" "$@"
}
# Hits of every module from cache DIR (VAR=VALUE... passed on): all must hit.
all_hit() {
	local dir=$1 k; shift
	for k in $MODULES; do
		run "hit-$k.out" "$dir" $k "$@"
		works "$T/hit-$k.out" && grep -q "hit, loaded" "$T/hit-$k.out" || return 1
	done
}

# ---- a warm cache ------------------------------------------------------------
A=$T/a
for k in $MODULES; do run "cold-$k.out" "$A" $k; done
check "warm cache: 4 modules compiled and stored" test "$(entries "$A")" -eq 4
size_a=$(stats_in "$A" size)

# ---- round trip --------------------------------------------------------------
jcd "$A" export "$T/a.tar.zst" >"$T/export.out" 2>&1
check "export: exit status 0" test $? -eq 0
check "export: reports 4 entries and their bytes" \
	grep -q "^exported 4 entries, .* to $T/a.tar.zst (.* compressed)$" "$T/export.out"
check "export: no temporary file left beside the archive" \
	test "$(find "$T" -maxdepth 1 -name '.tmp.*' | wc -l)" -eq 0
check "export: GNU tar reads the archive (tar --zstd -t)" tar --zstd -tf "$T/a.tar.zst"
check "export: it lists the 4 entries as ab/<key>" \
	test "$(tar --zstd -tf "$T/a.tar.zst" | grep -c '^[0-9a-f][0-9a-f]/[0-9a-f]\{32\}$')" -eq 4
check "export: zstd -t finds the compressed stream sound" zstd -q -t "$T/a.tar.zst"

B=$T/b
jcd "$B" import "$T/a.tar.zst" >"$T/import.out" 2>&1
check "import: exit status 0" test $? -eq 0
check "import: reports 4 entries, none present, none refused" \
	grep -q "^imported 4 entries, .* from $T/a.tar.zst; 0 already present; 0 refused$" "$T/import.out"
check "import: the cache holds the same bytes as the source" \
	test "$(stats_in "$B" entries) $(stats_in "$B" size)" = "4 $size_a"
check "import: every module hits in the imported cache" all_hit "$B"
check "import: verify finds nothing wrong" jcd "$B" verify

jcd "$B" import "$T/a.tar.zst" >"$T/import2.out" 2>&1
check "import again: 4 already present, nothing added" \
	grep -q "^imported 0 entries, .*; 4 already present; 0 refused$" "$T/import2.out"

# A plain tar of a whole cache directory (statistics and lock files
# included) imports too: the entries go in, the rest is passed over.
tar -C "$A" -cf "$T/plain.tar" .
jcd "$T/plain" import "$T/plain.tar" >"$T/plain.out" 2>&1
check "import of a plain tar of a cache directory: the 4 entries, nothing refused" \
	sh -c "test $? -eq 0 && grep -q '^imported 4 entries, .*; 0 refused$' '$T/plain.out' && test $(wc -l <"$T/plain.out") -eq 1"

# ---- unpacked as a read-only layer --------------------------------------------
mkdir -m 0755 "$T/layer"
tar --zstd -xf "$T/a.tar.zst" -C "$T/layer"
check "unpacked archive as a layer: every module hits from it" \
	all_hit "$T/c-layer" JITCACHE_LAYERS="$T/layer"
check "unpacked archive as a layer: nothing copied into the cache" test "$(entries "$T/c-layer")" -eq 0

# ---- truncated -----------------------------------------------------------------
bytes=$(stat -c %s "$T/a.tar.zst")
head -c $((bytes * 3 / 5)) "$T/a.tar.zst" >"$T/cut.tar.zst"
jcd "$T/cut" import "$T/cut.tar.zst" >"$T/cut.out" 2>&1
rc=$?
sed 's/^/     /' "$T/cut.out"
check "truncated archive: exit status 1" test $rc -eq 1
n=$(entries "$T/cut")
check "truncated archive: some whole members imported ($n of 4)" test "$n" -ge 1 -a "$n" -lt 4
check "truncated archive: the member cut short is named" \
	grep -q "cut.tar.zst: member [0-9a-f][0-9a-f]/[0-9a-f]\{32\}: cut short (the archive is truncated); refused" "$T/cut.out"
check "truncated archive: the summary counts what went in" \
	grep -q "^imported $n entr\(y\|ies\), .*; 0 already present; 1 refused$" "$T/cut.out"
check "truncated archive: what went in is sound (verify)" jcd "$T/cut" verify
ok=0
for k in $MODULES; do
	run "cut-$k.out" "$T/cut" $k
	works "$T/cut-$k.out" && ok=$((ok + 1))
done
check "truncated archive: every program works after it" test $ok -eq 4

# ---- tampered ------------------------------------------------------------------
# A byte changed inside an entry before compression: the archive is sound,
# the entry's checksum is not.
mkdir "$T/raw"
tar --zstd -xf "$T/a.tar.zst" -C "$T/raw"
victim=$(cd "$T/raw" && find . -type f | sort | head -n 1 | sed 's|^\./||')
python3 -c "import sys
f = open(sys.argv[1], 'r+b'); f.seek(3000); b = f.read(1); f.seek(3000); f.write(bytes([b[0] ^ 1]))" \
	"$T/raw/$victim"
(cd "$T/raw" && tar --zstd -cf "$T/forged.tar.zst" --owner=0 --group=0 *)
jcd "$T/forged" import "$T/forged.tar.zst" >"$T/forged.out" 2>&1
rc=$?
sed 's/^/     /' "$T/forged.out"
check "tampered member: exit status 1" test $rc -eq 1
check "tampered member: refused in one line naming it (checksum mismatch)" \
	test "$(grep -c "member $victim: checksum mismatch; refused" "$T/forged.out")" -eq 1
check "tampered member: the 3 others imported" \
	sh -c "grep -q '^imported 3 entries, .*; 1 refused$' '$T/forged.out' && test $(entries "$T/forged") -eq 3"
check "tampered member: not in the cache" test ! -e "$T/forged/$victim"
check "tampered member: what went in is sound (verify)" jcd "$T/forged" verify

# Damaged compressed bytes in the middle of the archive.
cp "$T/a.tar.zst" "$T/damaged.tar.zst"
python3 -c "import sys
f = open(sys.argv[1], 'r+b'); f.seek(int(sys.argv[2])); b = f.read(4); f.seek(int(sys.argv[2]))
f.write(bytes(x ^ 0x5a for x in b))" "$T/damaged.tar.zst" $((bytes / 2))
jcd "$T/damaged" import "$T/damaged.tar.zst" >"$T/damaged.out" 2>&1
rc=$?
sed 's/^/     /' "$T/damaged.out"
check "damaged archive: exit status 1, one member refused" \
	sh -c "test $rc -eq 1 && grep -q '; 1 refused$' '$T/damaged.out'"
check "damaged archive: the 3 others imported and sound" \
	sh -c "test $(entries "$T/damaged") -eq 3 && JITCACHE_DIR='$T/damaged' '$JITCACHE' verify"

# ---- --since DATE ---------------------------------------------------------------
# Make two entries look unused for two days (recency is the file's mtime).
for f in $(find "$A" -mindepth 2 -type f -regex '.*/[0-9a-f]*' | sort | head -n 2); do
	touch -m -d '2 days ago' "$f"
done
jcd "$A" export "$T/recent.tar.zst" --since "$(date -d yesterday +%F)" >"$T/since.out" 2>&1
check "export --since yesterday (YYYY-MM-DD): the 2 entries used since" \
	grep -q "^exported 2 entries" "$T/since.out"
jcd "$A" export "$T/none.tar.zst" --since "@$(( $(date +%s) + 3600 ))" >"$T/since2.out" 2>&1
check "export --since @SECONDS in an hour: no entries, a valid empty archive" \
	sh -c "grep -q '^exported 0 entries' '$T/since2.out' && tar --zstd -tf '$T/none.tar.zst'"
jcd "$A" export "$T/x.tar.zst" --since "last tuesday" >"$T/since3.out" 2>&1
check "export --since with a bad date: exit status 2, one line" \
	sh -c "test $? -eq 2 && grep -q \"bad date 'last tuesday'\" '$T/since3.out' && test ! -e '$T/x.tar.zst'"

# ---- the size cap holds on import -------------------------------------------------
cap=$(( size_a / 2 ))
JITCACHE_MAX_SIZE=$cap jcd "$T/capped" import "$T/a.tar.zst" >"$T/capped.out" 2>&1
sed 's/^/     /' "$T/capped.out"
check "import into a cache of half the size: stays under max_size ($cap bytes)" \
	test "$(stats_in "$T/capped" size)" -le "$cap"
check "import into a cache of half the size: the evictions are reported" \
	grep -q "entr\(y\|ies\) evicted to stay under max_size" "$T/capped.out"

# ---- errors -------------------------------------------------------------------------
jcd "$T/e" import "$T/nothere.tar.zst" >"$T/missing.out" 2>&1
check "import of a missing file: exit status 1, says why" \
	sh -c "test $? -eq 1 && grep -q 'nothere.tar.zst: No such file' '$T/missing.out'"
jcd "$A" export "$T/no/such/dir/a.tar.zst" >"$T/nodir.out" 2>&1
check "export into a missing directory: exit status 1, says why" \
	sh -c "test $? -eq 1 && grep -q 'No such file' '$T/nodir.out'"

finish
