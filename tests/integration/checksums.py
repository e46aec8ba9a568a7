"""checksums.py: impactsweep's per-point checksums, computed independently of the engine
(src/core/store/results.h): the CRC-32C of a point's record, its grid index as 8 bytes
little-endian, each output's stored bytes in the order of the file's `outputs`
attribute (an array output's values of the point in order), its status byte; 0 where
the point is pending. Used by the integration tests
to check the definition, and to alter a file "consistently" (a value changed with its
checksum recomputed), which only the data's meaning can then tell from the truth.

    python3 checksums.py verify FILE            exit 0 when every stored point matches
    python3 checksums.py set FILE VAR INDEX VALUE   sets VAR at flat INDEX, checksum too
"""
import struct
import sys

import h5py
import numpy as np

_TABLE = []
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ 0x82F63B78 if _c & 1 else _c >> 1
    _TABLE.append(_c)


def crc32c(data, crc=0):
    crc ^= 0xFFFFFFFF
    for b in data:
        crc = _TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def record_check(f, i):
    """The checksum point i (flat index of the file) must have."""
    status = f["status"][()].ravel()[i]
    if status == 0:
        return 0
    first = int(np.asarray(f.attrs["piece_first"]).item())
    names = str(np.asarray(f.attrs["outputs"]).astype(str)).split()
    record = struct.pack("<Q", first + i)
    points = f["status"].size
    for name in names:  # (an array output: its values of the point, in order)
        record += f[name][()].reshape(points, -1)[i].tobytes()
    if "run/reason" in f:
        record += bytes([int(f["run/reason"][i])])
    record += bytes([status])
    return crc32c(record)


def verify(path):
    with h5py.File(path, "r") as f:
        checks = f["run/check"][()].ravel()
        bad = [i for i in range(checks.size) if record_check(f, i) != checks[i]]
    return bad


def set_value(path, name, index, value):
    with h5py.File(path, "r+") as f:
        data = f[name][()]
        flat = data.reshape(-1)
        flat[index] = value
        f[name][...] = data
        checks = f["run/check"][()]
        checks.reshape(-1)[index] = record_check(f, index)
        f["run/check"][...] = checks


if __name__ == "__main__":
    if sys.argv[1] == "verify":
        bad = verify(sys.argv[2])
        print("points failing their checksum:", len(bad), bad[:5])
        sys.exit(1 if bad else 0)
    if sys.argv[1] == "set":
        set_value(sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5]))
        sys.exit(0)
    sys.exit("usage: checksums.py verify FILE | set FILE VAR INDEX VALUE")
