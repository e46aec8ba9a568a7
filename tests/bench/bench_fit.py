#!/usr/bin/python3
"""bench_fit: the fitting bar measured on hidden synthetic data. For each of several hidden
parameter sets of a bwshc law in the velocity form (drawn with fixed seeds, away from the
example's), 25 noisy e(v0) points are made; the fit of (pi1b, pi2b, pi3b) from the
example's generic starts must recover each parameter within 3 of its reported standard
errors, with a residual rms within a factor 2 of the noise; with alpha and A also free the
fit must report a warning naming them or a standard error larger than its estimate. The
engine's `eval` processes are watched in /proc meanwhile: with ranks = 2 each batch must
run on 2 worker processes.

    IMPACTSWEEP=build/impactsweep /usr/bin/python3 tests/bench/bench_fit.py [--sets N]
        [--ranks R] [--first K]

Prints one line per set (the counts met) and a summary; exit status 0 when every set met
the bar, 1 otherwise. tests/python/test_fit.py runs one set of it as a test.
"""

import argparse
import os
import sys
import threading
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "analysis"))

SIGMA = 0.01                       # the noise's standard deviation
ROWS = 25
V0 = np.geomspace(0.05, 20.0, ROWS)
FIXED = {"law": "bwshc", "form": "velocity", "n": 1.0, "p": 2.0, "alpha": 0.5, "A": 1.0}
FREE = {"pi1b": (0.2, 1e-3, 10.0), "pi2b": (2.0, 1e-2, 10.0), "pi3b": (0.0, -5.0, 5.0)}
EXAMPLE = {"pi1b": 0.5, "pi2b": 1.0, "pi3b": 0.5}    # the example's truth: not used here


def hidden_set(k: int) -> dict:
    """Hidden set K (seeded): pi1b log-uniform in [0.2, 2], pi2b uniform in [0.5, 2.5],
    pi3b uniform in (-0.7, 0.7) pi2b (the model needs |pi3b| < pi2b)."""
    rng = np.random.default_rng(7100 + k)
    pi2b = rng.uniform(0.5, 2.5)
    truth = {"pi1b": float(10 ** rng.uniform(np.log10(0.2), np.log10(2.0))),
             "pi2b": float(pi2b), "pi3b": float(rng.uniform(-0.7, 0.7) * pi2b)}
    assert truth != EXAMPLE
    return truth


def noisy_data(truth: dict, k: int) -> dict:
    """ROWS points of e(v0) of TRUTH with Gaussian noise SIGMA (seeded by K)."""
    import impactsweep as isw
    exact = isw.eval("collision", dict(FIXED, **truth), v0=V0).cor.values
    if not np.isfinite(exact).all():
        raise RuntimeError(f"set {k}: the hidden law fails at some v0: {truth}")
    cor = exact + np.random.default_rng(8200 + k).normal(0.0, SIGMA, ROWS)
    return {"v0": V0, "cor": cor, "sigma_cor": np.full(ROWS, SIGMA)}


def _processes():
    """{pid: (name, parent pid)} of the processes now running."""
    out = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                text = f.read()
        except OSError:
            continue
        name = text[text.index("(") + 1:text.rindex(")")]
        fields = text[text.rindex(")") + 2:].split()
        out[int(entry)] = (name, int(fields[1]))
    return out


class WorkerWatch:
    """While active, samples /proc every few milliseconds for `impactsweep` processes that
    are children of an `impactsweep` process (eval's workers, forked by its pool): the
    most seen at once under one parent, and how many parents (eval batches) were seen."""

    def __init__(self, period: float = 0.005):
        self.period, self.most, self.parents = period, 0, set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        me = os.getpid()
        while not self._stop.is_set():
            procs = _processes()
            children = {}
            for pid, (name, ppid) in procs.items():
                parent = procs.get(ppid)
                if name == "impactsweep" and parent and parent[0] == "impactsweep" and \
                        parent[1] == me:
                    children.setdefault(ppid, set()).add(pid)
            for ppid, kids in children.items():
                self.parents.add(ppid)
                self.most = max(self.most, len(kids))
            time.sleep(self.period)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def workers_for(ranks: int, points: int = 3000) -> int:
    """The most worker processes seen at once under one `eval` of POINTS e(v0) points on
    RANKS ranks: a control of the watch (0 on one rank, where eval forks no pool)."""
    import impactsweep as isw
    with WorkerWatch() as watch:
        isw.eval("collision", dict(FIXED, **EXAMPLE), v0=np.geomspace(0.05, 20.0, points),
                 ranks=ranks)
    return watch.most


def measure(k: int, ranks: int = 2, n_starts: int = 3) -> dict:
    """The bar's counts on hidden set K: the fit of the three base parameters, then the
    same data with alpha and A also free."""
    import impactsweep as isw
    truth = hidden_set(k)
    data = noisy_data(truth, k)
    with WorkerWatch() as watch:
        r = isw.fit("collision", data, FREE, FIXED, ranks=ranks, n_starts=n_starts)
    within = {n: abs(r.params[n] - t) / r.stderr[n] for n, t in truth.items()}
    free5 = dict(FREE, alpha=(0.3, 0.01, 0.99), A=(2.0, 0.1, 10.0))
    fixed5 = {n: v for n, v in FIXED.items() if n not in free5}
    r5 = isw.fit("collision", data, free5, fixed5, ranks=ranks, n_starts=1, profile=False)
    named = [w for w in r5.warnings if "alpha" in w or " A " in f" {w} " or "A," in w]
    larger = [n for n in r5.names if not r5.stderr[n] <= abs(r5.params[n])]
    return {"set": k, "truth": truth, "fit": r, "fit5": r5,
            "z": within, "recovered": sum(z <= 3 for z in within.values()),
            "rms_ratio": r.rms / SIGMA, "rms_ok": 0.5 <= r.rms / SIGMA <= 2.0,
            "flagged": bool(named or larger), "named_warnings": len(named),
            "stderr_larger": larger, "workers": watch.most, "batches_seen": len(watch.parents),
            "ranks": ranks}


def met(m: dict) -> bool:
    """Whether set M met the whole bar."""
    return (m["recovered"] == 3 and m["rms_ok"] and m["flagged"] and
            (m["workers"] == m["ranks"] if m["ranks"] > 1 else m["workers"] == 0))


def line(m: dict) -> str:
    t, r = m["truth"], m["fit"]
    est = ", ".join(f"{n} {t[n]:.4g} -> {r.params[n]:.4g} +/- {r.stderr[n]:.2g} "
                    f"({m['z'][n]:.2f} se)" for n in t)
    return (f"set {m['set']}: {est}; {m['recovered']}/3 within 3 se; rms {r.rms:.4g} = "
            f"{m['rms_ratio']:.2f} sigma ({'ok' if m['rms_ok'] else 'NOT within 2x'}); "
            f"alpha, A free: {'flagged' if m['flagged'] else 'NOT flagged'} "
            f"({m['named_warnings']} warnings naming them, stderr > estimate: "
            f"{', '.join(m['stderr_larger']) or 'none'}); workers seen per batch: "
            f"{m['workers']} (ranks {m['ranks']}, {m['batches_seen']} batches seen); "
            f"{r.nfev} points in {r.nbatches} batches, {r.time:.1f} s"
            f"{'' if met(m) else '  <-- bar NOT met'}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sets", type=int, default=4)
    p.add_argument("--first", type=int, default=0)
    p.add_argument("--ranks", type=int, default=2)
    args = p.parse_args()
    controls = {r: workers_for(r) for r in (1, 3)}
    print(f"control: one eval batch of 3000 points: {controls[1]} workers seen on 1 rank, "
          f"{controls[3]} on 3 ranks", flush=True)
    results = []
    for k in range(args.first, args.first + args.sets):
        m = measure(k, args.ranks)
        print(line(m), flush=True)
        results.append(m)
    good = sum(met(m) for m in results)
    print(f"bar met on {good} of {len(results)} hidden sets; parameters within 3 se: "
          f"{sum(m['recovered'] for m in results)} of {3 * len(results)}; rms within 2x: "
          f"{sum(m['rms_ok'] for m in results)} of {len(results)}; alpha/A flagged: "
          f"{sum(m['flagged'] for m in results)} of {len(results)}; max workers per batch "
          f"{max(m['workers'] for m in results)} with ranks {args.ranks}")
    return 0 if good == len(results) and controls == {1: 0, 3: 3} else 1


if __name__ == "__main__":
    sys.exit(main())
