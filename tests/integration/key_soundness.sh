#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# The key soundness benchmark as a test (issue 31 item 2): each invalidation
# case of bench/soundness.sh (an IGC-only or a NEO-only upgrade with the
# version strings unchanged, IGC_* and NEO debug keys, FP64 emulation,
# program debugging, build options, a specialization constant, an include's
# contents, another IP version or stepping must miss; launcher and scheduler
# variables, another directory or TMPDIR, an include touched with the same
# contents, another device id of the same IP version, the same SPIR-V from
# another path must hit) run through jitcache on this driver: Debian 12's
# 22.43 here, Intel's 2026 driver in the test bed (tests/run.sh runs it
# there too).  Every verdict is checked (no stale hit, no spurious miss), and
# for each miss the cause `jitcache explain` names.  The driver's own cache
# and the whole-environment hash are the benchmark's comparison, reported,
# not judged.  A case that cannot be made on this driver says why (n/a).
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/ze_common.bash"
need_ze
unset JITCACHE_DIR JITCACHE_LOG
out=$T/bench
if ! BUILD=$B bash "$ROOT/bench/soundness.sh" "$out" >"$T/bench.out" 2>"$T/bench.err"; then
	check "bench/soundness.sh ran ($(tail -n 1 "$T/bench.err"))" false
	finish; exit $?
fi
tsv=$(ls "$out"/soundness-*.tsv)
n=0
while IFS=$'\t' read -r name verdict jc want got _ _ why; do
	[ "$name" = case ] && continue
	if [ "$jc" = n/a ]; then
		skip "$name: $why"
		continue
	fi
	n=$((n + 1))
	check "$name: must $verdict: jitcache $jc" test "$jc" = "$verdict"
	if [ "$verdict" = miss ] && [ "$jc" = miss ]; then
		check "$name: explain's cause is $want ($(sed 's/^[^:]*: //' "$out/logs/soundness-"*"/$name-explain.txt" 2>/dev/null))" \
			test "$got" = "$want"
	fi
done <"$tsv"
check "at least 20 cases run ($n)" test "$n" -ge 20
# A device that changed is named with what changed in it: the IP version
# (the 2026 driver), the device id or the simulated stepping (22.43).
for c in other_ip_version other_stepping; do
	f=$(ls "$out"/logs/soundness-*/"$c-explain.txt" 2>/dev/null)
	[ -n "$f" ] && check "$c: explain names what of the device changed" \
		grep -Eq "device changed: (IP version [0-9]+\.[0-9]+\.[0-9]+ -> [0-9]+\.[0-9]+\.[0-9]+|device id 0x[0-9a-f]+ -> 0x[0-9a-f]+|simulated stepping \(OverrideRevision\) [0-9]+ -> [0-9]+)" "$f"
done
# An upgrade is named with the library and both build-ids in full.
f=$(ls "$out"/logs/soundness-*/igc_upgrade-explain.txt 2>/dev/null)
if [ -n "$f" ]; then
	check "igc upgrade: explain names libigc and both build-ids" \
		grep -Eq "libigc\.so\.[12] build-id: [0-9a-f]{40} -> [0-9a-f]{40}" "$f"
fi
sed -n '/^| key /,$p' "$out"/soundness-*.md | sed 's/^/     /'
finish
