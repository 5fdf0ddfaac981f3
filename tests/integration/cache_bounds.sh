#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: quick
# Entries come from places others may write (a shared cache, a layer, an
# archive), so what one costs a reader is bounded by max_size, whatever its
# header claims: an entry file, a layer entry or an archive member larger
# than max_size allows is refused from its header, before it is read,
# mapped or inflated, in little time and memory; `jitcache import` reads
# past a refused member without keeping it, and reports the sizes it stored.
# No GPU: tests/helpers/jc_store fills caches, jc_lookup asks them.
. "$(dirname "$0")/../lib.sh"
STORE=$B/tests/jc_store LOOKUP=$B/tests/jc_lookup
[ -x "$STORE" ] && [ -x "$LOOKUP" ] || { skip "build/tests/jc_store, jc_lookup not built (make tests)"; finish; exit; }

# measure NAME CMD...: run CMD (60 s at most), "SECONDS KB" in NAME.time,
# its output in NAME.out.
measure() {
	local name=$1; shift
	/usr/bin/time -f "%e %M" -o "$T/$name.time" timeout 60 "$@" >"$T/$name.out" 2>&1
}
# small NAME SECS KB: it took under SECS seconds and KB of memory.
small() { read -r secs kb < <(tail -n 1 "$T/$1.time") && ge "$2" "$secs" && [ "$kb" -lt "$3" ]; }
took() { tail -n 1 "$T/$1.time" | awk '{printf "%s s, %.1f MB", $1, $2 / 1024}'; }
# set_sizes FILE SIZE: make FILE an entry whose header agrees with a file of
# SIZE bytes (stored and data sizes), then make it that long (sparse).
set_sizes() {
	python3 -c "import struct, sys
f = open(sys.argv[1], 'r+b'); n = int(sys.argv[2]) - 64
f.seek(32); f.write(struct.pack('<QQ', n, n))" "$1" "$2" && truncate -s "$2" "$1"
}
key() { basename "$1"; }

# ---- an entry file whose header agrees with a 16 GiB sparse file -------------
"$STORE" "$T/c" 1 100 >"$T/c.list"
big=$(head -n 1 "$T/c.list")
set_sizes "$big" $((16 << 30))
measure local env JITCACHE_DIR="$T/c" "$LOOKUP" "$(key "$big")"
check "local 16 GiB entry: a miss ($(cat "$T/local.out" | tail -n 1))" grep -q " miss " "$T/local.out"
check "local 16 GiB entry: refused at once, in little memory ($(took local))" small local 1 65536
check "local 16 GiB entry: it says why" grep -q "larger than max_size allows" "$T/local.out"

# ---- the same in a read-only layer ----------------------------------------------
"$STORE" "$T/layer" 1 100 >"$T/layer.list"
lbig=$(head -n 1 "$T/layer.list")
set_sizes "$lbig" $((16 << 30))
chmod -R go-w "$T/layer"
measure layer env JITCACHE_LAYERS="$T/layer" JITCACHE_DIR="$T/c2" "$LOOKUP" "$(key "$lbig")"
check "layer 16 GiB entry: a miss" grep -q " miss " "$T/layer.out"
check "layer 16 GiB entry: refused at once, in little memory ($(took layer))" small layer 1 65536
check "layer 16 GiB entry: left in place" test "$(stat -c %s "$lbig")" -eq $((16 << 30))

# ---- a 32 KB entry whose zstd frame inflates to 1 GiB, under the default max_size ----
# Sound header, frame and checksum, within max_size (4G): what bounds it is
# what the entry was given, JC_ENTRY_MAX_RATIO (256) times its stored size,
# checked from the header before anything is allocated or inflated (before:
# 1 GiB allocated and inflated, then dropped by the driver or kept).
FORGE=$B/tests/jc_forge
K=101316191c1f2225282b2e3134373a3d
mkdir -p "$T/bc/${K:0:2}" "$T/bl/${K:0:2}"
"$FORGE" bomb "$T/bc/${K:0:2}/$K" "$K" $((1 << 30))
cp "$T/bc/${K:0:2}/$K" "$T/bl/${K:0:2}/$K" && chmod -R go-w "$T/bl"
bsize=$(stat -c %s "$T/bc/${K:0:2}/$K")
measure bomb-local env JITCACHE_DIR="$T/bc" "$LOOKUP" "$K"
check "local, a $bsize-byte entry inflating to 1 GiB: a miss" grep -q " miss " "$T/bomb-local.out"
check "... refused uninflated, in little time and memory ($(took bomb-local))" small bomb-local 2 65536
check "... it says why" grep -q "inflates more than 256 times its size" "$T/bomb-local.out"
measure bomb-layer env JITCACHE_LAYERS="$T/bl" JITCACHE_DIR="$T/bl-node" "$LOOKUP" "$K"
check "layer, the same entry: a miss" grep -q " miss " "$T/bomb-layer.out"
check "... refused uninflated ($(took bomb-layer))" small bomb-layer 2 65536
check "... left in place" test "$(stat -c %s "$T/bl/${K:0:2}/$K")" -eq "$bsize"
python3 - "$T/bomb.tar" "$T/bl/${K:0:2}/$K" <<'PY'
import sys, tarfile
with tarfile.open(sys.argv[1], "w", format=tarfile.USTAR_FORMAT) as t:
    t.add(sys.argv[2], "10/101316191c1f2225282b2e3134373a3d")
PY
measure bomb-import env JITCACHE_DIR="$T/bomb-imp" "$JITCACHE" import "$T/bomb.tar"
check "import, the same entry as an archive member: refused" \
	grep -q "member 10/$K: inflates more than 256 times its size" "$T/bomb-import.out"
check "... uninflated ($(took bomb-import))" small bomb-import 2 65536
check "... nothing stored" test "$(find "$T/bomb-imp" -type f -name "$K" | wc -l)" -eq 0

# ---- an entry larger than a lowered max_size --------------------------------------
"$STORE" "$T/c3" 1 $((3 << 20)) >"$T/c3.list"
measure kept env JITCACHE_DIR="$T/c3" "$LOOKUP" "$(key "$(cat "$T/c3.list")")"
check "a 3 MB entry under the default max_size: a hit" grep -q " hit " "$T/kept.out"
measure lowered env JITCACHE_DIR="$T/c3" JITCACHE_MAX_SIZE=1M "$LOOKUP" "$(key "$(cat "$T/c3.list")")"
check "the same under max_size = 1M: a miss" grep -q " miss " "$T/lowered.out"

# ---- import: a member of 1 GiB of zeros in a small archive ------------------------
python3 - "$T/zeros.tar" <<'PY'
import sys, tarfile, io
class Zeros(io.RawIOBase):
    def __init__(self, n): self.n = n
    def readable(self): return True
    def readinto(self, b):
        k = min(len(b), self.n); b[:k] = bytes(k); self.n -= k; return k
with tarfile.open(sys.argv[1], "w", format=tarfile.USTAR_FORMAT) as t:
    i = tarfile.TarInfo("10/101316191c1f2225282b2e3134373a3d"); i.size = 1 << 30
    t.addfile(i, io.BufferedReader(Zeros(i.size), 1 << 20))
PY
zstd -q -1 --rm "$T/zeros.tar" -o "$T/zeros.tar.zst"
measure import-zeros env JITCACHE_DIR="$T/imp" "$JITCACHE" import "$T/zeros.tar.zst"
check "import of a $(stat -c %s "$T/zeros.tar.zst")-byte archive holding 1 GiB of zeros: refused" \
	grep -q "member 10/101316191c1f2225282b2e3134373a3d: bad magic; refused" "$T/import-zeros.out"
check "... in little memory ($(took import-zeros))" small import-zeros 10 65536

# ---- import: a sound header before 1 GiB of zeros -------------------------------------
# The header agrees with the member's name and size, so the member is read;
# it is checked as it arrives, never held: a 36 KB archive costs its reading.
python3 - "$T/forged.tar" <<'PY'
import sys, tarfile, io, struct
name = "10/101316191c1f2225282b2e3134373a3d"; size = 1 << 30
head = b"jitcache" + struct.pack("<II", 1, 0) + bytes.fromhex(name[3:]) + \
    struct.pack("<QQQQ", size - 64, size - 64, 0, 0)
class Member(io.RawIOBase):
    def __init__(self): self.at = 0
    def readable(self): return True
    def readinto(self, b):
        k = min(len(b), size - self.at)
        b[:k] = (head + bytes(k))[self.at:self.at + k] if self.at < 64 else bytes(k)
        self.at += k; return k
with tarfile.open(sys.argv[1], "w", format=tarfile.USTAR_FORMAT) as t:
    i = tarfile.TarInfo(name); i.size = size
    t.addfile(i, io.BufferedReader(Member(), 1 << 20))
PY
zstd -q -1 --rm "$T/forged.tar" -o "$T/forged.tar.zst"
measure import-forged env JITCACHE_DIR="$T/imp4" "$JITCACHE" import "$T/forged.tar.zst"
check "import of a $(stat -c %s "$T/forged.tar.zst")-byte archive, a sound header before 1 GiB of zeros: refused" \
	grep -q "member 10/101316191c1f2225282b2e3134373a3d: checksum mismatch; refused" "$T/import-forged.out"
check "... checked as it arrived, in little memory ($(took import-forged))" small import-forged 20 65536
check "... nothing stored, nothing left behind" test -z "$(find "$T/imp4" -type f ! -name stats ! -name '*.lock')"

# ---- import: an entry of 256 MiB of zeros, larger than a lowered max_size -------------
# (jitcache stores it plain: zstd would shrink it more than 256 times)
JITCACHE_COMPRESS=1 "$STORE" "$T/bomb" 1 $((256 << 20)) zeros >"$T/bomb.list"
JITCACHE_DIR=$T/bomb "$JITCACHE" export "$T/bomb.tar.zst" >/dev/null 2>&1
measure import-bomb env JITCACHE_DIR="$T/imp2" JITCACHE_MAX_SIZE=64M "$JITCACHE" import "$T/bomb.tar.zst"
check "import, max_size 64M, a $(stat -c %s "$T/bomb.tar.zst")-byte archive of a 256 MiB entry: refused" \
	grep -qE "larger than (max_size allows|the limit for an entry)" "$T/import-bomb.out"
check "... before inflating it ($(took import-bomb))" small import-bomb 5 65536
check "... nothing stored" test "$(entries "$T/imp2")" -eq 0
measure import-ok env JITCACHE_DIR="$T/imp3" "$JITCACHE" import "$T/bomb.tar.zst"
check "import under the default max_size: the report gives the size stored ($(head -n 1 "$T/import-ok.out"))" \
	grep -q "^imported 1 entry, 256.0M" "$T/import-ok.out"

# ---- import with trusted keys: a sound, unsigned 256 MiB entry -------------------------
# Its checksum holds, its signature is missing: refused as it arrives too.
"$JITCACHE" keygen "$T/node.key" >/dev/null 2>&1
JITCACHE_DIR=$T/big "$STORE" "$T/big" 1 $((256 << 20)) zeros >/dev/null
JITCACHE_DIR=$T/big "$JITCACHE" export "$T/big.tar.zst" >/dev/null 2>&1
measure import-unsigned env JITCACHE_DIR="$T/imp5" JITCACHE_TRUSTED_KEYS="$T/node.key.pub" \
	"$JITCACHE" import "$T/big.tar.zst"
check "import with trusted keys, an unsigned 256 MiB entry: refused" \
	grep -q ": not signed; refused" "$T/import-unsigned.out"
check "... in little memory ($(took import-unsigned))" small import-unsigned 20 65536
finish
