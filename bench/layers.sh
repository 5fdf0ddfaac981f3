#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/layers.sh [OUTDIR] — what a hit from a read-only layer costs against
# a hit from the local cache directory, side by side in one run.
#
# For each Level Zero module size (LAYER_SIZES, default "s m": ~100 KB and
# ~500 KB of SPIR-V from bench/make_spirv.sh, made here unless OUTDIR/spirv
# has them), one miss fills a cache; a copy of it (cp -a) becomes a layer.
# Then, LAYER_REPS times (15), interleaved with the order rotating:
#   local   the first zeModuleCreate of a fresh process, hit from the cache
#           directory (the usual warm start);
#   layer   the same with a cache directory without entries (made once)
#           and JITCACHE_LAYERS set to the layer: the hit is served from
#           the layer;
#   floor   ZE_MODULE_FORMAT_NATIVE from the native binary already in
#           memory, no jitcache: what no cache can beat.
# Each run is checked to have hit (JITCACHE_LOG=info summary line), and the
# layer runs to have hit the layer (`jitcache stats --json`: layer_hits).
# Writes OUTDIR/layers.txt ("layers SIZE KIND REP SECONDS") and prints a
# summary: medians, min-max, and layer - local paired within each
# repetition.  bench/run.sh calls it (section "layers"); it also runs alone
# after `make all build/bench/ze_bench`:  BUILD=build bench/layers.sh
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) B=$BUILD ;; *) B=$ROOT/$BUILD ;; esac
OUT=${1:-$B/bench/layers-run}
ZB=$B/bench/ze_bench
REPS=${LAYER_REPS:-15}
SIZES=${LAYER_SIZES:-s m}
for need in "$ZB" "$B/libjitcache.so" "$B/jitcache-admin"; do
	[ -e "$need" ] || { echo "bench/layers: $need missing (make all $BUILD/bench/ze_bench)" >&2; exit 1; }
done
mkdir -p "$OUT/logs"
: >"$OUT/layers.txt"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/jitcache-layers.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1 # the simulated GPU writes .aub files to the current directory

export NEOReadDebugKeys=1 SetCommandStreamReceiver=1 ProductFamilyOverride=dg2
export OverrideMaxWorkgroupSize=256
ldd "$ZB" 2>/dev/null | grep -q 'libze_loader.so.1 => /' ||
	export LD_LIBRARY_PATH=$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export JITCACHE_LIB=$B/libjitcache.so JITCACHE_ADMIN=$B/jitcache-admin
export JITCACHE_CONFIG=/dev/null XDG_CONFIG_HOME=$WORK/xdg-config
unset JITCACHE_DIR JITCACHE_MAX_SIZE JITCACHE_DISABLE JITCACHE_LOG JITCACHE_SHARED \
	JITCACHE_COMPRESS JITCACHE_LAYERS LD_PRELOAD

if [ ! -e "$OUT/spirv/m.spv" ]; then
	"$ROOT/bench/make_spirv.sh" "$OUT/spirv" >/dev/null || exit 1
fi

# zb LOG ARGS...: one ze_bench process; its create_s.
zb() {
	local log=$1
	shift
	"$@" >"$log" 2>&1 || { echo "bench/layers: failed: $* (log: $log)" >&2; return 1; }
	sed -n 's/^ze_bench .*create_s=\([0-9.]*\).*/\1/p' "$log"
}
hit_or_fail() { # LOG
	grep -q '^jitcache: 1 hits, 0 misses, 0 stores' "$1" ||
		{ echo "bench/layers: no hit (log: $1)" >&2; return 1; }
}

one_size() { # NAME
	local n=$1 spv=$OUT/spirv/$1.spv bin=$WORK/$1.bin log=$OUT/logs/layers-$1 r i kind t
	JITCACHE_DIR=$WORK/local-$n zb "$log-fill" "$ROOT/bin/jitcache" run -- "$ZB" spirv "$spv" \
		--save-native "$bin" >/dev/null || return 1
	cp -a "$WORK/local-$n" "$WORK/layer-$n"
	# The layer runs' own cache directory, made once as in a container
	# after its first process; layer hits leave it without entries.
	JITCACHE_DIR=$WORK/empty-$n "$ROOT/bin/jitcache" stats >/dev/null || return 1
	local kinds=(local layer floor)
	for r in $(seq 1 "$REPS"); do
		for i in "${!kinds[@]}"; do
			kind=${kinds[$(((r + i) % ${#kinds[@]}))]}
			case $kind in
			local)
				t=$(JITCACHE_DIR=$WORK/local-$n JITCACHE_LOG=info zb "$log-$kind-$r" \
					"$ROOT/bin/jitcache" run -- "$ZB" spirv "$spv") &&
					hit_or_fail "$log-$kind-$r" || return 1 ;;
			layer)
				t=$(JITCACHE_DIR=$WORK/empty-$n JITCACHE_LAYERS=$WORK/layer-$n JITCACHE_LOG=info \
					zb "$log-$kind-$r" "$ROOT/bin/jitcache" run -- "$ZB" spirv "$spv") &&
					hit_or_fail "$log-$kind-$r" || return 1 ;;
			floor)
				t=$(zb "$log-$kind-$r" "$ZB" native "$bin") || return 1 ;;
			esac
			echo "layers $n $kind $r $t" >>"$OUT/layers.txt"
		done
	done
	# Every layer run hit the layer: the cache directory holds no entry.
	[ "$(JITCACHE_DIR=$WORK/empty-$n "$ROOT/bin/jitcache" stats --json | python3 -c \
		'import json,sys; s = json.load(sys.stdin); print(s["layer_hits"], s["entries"])')" = "$REPS 0" ] ||
		{ echo "bench/layers: the layer runs did not all hit the layer" >&2; return 1; }
	echo "layers $n native_bytes $(stat -c %s "$bin")" >>"$OUT/layers.txt"
}

for n in $SIZES; do
	echo "bench/layers: Level Zero $n: local, layer, floor x$REPS" >&2
	one_size "$n" || exit 1
done

python3 - "$OUT/layers.txt" <<'EOF'
import sys
rows = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 5 and f[0] == "layers":
        rows.setdefault(f[1], {}).setdefault(f[2], {})[int(f[3])] = float(f[4])
    elif len(f) == 4 and f[2] == "native_bytes":
        rows.setdefault(f[1], {})["bytes"] = int(f[3])
med = lambda v: sorted(v)[len(v) // 2] if len(v) % 2 else sum(sorted(v)[len(v) // 2 - 1:len(v) // 2 + 1]) / 2
ms = lambda s: "%.2f ms" % (s * 1e3)
print("| module (native binary) | local hit | layer hit | floor | layer / local | layer - local, paired |")
print("|---|---|---|---|---|---|")
for n, k in rows.items():
    loc, lay, flo = (list(k[x].values()) for x in ("local", "layer", "floor"))
    paired = [k["layer"][r] - k["local"][r] for r in k["local"] if r in k["layer"]]
    print("| Level Zero %s (%.0f KB) | %s (%s-%s) | %s (%s-%s) | %s | %.2fx | %+.2f ms (n=%d) |"
          % (n, k.get("bytes", 0) / 1024, ms(med(loc)), ms(min(loc)), ms(max(loc)),
             ms(med(lay)), ms(min(lay)), ms(max(lay)), ms(med(flo)),
             med(lay) / med(loc), med(paired) * 1e3, len(paired)))
EOF
