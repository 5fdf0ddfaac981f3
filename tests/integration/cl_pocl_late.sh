#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# PoCL's cache off, a command still queued when the application releases
# its kernel and program (pyopencl's scans do so): PoCL compiles the
# kernel's work-group function after both releases, into the program's
# directory, which it removes when it frees the program.  jitcache adds
# that function to the entry as PoCL renames it into place (cl_pocl.h):
# the next run, served from the entry alone, has PoCL compile none (issue
# 46, item 2: 12 such compiles in every warm pyopencl run before).
. "$(dirname "$0")/../lib.sh"
export POCL_KERNEL_CACHE=0 POCL_CACHE_DIR=$T/pocl-cache
unset POCL_DEBUG
CLB=$B/tests/cl_build

need_pocl
mkdir -p "$POCL_CACHE_DIR"
cp "$ROOT/tests/integration/compute.cl" k.cl
build() { "$@" "$CLB" --platform Portable --source k.cl --options "-DSCALE=2.5f" \
	--release-queued --run compute; }
# PoCL says each work-group function it generates (POCL_DEBUG=timing).
compiles() { grep -c 'llvm_workgroup_ir_func_gen' "$1"; }

POCL_DEBUG=timing build env >none.out 2>none.err
check "without jitcache: the run succeeded" grep -q '^run=0 ' none.out
check "... PoCL compiled a work-group function ($(compiles none.err))" test "$(compiles none.err)" -ge 1

JITCACHE_LOG=debug build "$JITCACHE" run -- >cold.out 2>cold.err
check "jitcache cold: stored one entry" grep -q 'jitcache: 0 hits, 1 misses, 1 stores' cold.err
check "... the same results" test "$(grep '^run=0 ' cold.out)" = "$(grep '^run=0 ' none.out)"

POCL_DEBUG=timing JITCACHE_LOG=info build "$JITCACHE" run -- >warm.out 2>warm.err
check "jitcache warm: a hit" grep -q 'jitcache: 1 hits, 0 misses' warm.err
check "... the same results" test "$(grep '^run=0 ' warm.out)" = "$(grep '^run=0 ' none.out)"
check "... PoCL compiled no work-group function ($(compiles warm.err))" test "$(compiles warm.err)" = 0
finish
