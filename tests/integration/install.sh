#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# `make install` and `make uninstall` (packaging/files.list, the one list the
# wheel reads too): into a prefix of the test's own, the installed command
# finds the installed library and tools, caches an OpenCL program (PoCL)
# cold -> warm and shows its man page; the wheel holds the same files;
# uninstall leaves nothing behind.
. "$(dirname "$0")/../lib.sh"
P=$T/prefix
make -s -C "$ROOT" BUILD="$B" PREFIX="$P" install >"$T/install.log" 2>&1
check "make install into a prefix" test $? -eq 0
listed=$(grep -v '^#' "$ROOT/packaging/files.list" | grep -c .)
check "every file of packaging/files.list installed ($listed)" \
	sh -c "test -x '$P/bin/jitcache' -a -x '$P/libexec/jitcache/jitcache-admin' -a \
		-x '$P/libexec/jitcache/jitcache-replay' -a -s '$P/share/man/man1/jitcache.1' -a \
		-e '$P/lib/libjitcache.so.1.0.0' -a -L '$P/lib/libjitcache.so.1' -a -L '$P/lib/libjitcache.so' -a \
		-e '$P/lib/libjitcache-core.so.1.0.0' -a -L '$P/lib/libjitcache-core.so.1'"
unset JITCACHE_LIB JITCACHE_ADMIN
check "the installed command runs its own admin tool" "$P/bin/jitcache" --version
if clinfo -l 2>/dev/null | grep -q "Portable Computing Language"; then
	cp "$ROOT/tests/integration/compute.cl" "$T/k.cl"
	for r in cold warm; do
		JITCACHE_LOG=info POCL_KERNEL_CACHE=0 "$P/bin/jitcache" run -- "$B/tests/cl_build" \
			--platform Portable --source "$T/k.cl" --options -DSCALE=3.0f >"$T/$r.out" 2>&1
	done
	check "installed: cold stores, warm hits (the installed library)" \
		sh -c "grep -q '^jitcache: 0 hits, 1 misses, 1 stores' '$T/cold.out' && grep -q '^jitcache: 1 hits, 0 misses' '$T/warm.out'"
else
	skip "PoCL is not installed: the installed library is not run"
fi
check "installed: its man page renders" sh -c "MANWIDTH=80 man -l '$P/share/man/man1/jitcache.1' | grep -q 'JITCACHE_DIR='"
WHEEL=$(ls "$ROOT"/dist/"$(sed -n 's/^WHEEL_NAME *:= *//p' "$ROOT/Makefile" | tr -- '-.' '__')"-*-py3-none-manylinux_*_x86_64.whl \
	2>/dev/null | tail -n 1)
if [ -n "$WHEEL" ]; then
	names=$(grep -v '^#' "$ROOT/packaging/files.list" | awk 'NF { print $3 }' | sort)
	inwheel=$(unzip -Z1 "$WHEEL" | grep -E '^jitcache/(lib|libexec|bin|share/man/man1)/[^/]+$' | sed 's|.*/||' | sort)
	check "the wheel holds the same files" test "$names" = "$inwheel"
fi
make -s -C "$ROOT" BUILD="$B" PREFIX="$P" uninstall >>"$T/install.log" 2>&1
check "make uninstall leaves no file behind" test -z "$(find "$P" -type f -o -type l)"
finish
