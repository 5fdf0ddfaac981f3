#!/usr/bin/env python3
"""packaging/wheel/build.py BUILD_DIR VERSION OUT_DIR NAME — assemble
jitcache's wheel, of distribution NAME (the Makefile's WHEEL_NAME:
`jitcache` on PyPI is another project), `make wheel` runs it, then
auditwheel, which vendors the library's own dependencies and gives the
wheel its manylinux tag.

The wheel is written by hand, as the wheel format (PEP 427) describes: the
package jitcache/ (packaging/wheel/jitcache: the `jitcache` entry point),
the library, the admin and replay tools and bin/jitcache inside it, and the
.dist-info files.  No build backend is needed.  Prints the wheel's path."""
import base64
import hashlib
import os
import re
import sys
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.dirname(os.path.abspath(__file__))
TAG = "py3-none-linux_x86_64"


def main():
    build, version, out, dist = sys.argv[1:5]
    # The file names' spelling of the distribution name (PEP 427, PEP 503).
    name = re.sub(r"[-_.]+", "_", dist).lower() + f"-{version}"
    files = [  # (path in the wheel, file, executable)
        ("jitcache/__init__.py", os.path.join(HERE, "jitcache/__init__.py"), False),
        ("jitcache/cli.py", os.path.join(HERE, "jitcache/cli.py"), False),
        ("jitcache/__main__.py", os.path.join(HERE, "jitcache/__main__.py"), False),
    ]
    # What `make install` installs, from the same list, into the package.
    where = {"lib": "lib", "libexec": "libexec", "bin": "bin", "man1": "share/man/man1"}
    for line in open(os.path.join(ROOT, "packaging/files.list")):
        if line.startswith("#") or not line.strip():
            continue
        kind, src, installed = line.split()
        src = os.path.join(build, src[len("BUILD/"):]) if src.startswith("BUILD/") else os.path.join(ROOT, src)
        files.append((f"jitcache/{where[kind]}/{installed}", src, kind != "man1"))
    readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    meta = {
        f"{name}.dist-info/METADATA": (
            "Metadata-Version: 2.1\n"
            f"Name: {dist}\n"
            f"Version: {version}\n"
            "Summary: GPU kernel JIT compilation once per machine, not once per process "
            "(Level Zero, OpenCL; Intel GPUs)\n"
            "Requires-Python: >=3.8\n"
            "Classifier: Operating System :: POSIX :: Linux\n"
            "Description-Content-Type: text/markdown\n\n" + readme),
        f"{name}.dist-info/WHEEL": (
            "Wheel-Version: 1.0\nGenerator: jitcache packaging/wheel/build.py\n"
            f"Root-Is-Purelib: false\nTag: {TAG}\n"),
        f"{name}.dist-info/entry_points.txt": "[console_scripts]\njitcache = jitcache.cli:main\n",
        f"{name}.dist-info/top_level.txt": "jitcache\n",
    }
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, f"{name}-{TAG}.whl")
    record = []

    def add(z, arc, data, executable):
        info = zipfile.ZipInfo(arc, date_time=(2026, 1, 1, 0, 0, 0))
        info.external_attr = (0o100755 if executable else 0o100644) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        z.writestr(info, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{arc},sha256={digest},{len(data)}")

    with zipfile.ZipFile(path, "w") as z:
        for arc, src, executable in files:
            with open(src, "rb") as f:
                data = f.read()
            if arc == "jitcache/bin/jitcache":  # its defaults: the package's own files
                data = data.replace(b"$here/../build/libjitcache.so", b"$here/../lib/libjitcache.so")
                data = data.replace(b"$here/../build/jitcache-admin", b"$here/../libexec/jitcache-admin")
                assert b"/build/" not in data.split(b"usage()")[0], "bin/jitcache changed its defaults"
            add(z, arc, data, executable)
        for arc, text in meta.items():
            add(z, arc, text.encode(), False)
        rec = f"{name}.dist-info/RECORD"
        record.append(f"{rec},,")
        z.writestr(zipfile.ZipInfo(rec, date_time=(2026, 1, 1, 0, 0, 0)), "\n".join(record) + "\n")
    print(path)


if __name__ == "__main__":
    main()
