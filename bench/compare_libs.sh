#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/compare_libs.sh LIB_A LIB_B [SPV] [RUNS] — two builds of
# libjitcache.so side by side, for a change meant to leave behaviour and
# speed as they were (issue 28's restructure): the FIRST zeModuleCreate of
# a fresh process (bench/ze_bench) on a miss (empty cache: JIT + key +
# store) and on a local hit, each library in turn within every repetition,
# so that drift hits both alike.  Intel's driver simulating an Arc (DG2).
# Prints the medians and the median of the paired differences B - A.
#   make && bench/compare_libs.sh OLD/libjitcache.so build/libjitcache.so
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
A=${1:?usage: bench/compare_libs.sh LIB_A LIB_B [SPV] [RUNS]} B=${2:?}
RUNS=${4:-7}
ZB=$ROOT/build/bench/ze_bench
W=$(mktemp -d "${TMPDIR:-/tmp}/jitcache-cmp.XXXXXX")
trap 'rm -rf "$W"' EXIT
SPV=${3:-}
if [ -z "$SPV" ]; then
	ocloc compile -q -spv_only -file "$ROOT/examples/kernels/gemm.cl" -device dg2 \
		-output "$W/m" -output_no_suffix >/dev/null 2>&1 || { echo "ocloc failed" >&2; exit 1; }
	SPV=$W/m.spv
fi
export NEOReadDebugKeys=1 SetCommandStreamReceiver=1 ProductFamilyOverride=dg2 OverrideMaxWorkgroupSize=256
export JITCACHE_CONFIG=/dev/null NEO_CACHE_PERSISTENT=0 LD_LIBRARY_PATH=$ROOT/build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
cd "$W" || exit 1
t() { # LIB DIR: create_s of one process
	JITCACHE_DIR=$2 LD_PRELOAD=$1 "$ZB" spirv "$SPV" | sed -n 's/.*create_s=\([0-9.e-]*\).*/\1/p'
}
: >raw
for r in $(seq 1 "$RUNS"); do
	for lib in A B; do
		l=${!lib}
		rm -rf "$W/c$lib"
		echo "$lib miss $(t "$l" "$W/c$lib")" >>raw
		echo "$lib hit $(t "$l" "$W/c$lib")" >>raw
	done
done
python3 - "$W/raw" "$A" "$B" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
v = {}
for lib, kind, s in rows:
    v.setdefault((lib, kind), []).append(float(s))
print("| %s | A: %s | B: %s | B - A (paired, median) |" % ("first zeModuleCreate", sys.argv[2], sys.argv[3]))
print("|---|---|---|---|")
for kind in ("miss", "hit"):
    a, b = v[("A", kind)], v[("B", kind)]
    d = statistics.median(y - x for x, y in zip(a, b))
    unit, k = ("s", 1) if kind == "miss" else ("ms", 1000)
    print("| %s, median of %d | %.3f %s | %.3f %s | %+.3f %s (%+.1f%%) |" % (
        kind, len(a), statistics.median(a) * k, unit, statistics.median(b) * k, unit, d * k, unit,
        100 * d / statistics.median(a)))
PY
