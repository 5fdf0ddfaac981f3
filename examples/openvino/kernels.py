"""Lists the GPU kernel binaries (ELF images: the driver's zebins, oneDNN's
generated ones) embedded in blobs written by compiled_model.export_model(),
one "FILE INDEX SIZE SHA256" line each, in the order they appear.  The rest
of such a blob is OpenVINO's own serialization (it holds bytes that differ
from run to run without any cache involved); the kernels are what jitcache
could change.
  python3 kernels.py BLOB..."""
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


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for path in sys.argv[1:]:
        with open(path, "rb") as f:
            data = f.read()
        for i, img in enumerate(elf_images(data)):
            print(os.path.basename(path), i, len(img), hashlib.sha256(img).hexdigest())


if __name__ == "__main__":
    main()
