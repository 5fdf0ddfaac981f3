#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/modern_sycl_report.py OUTDIR — turns OUTDIR/modern_sycl.txt (written by
bench/modern_sycl.sh) into
  OUTDIR/modern_sycl_table.md  the summary table's SYCL / oneDNN rows on Intel's
                               2026 driver (bench/report.py puts it in
                               bench/results.md; the README copies it);
  OUTDIR/modern_sycl_goals.txt "goal<TAB>yes|no<TAB>measured" lines;
  OUTDIR/modern_sycl.md        every way's figures (median, min-max, n), the
                               jitcache counts and the disk used.
Prints all three.  Exit status 1 when there are no figures.

Warm ways are compared within each repetition (bench/modern_sycl.sh
interleaves them): "jitcache - NEO" and "both - the faster of the two
alone" are medians of those paired differences."""
import collections
import statistics
import sys

out = sys.argv[1]
runs = collections.defaultdict(list)  # (wl, kind) -> [(rep, main, part, cpu)]
pkg, disk, counts = {}, {}, {}
kernels = "?"
try:
    lines = open(out + "/modern_sycl.txt").read().split("\n")
except OSError:
    sys.exit("modern_sycl_report: no %s/modern_sycl.txt" % out)
for line in lines:
    f = line.split()
    if len(f) >= 5 and f[0] == "msycl":
        try:
            runs[(f[1], f[2])].append((f[3], float(f[4]), float(f[5]) if len(f) > 5 else None,
                                       float(f[6]) if len(f) > 6 else None))
        except ValueError:
            pass
    elif len(f) == 3 and f[0] == "msycl_pkg":
        pkg[f[1]] = f[2]
    elif len(f) == 4 and f[0] == "msycl_disk":
        disk[(f[1], f[2])] = int(f[3])
    elif len(f) >= 6 and f[0] == "msycl_count":
        counts[(f[1], f[2])] = " / ".join(f[3:6])
    elif len(f) == 2 and f[0] == "msycl_kernels":
        kernels = f[1]


def values(wl, kind, i):
    return [r[i] for r in runs.get((wl, kind), []) if r[i] is not None]


def med(wl, kind, i=1):
    v = values(wl, kind, i)
    return statistics.median(v) if v else None


def t(s):
    if s is None:
        return "—"
    return "%.2f s" % s if s >= 1 else "%.1f ms" % (s * 1e3) if s < 0.1 else "%.0f ms" % (s * 1e3)


def spread(wl, kind, i=1):
    v = values(wl, kind, i)
    if not v:
        return "—"
    return "%s (%s–%s, n=%d)" % (t(statistics.median(v)), t(min(v)), t(max(v)), len(v))


def paired(wl, i, a, bs):
    """Median over repetitions of a - min(b for b in bs), each from one repetition."""
    by_rep = collections.defaultdict(dict)
    for kind in [a] + bs:
        for r in runs.get((wl, kind), []):
            if r[i] is not None:
                by_rep[r[0]][kind] = r[i]
    d = [v[a] - min(v[b] for b in bs) for v in by_rep.values() if all(k in v for k in [a] + bs)]
    return statistics.median(d) if d else None


def mb(n):
    return "%.1f MB" % (n / 1e6) if n is not None else "?"


driver = "NEO %s, IGC %s, loader %s" % (pkg.get("intel-opencl-icd", "?").split("-")[0],
                                        pkg.get("libigc2", "?").split("-")[0],
                                        pkg.get("libze1", "?").split("-")[0])
rows = [  # (workload, figure index, label)
    ("sycl", 1, "SYCL %s Level Zero, dpctl program (%s kernels) + 13 dpnp ops: last result"
     % (pkg.get("intel-sycl-rt", "?"), kernels)),
    ("onednn", 1, "oneDNN %s SYCL on Level Zero: creating 12 primitives" % pkg.get("onednn", "?")),
    ("onednn", 2, "oneDNN: of which its 2 OpenCL C primitives (softmax, layer norm)"),
]
table, goals = [], []
table.append("| SYCL and oneDNN on Level Zero, Intel's 2026 driver (%s), simulated Arc (DG2) "
             "| cold (all caches off) | jitcache cold (storing) | NEO's cache warm | jitcache warm "
             "| both warm | SYCL's cache warm (+ jitcache) | jitcache / NEO "
             "| both − faster alone, paired | disk: NEO, jitcache |" % driver)
table.append("|---|---|---|---|---|---|---|---|---|---|")
for wl, i, label in rows:
    if (wl, "cold") not in runs:
        continue
    neo, jc, both = med(wl, "neo", i), med(wl, "jc", i), med(wl, "both", i)
    d_jc = paired(wl, i, "jc", ["neo"])
    d_both = paired(wl, i, "both", ["neo", "jc"])
    sycl = ("%s (%s)" % (t(med(wl, "sycl", i)), t(med(wl, "sycl_jc", i)))
            if (wl, "sycl") in runs else "—")
    table.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s, %s |"
                 % (label, t(med(wl, "cold", i)), t(med(wl, "jc_fill", i)), t(neo), t(jc),
                    t(both), sycl, "%.2fx" % (jc / neo) if jc and neo else "—",
                    "%+.1f ms" % (d_both * 1e3) if d_both is not None else "—",
                    mb(disk.get((wl, "neo"))), mb(disk.get((wl, "jc")))))
    name = "2026 driver, " + ("SYCL Level Zero" if wl == "sycl" else
                              "oneDNN SYCL" + (" OpenCL C primitives" if i == 2 else ""))
    # The process's CPU time, paired the same way (whole process, so one
    # figure per workload).
    cpu_jc = paired(wl, 3, "jc", ["neo"]) if i == 1 else None
    cpu_both = paired(wl, 3, "both", ["neo", "jc"]) if i == 1 else None
    if d_jc is not None:
        goals.append(("%s: jitcache warm no slower than NEO's cache warm" % name, d_jc <= 0,
                      "jitcache − NEO paired: median %+.1f ms; medians: jitcache %s, NEO %s%s"
                      % (d_jc * 1e3, t(jc), t(neo), "; process CPU time, paired: %+.0f ms"
                         % (cpu_jc * 1e3) if cpu_jc is not None else "")))
    if d_both is not None:
        goals.append(("%s: both caches on cost nothing over the faster one alone" % name,
                      d_both <= 0, "both − min(jitcache, NEO) paired: median %+.1f ms; medians: "
                      "both %s%s" % (d_both * 1e3, t(both), "; process CPU time, paired: %+.0f ms"
                                     % (cpu_both * 1e3) if cpu_both is not None else "")))
if len(table) == 2:
    sys.exit("modern_sycl_report: no figures in %s/modern_sycl.txt" % out)

section = []
label = {"cold": "cold, no cache", "neo_fill": "NEO's cache cold (storing)",
         "jc_fill": "jitcache cold (storing)", "both_fill": "both cold (storing)",
         "sycl_fill": "SYCL's cache cold (storing)",
         "sycl_jc_fill": "SYCL's cache + jitcache cold (storing)",
         "neo": "NEO's cache warm, alone", "jc": "jitcache warm, alone",
         "both": "NEO's cache + jitcache warm", "sycl": "SYCL's cache warm, alone",
         "sycl_jc": "SYCL's cache + jitcache warm"}
for wl, what, second in (
        ("sycl", "time to last result (queue creation to the last dpnp result; Python start and "
         "imports not included), and dpctl's create_program_from_spirv", "program build"),
        ("onednn", "the 12 primitives' creation time, and that of the 2 primitives oneDNN "
         "compiles from OpenCL C (impl ocl:*); the rest is oneDNN's own code generator (nGEN)",
         "OpenCL C primitives")):
    if (wl, "cold") not in runs:
        continue
    section.append("%s: %s. Each cell: median (min–max, n runs)."
                   % ("SYCL (dpctl + dpnp)" if wl == "sycl" else "oneDNN", what))
    section.append("")
    section.append("| way | %s | %s | process CPU time | jitcache hits / misses / stores "
                   "| caches on disk |" % ("last result" if wl == "sycl" else "12 primitives", second))
    section.append("|---|---|---|---|---|---|")
    for k in label:
        if (wl, k) in runs:
            d = disk.get((wl, k))
            section.append("| %s | %s | %s | %s | %s | %s |"
                           % (label[k], spread(wl, k), spread(wl, k, 2), spread(wl, k, 3),
                              counts.get((wl, k), ""), mb(d) if d is not None else ""))
    section.append("")

with open(out + "/modern_sycl_table.md", "w") as f:
    f.write("\n".join(table) + "\n")
with open(out + "/modern_sycl_goals.txt", "w") as f:
    f.write("".join("%s\t%s\t%s\n" % (g, "yes" if m else "no", d) for g, m, d in goals))
with open(out + "/modern_sycl.md", "w") as f:
    f.write("\n".join(section) + "\n")
print("\n".join(table))
print()
for g, m, d in goals:
    print("- %s: %s (%s)" % (g, "yes" if m else "**no**", d))
print()
print("\n".join(section))
