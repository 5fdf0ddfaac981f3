#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# Level Zero, the main job: a SPIR-V module that takes over a second to JIT
# is compiled and stored by the first process and loaded from the cache by
# the next, at least 10x faster, with every kernel usable.  Also: the exit
# summary, the launcher, JITCACHE_DISABLE.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/ze_common.bash"
need_ze

check "SPIR-V built with ocloc" spirv gemm "$KERNELS/gemm_reg.cl"

export JITCACHE_LOG=info
jc "$EXAMPLE" "$T/gemm.spv" >"$T/cold.out" 2>"$T/cold.err"; cold_rc=$?
jc "$EXAMPLE" "$T/gemm.spv" >"$T/warm.out" 2>"$T/warm.err"; warm_rc=$?
cold=$(ze_time "$T/cold.out"); warm=$(ze_time "$T/warm.out")
echo "   cold zeModuleCreate ${cold:-?} s, warm ${warm:-?} s"

check "cold run exits 0" test "$cold_rc" -eq 0
check "warm run exits 0" test "$warm_rc" -eq 0
check "cold run stored one entry" test "$(entries)" -eq 1
check "cold summary: 1 store, no hit" grep -q "jitcache: 0 hits, .* 1 stores" "$T/cold.err"
check "warm summary: 1 hit, no store" grep -q "jitcache: 1 hits, 0 misses, 0 stores" "$T/warm.err"
avoided=$(sed -n 's/.*; compiling avoided: \([0-9.]*\) s .*/\1/p' "$T/warm.err")
check "warm summary counts the JIT time avoided (${avoided:-?} s)" ge "${avoided:-0}" 1
check "the module takes over 1 s to JIT (${cold:-?} s)" ge "${cold:-0}" 1
ratio=$(awk -v c="${cold:-0}" -v w="${warm:-0}" 'BEGIN { if (w > 0) printf "%.1f", c / w; else print 0 }')
check "warm zeModuleCreate is at least 10x faster (${ratio}x)" ge "$ratio" 10
kc=$(sed -n 's/^kernels: \([0-9]*\) created/\1/p' "$T/cold.out")
kw=$(sed -n 's/^kernels: \([0-9]*\) created/\1/p' "$T/warm.out")
check "every kernel is created from the cached module (${kw:-?} of ${kc:-?})" \
	test -n "$kc" -a "${kc:-0}" -gt 0 -a "${kw:-x}" = "${kc:-y}"
check "still one entry after the warm run" test "$(entries)" -eq 1

# A hit hands the application a valid build log when it asks for one.
jc "$CLIENT" link -l "$T/gemm.spv" >"$T/log.out" 2>&1
check "hit with a build log requested" grep -q "^build log: result 0x0" "$T/log.out"
check "... and that run was a hit" grep -q "jitcache: 1 hits, 0 misses" "$T/log.out"

# The launcher: appends to LD_PRELOAD, works from another directory.
mkdir -p "$T/elsewhere/deeper"
(
	cd "$T/elsewhere/deeper" || exit 1
	export LD_PRELOAD=libm.so.6
	JITCACHE_LIB=../../$(realpath --relative-to="$T" "$LIB") \
		"$JITCACHE" run -- sh -c 'echo "$LD_PRELOAD"' >"$T/preload.out"
	"$JITCACHE" run -- "$EXAMPLE" "$T/gemm.spv" >"$T/launcher.out" 2>"$T/launcher.err"
)
check "launcher keeps the existing LD_PRELOAD first" \
	grep -q "^libm.so.6:/.*libjitcache.so$" "$T/preload.out"
check "launcher from another directory: a hit" grep -q "jitcache: 1 hits" "$T/launcher.err"
check "launcher run created its kernels" grep -q "^kernels: ${kc:-x} created" "$T/launcher.out"

# JITCACHE_DISABLE=1: every call goes straight to the driver.
rm -rf "$JITCACHE_DIR"
JITCACHE_DISABLE=1 jc "$CLIENT" link "$T/gemm.spv" >"$T/off.out" 2>&1
check "disabled: the program works" grep -q "result 0x0 kernels [1-9]" "$T/off.out"
check "disabled: nothing stored" test "$(entries)" -eq 0
check_not "disabled: no summary" grep -q "hits" "$T/off.out"

# Entries are stored uncompressed by default; compress = 1 stores them with
# zstd, and either kind is read whatever the setting.
rm -rf "$JITCACHE_DIR"
jc "$CLIENT" link "$T/gemm.spv" >"$T/raw.out" 2>&1
raw_size=$(du -sb "$JITCACHE_DIR"/[0-9a-f][0-9a-f] | awk '{ s += $1 } END { print s }')
rm -rf "$JITCACHE_DIR"
JITCACHE_COMPRESS=1 jc "$CLIENT" link "$T/gemm.spv" >"$T/zstd.cold" 2>&1
zstd_size=$(du -sb "$JITCACHE_DIR"/[0-9a-f][0-9a-f] | awk '{ s += $1 } END { print s }')
check "compressed: stored, at most half the size of the plain entry ($zstd_size vs $raw_size bytes)" \
	test "$(entries)" -eq 1 -a "$((zstd_size * 2))" -le "$raw_size"
JITCACHE_COMPRESS=1 jc "$CLIENT" link "$T/gemm.spv" >"$T/zstd.warm" 2>&1
check "compressed: the warm run hits and creates its kernels" \
	sh -c "grep -q 'jitcache: 1 hits, 0 misses' '$T/zstd.warm' && grep -q 'result 0x0 kernels [1-9]' '$T/zstd.warm'"
jc "$CLIENT" link "$T/gemm.spv" >"$T/zstd.read" 2>&1
check "compressed: read with compression off too" grep -q "jitcache: 1 hits, 0 misses" "$T/zstd.read"

finish
