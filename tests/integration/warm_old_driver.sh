#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# `jitcache warm --for ... --export FILE` on a driver that cannot simulate a
# GPU as itself (Debian 12's NEO 22.43 reports no IP version): refused up
# front in one line naming the driver version needed, exit status 1, and no
# pack written (issue 36: it refused every target one by one, then wrote an
# empty 23-byte pack).  On Intel's 2026 driver (the test bed) the same
# command warms and writes the pack: modern_warm.sh.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/ze_common.bash"
if modern_driver; then
	skip "this is Debian 12's driver's half; the 2026 driver warms (modern_warm.sh)"
	finish
	exit $?
fi
need_ze
unset JITCACHE_RECIPES # the default: on
check "SPIR-V built with ocloc" spirv reduce "$KERNELS/reduce.cl"
jc "$EXAMPLE" "$T/reduce.spv" >"$T/record.log" 2>&1
check "a module compiled on Debian 12's driver, its recipe kept" test "$(recipes)" -eq 1
entries_before=$(entries)

# --for a770,b580 --export: one line, before any target is tried.
mkdir -p "$T/tmp"
TMPDIR=$T/tmp $JITCACHE warm --for a770,b580 --export "$T/pack.tar.zst" >"$T/warm.out" 2>"$T/warm.err"
rc=$?
check "exit status 1 ($rc)" test "$rc" -eq 1
check "one line, on stderr, nothing on stdout" \
	sh -c "test \$(wc -l <'$T/warm.err') -eq 1 && test ! -s '$T/warm.out'"
check "it names the driver version needed (26.27) and both targets" \
	grep -q "^jitcache warm: --for needs Intel's compute runtime 26.27 or newer .*a770 or b580" "$T/warm.err"
check "it says the pack is not written" grep -qF "$T/pack.tar.zst not written" "$T/warm.err"
check_not "no pack written" test -e "$T/pack.tar.zst"
check "nothing stored meanwhile ($(entries) entries)" test "$(entries)" -eq "$entries_before"
check "no worker directory left behind" test -z "$(ls -A "$T/tmp")"

# Without --export: the same one line, without the file.
$JITCACHE warm --for b580 >"$T/warm2.out" 2>"$T/warm2.err"
rc=$?
check "--for b580 alone: exit 1, one line naming 26.27 and b580" \
	sh -c "test $rc -eq 1 && test \$(wc -l <'$T/warm2.err') -eq 1 &&
		grep -q \"needs Intel's compute runtime 26.27 or newer .*for b580 as\" '$T/warm2.err'"

# This machine's own GPU (no --for) still warms: the refusal is only --for's.
$JITCACHE warm --export "$T/own.tar.zst" >"$T/own.out" 2>&1
rc=$?
check "without --for: warms this machine (exit $rc) and writes its pack" \
	sh -c "test $rc -eq 0 && test -e '$T/own.tar.zst' && grep -q '1 already cached' '$T/own.out'"
finish
