#!/usr/bin/env python3
"""Writes the constants files the metadata tests read (--constants), without
NumPy: .npy files as NumPy's format 1.0 lays them out, and .npz archives as
np.savez writes them (a zip of stored members arr_0.npy, ..., zip64 headers
forced) or np.savez_compressed (deflated). Run from this directory; the
outputs are committed, so make check needs no Python for them."""
import os
import struct
import zipfile


def npy(descr, shape, fmt, values):
    shape_text = "(%d,)" % shape[0] if len(shape) == 1 else "(%s)" % ", ".join("%d" % d for d in shape)
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape_text)
    pad = (64 - (10 + len(header) + 1) % 64) % 64
    header = header + " " * pad + "\n"
    return (b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1")
            + struct.pack("<%d%s" % (len(values), fmt), *values))


W = npy("<f4", (2, 3), "f", [0.5, -1.25, 2.0, 3.0, -0.125, 1e-3])
B = npy("<i4", (3,), "i", [7, -8, 9])
S = npy("<f8", (), "d", [2.5])


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def npz(path, members, method=zipfile.ZIP_STORED):
    with zipfile.ZipFile(path, "w", compression=method) as z:
        for name, data in members:
            with z.open(name, "w", force_zip64=True) as f:
                f.write(data)


os.makedirs("consts", exist_ok=True)
write("consts/0.npy", W)
write("consts/1.npy", B)
write("consts/2.npy", S)
npz("consts.npz", [("arr_0.npy", W), ("arr_1.npy", B), ("arr_2.npy", S)])
npz("consts_named.npz", [("1.npy", B), ("0.npy", W)])
npz("consts_compressed.npz", [("arr_0.npy", W)], zipfile.ZIP_DEFLATED)
# consts_numpy.npz was written by NumPy 1.24 itself: np.savez("consts_numpy.npz", W, B, S)
# malformed: an .npy that is not one, an archive cut short, a dtype lopt lacks
os.makedirs("consts_bad", exist_ok=True)
write("consts_bad/0.npy", b"this is not an array\n")
write("consts_cut.npz", open("consts.npz", "rb").read()[:150])
os.makedirs("consts_complex", exist_ok=True)
write("consts_complex/0.npy", npy("<c8", (1,), "f", [1.0, 2.0]))
write("consts_text.npz", b"neither a zip nor a directory\n")
# an archive whose member's header claims more elements than the member holds
npz("consts_short.npz", [("arr_0.npy", npy("<i4", (100,), "i", [1, 2, 3]))])


# Archives broken in one field each, from a one-member archive (A): the
# central directory's offset is in the end record, its last 22 bytes.
def patched(name, edit):
    npz(name, [("arr_0.npy", B)])
    b = bytearray(open(name, "rb").read())
    cd = struct.unpack_from("<I", b, len(b) - 22 + 16)[0]
    edit(b, cd)
    write(name, bytes(b))


patched("consts_method.npz", lambda b, cd: struct.pack_into("<H", b, cd + 10, 12))       # bzip2
patched("consts_encrypted.npz", lambda b, cd: struct.pack_into("<H", b, cd + 8, 1))
patched("consts_baddir.npz", lambda b, cd: struct.pack_into("<I", b, cd, 0x12345678))
patched("consts_badlocal.npz", lambda b, cd: struct.pack_into("<I", b, cd + 42, 5))  # the member's offset off by 5
patched("consts_longmember.npz", lambda b, cd: struct.pack_into("<II", b, cd + 20, 5000, 5000))
patched("consts_zip64.npz", lambda b, cd: struct.pack_into("<H", b, len(b) - 22 + 10, 0xffff))
npz("consts_twice.npz", [("0.npy", B), ("arr_0.npy", B)])


# Counts and sizes that would overflow: a zip64 end record claiming 2^62
# members (each needs 46 bytes of the directory, which holds one), and a
# member whose zip64 extra field says 2^63 - 1 bytes.
def raw_npz(member_size=None, entries=None):
    name, data = b"arr_0.npy", B
    size32 = 0xffffffff if member_size else len(data)
    extra = struct.pack("<HHQQ", 1, 16, member_size, member_size) if member_size else b""
    local = struct.pack("<IHHHHHIIIHH", 0x04034b50, 45, 0, 0, 0, 0, 0, size32, size32, len(name), len(extra))
    out = local + name + extra + data
    cd = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 45, 45, 0, 0, 0, 0, 0, size32, size32, len(name),
                     len(extra), 0, 0, 0, 0, 0) + name + extra
    if entries is None:
        return out + cd + struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, 1, 1, len(cd), len(out), 0)
    z64 = struct.pack("<IQHHIIQQQQ", 0x06064b50, 44, 45, 45, 0, 0, entries, entries, len(cd), len(out))
    loc = struct.pack("<IIQI", 0x07064b50, 0, len(out) + len(cd), 1)
    return out + cd + z64 + loc + struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, 0xffff, 0xffff, len(cd), len(out), 0)


write("consts_zip64_count.npz", raw_npz(entries=1 << 62))
write("consts_member_huge.npz", raw_npz(member_size=(1 << 63) - 1))
