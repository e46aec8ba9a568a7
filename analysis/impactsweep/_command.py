"""_command: the impactsweep executable this module runs, its errors, and the model
descriptions it gives (`impactsweep models MODEL --json`)."""

import functools
import json
import os
import shutil
import subprocess

import numpy as np


class ImpactsweepError(RuntimeError):
    """impactsweep refused or failed; the message is its own (a refused point: its line
    and the command line's message)."""


def rank_count(ranks: object) -> int:
    """RANKS as a count of processes (a positive whole number, None for 1); anything else
    is refused, as `-n` is on the command line, rather than rounded or ignored."""
    if ranks is None:
        return 1
    if isinstance(ranks, bool) or not isinstance(ranks, (int, np.integer)):
        raise TypeError(f"ranks={ranks!r}: give a whole number of processes (1 or more)")
    if ranks < 1:
        raise ValueError(f"ranks={ranks}: give a whole number of processes (1 or more)")
    return int(ranks)


def command() -> str:
    """The impactsweep executable this module runs: the environment variable IMPACTSWEEP
    (its path), else the one beside this package in an installation (bin/impactsweep, four
    levels up from share/impactsweep/python/impactsweep or lib/python3.X/site-packages/
    impactsweep) or in a source tree (build/), else the first on PATH."""
    given = os.environ.get("IMPACTSWEEP")
    if given:
        return given
    here = os.path.dirname(os.path.abspath(__file__))
    for candidate in (os.path.join(here, "..", "..", "..", "..", "bin", "impactsweep"),
                      os.path.join(here, "..", "..", "build", "impactsweep")):
        if os.access(candidate, os.X_OK):
            return os.path.normpath(candidate)
    found = shutil.which("impactsweep")
    if found:
        return found
    raise ImpactsweepError("impactsweep not found: set IMPACTSWEEP to its path or put it "
                           "on PATH")


@functools.lru_cache(maxsize=64)
def _describe(executable: str, model: str, model_path: str) -> dict:
    proc = subprocess.run([executable, "models", model, "--json"], capture_output=True,
                          text=True)
    if proc.returncode != 0:
        message = proc.stderr.strip().replace("impactsweep: ", "") or f"exit status {proc.returncode}"
        raise ImpactsweepError(f"model {model}: {message}")
    return json.loads(proc.stdout)


def describe(model: str) -> dict:
    """MODEL's table as the engine gives it: parameters (type, unit, long_name, label,
    default, range, choices) and outputs (type, the dtype a file stores, units, long_name,
    label, categories), and the status codes. Cached per model and plug-in path."""
    return _describe(command(), model, os.environ.get("IMPACTSWEEP_MODEL_PATH", ""))
