#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# Level Zero through the real loader (Debian 12's libze1): the program calls
# the loader's zeModuleCreate (door 1), and the loader calls the driver
# through the dispatch table it got with dlsym(driver, "zeGetModule-
# ProcAddrTable") (doors 2+3).  The compile must be looked up and stored once.
# Also with the loader's tracing layer on (ZE_ENABLE_TRACING_LAYER=1), the way
# Intel's own tools observe these calls.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/ze_common.bash"
need_ze
export JITCACHE_LOG=debug JITCACHE_LOCK_TIMEOUT=10
# Without build/lib on the library path, libze_loader.so.1 is the real one.
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH#$B/lib}
LOADER=$(ldconfig -p | awk '/libze_loader.so.1 / { print $NF; exit }')
if [ -z "$LOADER" ]; then
	check "Debian's Level Zero loader (libze1) is installed" false
	finish; exit $?
fi
check "the client resolves libze_loader.so.1 to the real loader" \
	sh -c "ldd '$CLIENT' | grep -q 'libze_loader.so.1 => $LOADER'"
check "SPIR-V built with ocloc" spirv reduce "$KERNELS/reduce.cl"

# The loader's own table is wrapped as well: each compile must be looked up
# by the outermost door the program enters by, once, and not again at the
# driver's table.

door loader zeModuleCreate "$CLIENT" link
door loader-dlsym "dlsym(zeModuleCreate)" "$DLOPEN" dlsym
door loader-table pfnCreate "$CLIENT" table
door loader-dlsym-table pfnCreate "$DLOPEN" dlsym-table
ZE_ENABLE_TRACING_LAYER=1 door tracing zeModuleCreate "$CLIENT" link
check "the tracing layer was loaded" \
	sh -c "ZE_ENABLE_TRACING_LAYER=1 LD_DEBUG=libs '$CLIENT' link '$T/reduce.spv' 2>&1 | grep -q 'libze_tracing_layer.so'"
finish
