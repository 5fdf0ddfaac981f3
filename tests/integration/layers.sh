#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# Read-only cache layers under real Level Zero programs on the simulated Arc:
# a copy of a warm cache serves hits from a layer (also on a read-only
# mount) without being changed or copied into the cache; a corrupt layer
# entry is a miss and the layer is left as it was; a layer writable by group,
# owned by another user or missing is skipped with one line; shared = 1
# trusts a group-writable layer.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/ze_common.bash"
need_ze
unset JITCACHE_LOCK_TIMEOUT JITCACHE_COMPRESS JITCACHE_LAYERS

MOUNTS=""
cleanup() {
	for m in $MOUNTS; do umount "$m" 2>/dev/null || umount -l "$m"; done
	[ "${KEEP:-0}" = 1 ] || rm -rf "$T"
}
trap cleanup EXIT

check "SPIR-V built with ocloc (reduce)" spirv reduce "$KERNELS/reduce.cl"
check "SPIR-V built with ocloc (norm)" spirv norm "$KERNELS/norm.cl"

works() { grep -q "result 0x0 kernels ${2:-19}" "$1"; }
lines() { count "^jitcache:" "$1"; }
# run OUT [VAR=VALUE...] MODULE: the client under jitcache, at debug level
# unless told otherwise.
run() {
	local out=$1; shift
	local module=${*: -1}
	env JITCACHE_LOG=debug "${@:1:$#-1}" LD_PRELOAD="$LIB" "$CLIENT" link "$T/$module.spv" \
		>"$T/$out" 2>&1
}
# Every file of a tree with its size, mode, mtime and checksum: equal
# listings mean nothing was written, touched or removed.
listing() { (cd "$1" && find . -printf '%p %s %m %T@\n' | sort && find . -type f -exec sha256sum {} + | sort); }
flip() { # FILE OFFSET
	python3 -c "import sys
f = open(sys.argv[1], 'r+b'); f.seek(int(sys.argv[2])); b = f.read(1)
f.seek(int(sys.argv[2])); f.write(bytes([b[0] ^ 0xff]))" "$1" "$2"
}

# ---- a warm cache, copied as a layer ----------------------------------------
run warm.out JITCACHE_DIR="$T/warm" reduce
check "a warm cache: reduce compiled and stored" grep -q "miss, compiled" "$T/warm.out"
cp -a "$T/warm" "$T/layer"
listing "$T/layer" >"$T/layer.before"

run hit.out JITCACHE_DIR="$T/c1" JITCACHE_LAYERS="$T/layer" reduce
check "layer hit: the program works" works "$T/hit.out"
check "layer hit: loaded from the cache, not compiled" \
	sh -c "grep -q 'hit, loaded' '$T/hit.out' && ! grep -q 'miss, compiled' '$T/hit.out'"
check "layer hit: the summary counts 1 hit" grep -q "jitcache: 1 hits, 0 misses, 0 stores" "$T/hit.out"
check "layer hit: nothing copied into the cache directory" test "$(entries "$T/c1")" -eq 0
check "layer hit: stats count it as a layer hit" \
	test "$(stats_in "$T/c1" hits) $(stats_in "$T/c1" layer_hits)" = "1 1"
listing "$T/layer" >"$T/layer.after"
check "layer hit: the layer is unchanged (files, sizes, modes, mtimes, contents)" \
	cmp -s "$T/layer.before" "$T/layer.after"
run quiet.out JITCACHE_LOG=warn JITCACHE_DIR="$T/c1" JITCACHE_LAYERS="$T/layer" reduce
check "layer hit: no line at the default level" test "$(lines "$T/quiet.out")" -eq 0
JITCACHE_DIR="$T/c1" JITCACHE_LAYERS="$T/layer" "$JITCACHE" stats >"$T/stats.txt" 2>&1
check "jitcache stats: shows the hits from layers" grep -q "^hits by tier .*layer 1: 2" "$T/stats.txt"

# A miss in the layer (another module) compiles and stores locally.
run other.out JITCACHE_DIR="$T/c1" JITCACHE_LAYERS="$T/layer" norm
check "not in the layer: the program works" works "$T/other.out" 11
check "not in the layer: compiled and stored in the cache directory" \
	sh -c "grep -q 'miss, compiled' '$T/other.out' && test $(entries "$T/c1") -eq 1"
check "not in the layer: the layer is unchanged" \
	sh -c "listing() { (cd \"\$1\" && find . -printf '%p %s %m %T@\n' | sort && find . -type f -exec sha256sum {} + | sort); }; listing '$T/layer' | cmp -s - '$T/layer.before'"

# ---- a layer on a read-only file system --------------------------------------
mkdir -m 0755 "$T/ro"
if mount --bind "$T/layer" "$T/ro" 2>"$T/mount.err" && MOUNTS="$T/ro" &&
	mount -o remount,ro,bind "$T/ro" 2>>"$T/mount.err"; then
	check "read-only mount: it is read-only" sh -c "! touch '$T/ro/probe' 2>/dev/null"
	run ro.out JITCACHE_DIR="$T/c2" JITCACHE_LAYERS="$T/ro" reduce
	check "read-only layer: the program works" works "$T/ro.out"
	check "read-only layer: hit" grep -q 'hit, loaded' "$T/ro.out"
	check "read-only layer: no warning" test "$(grep -c '^jitcache: .*\(cannot\|refused\|skipped\)' "$T/ro.out")" -eq 0
else
	skip "read-only layer: cannot bind-mount read-only (needs root / CAP_SYS_ADMIN): $(head -n 1 "$T/mount.err")"
fi

# ---- a corrupt entry in a layer ----------------------------------------------
cp -a "$T/warm" "$T/bad"
entry=$(find "$T/bad" -mindepth 2 -type f -regex '.*/[0-9a-f]*' | head -n 1)
flip "$entry" 2000
listing "$T/bad" >"$T/bad.before"
run bad.out JITCACHE_LOG=warn JITCACHE_DIR="$T/c3" JITCACHE_LAYERS="$T/bad" reduce
check "corrupt layer entry: the program works" works "$T/bad.out"
check "corrupt layer entry: one line, naming the entry" \
	sh -c "test $(lines "$T/bad.out") -eq 1 && grep -q '^jitcache: cache layer entry $entry is corrupt' '$T/bad.out'"
listing "$T/bad" >"$T/bad.after"
check "corrupt layer entry: the layer is left untouched" cmp -s "$T/bad.before" "$T/bad.after"
check "corrupt layer entry: a miss, compiled and stored in the cache directory" \
	test "$(stats_in "$T/c3" misses) $(stats_in "$T/c3" corrupt) $(entries "$T/c3")" = "1 1 1"
run bad2.out JITCACHE_DIR="$T/c3" JITCACHE_LAYERS="$T/bad" reduce
check "corrupt layer entry: the next run works" works "$T/bad2.out"
check "corrupt layer entry: the next run hits the cache directory's copy" grep -q 'hit, loaded' "$T/bad2.out"

# ---- layers that are not trusted, or not there --------------------------------
cp -a "$T/warm" "$T/gw"
chmod 0775 "$T/gw"
run gw.out JITCACHE_LOG=warn JITCACHE_DIR="$T/c4" JITCACHE_LAYERS="$T/gw" reduce
check "group-writable layer: the program works (compiled)" works "$T/gw.out"
check "group-writable layer: skipped, in one line" \
	sh -c "test $(lines "$T/gw.out") -eq 1 && grep -q '^jitcache: cache layer $T/gw is writable by group or others (mode 775); skipped' '$T/gw.out'"
check "group-writable layer: nothing read from it (a miss)" test "$(stats_in "$T/c4" misses)" -eq 1
run gws.out JITCACHE_DIR="$T/c5" JITCACHE_SHARED=1 JITCACHE_LAYERS="$T/gw" reduce
check "group-writable layer with JITCACHE_SHARED=1: trusted, hit" grep -q "hit, loaded" "$T/gws.out"

if [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1; then
	cp -a "$T/warm" "$T/theirs"
	chown -R nobody "$T/theirs"
	run theirs.out JITCACHE_LOG=warn JITCACHE_DIR="$T/c6" JITCACHE_LAYERS="$T/theirs" reduce
	check "another user's layer: the program works" works "$T/theirs.out"
	check "another user's layer: skipped, in one line" \
		sh -c "test $(lines "$T/theirs.out") -eq 1 && grep -q 'cache layer $T/theirs belongs to uid' '$T/theirs.out'"
else
	skip "another user's layer: needs root to hand a directory to nobody"
fi

run missing.out JITCACHE_LOG=warn JITCACHE_DIR="$T/c7" JITCACHE_LAYERS="$T/nothere:$T/layer" reduce
check "a missing layer: the program works" works "$T/missing.out"
check "a missing layer: skipped in one line; the next layer serves the hit" \
	sh -c "test $(lines "$T/missing.out") -eq 1 && grep -q 'cache layer $T/nothere: No such file' '$T/missing.out' && test $(stats_in "$T/c7" layer_hits) -eq 1"

# ---- OpenCL: a layer hit through clBuildProgram --------------------------------
if clinfo -l 2>/dev/null | grep -q "Intel(R) OpenCL"; then
	echo 'kernel void scale(global float *x, float a) { x[get_global_id(0)] *= a * a; }' >"$T/one.cl"
	clb() { # OUT [VAR=VALUE...]
		local out=$1; shift
		env JITCACHE_LOG=info "$@" "$JITCACHE" run -- "$B/tests/cl_build" --platform Intel \
			--source "$T/one.cl" >"$T/$out" 2>"$T/$out.err"
	}
	clb cl-cold.out JITCACHE_DIR="$T/cl-warm"
	cp -a "$T/cl-warm" "$T/cl-layer"
	clb cl-hit.out JITCACHE_DIR="$T/cl-c" JITCACHE_LAYERS="$T/cl-layer"
	check "OpenCL (simulated Arc): the program builds from the layer's entry" \
		grep -q '^build=0 ' "$T/cl-hit.out"
	check "OpenCL: a hit from the layer, nothing stored" \
		sh -c "grep -q 'jitcache: 1 hits, 0 misses, 0 stores' '$T/cl-hit.out.err' && test $(stats_in "$T/cl-c" layer_hits) -eq 1"
else
	skip "OpenCL: Intel's OpenCL driver does not show a simulated GPU (intel-opencl-icd)"
fi

# ---- no usable cache directory (a read-only container) -----------------------
# The cache directory cannot be made (a file is in the way, as a read-only
# root file system would refuse it): the layer still serves hits.
touch "$T/in-the-way"
run nodir.out JITCACHE_LOG=warn JITCACHE_DIR="$T/in-the-way/cache" JITCACHE_LAYERS="$T/layer" reduce
check "no cache directory: the program works" works "$T/nodir.out"
check "no cache directory: two lines: why, and that the layers still serve hits" \
	sh -c "test $(lines "$T/nodir.out") -eq 2 && grep -q 'cannot create cache directory $T/in-the-way/cache' '$T/nodir.out' && grep -q 'layers still serve hits; nothing is stored' '$T/nodir.out'"
run nodir-debug.out JITCACHE_DIR="$T/in-the-way/cache" JITCACHE_LAYERS="$T/layer" reduce
check "no cache directory: hit from the layer" grep -q "hit, loaded" "$T/nodir-debug.out"
run nodir-miss.out JITCACHE_DIR="$T/in-the-way/cache" JITCACHE_LAYERS="$T/layer" norm
check "no cache directory, not in the layer: compiled, the program works" \
	sh -c "grep -q 'result 0x0 kernels 11' '$T/nodir-miss.out' && grep -q '0 hits, 1 misses, 0 stores' '$T/nodir-miss.out'"
run nodir-none.out JITCACHE_LOG=warn JITCACHE_DIR="$T/in-the-way/cache" reduce
check "no cache directory and no layers: caching off, one line" \
	sh -c "grep -q 'result 0x0 kernels 19' '$T/nodir-none.out' && test $(lines "$T/nodir-none.out") -eq 1"

# The ini file's [cache] layers works as the variable does.
printf '[cache]\nlayers = %s\n' "$T/layer" >"$T/layers.ini"
run ini.out JITCACHE_CONFIG="$T/layers.ini" JITCACHE_DIR="$T/c8" reduce
check "[cache] layers in the ini file: hit from the layer" grep -q "hit, loaded" "$T/ini.out"

finish
