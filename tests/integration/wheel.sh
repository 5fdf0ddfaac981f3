#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: full: needs dist/'s wheel (make wheel), the test bed and .venv-sycl
# The Python wheel (`make wheel`: dist/jitcache_gpu-VERSION-py3-none-manylinux_*.whl)
# installed as pip users install it:
#   - its metadata names the distribution the Makefile's WHEEL_NAME (what
#     README.md and docs/install.md tell users to install: docs.sh);
#   - in a fresh venv: `jitcache` is the command, its library and tools come
#     from the package (nothing from the checkout), and a Level Zero program
#     (simulated Arc) and an OpenCL program (PoCL) cache cold -> warm;
#     `pip uninstall` leaves the venv as it was;
#   - the library needs nothing from the host but glibc (auditwheel's tag);
#   - inside the test bed (Python 3.14, glibc 2.43, Intel's 2026 driver);
#   - beside Intel's SYCL wheels, in the venv of `make sycl-env` with dpctl
#     and dpnp: the SYCL workload hits on its second run; uninstalled after;
#   - from a clean clone (git clone of this checkout's HEAD), as users and
#     distributions build it: `pip wheel .` makes the wheel `make wheel`
#     makes (the same files, tag and metadata), and `pip install .` in a
#     fresh venv gives a working `jitcache` whose man page `man` finds
#     through the venv's bin/ on PATH.  pip fetches the build requirements
#     (pyproject.toml) from PyPI.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/integration/ze_common.bash"
DIST=$(sed -n 's/^WHEEL_NAME *:= *//p' "$ROOT/Makefile")
VERSION=$(sed -n 's/^VERSION *:= *//p' "$ROOT/Makefile")
STEM=$(echo "$DIST" | sed 's/[-_.][-_.]*/_/g')
WHEEL=$(ls "$ROOT"/dist/"$STEM"-"$VERSION"-py3-none-manylinux_*_x86_64.whl 2>/dev/null | tail -n 1)
[ -n "$WHEEL" ] || { check "dist/ holds the wheel of $DIST $VERSION (make wheel)" false; finish; exit; }
unzip -p "$WHEEL" "$STEM-$VERSION.dist-info/METADATA" >"$T/METADATA" 2>/dev/null
check "the wheel's metadata: Name: $DIST (the Makefile's WHEEL_NAME), Version: $VERSION" \
	sh -c "grep -qx 'Name: $DIST' '$T/METADATA' && grep -qx 'Version: $VERSION' '$T/METADATA'"
check "the wheel's package and command are jitcache" \
	sh -c "unzip -p '$WHEEL' '$STEM-$VERSION.dist-info/entry_points.txt' | grep -qx 'jitcache = jitcache.cli:main'"
# What an index and pip show (issue 36: the licence was empty).
check "the wheel's metadata: License-Expression: MIT, and LICENSE among its licence files" \
	sh -c "grep -qx 'License-Expression: MIT' '$T/METADATA' && grep -qx 'License-File: LICENSE' '$T/METADATA' &&
	       unzip -l '$WHEEL' | grep -q ' $STEM-$VERSION.dist-info/licenses/LICENSE\$'"
for lib in libsodium hiredis zstd inih; do
	check "the wheel carries $lib's copyright file" \
		sh -c "grep -qx 'License-File: packaging/licenses/$lib.copyright' '$T/METADATA' &&
		       unzip -l '$WHEEL' | grep -q 'dist-info/licenses/packaging/licenses/$lib.copyright\$'"
done
HOMEPAGE=$(sed -n 's/^HOMEPAGE *:= *//p' "$ROOT/Makefile")
check "the wheel's metadata: a Summary, the Makefile's HOMEPAGE as its Homepage, classifiers" \
	sh -c "grep -q '^Summary: GPU kernel JIT compilation once per machine' '$T/METADATA' &&
	       grep -qx 'Project-URL: Homepage, $HOMEPAGE' '$T/METADATA' &&
	       grep -qx 'Classifier: Operating System :: POSIX :: Linux' '$T/METADATA' &&
	       test \$(grep -c '^Classifier: ' '$T/METADATA') -ge 5"
check "the man page is wheel data for the installing prefix (share/man/man1)" \
	sh -c "unzip -l '$WHEEL' | grep -q ' $STEM-$VERSION.data/data/share/man/man1/jitcache.1\$'"
# `make wheel` again (nothing to compile now): one line per step, each
# saying what it does and ending "done (N s)", the compile with one job per
# core, the last line the wheel built (issue 30: it was silent for minutes).
(cd "$ROOT" && make wheel) >"$T/make-wheel.out" 2>&1
check "make wheel: exit status 0" test $? -eq 0
check "make wheel: one line per step, 'wheel: WHAT ... done (N s)', then the wheel's path" \
	awk -v whl="dist/$STEM-$VERSION-py3-none-manylinux_" '
		{ last = $0; n++ }
		!/^wheel: [a-z].* \.\.\. done \([0-9]+ s\)$/ { other++; if (other > 1 || index($0, "wheel: built " whl) != 1) bad = 1 }
		END { exit !(n >= 3 && !bad && index(last, "wheel: built " whl) == 1) }' "$T/make-wheel.out"
check "make wheel: compiles with one job per core ($(nproc))" \
	grep -q "^wheel: compiling .*, $(nproc) jobs) \.\.\. done" "$T/make-wheel.out"
need_ze
unset JITCACHE_LIB JITCACHE_ADMIN # the installed command must find its own
check "SPIR-V built with ocloc" spirv reduce "$KERNELS/reduce.cl"
cp "$ROOT/tests/integration/compute.cl" "$T/k.cl"
CLB=$B/tests/cl_build

python3 -m venv "$T/venv" >"$T/venv.log" 2>&1
listing() { find "$1" -path '*/__pycache__' -prune -o -print | sort; }
listing "$T/venv" >"$T/before.txt"
"$T/venv/bin/pip" install -q --no-index "$WHEEL" >"$T/pip.log" 2>&1
check "pip installs the wheel into a fresh venv" test -x "$T/venv/bin/jitcache"
check "jitcache --version from the wheel" "$T/venv/bin/jitcache" --version
site=$("$T/venv/bin/python" -c 'import jitcache, os; print(os.path.dirname(jitcache.__file__))')
check "its library is the package's, needing only glibc beside its vendored libraries" \
	sh -c "ldd '$site/lib/libjitcache.so' | grep '=>' | grep -v -e '$STEM.libs/' -e 'libc.so' -e 'libm.so' -e 'ld-linux' -e 'libpthread' -e 'libdl' -e 'librt' | grep -q . && exit 1 || exit 0"
check "... and so is its core, beside it" \
	sh -c "ldd '$site/lib/libjitcache-core.so' | grep '=>' | grep -v -e '$STEM.libs/' -e 'libc.so' -e 'libm.so' -e 'ld-linux' -e 'libpthread' -e 'libdl' -e 'librt' | grep -q . && exit 1 || exit 0"
export JITCACHE_LOG=info
for r in cold warm; do
	JITCACHE_DIR=$T/c-ze "$T/venv/bin/jitcache" run -- "$CLIENT" link "$T/reduce.spv" >"$T/ze-$r.out" 2>&1
	JITCACHE_DIR=$T/c-cl POCL_KERNEL_CACHE=0 "$T/venv/bin/jitcache" run -- \
		"$CLB" --platform Portable --source "$T/k.cl" --options -DSCALE=2.0f >"$T/cl-$r.out" 2>&1
done
check "Level Zero: cold stores" grep -q '^jitcache: 0 hits, 1 misses, 1 stores' "$T/ze-cold.out"
check "Level Zero: warm hits" grep -q '^jitcache: 1 hits, 0 misses' "$T/ze-warm.out"
check "OpenCL (PoCL): cold stores" grep -q '^jitcache: 0 hits, 1 misses, 1 stores' "$T/cl-cold.out"
check "OpenCL (PoCL): warm hits" grep -q '^jitcache: 1 hits, 0 misses' "$T/cl-warm.out"
check "jitcache stats through the wheel's admin tool" \
	sh -c "JITCACHE_DIR='$T/c-ze' '$T/venv/bin/jitcache' stats | grep -Eq '^hits +1'"
"$T/venv/bin/pip" uninstall -q -y "$DIST" >>"$T/pip.log" 2>&1
# pip removes the files it installed, but not the empty directories above
# the man page (share/, share/man/): left out of the comparison.
listing "$T/venv" | grep -vx -e "$T/venv/share" -e "$T/venv/share/man" >"$T/after.txt"
check "pip uninstall leaves the venv as it was (but empty directories)" diff "$T/before.txt" "$T/after.txt"

# ---- from a clean clone: pip wheel . and pip install . ----------------------------------
git clone -q "$ROOT" "$T/clone" 2>"$T/clone.log"
check "a clean clone of this checkout's HEAD ($(git -C "$T/clone" rev-parse --short HEAD 2>/dev/null))" \
	test -f "$T/clone/pyproject.toml"
python3 -m venv "$T/venv2" >>"$T/venv.log" 2>&1
(cd "$T/clone" && "$T/venv2/bin/pip" wheel -q --no-deps -w "$T/pw" .) >"$T/pip-wheel.log" 2>&1
check "pip wheel . from the clean clone (log: pip-wheel.log)" sh -c "ls '$T'/pw/$STEM-$VERSION-py3-none-manylinux_*_x86_64.whl"
tail -n 5 "$T/pip-wheel.log"
PW=$(ls "$T"/pw/*.whl 2>/dev/null | head -n 1)
files() { unzip -Z1 "$1" | sed 's/-[0-9a-f]\{8\}\(\.so\)/-HASH\1/' | sort; }
[ -n "$PW" ] && files "$PW" >"$T/pw.files"
files "$WHEEL" >"$T/mw.files"
check "pip wheel . makes the wheel make wheel makes: the same name and files" \
	sh -c "test '${PW##*/}' = '${WHEEL##*/}' && diff '$T/mw.files' '$T/pw.files'"
(cd "$T/clone" && "$T/venv2/bin/pip" install -q .) >"$T/pip-install.log" 2>&1
check "pip install . from the clean clone into a fresh venv" test -x "$T/venv2/bin/jitcache"
check "its jitcache --version" sh -c "'$T/venv2/bin/jitcache' --version | grep -qx 'jitcache $VERSION'"
for r in cold warm; do
	JITCACHE_DIR=$T/c-clone "$T/venv2/bin/jitcache" run -- "$CLIENT" link "$T/reduce.spv" >"$T/clone-$r.out" 2>&1
done
check "its jitcache run: Level Zero cold stores (simulated Arc)" grep -q '^jitcache: 0 hits, 1 misses, 1 stores' "$T/clone-cold.out"
check "its jitcache run: warm hits" grep -q '^jitcache: 1 hits, 0 misses' "$T/clone-warm.out"
check "the man page is installed under the venv's prefix" test -s "$T/venv2/share/man/man1/jitcache.1"
# man-db maps each PATH entry's ../share/man into the search path.
check "man -w jitcache finds it with the venv's bin/ on PATH (MANPATH unset)" \
	sh -c "env -u MANPATH PATH='$T/venv2/bin:/usr/bin:/bin' man -w jitcache | grep -qx '$T/venv2/share/man/man1/jitcache.1'"
check "man -M with the venv's share/man renders jitcache(1)" \
	sh -c "MANWIDTH=80 man -M '$T/venv2/share/man' jitcache 2>/dev/null | grep -q 'jitcache run'"
check "the clean clone's tree has no file the build left behind (git status)" \
	test -z "$(git -C "$T/clone" status --porcelain --ignored=no)"

# ---- the test bed: Python 3.14, glibc 2.43, Intel's 2026 driver -------------------------
# The same host-built test client (its libze_loader.so.1 is the test bed's).
if "$ROOT/tests/testbed/run" true 2>/dev/null; then
	cat >"$T/sid.sh" <<SID
set -u
cd "$T"
python3 -m venv "$T/sid-venv" >/dev/null 2>&1 && "$T/sid-venv/bin/pip" install -q --no-index "$WHEEL" || exit 3
python3 --version; ldd --version | head -n 1
. "$ROOT/tests/lib.sh" >/dev/null 2>&1 || true
export NEOReadDebugKeys=1 SetCommandStreamReceiver=1 ProductFamilyOverride=dg2 UseAubStream=0 \\
	HardwareInfoOverride=1x4x16 UseExternalAllocatorForSshAndDsh=0 OverrideMaxWorkgroupSize=1024 \\
	NEO_CACHE_PERSISTENT=0 JITCACHE_LOG=info JITCACHE_DIR="$T/c-sid" JITCACHE_CONFIG=/dev/null
unset JITCACHE_LIB JITCACHE_ADMIN LD_LIBRARY_PATH
for r in cold warm; do "$T/sid-venv/bin/jitcache" run -- "$CLIENT" link "$T/reduce.spv" >"$T/sid-\$r.out" 2>&1; done
"$T/sid-venv/bin/pip" uninstall -q -y "$DIST"
SID
	"$ROOT/tests/testbed/run" bash "$T/sid.sh" >"$T/sid.out" 2>&1
	check "test bed: the wheel installs and runs ($(head -n 2 "$T/sid.out" | tr '\n' ' '))" \
		grep -q '^Python 3' "$T/sid.out"
	check "test bed: Level Zero cold stores" grep -q '^jitcache: 0 hits, 1 misses, 1 stores' "$T/sid-cold.out"
	check "test bed: Level Zero warm hits" grep -q '^jitcache: 1 hits, 0 misses' "$T/sid-warm.out"
else
	skip "no test bed (make testbed): the wheel is not tried there"
fi

# ---- beside Intel's SYCL wheels -----------------------------------------------------------
VENV=$ROOT/.venv-sycl
if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c 'import dpctl, dpnp' 2>/dev/null; then
	listing "$VENV" | grep -vx -e "$VENV/share" -e "$VENV/share/man" >"$T/sycl-before.txt"
	"$VENV/bin/pip" install -q --no-index "$WHEEL" >>"$T/pip.log" 2>&1
	check "beside dpctl and dpnp: pip installs the wheel into their venv" test -x "$VENV/bin/jitcache"
	for r in cold warm; do
		JITCACHE_DIR=$T/c-sycl "$VENV/bin/jitcache" run -- "$ROOT/examples/sycl/run.sh" opencl:cpu \
			--kernels 4 >"$T/sycl-$r.out" 2>&1
	done
	check "beside SYCL: the workload runs" grep -q '^time to last result' "$T/sycl-warm.out"
	check "beside SYCL: cold stores" grep -Eq '^jitcache: 0 hits, [1-9][0-9]* misses' "$T/sycl-cold.out"
	check "beside SYCL: warm hits, no miss" grep -Eq '^jitcache: [1-9][0-9]* hits, 0 misses' "$T/sycl-warm.out"
	"$VENV/bin/pip" uninstall -q -y "$DIST" >>"$T/pip.log" 2>&1
	# (the empty directories above the man page left out, as above)
	listing "$VENV" | grep -vx -e "$VENV/share" -e "$VENV/share/man" >"$T/sycl-after.txt"
	check "beside SYCL: uninstalled, their venv as it was (but empty directories)" \
		diff "$T/sycl-before.txt" "$T/sycl-after.txt"
	diff "$T/sycl-before.txt" "$T/sycl-after.txt" | head -n 5
else
	skip "no SYCL venv ($VENV: make sycl-env): the wheel is not tried beside it"
fi
finish
