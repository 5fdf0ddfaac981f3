#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# Level Zero: failures and calls jitcache must leave alone.
#  - a build the driver fails returns the driver's own error and build log,
#    and a compile error is stored as a failure record (ze_failures.sh:
#    replayed), a lack of resources is not;
#  - native input, and an extension structure jitcache does not know, pass
#    through uncached with the driver's result;
#  - a damaged entry (the store's checksum catches it) and an entry the
#    driver rejects (checksum made to match) are both recompiled and replaced,
#    and the program never notices.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/ze_common.bash"
need_ze
# This script reads and forges raw entries, so they are stored uncompressed.
export JITCACHE_LOG=debug JITCACHE_COMPRESS=0

check "SPIR-V built with ocloc" spirv reduce "$KERNELS/reduce.cl"
# Well-formed SPIR-V that the driver cannot build: 512 KB of local memory.
cat >"$T/slm.cl" <<'EOF'
__kernel void too_much_local(__global float *out)
{
	__local float big[128 * 1024];
	big[get_local_id(0)] = out[get_global_id(0)];
	barrier(CLK_LOCAL_MEM_FENCE);
	out[get_global_id(0)] = big[(get_local_id(0) * 7) % (128 * 1024)];
}
EOF
check "SPIR-V built with ocloc" spirv slm "$T/slm.cl"

# result FILE: the ze_result_t a client run printed
result() { sed -n 's/.*result \(0x[0-9a-f]*\) kernels.*/\1/p' "$1" | head -n 1; }
# the client's output without jitcache's lines and timings
app_view() { grep -v '^jitcache:' "$1" | sed 's/^zeModuleCreate: [0-9.]* s //'; }

JITCACHE_DISABLE=1 jc "$CLIENT" link -l "$T/slm.spv" >"$T/fail-real.out" 2>&1
jc "$CLIENT" link -l "$T/slm.spv" >"$T/fail.out" 2>&1
real=$(result "$T/fail-real.out")
check "the driver fails this build (${real:-?})" test -n "$real" -a "$real" != 0x0
check "failed build: the driver's own result" test "$(result "$T/fail.out")" = "$real"
check "failed build: the driver's own build log" \
	cmp -s <(app_view "$T/fail-real.out") <(app_view "$T/fail.out")
# A compile error (0x70000004) is a fact about the key, stored as a failure
# record (ze_failures.sh replays it); anything else (the 2026 driver says
# 0x70000003, out of device memory, for this module) is not stored.
if [ "$real" = 0x70000004 ]; then
	check "failed build ($real): stored as a failure record" test "$(entries)" -eq 1
	check "failed build: said so in the debug log" \
		grep -q "build failed (.*) .*stored as a failure record" "$T/fail.out"
else
	check "failed build ($real, not a compile error): nothing stored" test "$(entries)" -eq 0
	check "failed build: said so in the debug log" grep -q "build failed ($real); nothing stored" "$T/fail.out"
fi

# Pass-through: native input, unknown extension structure.
jc "$CLIENT" link "$T/reduce.spv" >/dev/null 2>&1     # one entry to take a binary from
bin=$(find "$JITCACHE_DIR" -mindepth 2 -type f ! -name '*.*' | head -n 1)
tail -c +65 "$bin" >"$T/reduce.native"                # the payload after the 64-byte header
rm -rf "$JITCACHE_DIR"
jc "$CLIENT" link -n "$T/reduce.native" >"$T/native.out" 2>&1
check "native input: loads" grep -q "result 0x0 kernels 19" "$T/native.out"
check "native input: not cached" test "$(entries)" -eq 0
JITCACHE_DISABLE=1 jc "$CLIENT" link -x "$T/reduce.spv" >"$T/ext-real.out" 2>&1
jc "$CLIENT" link -x "$T/reduce.spv" >"$T/ext.out" 2>&1
check "unknown extension: the driver's own result ($(result "$T/ext-real.out"))" \
	test "$(result "$T/ext.out")" = "$(result "$T/ext-real.out")" -a -n "$(result "$T/ext.out")"
check "unknown extension: not cached" test "$(entries)" -eq 0
check "jitcache stats counts the native load passed through" \
	sh -c "'$JITCACHE' stats -v | grep -q 'passed through: native or binaries *1\$'"
check "jitcache stats counts the unknown extension passed through" \
	sh -c "'$JITCACHE' stats -v | grep -q 'passed through: not keyable *1\$'"

# A damaged entry: the store sees it, the program gets its module anyway.
jc "$CLIENT" link "$T/reduce.spv" >"$T/c0.out" 2>&1
entry=$(find "$JITCACHE_DIR" -mindepth 2 -type f ! -name '*.*' | head -n 1)
check "entry stored" test -n "$entry" -a "$(entries)" -eq 1
printf '\x00\xff\x00\xff' | dd of="$entry" bs=1 seek=4096 conv=notrunc 2>/dev/null
jc "$CLIENT" link "$T/reduce.spv" >"$T/c1.out" 2>&1
jc "$CLIENT" link "$T/reduce.spv" >"$T/c2.out" 2>&1
check "damaged entry: the program works" grep -q "result 0x0 kernels 19" "$T/c1.out"
check "damaged entry: recompiled and stored again" grep -q "miss, compiled" "$T/c1.out"
check "damaged entry: replaced (next run hits)" grep -q ": hit, loaded" "$T/c2.out"
check "damaged entry: the hit works" grep -q "result 0x0 kernels 19" "$T/c2.out"

# An entry that passes the store's checks but that the driver refuses.
check "entry forged" "$B/tests/ze_forge_entry" "$entry"
jc "$CLIENT" link -l "$T/reduce.spv" >"$T/r1.out" 2>&1
jc "$CLIENT" link "$T/reduce.spv" >"$T/r2.out" 2>&1
check "rejected entry: the program works" grep -q "result 0x0 kernels 19" "$T/r1.out"
check "rejected entry: the app's build log is valid" grep -q "^build log: result 0x0" "$T/r1.out"
check "rejected entry: one warning line" \
	test "$(count "jitcache: the driver rejected cached module" "$T/r1.out")" -eq 1
check "rejected entry: recompiled and stored again" grep -q "miss, compiled" "$T/r1.out"
check "rejected entry: counted as a miss, not a hit, and no JIT avoided" \
	grep -q "jitcache: 0 hits, 1 misses, 1 stores; compiling avoided: 0.00 s" "$T/r1.out"
check "rejected entry: replaced (next run hits)" grep -q ": hit, loaded" "$T/r2.out"
check "rejected entry: the hit works" grep -q "result 0x0 kernels 19" "$T/r2.out"
check "one entry in the end" test "$(entries)" -eq 1

finish
