#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/idle.sh — what jitcache costs a process that never compiles (issue
# 37: "idle is free", at most 50 us of CPU beyond an empty preloaded library).
#
#   BUILD=build bash bench/idle.sh [OUTDIR]     (make bench-idle; make bench)
#
# Three workloads, each run under an empty preloaded library (built here:
# one empty function) and under libjitcache.so, alternating run by run so
# that the machine's drift hits both alike:
#   true    /bin/true                         (IDLE_N runs each, 300)
#   python  python3 -c pass                   (IDLE_N / 5 runs each)
#   loop    sh -c: 200 x /bin/true, the preload inherited by all 201
#           processes                         (IDLE_N / 30 runs each)
#   calls   a program making 20000 access() and 20000 rename() calls
#           (both failing, as a program probing for files does): the C
#           library's calls of a process that never compiles must be the
#           C library's, not a wrapper's  (IDLE_N / 10 runs each)
# CPU time is the kernel's accounting of each child and its children
# (wait4's rusage, i.e. getrusage(RUSAGE_CHILDREN) per run: user + system),
# and the minor page faults beside it.  Reported per process: medians for
# each library, and the median of the paired differences (jitcache minus
# empty, run by run) with its interquartile range.  IDLE_EXTRA="NAME=LIB..."
# adds more libraries to the rotation (e.g. an older build's, for a
# before/after in one run).
#
# Where the rest goes, for /bin/true: the dynamic loader's own figures
# (LD_DEBUG=statistics: its total time and relocation time in cycles, the
# number of relocations), the library's sizes (text, data, bss; its own
# relocations, RELATIVE and JUMP_SLOT, and constructors; exported symbols),
# the pages it maps and of those the ones a process touched (Rss in
# /proc/self/smaps of `cat`), and the page faults.  libjitcache.so is the
# small preloaded library (shim/preload.h); its core,
# libjitcache-core.so.N beside it, is loaded only by the first intercepted
# call, which none of these workloads makes: its sizes are shown too.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) B=$BUILD ;; *) B=$ROOT/$BUILD ;; esac
OUT=${1:-$B/bench/idle}
mkdir -p "$OUT"
LIB=$B/libjitcache.so
[ -r "$LIB" ] || { echo "bench/idle.sh: $LIB not built (make)" >&2; exit 1; }

# No cache, settings or remote of the caller's: nothing may be read anyway.
work=$(mktemp -d "${TMPDIR:-/tmp}/jitcache-idle.XXXXXX")
trap 'rm -rf "$work"' EXIT
unset $(sed -n 's/.*"\(JITCACHE_[A-Z_]*\)",.*/\1/p' "$ROOT/config/settings.h")
export JITCACHE_DIR=$work/cache JITCACHE_CONFIG=/dev/null

echo 'void jitcache_idle_empty(void) {}' >"$work/empty.c"
cc -shared -fPIC -O2 -o "$work/empty.so" "$work/empty.c" ||
	{ echo "bench/idle.sh: cannot build the empty library" >&2; exit 1; }
cat >"$work/calls.c" <<'C'
#include <stdio.h>
#include <unistd.h>
int main(void)
{
	for (int i = 0; i < 20000; i++) {
		access("/nonexistent-jitcache-idle/a", F_OK);
		rename("/nonexistent-jitcache-idle/a", "/nonexistent-jitcache-idle/b");
	}
	return 0;
}
C
cc -O2 -o "$work/calls" "$work/calls.c" ||
	{ echo "bench/idle.sh: cannot build the calls program" >&2; exit 1; }

libs=("empty=$work/empty.so" "jitcache=$LIB")
for extra in ${IDLE_EXTRA:-}; do libs+=("$extra"); done

CORE=$(ls "$B"/libjitcache-core.so 2>/dev/null)
python3 - "$OUT" "${IDLE_N:-300}" "$CORE" "$work/calls" "${libs[@]}" <<'PY'
import os, statistics, subprocess, sys

out, n, core, calls = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
libs = [a.split("=", 1) for a in sys.argv[5:]]
loop = "i=0; while [ $i -lt 200 ]; do /bin/true; i=$((i+1)); done"
workloads = [("true", ["/bin/true"], n, 1),
             ("python", ["python3", "-c", "pass"], max(n // 5, 5), 1),
             ("loop", ["sh", "-c", loop], max(n // 30, 3), 201),
             ("calls", [calls], max(n // 10, 5), 1)]

def one(argv, lib):
    # posix_spawn (vfork): the child does not start as a copy of this
    # Python, whose tearing down would be counted as the child's time.
    env = dict(os.environ, LD_PRELOAD=lib)
    pid = os.posix_spawnp(argv[0], argv, env)
    _, status, ru = os.wait4(pid, 0)
    if status != 0:
        sys.exit("bench/idle.sh: %s failed under %s" % (argv, lib))
    return (ru.ru_utime + ru.ru_stime) * 1e6, ru.ru_minflt

def q(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * len(v)))]

rows = []
for name, argv, runs, procs in workloads:
    cpu = {k: [] for k, _ in libs}
    flt = {k: [] for k, _ in libs}
    for r in range(runs):
        order = libs[r % len(libs):] + libs[:r % len(libs)]
        for k, path in order:
            c, f = one(argv, path)
            cpu[k].append(c / procs)
            flt[k].append(f / procs)
    base = libs[0][0]
    for k, _ in libs:
        diff = [a - b for a, b in zip(cpu[k], cpu[base])]
        fd = [a - b for a, b in zip(flt[k], flt[base])]
        rows.append((name, runs, procs, k, statistics.median(cpu[k]),
                     statistics.median(diff), q(diff, 0.25), q(diff, 0.75),
                     statistics.median(flt[k]), statistics.median(fd)))

lines = ["| workload | runs x processes | library | CPU us per process (median) | "
         "minus empty: median [IQR] us | minor faults per process | minus empty |",
         "|---|---|---|---|---|---|---|"]
for name, runs, procs, k, c, d, lo, hi, f, fd in rows:
    lines.append("| %s | %d x %d | %s | %.0f | %+.0f [%+.0f, %+.0f] | %.1f | %+.1f |"
                 % (name, runs, procs, k, c, d, lo, hi, f, fd))

# The loader's figures and the library's sizes, for /bin/true.
def ld_stats(lib):
    vals = {"total": [], "reloc": [], "nrel": [], "nrelative": []}
    for _ in range(21):
        p = subprocess.run(["/bin/true"], env=dict(os.environ, LD_PRELOAD=lib,
                           LD_DEBUG="statistics"), stderr=subprocess.PIPE, text=True)
        for line in p.stderr.splitlines():
            t = line.split(":", 1)[-1].strip()
            if t.startswith("total startup time in dynamic loader:"):
                vals["total"].append(int(t.split(":")[1].split()[0]))
            elif t.startswith("time needed for relocation:"):
                vals["reloc"].append(int(t.split(":")[1].split()[0]))
            elif t.startswith("number of relocations:"):
                vals["nrel"].append(int(t.split(":")[1]))
            elif t.startswith("number of relative relocations:"):
                vals["nrelative"].append(int(t.split(":")[1]))
    return {k: statistics.median(v) if v else 0 for k, v in vals.items()}

def sizes(lib):
    s = subprocess.run(["size", lib], stdout=subprocess.PIPE, text=True).stdout.split("\n")[1].split()
    rel = subprocess.run(["readelf", "-W", "--dyn-syms", lib], stdout=subprocess.PIPE, text=True).stdout
    exported = sum(1 for l in rel.splitlines() if " GLOBAL " in l and " UND " not in l)
    r = subprocess.run(["readelf", "-W", "-r", lib], stdout=subprocess.PIPE, text=True).stdout
    relative = sum(1 for l in r.splitlines() if "R_X86_64_RELATIVE" in l)
    slots = sum(1 for l in r.splitlines() if "R_X86_64_JUMP_SLOT" in l)
    d = subprocess.run(["readelf", "-W", "-d", lib], stdout=subprocess.PIPE, text=True).stdout
    init = sum(int(l.split()[-2]) // 8 for l in d.splitlines() if "(INIT_ARRAYSZ)" in l)
    return (int(s[0]), int(s[1]), int(s[2]), os.path.getsize(lib), exported,
            "%d+%d" % (relative, slots), init)

def pages(lib):
    """Pages of lib that `cat` maps, and of those it touched (Rss)."""
    p = subprocess.run(["cat", "/proc/self/smaps"], env=dict(os.environ, LD_PRELOAD=lib),
                       stdout=subprocess.PIPE, text=True).stdout
    real = os.path.realpath(lib)
    mapped = rss = 0
    mine = False
    for line in p.splitlines():
        f = line.split()
        if "-" in f[0] and len(f) >= 5 and ":" in f[3]:  # a mapping's header
            mine = len(f) >= 6 and os.path.realpath(f[5]) == real
            if mine:
                a, b = (int(x, 16) for x in f[0].split("-"))
                mapped += (b - a) // 4096
        elif mine and f[0] == "Rss:":
            rss += int(f[1]) // 4
    return mapped, rss

lines += ["", "| library | loader total (cycles) | relocation (cycles) | relocations "
          "(relative) | text | data | bss | file bytes | exported symbols | own relocations "
          "(RELATIVE+JUMP_SLOT) | constructors | pages mapped | pages touched (Rss) |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
for k, path in libs:
    st, sz = ld_stats(path), sizes(path)
    mp = pages(path)
    lines.append("| %s | %d | %d | %d (%d) | %d | %d | %d | %d | %d | %s | %d | %d | %d |"
                 % (k, st["total"], st["reloc"], st["nrel"], st["nrelative"], *sz, *mp))
if core:  # not loaded by an idle process: its sizes only
    lines.append("| jitcache's core (loaded on the first intercepted call) | - | - | - | "
                 "%d | %d | %d | %d | %d | %s | %d | - | - |" % sizes(core))

text = "\n".join(lines) + "\n"
open(os.path.join(out, "idle.md"), "w").write(text)
print(text, end="")
PY
