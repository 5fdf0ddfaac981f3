# SPDX-License-Identifier: MIT
"""Lists the GPU kernel binaries (ELF images: the driver's zebins, oneDNN's
generated ones) embedded in blobs written by compiled_model.export_model(),
one "FILE INDEX SIZE SHA256" line each, in the order they appear.  The rest
of such a blob is OpenVINO's own serialization (it holds bytes that differ
from run to run without any cache involved); the kernels are what jitcache
could change.
  python3 kernels.py BLOB...
  python3 kernels.py --inputs BLOB...   the same, but the hash of each image
      leaves out its native code (the driver's "Intel(R) OpenCL Device
      Binary" section): what was asked of the driver (SPIR-V, options),
      which is the same from run to run where the driver's code is not
      (Debian 12's NEO 22.43 compiles one of oneDNN's GEMM kernels to one of
      two binaries, 18020 or 18084 bytes, run to run, jitcache or not)."""
import hashlib
import os
import struct
import sys


def elf_images(data):
    at = data.find(b"\x7fELF")
    while at >= 0:
        shoff, = struct.unpack_from("<Q", data, at + 0x28)
        shentsize, shnum = struct.unpack_from("<HH", data, at + 0x3A)
        end = shoff + shentsize * shnum
        for i in range(shnum):  # sections may lie after the section table
            off, size = struct.unpack_from("<QQ", data, at + shoff + i * shentsize + 0x18)
            kind, = struct.unpack_from("<I", data, at + shoff + i * shentsize + 4)
            if kind != 8:  # SHT_NOBITS takes no room
                end = max(end, off + size)
        yield data[at:at + end]
        at = data.find(b"\x7fELF", at + end)


DEVICE_BINARY = 0xFF000005  # SHT_LOUSER + 0x7f000005: the native code


def inputs_hash(img):
    """sha256 of the image's sections but its native code (and sizes)."""
    h = hashlib.sha256()
    shoff, = struct.unpack_from("<Q", img, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", img, 0x3A)
    for i in range(shnum):
        kind, = struct.unpack_from("<I", img, shoff + i * shentsize + 4)
        off, size = struct.unpack_from("<QQ", img, shoff + i * shentsize + 0x18)
        if kind not in (DEVICE_BINARY, 8):
            h.update(struct.pack("<I", kind) + img[off:off + size])
    return h.hexdigest()


def main():
    args = sys.argv[1:]
    inputs = bool(args) and args[0] == "--inputs"
    if inputs:
        args = args[1:]
    if not args:
        sys.exit(__doc__)
    for path in args:
        with open(path, "rb") as f:
            data = f.read()
        for i, img in enumerate(elf_images(data)):
            print(os.path.basename(path), i, "-" if inputs else len(img),
                  inputs_hash(img) if inputs else hashlib.sha256(img).hexdigest())


if __name__ == "__main__":
    main()
