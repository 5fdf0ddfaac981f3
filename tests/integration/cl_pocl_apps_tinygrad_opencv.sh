#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: full: needs tinygrad (make tinygrad-env) and Debian's python3-opencv (about a CPU minute)
# bench/tinygrad_apps.py and bench/opencv_apps.py (`make bench-apps`'
# tinygrad and OpenCV rows), each with --small: the same kinds of kernel,
# fewer of them (the whole runs, every way, side by side, in `make
# bench-apps`; run twice here, it took 13 minutes of a loaded 2-core
# machine).  On PoCL: the hash of every result is the same
# without jitcache and with it, cold and warm, PoCL's own cache off and on,
# on a node whose PoCL cache is empty, and beside the program's own cache
# (whose warm runs create programs from binaries); the warm runs hit every
# build.
. "$(dirname "$0")/../lib.sh"
export JITCACHE_LOG=info POCL_CACHE_DIR=$T/pocl-cache XDG_CACHE_HOME=$T/xdg-cache
export OPENCV_OPENCL_DEVICE=:CPU: OPENCV_OPENCL_CACHE_DIR=$T/opencv-cache DEV=CL
TINYGRAD_PYTHON=${TINYGRAD_PYTHON:-$ROOT/.venv-tinygrad/bin/python}
if ! clinfo -l 2>/dev/null | grep -q "Portable Computing Language"; then
	skip "needs PoCL (pocl-opencl-icd)"
	finish; exit
fi
# app APP OWN [WRAPPER...]: APP's workload, its own cache off (OWN 0) or on.
app() {
	local name=$1 own=$2
	shift 2
	case $name in
	tinygrad) "$@" env CACHELEVEL=$((own * 2)) "$TINYGRAD_PYTHON" "$ROOT/bench/tinygrad_apps.py" --small ;;
	opencv) "$@" env OPENCV_OPENCL_CACHE_ENABLE="$own" /usr/bin/python3 "$ROOT/bench/opencv_apps.py" --small ;;
	esac
}
for app in tinygrad opencv; do
	case $app in
	tinygrad) "$TINYGRAD_PYTHON" -c 'import tinygrad' 2>/dev/null ;;
	opencv) /usr/bin/python3 -c 'import cv2' 2>/dev/null ;;
	esac || { skip "$app: not installed (make tinygrad-env; apt-get install python3-opencv)"; continue; }
	POCL_KERNEL_CACHE=0 app $app 0 >$app-none.out 2>$app-none.err
	check "$app without jitcache: one hash of every result" grep -qE '^[0-9a-f]{64}$' $app-none.out
	for cache in 0 1; do
		rm -rf "$JITCACHE_DIR" "$POCL_CACHE_DIR"
		export POCL_KERNEL_CACHE=$cache
		app $app 0 $JITCACHE run -- >$app-cold$cache.out 2>$app-cold$cache.err
		check "$app, PoCL's cache $cache, jitcache cold: the same results" \
			diff $app-none.out $app-cold$cache.out
		app $app 0 $JITCACHE run -- >$app-warm$cache.out 2>$app-warm$cache.err
		check "... warm: the same results" diff $app-none.out $app-warm$cache.out
		check "... warm: every build hit" \
			grep -q 'jitcache: [0-9]* hits, 0 misses, 0 stores' $app-warm$cache.err
	done
	rm -rf "$POCL_CACHE_DIR"
	app $app 0 $JITCACHE run -- >$app-node.out 2>$app-node.err
	check "$app, PoCL's cache emptied, jitcache's entries alone: the same results" \
		diff $app-none.out $app-node.out
	check "... every build hit" grep -q 'jitcache: [0-9]* hits, 0 misses, 0 stores' $app-node.err
	# Its own cache cold then warm, jitcache warm beside it.
	rm -rf "$XDG_CACHE_HOME" "$OPENCV_OPENCL_CACHE_DIR"
	for run in own-cold own-warm; do
		app $app 1 $JITCACHE run -- >$app-$run.out 2>$app-$run.err
		check "$app, its own cache and jitcache ($run): the same results" \
			diff $app-none.out $app-$run.out
	done
	unset POCL_KERNEL_CACHE
done
finish
