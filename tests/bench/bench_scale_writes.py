#!/usr/bin/env python3
"""bench_scale_writes.py: reads a crashpoint log (libcrashpoint.so in count-only mode, one
line per event: "N pid kind path bytes offset") of one `run` and says how the result file
was written. Used by bench_scale.sh (part f); standard library only, h5py optional.

    bench_scale_writes.py LOG OUTPUT [--h5 FILE] [--histogram]

OUTPUT is the absolute path of the result file (as given to CRASHPOINT_MATCH). Phases, by
the log's order: the creation writes go to OUTPUT.partial; the publish is the rename or
link of OUTPUT.partial to OUTPUT; every write to OUTPUT after it belongs to the computing
phase (which also holds rank 0's run-state updates and what HDF5 writes at close).

With --h5 (the finished file; h5py, else `h5dump -p -H`) each write of the computing phase
is placed by its offset: "data" (inside the storage of a variable over the grid: the model's
outputs and status), "coord" (a coordinate), "state" (the /run datasets) or "meta" (outside
every dataset: superblock, object headers, heaps). Without it every write counts as data.

Prints one line of key=value pairs (sizes in bytes; "-" where undefined):
  creation_writes creation_bytes publish compute_writes compute_bytes data_writes
  data_bytes data_mean data_median data_min data_max data_aligned data_small
  data_rank0 state_writes coord_writes meta_writes compute_aligned lock_events
  other_events ranks file_bytes classified
data_aligned: data writes with offset % 4096 == 0; data_small: data writes below 4096 bytes;
data_rank0: data writes by rank 0 (the process that created OUTPUT.lock). With
--histogram a second line "histogram=" gives the data writes per power-of-two size class.
"""
import os
import re
import statistics
import subprocess
import sys

WRITE_KINDS = {"write", "pwrite", "writev", "pwritev"}


def unescape(path):
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), path)


def parse_log(path):
    events = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            parts = line.split()
            if len(parts) < 6:
                continue
            try:
                events.append((int(parts[0]), int(parts[1]), parts[2], unescape(parts[3]),
                               int(parts[4]), int(parts[5])))
            except ValueError:
                continue
    events.sort()
    return events


def extents_h5py(h5):
    import h5py  # noqa: optional

    out = []
    with h5py.File(h5, "r") as f:
        grid_shape = f["status"].shape if "status" in f else None

        def visit(name, obj):
            if not isinstance(obj, h5py.Dataset):
                return
            offset = obj.id.get_offset()
            size = obj.id.get_storage_size()
            if offset is None or size == 0:
                return
            if name.startswith("run/"):
                cls = "state"
            elif grid_shape is not None and obj.shape == grid_shape and "/" not in name:
                cls = "data"
            else:
                cls = "coord"
            out.append((offset, offset + size, cls, name))

        f.visititems(visit)
    return out


def extents_h5dump(h5):
    text = subprocess.run(["h5dump", "-p", "-H", h5], capture_output=True, text=True,
                          check=True).stdout
    found, stack = [], []  # stack: [kind, name, info] of every open "{" block
    for raw in text.splitlines():
        line = raw.strip()
        if line.endswith("{"):
            m = re.match(r'(\w+)\s*(?:"([^"]*)")?', line)
            stack.append([m.group(1) if m else "", m.group(2) if m else None, {}])
        m = re.match(r"DATASPACE\s+SIMPLE \{ \( ([^)]*) \)", line)
        ds = next((b for b in reversed(stack) if b[0] == "DATASET"), None)
        inside_attr = any(b[0] == "ATTRIBUTE" for b in stack)
        if ds is not None and not inside_attr:
            if m and "dims" not in ds[2]:
                ds[2]["dims"] = tuple(int(x) for x in m.group(1).split(","))
            m2 = re.match(r"(SIZE|OFFSET) (\d+)$", line)
            if m2 and m2.group(1).lower() not in ds[2]:
                ds[2][m2.group(1).lower()] = int(m2.group(2))
        if line == "}" and stack:
            kind, name, info = stack.pop()
            if kind == "DATASET":
                groups = [b[1] for b in stack if b[0] == "GROUP" and b[1] != "/"]
                found.append(("/".join(groups + [name]), info))
    grid = next((i.get("dims") for p, i in found if p == "status"), None)
    ext = []
    for p, i in found:
        if "size" not in i or "offset" not in i:
            continue
        cls = "state" if p.startswith("run/") else \
              "data" if i.get("dims") == grid and "/" not in p else "coord"
        ext.append((i["offset"], i["offset"] + i["size"], cls, p))
    return ext


def classify_fn(h5):
    if not h5:
        return None
    extents = None
    try:
        extents = extents_h5py(h5)
    except Exception:
        try:
            extents = extents_h5dump(h5)
        except Exception:
            extents = None
    if not extents:
        return None
    extents.sort()

    def classify(offset, nbytes):
        end = offset + max(nbytes, 1)
        for lo, hi, cls, _ in extents:
            if offset >= lo and end <= hi:
                return cls
            if offset < hi and end > lo:
                return cls + "+"  # straddles a dataset boundary
        return "meta"

    return classify


def fmt(x):
    if x is None:
        return "-"
    if isinstance(x, float):
        return "%.0f" % x
    return str(x)


def main(argv):
    import argparse

    ap = argparse.ArgumentParser(description="counts the writes of a crashpoint log",
                                 usage=__doc__)
    ap.add_argument("log")
    ap.add_argument("output")
    ap.add_argument("--h5")
    ap.add_argument("--histogram", action="store_true")
    a = ap.parse_args(argv[1:])
    log, output, h5 = a.log, a.output, a.h5
    partial = output + ".partial"
    lock = output + ".lock"
    events = parse_log(log)
    classify = classify_fn(h5)

    rank0 = next((pid for n, pid, kind, path, b, o in events
                  if kind == "open_creat" and path == lock), None)
    published = False
    publish = "-"
    creation = []
    compute = []
    lock_events = other = 0
    pids = set()
    for n, pid, kind, path, nbytes, offset in events:
        if kind in ("rename", "link") and path.endswith("->" + output):
            published = True
            publish = kind
            continue
        if path == lock:
            lock_events += 1
            continue
        if kind in WRITE_KINDS and path == partial:
            creation.append((pid, nbytes, offset))
            pids.add(pid)
        elif kind in WRITE_KINDS and path == output and published:
            compute.append((pid, nbytes, offset))
            pids.add(pid)
        else:
            other += 1

    kinds = {"data": [], "coord": [], "state": [], "meta": []}
    for pid, nbytes, offset in compute:
        cls = classify(offset, nbytes) if classify else "data"
        kinds.setdefault(cls.rstrip("+"), []).append((pid, nbytes, offset))
    data = kinds["data"]
    sizes = [b for _, b, _ in data]
    res = {
        "creation_writes": len(creation),
        "creation_bytes": sum(b for _, b, _ in creation),
        "publish": publish,
        "compute_writes": len(compute),
        "compute_bytes": sum(b for _, b, _ in compute),
        "data_writes": len(data),
        "data_bytes": sum(sizes),
        "data_mean": statistics.mean(sizes) if sizes else None,
        "data_median": statistics.median(sizes) if sizes else None,
        "data_min": min(sizes) if sizes else None,
        "data_max": max(sizes) if sizes else None,
        "data_aligned": sum(1 for _, _, o in data if o >= 0 and o % 4096 == 0),
        "data_small": sum(1 for b in sizes if b < 4096),
        "data_rank0": sum(1 for p, _, _ in data if p == rank0),
        "state_writes": len(kinds["state"]),
        "coord_writes": len(kinds["coord"]),
        "meta_writes": len(kinds["meta"]),
        "compute_aligned": sum(1 for _, _, o in compute if o >= 0 and o % 4096 == 0),
        "lock_events": lock_events,
        "other_events": other,
        "ranks": len(pids),
        "file_bytes": os.path.getsize(h5) if h5 and os.path.exists(h5) else None,
        "classified": "yes" if classify else "no",
    }
    print(" ".join("%s=%s" % (k, fmt(v)) for k, v in res.items()))
    if a.histogram:
        hist = {}
        for b in sizes:
            c = 1 << max(b - 1, 0).bit_length() if b > 0 else 0
            hist[c] = hist.get(c, 0) + 1
        print("histogram=" + ",".join("<=%s:%d" % (human(c), hist[c]) for c in sorted(hist)))
    return 0


def human(n):
    for unit in ("", "K", "M", "G"):
        if n < 1024:
            return "%d%s" % (n, unit)
        n //= 1024
    return "%dT" % n


if __name__ == "__main__":
    sys.exit(main(sys.argv))
