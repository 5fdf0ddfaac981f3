#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/openvino.sh OUTDIR — OpenVINO's GPU plugin (examples/openvino: a CNN
# and a transformer block, compile_model(model, "GPU")) side by side with the
# driver's own cache and OpenVINO's (CACHE_DIR).  Runs on the host (Debian
# 12's NEO 22.43, .venv-openvino) or inside the test bed (the 2026 driver,
# /opt/jitcache-openvino): bench/run.sh runs it in both.  Alone: make bench-openvino.
# Ways, each a fresh process; the warm ones interleaved run by run:
#   cold    no cache at all;
#   neo     the driver's cache warm, alone (22.43: a cl_cache directory in
#           the current directory; 2026: NEO_CACHE_DIR);
#   jc      jitcache warm, the driver's cache off;
#   both    jitcache and the driver's cache, both warm;
#   ov      OpenVINO's CACHE_DIR warm, alone;
#   ov_jc   CACHE_DIR and jitcache, both warm.
# Each cache is filled first by one run.  Figure: the sum of compile_model's
# two times (median); CPU seconds of the process beside it.
# Writes OUTDIR/openvino_DRIVER.md (a table) and the raw OUTDIR/openvino_DRIVER.txt
# ("ov KIND REP COMPILE_S CPU_S").  Knobs: OV_REPS (3).
set -u
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_init openvino build "${1:-}"
REPS=${OV_REPS:-3}
if [ "${JITCACHE_TESTBED_DRIVER:-}" = neo-2026 ] || compgen -G "/usr/lib/*/libigc.so.2" >/dev/null; then
	driver=2026 VENV=${OPENVINO_VENV:-/opt/jitcache-openvino}
else
	driver=deb12 VENV=${OPENVINO_VENV:-$ROOT/.venv-openvino}
fi
bench_need "make openvino-env / testbed-openvino" "$B/libjitcache.so" "$VENV/bin/python"
cd "$W" || exit 1

export NEOReadDebugKeys=1 SetCommandStreamReceiver=1 ProductFamilyOverride=dg2 OverrideMaxWorkgroupSize=1024
[ $driver = 2026 ] && export UseAubStream=0 HardwareInfoOverride=1x4x16 UseExternalAllocatorForSshAndDsh=0
bench_isolate
unset NEO_CACHE_DIR
mkdir -p "$HOME/intel" && echo 0 >"$HOME/intel/openvino_telemetry" # no telemetry forkserver
raw=$OUT/openvino_$driver.txt
: >"$raw"

one() { # KIND REP
	local kind=$1 r=$2 base=${1%_fill} log=$OUT/logs/ov-$driver-$1-$2 dir env=(NEO_CACHE_PERSISTENT=0) jc=() args=()
	dir=$W/run-$base # 22.43's cache is ./cl_cache: each way runs in a directory of its own
	mkdir -p "$dir"
	case $base in
	neo | both)
		if [ $driver = 2026 ]; then env=(NEO_CACHE_PERSISTENT=1 NEO_CACHE_DIR=$W/neo-$base); mkdir -p "$W/neo-$base"
		else mkdir -p "$dir/cl_cache"; fi ;;
	esac
	case $base in jc | both | ov_jc) jc=("$ROOT/bin/jitcache" run --) ;; esac
	case $base in ov | ov_jc) args=(--cache-dir "$W/ovc-$base") ;; esac
	local rc TIMEFORMAT='%3U %3S'
	{ time env -C "$dir" "${env[@]}" JITCACHE_DIR="$W/jc-$base" JITCACHE_LOG=info "${jc[@]}" \
		"$VENV/bin/python" "$ROOT/examples/openvino/workload.py" "${args[@]}" >"$log" 2>&1; } 2>"$log.cpu"
	rc=$?
	[ $rc -eq 0 ] || { echo "openvino bench: $kind failed (log: $log)" >&2; tail -n 5 "$log" >&2; return 1; }
	echo "ov $kind $r $(sed -n 's/^compile_model total \([0-9.]*\) s/\1/p' "$log") $(awk '{ printf "%.3f", $1 + $2 }' "$log.cpu")" >>"$raw"
}

failed=0
for r in $(seq 1 "$REPS"); do one cold "$r" || failed=1; done
for k in neo jc both ov ov_jc; do one "${k}_fill" 1 || failed=1; done
kinds=(neo jc both ov ov_jc)
for r in $(seq 1 "$REPS"); do
	for i in "${!kinds[@]}"; do one "${kinds[$(( (i + r) % ${#kinds[@]} ))]}" "$r" || failed=1; done
done

python3 - "$raw" "$driver" >"$OUT/openvino_$driver.md" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 5:
        rows.setdefault(f[1], []).append((float(f[3]), float(f[4])))
name = {"deb12": "Debian 12 (NEO 22.43)", "2026": "2026 driver (NEO 26.27)"}[sys.argv[2]]
ways = [("cold", "cold"), ("neo", "driver cache"), ("jc", "jitcache"), ("both", "both"),
        ("ov", "OpenVINO CACHE_DIR"), ("ov_jc", "CACHE_DIR + jitcache")]
print("| OpenVINO GPU, %s | %s |" % (name, " | ".join(w for _, w in ways)))
print("|---|%s" % ("---|" * len(ways)))
def cell(k, i):
    v = rows.get(k)
    return "%.2f" % statistics.median(x[i] for x in v) if v else "-"
print("| compile_model, s (median of %d) | %s |" % (len(rows.get("cold", [])), " | ".join(cell(k, 0) for k, _ in ways)))
print("| process CPU, s | %s |" % " | ".join(cell(k, 1) for k, _ in ways))
PY
cat "$OUT/openvino_$driver.md"
exit $failed
