#!/usr/bin/env python3
"""bench/modern_sycl_report.py OUTDIR — turns OUTDIR/modern_sycl.txt (written by
bench/modern_sycl.sh) into OUTDIR/modern_sycl_rows.md (rows of the summary
table in bench/results.md and the README) and OUTDIR/modern_sycl.md (the
section of bench/results.md).  Prints the section too.  Exit status 1 when
there are no figures."""
import collections
import statistics
import sys

out = sys.argv[1]
runs = collections.defaultdict(list)  # (wl, kind) -> [(main, part)]
pkg, disk, counts = {}, {}, {}
kernels = "?"
try:
    lines = open(out + "/modern_sycl.txt").read().split("\n")
except OSError:
    sys.exit("modern_sycl_report: no %s/modern_sycl.txt" % out)
for line in lines:
    f = line.split()
    if not f:
        continue
    if f[0] == "msycl" and len(f) >= 5:
        try:
            runs[(f[1], f[2])].append((float(f[4]), float(f[5]) if len(f) > 5 else None))
        except ValueError:
            pass
    elif f[0] == "msycl_pkg":
        pkg[f[1]] = f[2]
    elif f[0] == "msycl_disk":
        disk[(f[1], f[2])] = int(f[3])
    elif f[0] == "msycl_count":
        counts[(f[1], f[2])] = " / ".join(f[3:6])
    elif f[0] == "msycl_kernels":
        kernels = f[1]


def med(wl, kind, i=0):
    v = [r[i] for r in runs.get((wl, kind), []) if r[i] is not None]
    return statistics.median(v) if v else None


def spread(wl, kind, i=0):
    v = [r[i] for r in runs.get((wl, kind), []) if r[i] is not None]
    if not v:
        return "—"
    return "%s (%s–%s, n=%d)" % (t(statistics.median(v)), t(min(v)), t(max(v)), len(v))


def t(s):
    if s is None:
        return "—"
    return "%.2f s" % s if s >= 1 else "%.0f ms" % (s * 1e3)


def ratio(a, b):
    return "%.2fx" % (a / b) if a and b else "—"


driver = "NEO %s, IGC %s, loader %s" % (pkg.get("intel-opencl-icd", "?").split("-")[0],
                                        pkg.get("libigc2", "?").split("-")[0],
                                        pkg.get("libze1", "?").split("-")[0])
names = {
    "sycl": "SYCL Level Zero: dpctl program (%s kernels) + 13 dpnp ops, SYCL %s, %s, simulated Arc"
            % (kernels, pkg.get("intel-sycl-rt", "?"), driver),
    "onednn": "oneDNN SYCL %s on Level Zero: creating 12 primitives (OpenCL C ones), %s, "
              "simulated Arc" % (pkg.get("onednn", "?"), driver),
}
rows, section = [], []
for wl in ("sycl", "onednn"):
    if (wl, "cold") not in runs:
        continue
    cold, neo, jc, both = (med(wl, k) for k in ("cold", "neo", "jc", "both"))
    fill = med(wl, "jc_fill")
    cell = lambda k: t(med(wl, k)) + ((" (%s)" % t(med(wl, k, 1))) if wl == "onednn" else "")
    ref = "NEO's cache %s; both %s" % (cell("neo"), cell("both"))
    if wl == "sycl":
        ref += "; SYCL's cache %s, with jitcache %s" % (cell("sycl"), cell("sycl_jc"))
    judge = "jitcache / NEO %s; both / best alone %s" % (
        ratio(jc, neo), ratio(both, min(x for x in (neo, jc) if x) if (neo or jc) else None))
    if wl == "onednn":
        judge += " (OpenCL C part: %s; %s)" % (
            ratio(med(wl, "jc", 1), med(wl, "neo", 1)),
            ratio(med(wl, "both", 1), min(med(wl, "neo", 1) or 1e9, med(wl, "jc", 1) or 1e9)))
    rows.append("| %s | %s | %s | %s | %s | %s | %s |"
                % (names[wl], cell("cold"), cell("jc_fill"), cell("jc"), ref, judge,
                   "%.1fx" % (cold / jc) if cold and jc else "—"))
    section.append("### %s" % names[wl])
    section.append("")
    what = ("time to last result (queue creation to the last dpnp result; Python start and "
            "imports not included); second figure: dpctl's create_program_from_spirv"
            if wl == "sycl" else
            "sum of the 12 primitives' creation times; second figure: the primitives oneDNN "
            "compiles from OpenCL C (impl ocl:*); the rest is oneDNN's own code generator (nGEN)")
    section.append("Each cell: median (min–max, n runs); %s." % what)
    section.append("")
    section.append("| way | %s | %s | jitcache hits / misses / stores | cache on disk |"
                   % ("last result" if wl == "sycl" else "12 primitives",
                      "program build" if wl == "sycl" else "OpenCL C primitives"))
    section.append("|---|---|---|---|---|")
    label = {"cold": "cold, no cache", "neo_fill": "NEO's cache cold (storing)",
             "jc_fill": "jitcache cold (storing)", "both_fill": "both cold (storing)",
             "sycl_fill": "SYCL's cache cold (storing)",
             "sycl_jc_fill": "SYCL's cache + jitcache cold (storing)",
             "neo": "NEO's cache warm, alone", "jc": "jitcache warm, alone",
             "both": "NEO's cache + jitcache warm", "sycl": "SYCL's cache warm, alone",
             "sycl_jc": "SYCL's cache + jitcache warm"}
    for k in ("cold", "neo_fill", "jc_fill", "both_fill", "sycl_fill", "sycl_jc_fill",
              "neo", "jc", "both", "sycl", "sycl_jc"):
        if (wl, k) not in runs:
            continue
        d = disk.get((wl, k.replace("_fill", "")))
        section.append("| %s | %s | %s | %s | %s |"
                       % (label[k], spread(wl, k), spread(wl, k, 1), counts.get((wl, k), ""),
                          "%.1f MB" % (d / 1e6) if d and not k.endswith("_fill") else ""))
    section.append("")
if not rows:
    sys.exit("modern_sycl_report: no figures in %s/modern_sycl.txt" % out)
with open(out + "/modern_sycl_rows.md", "w") as f:
    f.write("\n".join(rows) + "\n")
with open(out + "/modern_sycl.md", "w") as f:
    f.write("\n".join(section) + "\n")
print("\n".join(rows))
print()
print("\n".join(section))
