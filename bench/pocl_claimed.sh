#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/pocl_claimed.sh ROOT APP: the CPU time jitcache's warm exit line
# says it avoided against what it saved (issue 46, item 4), PoCL's cache
# off, the program's own cache off.  ROOT: a jitcache tree with its build
# (bin/jitcache, build/); APP: tinygrad (bench/tinygrad_apps.py --small,
# TINYGRAD_PYTHON: its venv's python) or pyopencl (bench/pyopencl_apps.py).
# Runs it twice without jitcache, once cold and twice warm with it, and
# prints the CPU seconds (user + sys) of each and the warm exit lines'
# "(C s of CPU)": saved is none minus warm.
set -u
ROOT=$(cd "$1" && pwd) APP=$2
HERE=$(cd "$(dirname "$0")" && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1
export POCL_KERNEL_CACHE=0 POCL_CACHE_DIR=$W/pocl XDG_CACHE_HOME=$W/xdg JITCACHE_DIR=$W/jc \
	JITCACHE_LOG=info JITCACHE_BUILD=$ROOT/build
mkdir -p pocl
app() {
	case $APP in
	tinygrad) "$@" env CACHELEVEL=0 "${TINYGRAD_PYTHON:-$HERE/../.venv-tinygrad/bin/python}" \
		"$HERE/tinygrad_apps.py" --small ;;
	pyopencl) "$@" env PYOPENCL_NO_CACHE=1 /usr/bin/python3 "$HERE/pyopencl_apps.py" ;;
	*) echo "unknown app $APP" >&2; exit 2 ;;
	esac
}
TIMEFORMAT='%U %S'
cpu() { { time app "$@" >out 2>err; } 2>t; awk '{ print $1 + $2 }' t; }
claimed() { sed -n 's/.*compiling avoided: .*(\([0-9.]*\) s of CPU).*/\1/p' err; }
n1=$(cpu env) n2=$(cpu env)
c=$(cpu "$ROOT/bin/jitcache" run --)
w1=$(cpu "$ROOT/bin/jitcache" run --) cl1=$(claimed)
w2=$(cpu "$ROOT/bin/jitcache" run --) cl2=$(claimed)
echo "$APP none=$n1,$n2 cold=$c warm=$w1,$w2 claimed=$cl1,$cl2 (CPU s; load $(cut -d' ' -f1 /proc/loadavg))"
