#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# `make demo` installs only what the demo needs (issue 36: it installed the
# 24 packages of every test tier to run one Level Zero program): the
# library's own build dependencies, Intel's driver (with ocloc), the Level
# Zero and OpenCL loaders; it builds only the library and the demo's
# program, and the demo runs cold then warm.
. "$(dirname "$0")/../lib.sh"
DEPS=$ROOT/tests/install-deps.sh

sh "$DEPS" --list demo >"$T/demo.pkgs"
sh "$DEPS" --list >"$T/all.pkgs"
check "install-deps.sh demo: a short list ($(wc -l <"$T/demo.pkgs") of $(wc -l <"$T/all.pkgs") packages)" \
	test "$(wc -l <"$T/demo.pkgs")" -le 15
for p in intel-opencl-icd libze1 libzstd-dev libinih-dev libhiredis-dev libsodium-dev ocl-icd-opencl-dev; do
	check "install-deps.sh demo: $p" grep -qx "$p" "$T/demo.pkgs"
done
for p in redis-server nginx-light lintian debhelper debootstrap gnuplot-nox libdnnl-dev pocl-opencl-icd clang; do
	check "install-deps.sh demo: not $p (a test tier's)" sh -c "! grep -qx '$p' '$T/demo.pkgs'"
done
check "install-deps.sh: every demo package is also in the full list" \
	sh -c "sort '$T/demo.pkgs' >'$T/d' && sort '$T/all.pkgs' >'$T/a' && test -z \"\$(comm -23 '$T/d' '$T/a')\""
check "install-deps.sh: an unknown group is refused (exit 2)" sh -c "sh '$DEPS' nonsense; test \$? -eq 2"

# What `make demo` runs: the demo's packages, then only the library and the
# demo's program (no oneDNN example, no test program).
make -C "$ROOT" -n BUILD="$B" demo >"$T/make-n" 2>&1
check "make demo asks install-deps.sh for the demo group only" \
	grep -q 'install-deps.sh demo$' "$T/make-n"
check "make demo builds the library and examples/ze_module, not every example" \
	sh -c "grep -q 'all .*examples/ze_module' '$T/make-n' && ! grep -q 'onednn' '$T/make-n'"

# The demo itself, on the build under test: cold JIT, then a warm load.
if [ -x "$B/examples/ze_module" ] && [ -e "$B/lib/libze_loader.so.1" ] && command -v ocloc >/dev/null; then
	BUILD=$B "$ROOT/examples/demo.sh" >"$T/demo.out" 2>&1
	check "the demo runs (exit $?)" grep -q 'run 2 (warm cache) zeModuleCreate' "$T/demo.out"
	check "the demo: cold compiles and stores, warm hits" \
		sh -c "grep -q 'jitcache: 0 hits, 1 misses, 1 stores' '$T/demo.out' && grep -q 'jitcache: 1 hits, 0 misses' '$T/demo.out'"
else
	check "the demo's program is built ($B/examples/ze_module) and ocloc installed" false
fi
finish
