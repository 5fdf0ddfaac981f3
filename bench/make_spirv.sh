#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make_spirv.sh OUTDIR — the Level Zero benchmark's SPIR-V modules, made with
# Intel's offline compiler (ocloc, SPIR-V only: no device needed) from the
# realistic OpenCL C kernels in examples/kernels/ (tiled and register-blocked
# GEMM, GEMV, convolutions, pooling, normalisation, softmax, RoPE, reductions,
# scans; every kernel is a macro instance, as kernel libraries ship them):
#
#   xs  ~10 KB   3 reduction/scan kernels of reduce.cl
#   s  ~100 KB   gemm.cl (16 GEMM/GEMV kernels)
#   m  ~500 KB   conv.cl gemm.cl gemm_reg.cl norm.cl reduce.cl (~80 kernels)
#   l   >=2 MB   7 variants of conv.cl gemm.cl norm.cl reduce.cl (~460 kernels),
#                each variant's kernels renamed with a _vN suffix (a library
#                shipping the same kernels for several configurations)
#
# attention.cl is left out of m and l on purpose: its flash-attention kernels
# cost ~7 s of JIT for 75 KB of SPIR-V, and `make bench` must stay within its
# time budget on 2 cores; the rest JIT at ~1 s per 100 KB on this machine.
# Writes OUTDIR/NAME.cl and OUTDIR/NAME.spv; prints "NAME BYTES KERNELS".
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
K=$ROOT/examples/kernels
out=${1:?usage: make_spirv.sh OUTDIR}
mkdir -p "$out"
command -v ocloc >/dev/null || { echo "make_spirv: ocloc missing (run 'make deps')" >&2; exit 1; }

# keep_instances REGEX FILE: FILE with only the macro instances (lines such
# as "REDUCE(reduce_sum_f32_256, ...)") whose kernel name matches REGEX.
keep_instances() {
	awk -v keep="$1" '
		/^[A-Z][A-Z0-9_]*\([a-z][a-z0-9_]*,/ {
			name = $0; sub(/^[A-Z0-9_]*\(/, "", name); sub(/,.*/, "", name)
			if (name !~ keep) next
		}
		{ print }' "$2"
}

# variant N FILE...: the files with every kernel and helper function renamed
# NAME_vN, so that several variants can live in one module.
variant() {
	local v=$1
	shift
	sed -E -e "s/^([A-Z][A-Z0-9_]*)\(([a-z][a-z0-9_]*),/\1(\2_v$v,/" \
		-e "s/__kernel void ([a-z][a-z0-9_]*)\(/__kernel void \1_v$v(/" \
		-e "s/\<(wg_sum|wg_max)\>/\1_v$v/g" "$@"
}

# reduce.cl ends with a plain kernel (no macro instance): its body is dropped too.
keep_instances '^(reduce_sum_f32_256|reduce_max_f32_256|scan_incl_f32_256)$' "$K/reduce.cl" \
	| awk '/^__kernel void scan_add_block_sums_f32/ { skip = 1 } !skip { print }
	       skip && /^}/ { skip = 0 }' >"$out/xs.cl"
cat "$K/gemm.cl" >"$out/s.cl"
cat "$K/conv.cl" "$K/gemm.cl" "$K/gemm_reg.cl" "$K/norm.cl" "$K/reduce.cl" >"$out/m.cl"
: >"$out/l.cl"
for v in 1 2 3 4 5 6 7; do
	variant "$v" "$K/conv.cl" "$K/gemm.cl" "$K/norm.cl" "$K/reduce.cl" >>"$out/l.cl"
done

for name in xs s m l; do
	if ! ocloc compile -q -spv_only -file "$out/$name.cl" -device dg2 \
		-output "$out/$name" -output_no_suffix >"$out/$name.ocloc.log" 2>&1; then
		echo "make_spirv: ocloc failed on $name.cl:" >&2
		cat "$out/$name.ocloc.log" >&2
		exit 1
	fi
	kernels=$(grep -cE '^[A-Z][A-Z0-9_]*\([a-z]|^__kernel void [a-z]' "$out/$name.cl")
	echo "$name $(stat -c %s "$out/$name.spv") $kernels"
done
