#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# Failed Level Zero builds remembered (issue 21, item 5), on Intel's real
# driver (simulated Arc): a SPIR-V module using double, which DG2 cannot
# build (0x70000004, ZE_RESULT_ERROR_MODULE_BUILD_FAILURE).  The first
# process compiles and stores a failure record (the result and the build
# log); the next one gets the same result at once, without compiling,
# through each door, and `jitcache stats` counts it.  A caller that asks for
# the build log gets the driver's own compile and log, as without jitcache
# (a log handle is the driver's object: jitcache cannot make one with the
# recorded text); its log is the same either way.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/ze_common.bash"
need_ze
export JITCACHE_LOG=debug
cat >"$T/fp64.cl" <<'CL'
__kernel void twice(__global double *a)
{
	size_t i = get_global_id(0);
	a[i] = a[i] * 2.0 + 1.0 / (a[i] + 3.0);
}
CL
ocloc compile -q -spv_only -file "$T/fp64.cl" -device pvc -output "$T/fp64" -output_no_suffix \
	>"$T/ocloc.log" 2>&1
check "SPIR-V using double (ocloc, for a GPU that has it)" test -s "$T/fp64.spv"
result() { sed -n 's/.*result \(0x[0-9a-f]*\).*/\1/p' "$1" | head -n 1; }
logtext() { sed -n '/^build log:/,$p' "$1" | grep -v '^jitcache:'; }
stat_line() { "$JITCACHE" stats -v | grep 'failed builds replayed'; }
replayed() { grep -c 'hit, a failed build (0x70000004) replayed' "$1"; }
compiled() { grep -c 'miss, build failed\|compiled again' "$1"; }

"$CLIENT" link "$T/fp64.spv" >"$T/plain.out" 2>&1
"$CLIENT" link -l "$T/fp64.spv" >"$T/plain-log.out" 2>&1
check "without jitcache: the driver fails the build (0x70000004)" test "$(result "$T/plain.out")" = 0x70000004
check "... and says why in its log" grep -q 'Double type is not supported' "$T/plain-log.out"

export JITCACHE_DIR=$T/cache
jc "$CLIENT" link "$T/fp64.spv" >"$T/cold.out" 2>&1
check "cold: the same result" test "$(result "$T/cold.out")" = 0x70000004
check "cold: compiled, and stored as a failure record" grep -q 'miss, build failed (0x70000004) .* stored as a failure record' "$T/cold.out"
check "cold: one entry" test "$(entries)" -eq 1
for door in link table; do
	jc "$CLIENT" "$door" "$T/fp64.spv" >"$T/warm-$door.out" 2>&1
	check "warm ($door): the same result" test "$(result "$T/warm-$door.out")" = 0x70000004
	check "warm ($door): replayed, not compiled" \
		sh -c "test $(replayed "$T/warm-$door.out") -eq 1 && test $(compiled "$T/warm-$door.out") -eq 0"
done
jc "$DLOPEN" dlsym "$T/fp64.spv" >"$T/warm-dlsym.out" 2>&1
check "warm (dlopen + dlsym): the same result" test "$(result "$T/warm-dlsym.out")" = 0x70000004
check "warm (dlopen + dlsym): replayed, not compiled" test "$(replayed "$T/warm-dlsym.out")" -eq 1
check "stats: the replays counted ($(stat_line))" test "$(stat_line | awk '{ print $NF }')" = 3

jc "$CLIENT" link -l "$T/fp64.spv" >"$T/warm-log.out" 2>&1
check "warm, log asked for: the same result" test "$(result "$T/warm-log.out")" = 0x70000004
check "warm, log asked for: compiled again (the driver's log), not replayed" \
	sh -c "test $(compiled "$T/warm-log.out") -ge 1 && test $(replayed "$T/warm-log.out") -eq 0"
check "warm, log asked for: the log is the driver's, as without jitcache" \
	test "$(logtext "$T/warm-log.out")" = "$(logtext "$T/plain-log.out")"

# A failure stored by a caller that asked for the log replays for one that does not.
export JITCACHE_DIR=$T/cache2
jc "$CLIENT" link -l "$T/fp64.spv" >"$T/cold-log.out" 2>&1
check "cold with the log: its log as without jitcache" \
	test "$(logtext "$T/cold-log.out")" = "$(logtext "$T/plain-log.out")"
jc "$CLIENT" link "$T/fp64.spv" >"$T/warm2.out" 2>&1
check "... then replayed for a caller without one" test "$(replayed "$T/warm2.out")" -eq 1
echo "     zeModuleCreate of the failing module: plain $(ze_time "$T/plain.out") s," \
	"cold $(ze_time "$T/cold.out") s, replayed $(ze_time "$T/warm-link.out") s"
finish
