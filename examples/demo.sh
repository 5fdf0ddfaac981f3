#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# jitcache's main job, shown: a Level Zero program builds a realistic SPIR-V
# module (GEMM, convolution, attention, normalization, reduction and scan
# kernels) on a simulated Intel Arc GPU, twice, under `jitcache run`.  The
# first run JIT-compiles and fills a fresh private cache; the second loads
# the native binary from it.  Run by `make demo` (after `make all`).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) B=$BUILD ;; *) B=$ROOT/$BUILD ;; esac
EXAMPLE=$B/examples/ze_module

for need in "$EXAMPLE" "$B/libjitcache.so"; do
	[ -e "$need" ] || { echo "demo: $need missing (run 'make all')" >&2; exit 1; }
done
command -v ocloc >/dev/null || { echo "demo: ocloc missing (run 'make deps')" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/jitcache-demo.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1    # the simulated GPU writes its command stream (.aub) here

# Intel's real driver and compiler, simulating an Arc A-series (DG2) GPU.
export NEOReadDebugKeys=1 SetCommandStreamReceiver=1 ProductFamilyOverride=dg2
export OverrideMaxWorkgroupSize=256
export LD_LIBRARY_PATH=$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# A fresh private cache, no user config, and the summary line at exit.
export JITCACHE_DIR=$tmp/cache JITCACHE_CONFIG=/dev/null JITCACHE_LOG=info
export JITCACHE_LIB=$B/libjitcache.so
# No other setting from the caller's environment (every variable of config/settings.h).
unset $(sed -n 's/.*"\(JITCACHE_[A-Z_]*\)",.*/\1/p' "$ROOT/config/settings.h" | grep -vx 'JITCACHE_DIR\|JITCACHE_LOG')

cat "$ROOT"/examples/kernels/*.cl >model.cl
if ! ocloc compile -q -spv_only -file model.cl -device dg2 -output model -output_no_suffix \
	>ocloc.log 2>&1; then
	cat ocloc.log >&2
	exit 1
fi
echo "jitcache demo: Level Zero zeModuleCreate of $(du -k model.spv | cut -f1) KB of SPIR-V"
echo "($(ls "$ROOT"/examples/kernels/*.cl | wc -l) OpenCL C files from examples/kernels) on a simulated Intel Arc GPU"
echo

# run N LABEL: one run of the example under the launcher; sets $seconds
run() {
	if ! "$ROOT/bin/jitcache" run -- "$EXAMPLE" model.spv >"run$1.out" 2>"run$1.err"; then
		echo "demo: run $1 failed:" >&2
		cat "run$1.out" "run$1.err" >&2
		exit 1
	fi
	local kernels
	seconds=$(sed -n 's/^zeModuleCreate: \([0-9.]*\) s.*/\1/p' "run$1.out")
	kernels=$(sed -n 's/^kernels: \([0-9]*\) created/\1/p' "run$1.out")
	printf '  %-18s zeModuleCreate %8.3f s   %s kernels created\n' "$2" "$seconds" "$kernels"
	grep '^jitcache: ' "run$1.err" | sed 's/^/                     /'
}

run 1 "run 1 (cold cache)"; cold=$seconds
run 2 "run 2 (warm cache)"; warm=$seconds
echo
ratio=$(awk -v c="$cold" -v w="$warm" 'BEGIN { printf "%.0f", (w > 0 ? c / w : 0) }')
echo "  warm zeModuleCreate is ${ratio}x faster than cold ($cold s -> $warm s)"
if [ "$ratio" -lt 10 ]; then
	echo "demo: expected at least 10x" >&2
	exit 1
fi
