# SPDX-License-Identifier: MIT
"""The `jitcache` command of the wheel: bin/jitcache, whose defaults in the
wheel are the library and admin tool installed in this package
(jitcache/lib, jitcache/libexec), as `make install` sets them to its own
paths.  JITCACHE_LIB and JITCACHE_ADMIN still override them."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    script = os.path.join(HERE, "bin", "jitcache")
    try:
        os.execv("/bin/sh", ["jitcache", script] + sys.argv[1:])
    except OSError as e:
        sys.exit(f"jitcache: cannot run {script}: {e}")


if __name__ == "__main__":
    main()
