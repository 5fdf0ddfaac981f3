# SPDX-License-Identifier: MIT
# bench/own_share.py PERF_DATA — jitcache's own share of a run's CPU, from a
# `perf record --call-graph dwarf` profile (bench/apps.sh): one line,
#   SAMPLES OWN PART=N PART=N ...
# A sample is jitcache's own when the innermost frame outside the C
# library, the dynamic loader, zstd and the kernel is jitcache's (so the
# system calls jitcache makes, and the compression it asks for, count as
# its own), unless that frame is one of the hooks through which PoCL's own
# access(), rename() and dlopen() pass: there the time is PoCL's call.
# The driver's work on a call jitcache makes itself (a query of a program's
# binary, say) is counted as the driver's: the profile cannot tell it from
# the application's.  PART says where in jitcache the sample was: the
# first of PARTS, in their order, with one of its functions on the stack.
import collections
import re
import subprocess
import sys

OUTSIDE = ("libc.so", "ld-linux", "[kernel", "libpthread", "[vdso]", "libzstd", "[unknown]")
HOOKS = ("pocl_access", "pocl_rename", "pocl_dlopen")
PARTS = (
    ("recipes", ("jc_cache_put_recipe", "store_recipe", "recipe_encode")),
    ("storing", ("jc_once_store", "refresh", "jc_cache_put", "jc_store_put", "jc_pocl_find_dir",
                 "jc_make_room", "jc_clean_subdir")),
    ("miss-log", ("jc_explain", "jc_misses", "note_miss")),
    ("lookup", ("try_hit", "jc_request_get", "jc_request_recheck", "jc_store_get")),
    ("keys", ("jc_cl_key", "jc_ze_key", "program_key", "jc_cl_input", "jc_include", "key_still")),
    ("setup", ("jc_store_open", "cache_init", "jc_config_load", "load_core")),
)


def frames(text):
    """Yield each sample's frames, innermost first, as (symbol, object)."""
    cur = []
    for line in text.split("\n"):
        if not line.strip():
            if cur:
                yield cur
            cur = []
            continue
        m = re.match(r"\s*[0-9a-f]+\s+(.*?)\s+\((.*)\)\s*$", line)
        if m:
            cur.append((m.group(1), m.group(2)))
    if cur:
        yield cur


def main():
    try:
        text = subprocess.run(["perf", "script", "-i", sys.argv[1], "-F", "ip,sym,dso", "--no-inline"],
                              capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"own_share: perf script could not read {sys.argv[1]}: {e}")
    total = own = 0
    parts = collections.Counter()
    for sample in frames(text):
        total += 1
        inner = next(((s, d) for s, d in sample if "libjitcache" in d or
                      not any(o in d for o in OUTSIDE)), None)
        if not inner or "libjitcache" not in inner[1] or any(h in inner[0] for h in HOOKS):
            continue
        own += 1
        names = [s for s, d in sample if "libjitcache" in d]
        part = next((p for p, fns in PARTS if any(f in n for n in names for f in fns)), "other")
        parts[part] += 1
    if not total:
        sys.exit(f"own_share: no samples in {sys.argv[1]}")
    print(total, own, " ".join(f"{p}={n}" for p, n in parts.most_common()))


main()
