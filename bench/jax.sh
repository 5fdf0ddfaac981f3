#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/jax.sh OUTDIR — JAX on Intel's OpenXLA plugin (examples/jax: jitted
# MLP forward, loss+grad and attention steps at two shapes, on the plugin's
# `sycl` device) side by side with the driver's own cache and JAX's
# persistent compilation cache.  Runs inside the test bed (Intel's 2026
# driver, /opt/jitcache-jax from `make testbed-jax`): bench/run.sh runs it
# there.  JAX does not run on Debian 12's driver: the plugin creates its
# modules through SYCL's Level Zero backend, which cannot start on that
# driver and loader (examples/sycl/NOTES.md, section 3).  Alone: make bench-jax.
# Ways, each a fresh process; the warm ones interleaved run by run:
#   cold    no cache at all;
#   neo     the driver's cache warm, alone (NEO_CACHE_DIR);
#   jc      jitcache warm, the driver's cache off;
#   both    jitcache and the driver's cache, both warm;
#   jax     JAX's persistent compilation cache warm, alone
#           (JAX_COMPILATION_CACHE_DIR, every compile kept: minimum compile
#           time and entry size 0);
#   jax_jc  JAX's cache and jitcache, both warm.
# Each cache is filled first by one run.  Figure: the six steps' first calls
# (compile + run; examples/jax/workload.py's "steps:"), median; CPU seconds
# of the process beside it; the files each cache holds after its fill.
# Writes OUTDIR/jax.md (a table) and the raw OUTDIR/jax.txt
# ("jax KIND REP STEPS_S CPU_S", "jax_files KIND N").  Knobs: JAX_REPS (3).
set -u
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_init jax build-sid "${1:-}"
REPS=${JAX_REPS:-3}
VENV=${JAX_VENV:-/opt/jitcache-jax}
bench_need "make testbed-jax; build in the test bed" "$B/libjitcache.so" "$VENV/bin/python"
cd "$W" || exit 1 # the simulated GPU may write files to the current directory

export NEOReadDebugKeys=1 SetCommandStreamReceiver=1 ProductFamilyOverride=dg2 UseAubStream=0
export HardwareInfoOverride=1x4x16 UseExternalAllocatorForSshAndDsh=0 OverrideMaxWorkgroupSize=1024
bench_isolate
export LD_LIBRARY_PATH=$VENV/lib
unset NEO_CACHE_DIR JAX_COMPILATION_CACHE_DIR
raw=$OUT/jax.txt
: >"$raw"

one() { # KIND REP
	local kind=$1 r=$2 base=${1%_fill} log=$OUT/logs/jax-$1-$2 env=(NEO_CACHE_PERSISTENT=0) jc=()
	case $base in
	neo | both) env=(NEO_CACHE_PERSISTENT=1 NEO_CACHE_DIR=$W/neo-$base); mkdir -p "$W/neo-$base" ;;
	esac
	case $base in jc | both | jax_jc) jc=("$ROOT/bin/jitcache" run --) ;; esac
	case $base in jax | jax_jc)
		env+=(JAX_COMPILATION_CACHE_DIR="$W/jaxc-$base" JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS=0
			JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES=0) ;;
	esac
	local rc TIMEFORMAT='%3U %3S'
	{ time env "${env[@]}" JITCACHE_DIR="$W/jc-$base" JITCACHE_LOG=info "${jc[@]}" \
		"$VENV/bin/python" "$ROOT/examples/jax/workload.py" >"$log" 2>&1; } 2>"$log.cpu"
	rc=$?
	[ $rc -eq 0 ] || { echo "jax bench: $kind failed (log: $log)" >&2; tail -n 5 "$log" >&2; return 1; }
	case $kind in jc | both | jax_jc)
		grep -Eq '^jitcache: [1-9][0-9]* hits, 0 misses' "$log" ||
			{ echo "jax bench: $kind missed (log: $log)" >&2; return 1; } ;;
	esac
	echo "jax $kind $r $(sed -n 's/^steps: \([0-9.]*\) s$/\1/p' "$log") $(awk '{ printf "%.3f", $1 + $2 }' "$log.cpu")" >>"$raw"
}

failed=0
for r in $(seq 1 "$REPS"); do one cold "$r" || failed=1; done
kinds=(neo jc both jax jax_jc)
for k in "${kinds[@]}"; do one "${k}_fill" 1 || failed=1; done
count() { find "$@" -type f 2>/dev/null | wc -l; }
{
	echo "jax_files neo $(count "$W/neo-neo")"
	echo "jax_files jc $(count "$W/jc-jc")"
	echo "jax_files jax $(count "$W/jaxc-jax")"
} >>"$raw"
for r in $(seq 1 "$REPS"); do
	for i in "${!kinds[@]}"; do one "${kinds[$(( (i + r) % ${#kinds[@]} ))]}" "$r" || failed=1; done
done

python3 - "$raw" >"$OUT/jax.md" <<'PY'
import statistics, sys
rows, files = {}, {}
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] == "jax" and len(f) == 5:
        rows.setdefault(f[1], []).append((float(f[3]), float(f[4])))
    elif f[0] == "jax_files":
        files[f[1]] = int(f[2])
ways = [("cold", "cold"), ("neo", "driver cache"), ("jc", "jitcache"), ("both", "both"),
        ("jax", "JAX's cache"), ("jax_jc", "JAX's cache + jitcache")]
print("| JAX 0.5.0 + OpenXLA plugin 0.7.0, 2026 driver (NEO 26.27) | %s |" % " | ".join(w for _, w in ways))
print("|---|%s" % ("---|" * len(ways)))
def cell(k, i):
    v = rows.get(k)
    return "%.2f" % statistics.median(x[i] for x in v) if v else "-"
print("| 6 jitted steps' first calls, s (median of %d) | %s |" % (len(rows.get("cold", [])), " | ".join(cell(k, 0) for k, _ in ways)))
print("| process CPU, s | %s |" % " | ".join(cell(k, 1) for k, _ in ways))
print("\nFiles in each cache after one run: driver's cache %s, jitcache %s, JAX's cache %s."
      % (files.get("neo", "-"), files.get("jc", "-"), files.get("jax", "-")))
PY
cat "$OUT/jax.md"
exit $failed
