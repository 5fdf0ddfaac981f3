#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# The key of an OpenCL source build covers every file the driver's include
# search could read (issue 44 items 1-3), proved the differential way: on
# PoCL, where kernels run, each case builds a kernel whose value comes from
# a header, without and with jitcache, then edits the header (or makes it
# appear) and builds again both ways: what the kernel computes must be the
# same with jitcache as without, every time.  Before, each of these served
# the first build's code after the edit.  Cases: the include search order
# (./x.h before an -I directory's, quoted and angled, nested, through
# -DINC=<x.h>), the include forms a line scanner skips (comments around
# the #, a backslash-newline, a form feed, CR line ends, %:include,
# #include_next), __has_include, -I q'x (PoCL keeps the quote), INC
# redefined by the source after a comment or across a backslash-newline.
# Then the include order on Intel's driver (simulated Arc), told apart by
# the #warning each header makes in the build log.
. "$(dirname "$0")/../lib.sh"
export POCL_KERNEL_CACHE=0
CLB=$B/tests/cl_build
result() { sed -n 's/.*result=\([0-9a-f]*\).*/\1/p' "$1"; }

need_pocl

KERNEL='kernel void k(global float *o, global const float *in, uint n) { o[get_global_id(0)] = VAL; }'
n=0
# differ NAME OPTIONS EDIT...: in a fresh directory set up by the caller
# (k.cl and its headers), build without and with jitcache; run EDIT (a
# command); build both ways again.  Each pair must compute the same, and
# the edit must change what the kernel computes (else the case proves
# nothing).
differ() {
	local name=$1 opts=$2 i
	shift 2
	n=$((n + 1))
	for i in 1 2; do
		"$CLB" --platform Portable --source k.cl --options "$opts" --run k >plain$i.out 2>&1
		$JITCACHE run -- "$CLB" --platform Portable --source k.cl --options "$opts" --run k \
			>jc$i.out 2>jc$i.err
		[ "$i" = 1 ] && "$@"
	done
	check "$name: builds and runs" grep -q '^run=0 ' plain2.out
	check "$name: the edit changes what the kernel computes" \
		test "$(result plain1.out)" != "$(result plain2.out)"
	check "$name: before the edit, the same result with jitcache" \
		test "$(result jc1.out)" = "$(result plain1.out)"
	check "$name: after the edit, the same result with jitcache (no stale hit)" \
		test "$(result jc2.out)" = "$(result plain2.out)"
}
# fresh NAME: an empty directory for a case, made current.
fresh() { mkdir -p "$T/$1" && cd "$T/$1" || exit 1; }
val() { printf '#define VAL %s\n' "$2" >"$1"; }

# --- item 1: the search order ----------------------------------------------
fresh quoted
mkdir d && val d/x.h 1 && val x.h 2
printf '#include "x.h"\n%s\n' "$KERNEL" >k.cl
differ '#include "x.h" with ./x.h and -I d/x.h' "-I d" val x.h 3

fresh angled
mkdir d && val d/x.h 1 && val x.h 2
printf '#include <x.h>\n%s\n' "$KERNEL" >k.cl
differ '#include <x.h> with ./x.h and -I d/x.h (PoCL)' "-I d" val x.h 3

fresh nested
mkdir d && printf '#include <y.h>\n' >d/top.h && val d/y.h 1 && val y.h 2
printf '#include "top.h"\n%s\n' "$KERNEL" >k.cl
differ 'a nested #include <y.h> with ./y.h and d/y.h' "-I d" val y.h 3

fresh macro
mkdir d && val d/x.h 1 && val x.h 2
printf '#include INC\n%s\n' "$KERNEL" >k.cl
differ '-DINC=<x.h> with ./x.h and -I d/x.h' "-I d -DINC=<x.h>" val x.h 3

# --- item 2: the forms of a directive ----------------------------------------
form=0
for src in '/* c */ #include "f.h"\n' '# /* c */ include "f.h"\n' '#inc\\\nlude "f.h"\n' \
	'\f#include "f.h"\n' 'typedef int t;\r#include "f.h"\r' '%%:include "f.h"\n' \
	'#include_next "f.h"\n'; do
	form=$((form + 1))
	fresh form$form
	val f.h 1
	{ printf "$src"; printf '%s\n' "$KERNEL"; } >k.cl
	differ "form $form: $(printf "$src" | head -c 24 | tr '\r\n\f' '   ')" "" val f.h 2
done

# --- item 3: inputs the key never saw -----------------------------------------
fresh has_include
printf '#if __has_include("h.h")\n#define VAL 2\n#else\n#define VAL 1\n#endif\n%s\n' "$KERNEL" >k.cl
differ '#if __has_include("h.h"), h.h appearing' "" val h.h 5

fresh quote_dir
mkdir "q'x" && val "q'x/qh.h" 1
printf '#include <qh.h>\n%s\n' "$KERNEL" >k.cl
differ "-I q'x (PoCL takes the quote literally)" "-I q'x" val "q'x/qh.h" 2

fresh comment_define
val x.h 1 && val y.h 2
printf '/* c */ #define INC "y.h"\n#include INC\n%s\n' "$KERNEL" >k.cl
differ 'INC redefined after a comment' '-DINC=<x.h>' val y.h 3

fresh splice_define
val x.h 1 && val y.h 2
printf '#def\\\nine INC "y.h"\n#include INC\n%s\n' "$KERNEL" >k.cl
differ 'INC redefined across a backslash-newline' '-DINC=<x.h>' val y.h 3
check "$n cases on PoCL" test "$n" -eq 15

# --- the include order on Intel's driver (simulated) -------------------------
cd "$T" || exit 1
sim_dg2
export JITCACHE_DIR=$T/cache-intel
if ! clinfo -l 2>/dev/null | grep -q "Intel(R) OpenCL"; then
	skip "Intel's OpenCL driver does not show a simulated GPU (intel-opencl-icd)"
	finish; exit
fi
fresh intel
mkdir d
printf '#warning header-in-d\n#define VAL 1\n' >d/x.h
printf '#warning header-in-cwd-2\n#define VAL 2\n' >x.h
printf '#include "x.h"\n%s\n' "$KERNEL" >k.cl
warned() { sed -n 's/.*#warning \(header-[a-z0-9-]*\).*/\1/p; s/.*warning: \(header-[a-z0-9-]*\).*/\1/p' "$1" | head -n 1; }
"$CLB" --platform Intel --source k.cl --options "-I d" >plain1.out 2>&1
$JITCACHE run -- "$CLB" --platform Intel --source k.cl --options "-I d" >jc1.out 2>jc1.err
printf '#warning header-in-cwd-3\n#define VAL 3\n' >x.h
"$CLB" --platform Intel --source k.cl --options "-I d" >plain2.out 2>&1
$JITCACHE run -- "$CLB" --platform Intel --source k.cl --options "-I d" >jc2.out 2>jc2.err
check "Intel: the driver compiles ./x.h, not -I d's ($(warned plain1.out))" \
	test "$(warned plain1.out)" = header-in-cwd-2
check "Intel: after ./x.h is edited, the driver compiles the new one ($(warned plain2.out))" \
	test "$(warned plain2.out)" = header-in-cwd-3
check "Intel: with jitcache, the first build's log as without ($(warned jc1.out))" \
	test "$(warned jc1.out)" = header-in-cwd-2
check "Intel: with jitcache after the edit, a new entry, not the old one ($(warned jc2.out))" \
	test "$(warned jc2.out)" = header-in-cwd-3
check "Intel: two entries, one per ./x.h" test "$(entries)" -eq 2
finish
