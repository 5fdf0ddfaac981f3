#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# OpenCL builds that go wrong, or whose inputs hide in other files (PoCL):
#   - a syntax error: the driver's own error and log, remembered as a failure
#     record that the next process gets without compiling;
#   - a stored binary the driver rejects (CL_INVALID_BINARY): the entry is
#     dropped, the program is compiled, the results are right;
#   - #include'd headers (nested, through "-I dir" and "-Idir"): a changed
#     header is a miss, and the new build is used;
#   - an #include found nowhere: keyed by its name (the compiler's own, or
#     not compiled); through a macro: that build is not cached.
. "$(dirname "$0")/../lib.sh"
export POCL_KERNEL_CACHE=0 JITCACHE_LOG=info
CLB=$B/tests/cl_build TOOL=$B/tests/cl_cache_tool

need_pocl
result() { sed -n 's/.*result=\([0-9a-f]*\).*/\1/p' "$1"; }
build_rc() { sed -n 's/^build=\(-*[0-9]*\) .*/\1/p' "$1"; }
# PoCL's log names a random temporary file
log_of() { sed -n '/^log<</,/^>>log/p' "$1" | sed 's/tempfile_[A-Za-z0-9]*/tempfile_X/g'; }
cl() { $JITCACHE run -- "$CLB" --platform Portable "$@"; }

# --- a syntax error: remembered ------------------------------------------------
# The first build fails and is stored as a failure record (the error and the
# log); the next process gets the same error, build status, log and options
# without compiling, and a failed program's clCreateKernel error.
printf 'kernel void compute(global float *out, global const float *in, uint n)\n{ out[0] = in[0] }\n' >bad.cl
"$CLB" --platform Portable --source bad.cl --options "-DX=1" >bad.plain 2>&1
cl --source bad.cl --options "-DX=1" >bad.jc 2>bad.err
info() { grep '^status=' "$1"; } # build status, options, clCreateKernel's error
check "syntax error: CL_BUILD_PROGRAM_FAILURE (-11), as without jitcache" \
	test "$(build_rc bad.jc)" = -11 -a "$(build_rc bad.plain)" = -11
check "syntax error: the driver's own log" cmp <(log_of bad.plain) <(log_of bad.jc)
check "syntax error: the log says what is wrong" grep -q "expected ';'" bad.jc
check "syntax error: build status, options, kernel error as without jitcache" \
	cmp <(info bad.plain) <(info bad.jc)
check "syntax error: stored as a failure record" grep -q 'jitcache: 0 hits, 1 misses, 1 stores' bad.err
cl --source bad.cl --options "-DX=1" >bad.warm 2>bad.werr
check "failure record: a hit" grep -q 'jitcache: 1 hits, 0 misses, 0 stores' bad.werr
check "failure record: the same error" test "$(build_rc bad.warm)" = -11
check "failure record: the same log" cmp <(log_of bad.plain) <(log_of bad.warm)
check "failure record: build status, options, kernel error as without jitcache" \
	cmp <(info bad.plain) <(info bad.warm)
check "failure record: counted by jitcache stats" \
	sh -c "'$JITCACHE' stats -v | grep -q 'failed builds replayed *1'"
echo "     failed build: $(sed -n 's/.*seconds=\([0-9.]*\).*/\1/p' bad.plain) s without jitcache," \
	"$(sed -n 's/.*seconds=\([0-9.]*\).*/\1/p' bad.warm) s replayed"
cl --source bad.cl --options "-DX=1" --async >bad2.jc 2>&1
check "with pfn_notify: compiled, not replayed (same error)" \
	test "$(build_rc bad2.jc)" = -11 -a "$(entries)" -eq 1
rm -rf "$JITCACHE_DIR"

# --- the driver rejects a stored binary ------------------------------------
cat >k.cl <<'CL'
kernel void compute(global float *out, global const float *in, uint n)
{
	size_t i = get_global_id(0);
	if (i < n)
		out[i] = in[i] * in[i] - 3.0f * in[i];
}
CL
"$CLB" --platform Portable --source k.cl --run compute >k.plain 2>&1
cl --source k.cl --run compute >k.cold 2>&1
key=$(find "$JITCACHE_DIR" -mindepth 2 -maxdepth 2 -type f -regex '.*/[0-9a-f]*' -printf '%f\n' | head -n 1)
check "rejected binary: one entry to damage" test -n "$key" -a "$(entries)" -eq 1
check "rejected binary: stored binaries garbled through the cache API" "$TOOL" "$JITCACHE_DIR" garble "$key"
cl --source k.cl --run compute >k.rejected 2>&1
check "rejected binary: still builds" test "$(build_rc k.rejected)" = 0
check "rejected binary: results as without jitcache" test "$(result k.rejected)" = "$(result k.plain)"
check "rejected binary: one line says the driver rejected it" \
	grep -q "jitcache: the OpenCL driver rejected a cached binary (CL_INVALID_BINARY)" k.rejected
cl --source k.cl --run compute >k.again 2>&1
check "rejected binary: replaced by a good entry that hits" \
	grep -q 'jitcache: 1 hits, 0 misses, 0 stores' k.again
check "rejected binary: results still right" test "$(result k.again)" = "$(result k.plain)"
rm -rf "$JITCACHE_DIR"

# --- #include'd headers ---------------------------------------------------------
mkdir -p inc/sub other
cat >inc/outer.h <<'CL'
#include "sub/inner.h"
#define OUTER(x) ((x) + INNER)
CL
echo '#define INNER 1.0f' >inc/sub/inner.h
echo '#define SHIFT 0.5f' >other/shift.h
cat >inc.cl <<'CL'
#include "outer.h"
#include <shift.h>
kernel void compute(global float *out, global const float *in, uint n)
{
	size_t i = get_global_id(0);
	if (i < n)
		out[i] = OUTER(in[i]) * SHIFT;
}
CL
OPTS="-I inc -Iother"
"$CLB" --platform Portable --source inc.cl --options "$OPTS" --run compute >inc.plain 2>&1
cl --source inc.cl --options "$OPTS" --run compute >inc.cold 2>&1
cl --source inc.cl --options "$OPTS" --run compute >inc.warm 2>&1
check "includes: cold stored" grep -q 'jitcache: 0 hits, .* 1 stores' inc.cold
check "includes: warm hits" grep -q 'jitcache: 1 hits, 0 misses, 0 stores' inc.warm
check "includes: results as without jitcache" \
	test "$(result inc.warm)" = "$(result inc.plain)" -a -n "$(result inc.plain)"
echo '#define INNER 2.0f' >inc/sub/inner.h   # nested header, same size
cl --source inc.cl --options "$OPTS" --run compute >inc.changed 2>&1
check "includes: a changed nested header is a miss" grep -q 'jitcache: 0 hits, .* 1 stores' inc.changed
check "includes: and its build is the one used" test "$(result inc.changed)" != "$(result inc.warm)"
"$CLB" --platform Portable --source inc.cl --options "$OPTS" --run compute >inc.plain2 2>&1
check "includes: results as without jitcache after the change" \
	test "$(result inc.changed)" = "$(result inc.plain2)"
echo '#define SHIFT 0.25f' >other/shift.h    # header found through -Idir
cl --source inc.cl --options "$OPTS" --run compute >inc.changed2 2>&1
check "includes: a changed <header> from -Idir is a miss" grep -q 'jitcache: 0 hits, .* 1 stores' inc.changed2
check "includes: three entries by now" test "$(entries)" -eq 3

# --- includes found nowhere ----------------------------------------------------
# In a branch the compiler does not take (Random123's array.h includes
# <stddef.h> only #ifdef __cplusplus), or the compiler's own header: keyed
# by name, cached.  The file appearing later is a miss.
printf '#ifdef __cplusplus\n#include "nowhere.h"\n#include <cstddef>\n#endif\n' | cat - k.cl >lost.cl
JITCACHE_LOG=debug cl --source lost.cl --run compute >lost.out 2>&1
check "include found nowhere: the build works" test "$(build_rc lost.out)" = 0
check "include found nowhere: cached" test "$(entries)" -eq 4
check "include found nowhere: logged at debug level" \
	grep -q '#include "nowhere.h" not found where jitcache looks; keyed by its name' lost.out
JITCACHE_LOG=info cl --source lost.cl --run compute >lost.warm 2>&1
check "include found nowhere: a hit" grep -q 'jitcache: 1 hits, 0 misses, 0 stores' lost.warm
echo '#error never compiled' >nowhere.h
JITCACHE_LOG=info cl --source lost.cl --run compute >lost.appeared 2>&1
check "include found nowhere: the file appearing is a miss" \
	grep -q 'jitcache: 0 hits, 1 misses, 1 stores' lost.appeared
rm nowhere.h
# CPATH's directories are searched like -I ones (issue 44): another key.
CPATH=$T JITCACHE_LOG=info cl --source lost.cl --run compute >lost.cpath 2>&1
check "include found nowhere while CPATH is set: CPATH's directory keyed, a miss" \
	grep -q 'jitcache: 0 hits, 1 misses, 1 stores' lost.cpath
printf '#define HDR "inc/outer.h"\n#include HDR\n' | cat - k.cl >macro.cl
JITCACHE_LOG=debug cl --source macro.cl --run compute >macro.out 2>&1
check "include through a macro: the build works" test "$(build_rc macro.out)" = 0
check "include through a macro: not cached" test "$(entries)" -eq 6
finish
