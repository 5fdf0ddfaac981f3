#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# The management commands after real Level Zero runs on the simulated Arc:
# `jitcache stats` and `stats --json` agree with what the runs did, `verify`
# finds and removes a damaged entry, `trim` evicts least recently used
# entries first, `clear` empties the cache, and `config` shows every setting
# with where it came from.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/ze_common.bash"
need_ze

for k in reduce norm gemm; do
	check "SPIR-V built with ocloc ($k)" spirv $k "$KERNELS/$k.cl"
done

# run NAME MODULE: run the client on MODULE.spv, output in NAME.out.
run() { JITCACHE_LOG=debug jc "$CLIENT" link "$T/$2.spv" >"$T/$1.out" 2>&1; }
key_of() { sed -n 's/.*miss, compiled in .*stored [0-9]* bytes as \([0-9a-f]*\).*/\1/p' "$T/$1.out"; }
compile_s() { sed -n 's/.*miss, compiled in \([0-9.]*\) s.*/\1/p' "$T/$1.out"; }
payload() { sed -n 's/.*miss, compiled in .*stored \([0-9]*\) bytes.*/\1/p' "$T/$1.out"; }
entry() { echo "$JITCACHE_DIR/${1:0:2}/$1"; }
fsize() { stat -c %s "$1"; }
json() { "$JITCACHE" stats --json >"$T/stats.json" && python3 -m json.tool "$T/stats.json" >/dev/null; }
field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$T/stats.json" "$1"; }
# Flip 8 bytes of FILE at OFFSET.
flip() {
	python3 -c "import sys
f = open(sys.argv[1], 'r+b'); f.seek(int(sys.argv[2])); b = f.read(8)
f.seek(int(sys.argv[2])); f.write(bytes(x ^ 0xff for x in b))" "$1" "$2"
}

# Three modules stored, then three hits: reduce twice, norm once.
run cold1 reduce; run cold2 norm; run cold3 gemm
run warm1 reduce; run warm2 reduce; run warm3 norm
check "runs: three compiled, three loaded" \
	test "$(cat "$T"/cold?.out | count "miss, compiled" /dev/stdin)" -eq 3 -a \
	     "$(cat "$T"/warm?.out | count "hit, loaded" /dev/stdin)" -eq 3
kr=$(key_of cold1) kn=$(key_of cold2) kg=$(key_of cold3)

# ---- stats ------------------------------------------------------------------
check "stats --json: valid JSON" json
sizes=$(( $(fsize "$(entry "$kr")") + $(fsize "$(entry "$kn")") + $(fsize "$(entry "$kg")") ))
payloads=$(( $(payload cold1) + $(payload cold2) + $(payload cold3) ))
header=$(sed -n 's/^#define JC_ENTRY_HEADER_SIZE \([0-9]*\).*/\1/p' "$ROOT/store/entry.h")
stored=$(( sizes - 3 * header )) # what was written after the headers (zstd by default)
saved=$(awk -v r="$(compile_s cold1)" -v n="$(compile_s cold2)" 'BEGIN { print 2 * r + n }')
check "stats --json: the cache directory" test "$(field dir)" = "$JITCACHE_DIR"
check "stats --json: 3 hits, 3 misses, 3 stores" \
	test "$(field hits) $(field misses) $(field stores)" = "3 3 3"
check "stats --json: no evictions, corrupt entries or store failures" \
	test "$(field evictions) $(field corrupt) $(field store_failures)" = "0 0 0"
check "stats --json: 3 entries of $sizes bytes (the files' sizes)" \
	test "$(field entries) $(field size)" = "3 $sizes"
check "stats --json: bytes stored = the 3 files less their headers ($stored bytes)" \
	test "$(field bytes_stored)" -eq "$stored"
check "stats --json: ... no more than the 3 binaries ($payloads bytes)" \
	test "$(field bytes_stored)" -le "$payloads"
saved_s=$(awk -v ns="$(field saved_ns)" 'BEGIN { print ns / 1e9 }')
check "stats --json: JIT time saved ($saved_s s) = compile time of what hit ($saved s)" \
	awk -v a="$saved_s" -v b="$saved" 'BEGIN { d = a - b; exit !(a > 0 && d < 0.005 && d > -0.005) }'
check "stats --json: max_size is the default 4G" test "$(field max_size)" -eq 4294967296

"$JITCACHE" stats >"$T/stats.txt"
check "stats: exit status 0" test $? -eq 0
check "stats: names the directory" grep -q "^cache directory  *$JITCACHE_DIR$" "$T/stats.txt"
check "stats: 3 entries" grep -q '^entries  *3$' "$T/stats.txt"
check "stats: 3 hits of 6 lookups" grep -q '^hits  *3 (50.0% of 6 lookups)$' "$T/stats.txt"
check "stats: 3 misses, 3 stores" \
	sh -c "grep -q '^misses  *3$' '$T/stats.txt' && grep -q '^stores  *3 (' '$T/stats.txt'"
check "stats: JIT time saved > 0" \
	awk '/^JIT time saved/ { found = 1; ok = $4 > 0 } END { exit !(found && ok) }' "$T/stats.txt"
check_not "stats: a bad argument is refused" "$JITCACHE" stats --bogus
"$JITCACHE" stats --bogus >/dev/null 2>&1
check "stats: bad usage exits 2" test $? -eq 2

# ---- verify ---------------------------------------------------------------
"$JITCACHE" verify >"$T/verify1.out" 2>&1
check "verify, clean cache: exit status 0" test $? -eq 0
check "verify, clean cache: 3 good, 0 bad" grep -q "^3 good entries ($sizes bytes), 0 bad removed$" \
	"$T/verify1.out"
flip "$(entry "$kg")" 4096 # in the payload: the checksum no longer matches
"$JITCACHE" verify >"$T/verify2.out" 2>&1
check "verify, one entry damaged: exit status 1 (documented: bad entries found)" test $? -eq 1
check "verify, one entry damaged: it names the entry" grep -q "^removed $(entry "$kg"): " "$T/verify2.out"
check "verify, one entry damaged: 2 good, 1 bad removed" \
	grep -q "^2 good entries ([0-9]* bytes), 1 bad removed$" "$T/verify2.out"
check "verify, one entry damaged: the file is gone" test ! -e "$(entry "$kg")"
check "verify, one entry damaged: the others are kept" test -f "$(entry "$kr")" -a -f "$(entry "$kn")"
json
check "verify, one entry damaged: stats count 1 corrupt entry, 2 entries" \
	test "$(field corrupt) $(field entries)" = "1 2"
"$JITCACHE" verify >"$T/verify3.out" 2>&1
check "verify again: clean, exit status 0" test $? -eq 0

# A damaged entry met by a program: removed, compiled again, one line.
flip "$(entry "$kr")" 4096
jc "$CLIENT" link "$T/reduce.spv" >"$T/damaged.out" 2>&1
check "program meets a damaged entry: it works" grep -q "result 0x0 kernels 19" "$T/damaged.out"
check "program meets a damaged entry: one line from jitcache" \
	test "$(count "^jitcache:" "$T/damaged.out")" -eq 1
check "program meets a damaged entry: the line says so" \
	grep -q "^jitcache: removed a corrupt cache entry $(entry "$kr") " "$T/damaged.out"
check "program meets a damaged entry: stored again, sound" "$JITCACHE" verify
json
check "program meets a damaged entry: stats count 2 corrupt entries" test "$(field corrupt)" -eq 2

# ---- trim -----------------------------------------------------------------
# Stored oldest first: norm (cold2), reduce (just now), gemm (next).  Used
# oldest first, once norm has hit again: reduce, gemm, norm.  Trimming to
# the size of gemm + norm must evict reduce, and only reduce: the least
# recently used, not the oldest stored.
run cold4 gemm
check "gemm compiled again" test "$(key_of cold4)" = "$kg"
run warm4 norm
check "norm loaded from the cache" grep -q "hit, loaded" "$T/warm4.out"
keep=$(( $(fsize "$(entry "$kn")") + $(fsize "$(entry "$kg")") ))
"$JITCACHE" trim "$keep" >"$T/trim1.out" 2>&1
check "trim $keep: exit status 0" test $? -eq 0
check "trim $keep: the least recently used entry is evicted" test ! -e "$(entry "$kr")"
check "trim $keep: the two more recently used are kept" test -f "$(entry "$kn")" -a -f "$(entry "$kg")"
check "trim $keep: says what it removed" grep -q "^removed 1 entry (.*); 2 entries (.*) left$" "$T/trim1.out"
json
check "trim $keep: stats count 1 eviction, 2 entries" test "$(field evictions) $(field entries)" = "1 2"
"$JITCACHE" trim 1K >"$T/trim2.out" 2>&1
check "trim 1K: exit status 0" test $? -eq 0
check "trim 1K: every entry evicted" test "$(entries)" -eq 0
check "trim 1K: says so" grep -q "^removed 2 entries (.*); 0 entries (0 bytes) left$" "$T/trim2.out"
json
check "trim 1K: stats count 3 evictions, 0 entries, 0 bytes" \
	test "$(field evictions) $(field entries) $(field size)" = "3 0 0"
"$JITCACHE" trim 12Q >/dev/null 2>&1
check "trim 12Q: refused as bad usage (exit status 2)" test $? -eq 2

# ---- clear ----------------------------------------------------------------
run cold5 reduce; run cold6 norm
check "clear: two entries before" test "$(entries)" -eq 2
# No litter: the only files are the entries, the statistics, the one file
# of compile-once locks and the ring of recent misses (no lock file per
# entry, no temporary files).
check "no litter: files in the cache = entries + stats + locks + misses" \
	test "$(find "$JITCACHE_DIR" -type f | wc -l)" -eq $(( $(entries) + 3 ))
"$JITCACHE" clear >"$T/clear.out" 2>&1
check "clear: exit status 0" test $? -eq 0
check "clear: says what it removed" grep -q "^removed 2 entries (.*); 0 entries (0 bytes) left$" "$T/clear.out"
check "clear: no entries left" test "$(entries)" -eq 0
check "clear: no lock files left" test "$(find "$JITCACHE_DIR" -name '*.lock' | wc -l)" -eq 0
json
check "clear: stats say 0 entries, 0 bytes; the counters are kept" \
	test "$(field entries) $(field size) $(field stores)" = "0 0 7"
run after reduce
check "clear: the next run compiles and stores again" \
	sh -c "grep -q 'miss, compiled' '$T/after.out' && test $(entries) -eq 1"

# ---- config ---------------------------------------------------------------
printf '[cache]\nmax_size = 1G\nlock_timeout = 30\n\n[log]\nlevel = info\n' >"$T/j.ini"
JITCACHE_CONFIG=$T/j.ini JITCACHE_LOCK_TIMEOUT=7 "$JITCACHE" config >"$T/config.out" 2>&1
check "config: exit status 0" test $? -eq 0
# Every setting of config/settings.h's table.
for s in $(sed -n 's/^[[:space:]]*X(\([a-z_]*\), *\([a-z_]*\),.*/\1.\2/p' "$ROOT/config/settings.h"); do
	check "config: shows $s" grep -q "^$s  *= " "$T/config.out"
done
check "config: environment shown as its origin" \
	grep -q "^cache.dir  *= $JITCACHE_DIR  *(env JITCACHE_DIR;" "$T/config.out"
check "config: environment overrides the ini file" \
	grep -q "^cache.lock_timeout  *= 7  *(env JITCACHE_LOCK_TIMEOUT;" "$T/config.out"
check "config: ini setting shown with file:line" \
	grep -q "^cache.max_size  *= 1G  *($T/j.ini:2;" "$T/config.out"
check "config: ini setting in another section, with file:line" \
	grep -q "^log.level  *= info  *($T/j.ini:6;" "$T/config.out"
check "config: defaults shown as such" grep -q "^cache.disable  *= 0  *(default;" "$T/config.out"
check "config: names the file read" grep -q "^JITCACHE_CONFIG  *= $T/j.ini  *(read)$" "$T/config.out"
JITCACHE_CONFIG=$T/j.ini "$JITCACHE" stats --json >"$T/stats.json"
check "stats --json: max_size from the ini file" test "$(field max_size)" -eq 1073741824

finish
