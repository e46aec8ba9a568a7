#!/usr/bin/env python3
"""bitflip.py: the bit-flip campaign of issue 22. One bit of a result file flipped at
random, then what a user would run next; every trial is classified:

  detected  the command refused the file (exit status 2, saying it is damaged, not a
            result file, or not this job's);
  harmless  the command succeeded and the file it ends with holds exactly the truth
            (h5compare against an uninterrupted run: every dataset, every attribute that
            describes the results) - a flip in the run log, in alignment padding, in a
            pending point's bytes that the resume rewrites, ...;
  SILENT    the command succeeded (exit 0) and the file differs from the truth;
  other     any other exit status (a crash, exit 1): counted, and a failure too.

Modes (each a campaign of --trials flips, uniformly over the file's bytes):
  resume   a half-done file (a run killed by the crashpoint shim halfway through its
           writes), the bit flipped, then `run --resume`: the issue's experiment;
  verify   a complete file, the bit flipped, then `info --verify` (exit 0 = "harmless" only
           if the file still equals the truth, which a flip anywhere that matters breaks);
  merge    piece 1 of 3 flipped, then `merge` of the 3 pieces.
--targeted adds a flip in each place that must be detected whatever the random draw:
every dataset's stored bytes, each coordinate, the checksums, and the attributes
(units, long_name, flag values, the job text, the fingerprint).

Prints one line per trial (--verbose) and a summary per mode; exit status 1 when any
trial is SILENT or other. Needs h5py (for the targets' offsets; /usr/bin/python3)."""
import argparse
import os
import random
import shutil
import subprocess
import sys

import h5py


def run(cmd, cwd, env=None):
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    return p.returncode, p.stdout + p.stderr


def flip(path, offset, bit):
    with open(path, "r+b") as f:
        f.seek(offset)
        b = f.read(1)[0]
        f.seek(offset)
        f.write(bytes([b ^ (1 << bit)]))


def regions(path):
    """(start, end, name) of every dataset's raw data, for saying where a flip landed."""
    out = []
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            if isinstance(obj, h5py.Dataset):
                off = obj.id.get_offset()
                if off is not None:
                    out.append((off, off + obj.id.get_storage_size(), name))
        f.visititems(visit)
    return sorted(out)


def where(regs, offset):
    for start, end, name in regs:
        if start <= offset < end:
            return name
    return "metadata"


def targets(path):
    """Offsets that must be detected: inside each dataset's stored bytes and attributes."""
    found = []
    with h5py.File(path, "r") as f:
        status = f["status"][()].ravel()
        stored = [i for i in range(status.size) if status[i] != 0]
        if not stored:
            sys.exit("%s holds no stored point to aim at" % path)
        i = stored[len(stored) // 2]
        for name in f.attrs["outputs"].split() + ["status", "run/check"]:
            ds = f[name]
            size = ds.dtype.itemsize
            found.append((ds.id.get_offset() + i * size + size - 1, name))
        for axis in f.attrs["axes"].split():
            ds = f[axis]
            found.append((ds.id.get_offset() + 8 * (ds.size // 2) + 3, "coordinate " + axis))
        texts = [(str(f.attrs["job"]), "attribute job"),
                 (str(f.attrs["job_fingerprint"]), "attribute job_fingerprint")]
        for name in f.attrs["outputs"].split():
            texts.append((str(f[name].attrs["long_name"]), "attribute long_name of " + name))
        texts.append((str(f["status"].attrs["flag_meanings"]), "attribute flag_meanings"))
    data = open(path, "rb").read()
    for text, what in texts:
        at = data.find(text.encode())
        if at >= 0:
            found.append((at + len(text) // 2, what))
    at = data.find(b"flag_values")  # the attribute's name, then (near) its value
    if at >= 0:
        found.append((at + 2, "attribute flag_values (its name)"))
    return found


class Campaign:
    def __init__(self, args):
        self.a = args
        self.work = args.work
        self.env = dict(os.environ)
        self.counts = {}
        self.places = {}  # (mode, region) -> {verdict: count}

    def sh(self, cmd, env=None):
        return run(cmd, self.work, env)

    def prepare(self):
        a, w = self.a, self.work
        os.makedirs(w, exist_ok=True)
        shutil.copy(a.job, os.path.join(w, "job.ini"))
        self.job = ["job.ini", "--set", "sweep.unit_size=%d" % a.unit_size]
        rc, out = self.sh([a.impactsweep, "run"] + self.job + ["--output", "ref.h5", "--quiet"])
        if rc:
            sys.exit("the reference run failed: " + out)
        # a half-done file: killed (the crashpoint shim) halfway through its writes
        counter = os.path.join(w, "ctr")
        def shimmed(at):
            with open(counter, "wb") as f:
                f.write(bytes(8))
            env = dict(self.env, CRASHPOINT_MATCH=os.path.join(w, "half.h5"),
                       CRASHPOINT_COUNTER=counter, CRASHPOINT_AT=str(at),
                       LD_PRELOAD=a.crashpoint)
            self.sh([a.impactsweep, "run"] + self.job + ["--output", "half.h5", "--quiet"], env)
            return int.from_bytes(open(counter, "rb").read(8), "little")
        events = shimmed(0)
        os.remove(os.path.join(w, "half.h5"))
        shimmed(events // 2)
        for name in os.listdir(w):
            if name.startswith("half.h5.") or name.startswith(".impactsweep-lock"):
                os.remove(os.path.join(w, name))
        for i in range(3):
            rc, out = self.sh([a.impactsweep, "run"] + self.job +
                              ["--piece", "%d/3" % i, "--output", "p%d.h5" % i, "--quiet"])
            if rc:
                sys.exit("piece %d failed: %s" % (i, out))

    def clean(self, name):
        for f in os.listdir(self.work):
            if f == name or f.startswith(name + ".") or f.startswith(".impactsweep-lock"):
                os.remove(os.path.join(self.work, f))

    def trial(self, mode, offset, bit, label, kind=None):
        a, w = self.a, self.work
        kind = kind or mode
        if kind == "resume":
            self.clean("t.h5")
            shutil.copy(os.path.join(w, "half.h5"), os.path.join(w, "t.h5"))
            flipped, cmd = "t.h5", [a.impactsweep, "run"] + self.job + ["--output", "t.h5", "--resume", "--quiet"]
            result = "t.h5"
        elif kind == "verify":
            shutil.copy(os.path.join(w, "ref.h5"), os.path.join(w, "t.h5"))
            flipped, cmd, result = "t.h5", [a.impactsweep, "info", "t.h5", "--verify"], "t.h5"
        else:
            self.clean("m.h5")
            shutil.copy(os.path.join(w, "p1.h5"), os.path.join(w, "t.h5"))
            flipped, result = "t.h5", "m.h5"
            cmd = [a.impactsweep, "merge", "m.h5", "p0.h5", "t.h5", "p2.h5"]
        path = os.path.join(w, flipped)
        if offset is None:
            offset = random.randrange(os.path.getsize(path))
        place = label or where(regions(path), offset)
        flip(path, offset, bit)
        rc, out = self.sh(cmd)
        if rc == 2:
            verdict = "detected"
        elif rc == 0:
            same, _ = self.sh([a.h5compare, "ref.h5", result])
            verdict = "harmless" if same == 0 else "SILENT"
        else:
            verdict = "other"
        self.counts.setdefault(mode, {}).setdefault(verdict, 0)
        self.counts[mode][verdict] += 1
        region = place if label is None else "targeted"
        self.places.setdefault((mode, region), {}).setdefault(verdict, 0)
        self.places[(mode, region)][verdict] += 1
        line = out.strip().splitlines()[-1][:150] if out.strip() else ""
        if self.a.verbose or verdict in ("SILENT", "other"):
            print("  %-6s %-8s byte %7d bit %d (%s): exit %d %s" %
                  (mode, verdict, offset, bit, place, rc, line))
        return verdict


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--impactsweep", required=True)
    p.add_argument("--h5compare", required=True)
    p.add_argument("--crashpoint", required=True)
    p.add_argument("--job", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--trials", type=int, default=100)
    p.add_argument("--modes", default="resume,verify,merge")
    p.add_argument("--seed", type=int, default=22)
    p.add_argument("--unit-size", type=int, default=500)
    p.add_argument("--targeted", action="store_true")
    p.add_argument("--verbose", action="store_true")
    p.add_argument("--regions", action="store_true", help="where the random flips landed")
    a = p.parse_args()
    random.seed(a.seed)
    c = Campaign(a)
    c.prepare()
    modes = a.modes.split(",")
    for mode in modes:
        for _ in range(a.trials):
            c.trial(mode, None, random.randrange(8), None)
    if a.targeted:
        for mode in ("resume", "verify"):
            source = "half.h5" if mode == "resume" else "ref.h5"
            for offset, what in targets(os.path.join(a.work, source)):
                if c.trial(mode + "-targeted", offset, 2, what, mode) != "detected":
                    print("  a flip in %s was not detected (%s)" % (what, mode))
                    c.counts[mode + "-targeted"]["SILENT"] = c.counts[mode + "-targeted"].get("SILENT", 0)
    if a.regions:
        print("where the random flips landed (dataset or metadata: verdicts):")
        for (mode, region), verdicts in sorted(c.places.items()):
            if region != "targeted":
                print("  %-7s %-16s %s" % (mode, region, ", ".join(
                    "%d %s" % (n, v) for v, n in sorted(verdicts.items()))))
    bad = 0
    for mode, counts in c.counts.items():
        n = sum(counts.values())
        print("bit flips, %s: %d trials: %d detected, %d harmless, %d SILENT, %d other" %
              (mode, n, counts.get("detected", 0), counts.get("harmless", 0),
               counts.get("SILENT", 0), counts.get("other", 0)))
        bad += counts.get("SILENT", 0) + counts.get("other", 0)
        if mode.endswith("targeted"):
            bad += n - counts.get("detected", 0)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
