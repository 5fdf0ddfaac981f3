#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# `jitcache warm` trusts recipes as entries are trusted, and a replay reads
# no file of this machine its recipe does not carry (docs/trust.md):
#   - with trusted_keys, a layer's recipe is replayed only if signed by one of
#     those keys, as `jitcache import` takes it: an unsigned one is neither
#     compiled nor signed here with the signing key (it used to be both);
#     without trusted_keys a layer is trusted as the cache directory is;
#   - a recipe whose source reaches a file it does not carry (an absolute
#     #include of a file of the user's) is skipped, never built: before, the
#     replay compiled the user's file into a binary that warm stored (and
#     signed, and exported);
#   - a layer's recipe carrying an included file by absolute path is not
#     replayed (it names another machine's files; reading this machine's for
#     it tells its author whether a file holds what he guessed); the user's
#     own recipes with absolute includes are still replayed where they are.
# On the simulated Arc (Level Zero and OpenCL, Debian 12's driver).
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/ze_common.bash"
need_ze
PUT=$B/tests/jc_recipe_put CLB=$B/tests/cl_build
for p in "$PUT" "$CLB"; do
	[ -x "$p" ] || { check "$p built (make tests)" false; finish; exit; }
done
unset JITCACHE_SIGNING_KEY JITCACHE_TRUSTED_KEYS JITCACHE_LAYERS JITCACHE_RECIPES
check "SPIR-V built with ocloc" spirv reduce "$KERNELS/reduce.cl"
"$JITCACHE" keygen "$T/ci.key" >/dev/null 2>&1
KEYS=(JITCACHE_SIGNING_KEY="$T/ci.key" JITCACHE_TRUSTED_KEYS="$T/ci.key.pub")
warm() { # NAME VAR=VALUE...: jitcache warm into $T/NAME, its output in NAME.out
	local name=$1; shift
	env JITCACHE_DIR="$T/$name" "$@" "$JITCACHE" warm >"$T/$name.out" 2>&1
}

# ---- a layer's recipes under trusted_keys -------------------------------------------
JITCACHE_DIR=$T/plain jc "$EXAMPLE" "$T/reduce.spv" >/dev/null 2>&1
JITCACHE_DIR=$T/signed JITCACHE_SIGNING_KEY=$T/ci.key jc "$EXAMPLE" "$T/reduce.spv" >/dev/null 2>&1
chmod -R go-w "$T/plain" "$T/signed"
check "recorded: a recipe in each layer" test "$(recipes "$T/plain")" -eq 1 -a "$(recipes "$T/signed")" -eq 1
warm w-plain "${KEYS[@]}" JITCACHE_LAYERS="$T/plain"
check "trusted keys, an unsigned recipe of a layer: not replayed" \
	sh -c "test $(entries "$T/w-plain") -eq 0 && ! grep -q ' compiled' '$T/w-plain.out'"
check "... said in one line" grep -q "^1 recipe of the layers not replayed: not signed by a trusted key" "$T/w-plain.out"
warm w-signed "${KEYS[@]}" JITCACHE_LAYERS="$T/signed"
check "trusted keys, a recipe signed by a trusted key: replayed" grep -q " 1 of 1 recipe in" "$T/w-signed.out"
warm w-nokeys JITCACHE_LAYERS="$T/plain"
check "no trusted keys: a layer's unsigned recipe is replayed (layers are trusted)" \
	grep -q " 1 of 1 recipe in" "$T/w-nokeys.out"
warm w-empty JITCACHE_TRUSTED_KEYS=: JITCACHE_LAYERS="$T/signed"
check "trusted keys ':' (naming no file): not even a signed recipe is replayed" \
	sh -c "test $(entries "$T/w-empty") -eq 0 && grep -q 'not signed by a trusted key' '$T/w-empty.out'"

# ---- a replay reads only what its recipe carries ------------------------------------
mkdir -p "$T/home"
printf '#define SECRET 0x5ec12e7\n' >"$T/home/secret.h"
cat >"$T/oracle.cl" <<CL
#include "$T/home/secret.h"
kernel void leak(global int *out) { out[0] = SECRET; }
CL
"$PUT" "$T/oracle" "$T/oracle.cl" "" 0x8086 any
check "a planted recipe including a file of the user's it does not carry" test "$(recipes "$T/oracle")" -eq 1
warm oracle
check "... is skipped, never built" grep -q " 0 compiled.* 1 skipped" "$T/oracle.out"
check "... nothing stored (the recipe alone)" test "$(entries "$T/oracle")" -eq 1
cat >"$T/opt.cl" <<'CL'
#include "secret.h"
kernel void leak(global int *out) { out[0] = SECRET; }
CL
"$PUT" "$T/optdir" "$T/opt.cl" "-I $T/home" 0x8086 any
warm optdir
check "one that reaches it through -I DIR: skipped too" \
	sh -c "grep -q ' 0 compiled.* 1 skipped' '$T/optdir.out' && test $(entries "$T/optdir") -eq 1"
"$PUT" "$T/carries" "$T/opt.cl" "" 0x8086 any "secret.h=$T/home/secret.h"
warm carries
check "the same source carrying its include (relative): replayed and built" \
	sh -c "grep -q ' 1 compiled' '$T/carries.out' && test $(entries "$T/carries") -eq 3"

# ---- absolute includes: the user's own recipes, a layer's -----------------------------
mkdir -p "$T/proj/include" "$T/proj/src"
printf '#define SCALE 3\n' >"$T/proj/include/scale.h"
cat >"$T/proj/src/k.cl" <<'CL'
#include "scale.h"
kernel void scale(global int *x) { x[get_global_id(0)] *= SCALE; }
CL
(cd "$T/proj/src" && JITCACHE_DIR=$T/own jc "$CLB" --platform Intel --source k.cl \
	--options "-I $T/proj/include" >"$T/own-rec.out" 2>&1)
check "recorded with -I of an absolute directory: one recipe" test "$(recipes "$T/own")" -eq 1
# The recipe alone (as after a driver upgrade: the old entry serves nothing).
cp -a "$T/own" "$T/own2" && find "$T/own2" -type f ! -name stats ! -name locks |
	while read -r f; do [ $(( $(od -An -tu1 -j12 -N1 "$f") & 2 )) -ne 0 ] || rm "$f"; done
cp -a "$T/own2" "$T/ownlayer" && chmod -R go-w "$T/ownlayer"
warm own2
check "the user's own recipe with an absolute include: replayed where it is" grep -q " 1 compiled" "$T/own2.out"
warm from-layer JITCACHE_LAYERS="$T/ownlayer"
check "the same recipe from a layer: not replayed (it names files of another machine)" \
	sh -c "test $(entries "$T/from-layer") -eq 0 &&
	       grep -q '^1 recipe of the layers not replayed: they include files by absolute path' '$T/from-layer.out'"
finish
