#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Cold vs warm start of the SYCL workload: no cache, SYCL's own persistent
# cache, jitcache, and both; prints a Markdown table of medians.
#   examples/sycl/bench.sh [BACKEND...]     (default: opencl:cpu opencl:gpu)
#   REPS=3 KERNELS=24 examples/sycl/bench.sh opencl:gpu
# Needs .venv-sycl (make sycl-env) and build/libjitcache.so (make).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
reps=${REPS:-3}
kernels=${KERNELS:-24}
backends=${*:-opencl:cpu opencl:gpu}
work=$(mktemp -d "${TMPDIR:-/tmp}/jitcache-sycl-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1 # the simulated GPU writes .aub files here
unset JITCACHE_DISABLE SYCL_CACHE_PERSISTENT SYCL_CACHE_DIR

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "-" }'; }

# one VARIANT BACKEND: prints "first last" of one run.
one() {
	local variant=$1 backend=$2 out=$work/out
	case $variant in
	plain) "$here/run.sh" "$backend" --kernels "$kernels" >"$out" 2>&1 ;;
	sycl) SYCL_CACHE_PERSISTENT=1 SYCL_CACHE_DIR=$work/sycl \
		"$here/run.sh" "$backend" --kernels "$kernels" >"$out" 2>&1 ;;
	jitcache) JITCACHE_DIR=$work/jc JITCACHE_LOG=info \
		"$root/bin/jitcache" run -- "$here/run.sh" "$backend" --kernels "$kernels" >"$out" 2>&1 ;;
	both) SYCL_CACHE_PERSISTENT=1 SYCL_CACHE_DIR=$work/sycl2 JITCACHE_DIR=$work/jc2 \
		"$root/bin/jitcache" run -- "$here/run.sh" "$backend" --kernels "$kernels" >"$out" 2>&1 ;;
	esac
	if ! grep -q '^checksum: ' "$out"; then
		echo "bench.sh: $variant $backend failed:" >&2
		tail -n 5 "$out" >&2
		echo "- -"
		return
	fi
	echo "$(sed -n 's/^time to first result: \([0-9.]*\) s/\1/p' "$out")" \
	     "$(sed -n 's/^time to last result: \([0-9.]*\) s/\1/p' "$out")"
}

echo "| backend | cache | cold: first / last result (s) | warm: first / last result (s) |"
echo "| --- | --- | --- | --- |"
for backend in $backends; do
	for variant in plain sycl jitcache both; do
		rm -rf "$work/sycl" "$work/sycl2" "$work/jc" "$work/jc2"
		: >"$work/cold"; : >"$work/warm"
		for _ in $(seq "$reps"); do
			rm -rf "$work/sycl" "$work/sycl2" "$work/jc" "$work/jc2"
			one "$variant" "$backend" >>"$work/cold"
			one "$variant" "$backend" >>"$work/warm"
		done
		cf=$(awk '{print $1}' "$work/cold" | median); cl=$(awk '{print $2}' "$work/cold" | median)
		wf=$(awk '{print $1}' "$work/warm" | median); wl=$(awk '{print $2}' "$work/warm" | median)
		name=$variant
		case $variant in
		plain) name="none" ;;
		sycl) name="SYCL_CACHE_PERSISTENT" ;;
		both) name="jitcache + SYCL cache" ;;
		esac
		echo "| $backend | $name | $cf / $cl | $wf / $wl |"
	done
done
echo
echo "($reps runs each, medians; $kernels kernels in the SPIR-V program + 13 dpnp operations;" \
     "cold = empty cache, warm = the run right after it)"
