"""_run: a sweep run from a notebook: `impactsweep run` with one progress line that
rewrites itself, the result returned as open_dataset gives it, a temporary file removed."""

import os
import shutil
import subprocess
import sys
import tempfile
from typing import Dict, Iterable, List, Optional

import numpy as np
import xarray as xr

from ._command import ImpactsweepError, command, rank_count
from ._reading import open_dataset


def _set_arguments(overrides: Dict[str, object]) -> List[str]:
    args = []
    for key, value in overrides.items():
        key = key.replace("__", ".")
        if "." not in key:
            raise ValueError(f"{key}: name an override section__key (model__n=5) or pass "
                             "set={'model.n': 5}")
        if isinstance(value, (list, tuple, np.ndarray)):
            value = ", ".join(str(v) for v in value)
        args += ["--set", f"{key}={value}"]
    return args


def _is_progress(line: str) -> bool:
    return line.startswith("impactsweep: ") and " points (" in line and "ETA" in line


def run(job: str, ranks: int = 1, output: Optional[str] = None, progress: bool = True,
        set: Optional[Dict[str, object]] = None, extra: Iterable[str] = (),
        **overrides) -> xr.Dataset:
    """Runs the sweep of the job file JOB on RANKS ranks (`impactsweep run -n RANKS`) and
    returns the result as open_dataset gives it (loaded). Into OUTPUT if given (kept);
    else into a temporary file, removed once read. With PROGRESS, one line on stderr that
    rewrites itself (points done, rate, ETA), then the run's last line. Overrides:
    set={'model.n': 5} or model__n=5 (section__key), as `--set`; EXTRA: more options of
    `impactsweep run` (for example ['--resume']). Raises ImpactsweepError with the run's
    last lines when it does not complete."""
    ranks = rank_count(ranks)
    scratch = None
    if output is None:
        scratch = tempfile.mkdtemp(prefix="impactsweep-")
        target = os.path.join(scratch, "result.h5")
    else:
        target = output
    args = [command(), "run", job, "--output", target]
    if ranks != 1:
        args += ["-n", str(ranks)]
    args += _set_arguments(dict(set or {}, **overrides)) + list(extra)
    args += ["--progress", "lines"]
    try:
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True)
        tail, shown = [], False
        for line in proc.stdout:
            line = line.rstrip("\n")
            tail = (tail + [line])[-20:]
            if progress and _is_progress(line):
                print("\r" + line[len("impactsweep: "):], end="", file=sys.stderr, flush=True)
                shown = True
        status = proc.wait()
        if progress and shown:
            print(file=sys.stderr, flush=True)
        if status != 0:
            raise ImpactsweepError(f"run {job}: exit status {status}\n" + "\n".join(tail))
        if progress:
            last = [l for l in tail if l.startswith("impactsweep: wrote")]
            if last:
                print(last[-1], file=sys.stderr, flush=True)
        return open_dataset(target)
    finally:
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)
