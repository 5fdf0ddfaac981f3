# SPDX-License-Identifier: MIT
"""The wheel's build step, for setuptools (pyproject.toml has the metadata).

`pip install .`, `pip wheel .` and `make wheel` (packaging/wheel/make-wheel.sh)
all come here: build_py runs `make lib admin man` into build-wheel/ (the
project's own Makefile, -O2, one job per core) and puts what
packaging/files.list names into the package jitcache/ (the library in
jitcache/lib, the admin and replay tools in jitcache/libexec, the launcher in
jitcache/bin with its defaults pointed there, as `make install` points them
at its own paths).  The man page also goes to the wheel's data directory as
share/man/man1/jitcache.1, so pip installs it under the environment's prefix
(a venv's, ~/.local for --user), where man finds it for that prefix's bin/.
The wheel holds native code for x86-64 Linux but no Python extension: its
tag is py3-none-linux_x86_64, which packaging/wheel/backend.py has auditwheel
turn into the manylinux tag after vendoring libzstd and libinih.
"""
import os
import re
import shutil
import subprocess

from setuptools import setup
from setuptools.command.bdist_wheel import bdist_wheel
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

ROOT = os.path.dirname(os.path.abspath(__file__))
BUILD = "build-wheel"  # relative: setuptools wants data_files so
MAKEFILE = open(os.path.join(ROOT, "Makefile"), encoding="utf-8").read()
VERSION = re.search(r"^VERSION *:= *(\S+)", MAKEFILE, re.M).group(1)
# The public home, set once in the Makefile (the Debian package's Homepage too).
HOMEPAGE = re.search(r"^HOMEPAGE *:= *(\S+)", MAKEFILE, re.M).group(1)
os.makedirs(os.path.join(ROOT, BUILD), exist_ok=True)  # egg_base, before any build step
WHERE = {"lib": "lib", "libexec": "libexec", "bin": "bin", "man1": "share/man/man1"}


def installed_files():
    """(kind, source, name) of each line of packaging/files.list."""
    for line in open(os.path.join(ROOT, "packaging/files.list"), encoding="utf-8"):
        if line.startswith("#") or not line.strip():
            continue
        kind, src, name = line.split()
        if src.startswith("BUILD/"):
            src = os.path.join(ROOT, BUILD, src[len("BUILD/"):])
        else:
            src = os.path.join(ROOT, src)
        yield kind, src, name


class BuildWithMake(build_py):
    """build_py, after compiling the C library and commands with make."""

    def run(self):
        jobs = str(os.cpu_count() or 1)
        subprocess.check_call([os.environ.get("MAKE", "make"), "-C", ROOT, "-j" + jobs,
                               "BUILD=" + BUILD, "CFLAGS=-O2", "lib", "admin", "man"])
        super().run()
        package = os.path.join(self.build_lib, "jitcache")
        for kind, src, name in installed_files():
            dest = os.path.join(package, WHERE[kind], name)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            if kind == "bin":  # its defaults: the package's own files
                text = open(src, encoding="utf-8").read()
                text = text.replace("$here/../build/libjitcache.so", "$here/../lib/libjitcache.so")
                text = text.replace("$here/../build/jitcache-admin",
                                    "$here/../libexec/jitcache-admin")
                if "/build/" in text.split("usage()")[0]:
                    raise SystemExit("bin/jitcache changed its defaults: update setup.py")
                with open(dest, "w", encoding="utf-8") as f:
                    f.write(text)
                os.chmod(dest, 0o755)
            else:
                shutil.copyfile(src, dest)
                os.chmod(dest, 0o644 if kind == "man1" else 0o755)


class PlatformWheel(bdist_wheel):
    """Native code, no extension module: any Python 3, this platform."""

    def finalize_options(self):
        super().finalize_options()
        self.root_is_pure = False

    def get_tag(self):
        return "py3", "none", super().get_tag()[2]


class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        return True


setup(
    version=VERSION,
    project_urls={"Homepage": HOMEPAGE},
    distclass=BinaryDistribution,
    cmdclass={"build_py": BuildWithMake, "bdist_wheel": PlatformWheel},
    # share/man/man1 under the installing prefix (the wheel's .data/data/).
    data_files=[("share/man/man1", [BUILD + "/jitcache.1"])],
    options={"build": {"build_base": BUILD + "/setuptools"},
             "egg_info": {"egg_base": BUILD}},
)
