#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""keylock.py — a cache key's compile-once lock, seen from outside jitcache.

jitcache locks one byte of DIR/locks per key (cache/lock.c): the offset is
the key's first 8 bytes, big-endian, shifted right by 2.  A POSIX record lock
(what fcntl.lockf takes) conflicts with jitcache's open file description
locks on the same byte.

  keylock.py held DIR KEYHEX   exit 0 if someone holds the key's lock
  keylock.py hold DIR KEYHEX   take it (creating DIR/locks), print "held",
                               and keep it until stdin closes
"""
import fcntl
import os
import sys


def offset(key_hex):
    return int(key_hex[:16], 16) >> 2


def main():
    what, directory, key = sys.argv[1:4]
    path = os.path.join(directory, "locks")
    if what == "held":
        try:
            fd = os.open(path, os.O_RDWR)
        except OSError:
            return 1
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, offset(key))
        except OSError:
            return 0
        return 1
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.lockf(fd, fcntl.LOCK_EX, 1, offset(key))
    print("held", flush=True)
    sys.stdin.read()
    return 0


if __name__ == "__main__":
    sys.exit(main())
