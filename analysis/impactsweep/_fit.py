"""_fit: a model's parameters fitted to measured data by bounded nonlinear least squares
(scipy.optimize.least_squares, trust-region reflective), every evaluation the optimizer
needs at a point (the residuals and the finite-difference Jacobian's columns) sent to the
engine as one `impactsweep eval` batch over the ranks, from a fixed set of starts."""

import time
from typing import Dict, Optional, Sequence

import numpy as np
import xarray as xr

from ._command import ImpactsweepError, describe
from ._eval import evaluate
from ._fitdata import FitData, read_data
from ._fitresult import FitResult, diagnose

# A failed point (refused, solver failure, no value) counts as this many sigmas off: far
# worse than any fit, so that a step into a region where the engine fails is rejected,
# yet finite, as least_squares requires.
FAILED_RESIDUAL = 1e3


def bound_problem(start: float, lower: float, upper: float) -> Optional[str]:
    """What is wrong with a free parameter's START and bounds, or None (the same rule for
    fit()'s FREE and a FIT.ini's [free])."""
    if not lower < upper:
        return f"lower bound {lower!r} not below upper bound {upper!r}"
    if not lower <= start <= upper:
        return f"start {start!r} outside [{lower!r}, {upper!r}]"
    return None


def _free_table(free, table: dict) -> Dict[str, tuple]:
    """FREE as {name: (start, lower, upper)}: a triple, or a dict with start/min/max
    (lmfit's names) or start/lower/upper; checked against the model's parameters."""
    params = {p["name"]: p for p in table["parameters"]}
    out = {}
    for name, spec in free.items():
        if name not in params:
            raise ImpactsweepError(f"fit {table['model']}: unknown parameter {name!r} "
                                   f"(known: {', '.join(params)})")
        if params[name]["type"] != "real":
            raise ImpactsweepError(f"fit {table['model']}: parameter {name} is a "
                                   f"{params[name]['type']}: only real parameters can be free")
        if isinstance(spec, dict):
            start = spec.get("start", spec.get("value"))
            lower = spec.get("lower", spec.get("min", -np.inf))
            upper = spec.get("upper", spec.get("max", np.inf))
        else:
            spec = list(np.atleast_1d(spec))
            if len(spec) not in (1, 3):
                raise ImpactsweepError(f"fit: free parameter {name}: give start or "
                                       f"(start, lower, upper), not {spec!r}")
            start, lower, upper = (spec + [-np.inf, np.inf])[:3] if len(spec) == 1 else spec
        start, lower, upper = float(start), float(lower), float(upper)
        lower = max(lower, float(params[name]["min"]))
        upper = min(upper, float(params[name]["max"]))
        problem = bound_problem(start, lower, upper)
        if problem:
            raise ImpactsweepError(f"fit: free parameter {name}: {problem}")
        out[name] = (start, lower, upper)
    if not out:
        raise ImpactsweepError("fit: no free parameter")
    return out


def _candidates(x0, lower, upper, count: int, seed: int) -> np.ndarray:
    """COUNT points of a scrambled Sobol sequence of fixed seed within the bounds
    (log-uniform along a positive range of more than two decades, an unbounded side
    replaced by the start +- 10 (1 + |start|)), strictly inside: the same points every run,
    so the fit is deterministic."""
    from scipy.stats import qmc
    lo = np.where(np.isfinite(lower), lower, x0 - 10 * (1 + np.abs(x0)))
    hi = np.where(np.isfinite(upper), upper, x0 + 10 * (1 + np.abs(x0)))
    u = qmc.Sobol(d=len(x0), scramble=True, seed=seed).random(
        int(2 ** np.ceil(np.log2(max(count, 2)))))[:count]
    x = lo + u * (hi - lo)
    logs = (lo > 0) & (hi / np.where(lo > 0, lo, 1) > 100)
    if logs.any():
        x[:, logs] = np.exp(np.log(lo[logs]) + u[:, logs] * np.log(hi[logs] / lo[logs]))
    # the trust-region reflective method starts from interior points
    return np.clip(x, lo + 1e-9 * (hi - lo), hi - 1e-9 * (hi - lo))


class _Problem:
    """The residual function and its Jacobian over the engine, with the evaluations of a
    point (x and its perturbations) made in one batch and cached, so that least_squares'
    call of jac at the point it just evaluated costs nothing more."""

    def __init__(self, model, data: FitData, names, lower, upper, fixed, ranks, timeout,
                 rel_step, diff):
        self.model, self.data, self.names = model, data, names
        self.lower, self.upper = lower, upper
        self.fixed, self.ranks, self.timeout = fixed, ranks, timeout
        self.rel_step, self.diff = rel_step, diff
        self.points = 0      # points the engine evaluated
        self.batches = 0     # eval calls
        self.failed = 0      # points that failed (refused, solver failure, no value)
        self._cache = {}

    def steps(self, x):
        """Each parameter's finite-difference step, and its sign: forward unless that
        would cross the upper bound (then backward)."""
        h = self.rel_step * np.maximum(np.abs(x), 1e-3 * np.maximum(1.0, np.abs(x)))
        h = np.where(x + h > self.upper, -h, h)
        return h

    def outputs(self, thetas: np.ndarray) -> np.ndarray:
        """The model's outputs at every data row for each parameter vector of THETAS (K x
        n): an array K x rows x outputs, NaN where the point failed. One batch."""
        k, rows = thetas.shape[0], self.data.rows
        dim = "fit_point"
        params = dict(self.fixed)
        for name, column in self.data.inputs.items():
            params[name] = xr.DataArray(np.tile(column, k), dims=[dim])
        for j, name in enumerate(self.names):
            params[name] = xr.DataArray(np.repeat(thetas[:, j], rows), dims=[dim])
        ds = evaluate(self.model, params, self.ranks, "keep", self.timeout, True)
        self.points += k * rows
        self.batches += 1
        done = np.asarray(ds["status"].values) == "done"
        out = np.empty((k * rows, len(self.data.outputs)))
        for i, name in enumerate(self.data.outputs):
            values = np.asarray(ds[name].values, dtype=float).reshape(-1)
            out[:, i] = np.where(done, values, np.nan)
        self.failed += int(np.count_nonzero(~np.isfinite(out).all(axis=1)))
        return out.reshape(k, rows, len(self.data.outputs))

    def residual_of(self, y: np.ndarray) -> np.ndarray:
        r = (y - self.data.values) / self.data.sigma
        return np.where(np.isfinite(r), r, FAILED_RESIDUAL).T.reshape(-1)

    def _evaluate(self, x):
        key = np.asarray(x, dtype=float).tobytes()
        if key in self._cache:
            return self._cache[key]
        h = self.steps(x)
        n = len(x)
        thetas = [x]
        for j in range(n):
            e = np.zeros(n)
            e[j] = h[j]
            thetas.append(x + e)
            if self.diff == "central":
                thetas.append(np.clip(x - e, self.lower, self.upper))
        y = self.outputs(np.array(thetas))
        r0 = self.residual_of(y[0])
        if self.diff == "central":
            cols = [(thetas[1 + 2 * j], y[1 + 2 * j], thetas[2 + 2 * j], y[2 + 2 * j])
                    for j in range(n)]
        else:
            cols = [(thetas[1 + j], y[1 + j], x, y[0]) for j in range(n)]
        # A forward step that leaves the region where the model is defined (a perturbed
        # point failed where the base point did not): the backward step instead, the
        # columns concerned in one more batch.
        redo = [j for j in range(n) if self.diff == "forward" and
                (np.isfinite(y[0]) & ~np.isfinite(y[1 + j])).any()]
        if redo:
            back = np.array([np.clip(x - np.eye(n)[j] * h[j], self.lower, self.upper)
                             for j in redo])
            yb = self.outputs(back)
            for k, j in enumerate(redo):
                cols[j] = (x, y[0], back[k], yb[k])
        jac = np.zeros((len(r0), n))
        for j, (xp, yp, xm, ym) in enumerate(cols):
            col = (self.residual_of(yp) - self.residual_of(ym)) / (xp[j] - xm[j])
            # a failed point says nothing about the slope there
            bad = ~(np.isfinite(yp) & np.isfinite(ym)).T.reshape(-1)
            jac[:, j] = np.where(bad, 0.0, col)
        self._cache = {key: (r0, jac, y[0])}
        return self._cache[key]

    def fun(self, x):
        return self._evaluate(x)[0]

    def jac(self, x):
        return self._evaluate(x)[1]


def fit(model: str, data, free, fixed: Optional[Dict[str, object]] = None, *,
        ranks: Optional[int] = None, outputs: Optional[Sequence[str]] = None,
        n_starts: int = 4, screen: int = 8, seed: int = 0, diff: str = "forward",
        rel_step: float = 1e-5,
        max_nfev: Optional[int] = None, ftol: float = 1e-8, xtol: float = 1e-8,
        gtol: float = 1e-8, scale_covar: Optional[bool] = None, profile: bool = True,
        timeout: Optional[float] = None, report: Optional[str] = None,
        figure: Optional[str] = None, x: Optional[str] = None,
        command_line: Optional[str] = None) -> FitResult:
    """MODEL's FREE parameters fitted to DATA by bounded nonlinear least squares.

    DATA: a CSV file, a pandas DataFrame, a dict of arrays or an xarray Dataset, with
    columns named after model parameters (the inputs, e.g. v0, one value per row), model
    outputs (the measurements, e.g. cor) and optionally sigma_<output> (each row's
    standard uncertainty; 1 where not given). OUTPUTS: the measured columns to fit
    (default: every column named after an output). FREE: {name: (start, lower, upper)}
    (or a dict start/min/max); bounds are also clipped to the model's admissible range.
    FIXED: other parameters (scalars, choices by name), the model's default otherwise.

    Each residual is (model - measured)/sigma. At every point the optimizer visits, the
    residuals and the Jacobian's finite differences (DIFF forward or central, step
    REL_STEP relative) are computed in one `impactsweep eval -n RANKS` batch. The fit
    runs from N_STARTS starts and keeps the least cost: FREE's start values, and the
    N_STARTS - 1 least costly of SCREEN x (N_STARTS - 1) points of a scrambled Sobol set
    of seed SEED within the bounds (their residuals computed in one batch). A point the
    engine fails or refuses counts as FAILED_RESIDUAL sigmas off (the optimizer rejects
    the step); a perturbed point that fails gives the backward difference instead.

    PROFILE: each parameter's profile is walked (the others refitted) until the
    chi-square rises by 9; where that 3-sigma interval is wider than 3 linear standard
    errors (the chi-square is not quadratic), stderr is a third of its larger half and a
    warning says so (stderr_linear keeps the Jacobian's); a lower minimum met on the way
    is moved to. SCALE_COVAR: scale the covariance by the reduced chi-square (lmfit's
    default); None: only when DATA gives no sigma (sigma given is taken as known).
    REPORT: a JSON file with the result, its provenance, the data and the fitted curve
    against input X with its 95% confidence band (enough for `impactplot REPORT`);
    FIGURE: an image of the data, fitted curve and band (see plot_fit)."""
    from scipy.optimize import least_squares
    use_profile = profile

    if diff not in ("forward", "central"):
        raise ValueError(f"diff={diff!r}: give 'forward' or 'central'")
    table = describe(model)
    fixed = dict(fixed or {})
    spec = _free_table(free, table)
    known = {p["name"] for p in table["parameters"]}
    for name in fixed:
        if name not in known:
            raise ImpactsweepError(f"fit {model}: unknown parameter {name!r} in fixed "
                                   f"(known: {', '.join(sorted(known))})")
        if name in spec:
            raise ImpactsweepError(f"fit {model}: parameter {name} both free and fixed")
    fd = read_data(data, table, set(spec), fixed, outputs)
    if x is not None and x not in fd.inputs:
        raise ImpactsweepError(f"fit: x = {x!r}: the data have no input column {x} (have: "
                               f"{', '.join(fd.inputs) or 'none'})")
    names = list(spec)
    x0 = np.array([spec[n][0] for n in names])
    lower = np.array([spec[n][1] for n in names])
    upper = np.array([spec[n][2] for n in names])
    problem = _Problem(model, fd, names, lower, upper, fixed, ranks, timeout, rel_step, diff)

    begin = time.perf_counter()
    starts = [x0]
    if n_starts > 1:
        # Screening: SCREEN candidates per start in one batch (their residuals only); the
        # least costly feasible ones join the given start.
        cand = _candidates(x0, lower, upper, screen * (n_starts - 1), seed)
        costs = np.array([0.5 * float(np.sum(problem.residual_of(y) ** 2))
                          for y in problem.outputs(cand)])
        order = [int(i) for i in np.argsort(costs, kind="stable")]
        starts += [cand[i] for i in order[:n_starts - 1]]
    opts = {"method": "trf", "x_scale": "jac", "ftol": ftol, "xtol": xtol, "gtol": gtol,
            "max_nfev": max_nfev}
    runs = []
    for start in starts:
        sol = least_squares(problem.fun, start, jac=problem.jac, bounds=(lower, upper), **opts)
        runs.append({"start": start.tolist(), "x": sol.x.tolist(), "cost": float(sol.cost),
                     "nfev": int(sol.nfev), "status": int(sol.status),
                     "message": sol.message, "sol": sol})
    best = min(runs, key=lambda r: (r["cost"], runs.index(r)))
    sol = best.pop("sol")
    for r in runs:
        r.pop("sol", None)
    if scale_covar is None:
        scale_covar = not fd.sigma_given
    subproblems = [problem]

    def refit(j, value, start):
        """The least cost with parameter j held at VALUE, the others refitted from START."""
        keep = [i for i in range(len(names)) if i != j]
        sub = _Problem(model, fd, [names[i] for i in keep], lower[keep], upper[keep],
                       dict(fixed, **{names[j]: value}), ranks, timeout, rel_step, diff)
        subproblems.append(sub)
        full = np.array(start, dtype=float)
        full[j] = value
        if not keep:
            y = sub.outputs(np.zeros((1, 0)))[0]
            c = 0.5 * float(np.sum(sub.residual_of(y) ** 2))
        else:
            lo, hi = lower[keep], upper[keep]
            inner = np.clip(full[keep], lo + 1e-9 * (hi - lo), hi - 1e-9 * (hi - lo))
            inner = np.where(np.isfinite(inner), inner, full[keep])
            if not np.isfinite(sub._evaluate(inner)[2]).all():
                # the start is outside the model's domain here (e.g. |pi3b| < pi2b): the
                # most feasible and least costly of a screened set instead, one batch
                cand = np.vstack([inner, _candidates(inner, lo, hi, screen * 2, seed)])
                ys = sub.outputs(cand)
                score = [(np.count_nonzero(~np.isfinite(y)),
                          float(np.sum(sub.residual_of(y) ** 2))) for y in ys]
                inner = cand[min(range(len(cand)), key=lambda i: score[i])]
            # a profile needs the chi-square to a few hundredths, not the optimum's digits
            s = least_squares(sub.fun, inner, jac=sub.jac, bounds=(lo, hi),
                              **dict(opts, ftol=max(ftol, 1e-6), xtol=max(xtol, 1e-6),
                                     gtol=max(gtol, 1e-6)))
            full[keep] = s.x
            c = float(s.cost)
            y = sub._evaluate(s.x)[2]
        return (c if np.isfinite(y).all() else np.inf), full

    profiles = None
    for _ in range(3):
        r0, jac, y0 = problem._evaluate(sol.x)
        result = diagnose(model=model, names=names, x=sol.x, lower=lower, upper=upper,
                          residuals=r0, jac=jac, fitted=y0, data=fd, fixed=fixed,
                          scale_covar=scale_covar)
        if not use_profile:
            break
        from ._fitprofile import profile
        profiles, better = profile(names, sol.x, float(sol.cost), result.stderr, lower,
                                   upper, result.redchi if scale_covar else 1.0, refit)
        if better is None:
            break
        # the profile met a lower minimum: the fit moves there and is diagnosed anew
        sol = least_squares(problem.fun, better, jac=problem.jac, bounds=(lower, upper),
                            **opts)
        runs.append({"start": better.tolist(), "x": sol.x.tolist(), "cost": float(sol.cost),
                     "nfev": int(sol.nfev), "status": int(sol.status),
                     "message": sol.message, "from": "profile"})
        best = runs[-1]
    if profiles:
        result.apply_profiles(profiles)
    elapsed = time.perf_counter() - begin
    result.success = bool(sol.status > 0)
    result.message = sol.message
    result.nfev = sum(p.points for p in subproblems)
    result.nbatches = sum(p.batches for p in subproblems)
    result.nfailed = sum(p.failed for p in subproblems)
    result.time = elapsed
    result.ranks = int(ranks or 1)
    result.starts = runs
    result.settings = {"n_starts": int(n_starts), "screen": int(screen), "seed": int(seed),
                       "diff": diff,
                       "rel_step": rel_step, "ftol": ftol, "xtol": xtol, "gtol": gtol,
                       "max_nfev": max_nfev, "scale_covar": bool(scale_covar),
                       "failed_residual": FAILED_RESIDUAL, "method": "trf",
                       "profile": bool(use_profile)}
    result.command_line = command_line
    # Another start's minimum within chi-square + 9 (3 sigma) yet more than 3 standard
    # errors away: the local standard errors understate what the data leave open.
    scale = result.redchi if scale_covar else 1.0
    for r in runs:
        dx = [(r["x"][j] - sol.x[j]) / result.stderr[n] for j, n in enumerate(names)
              if result.stderr[n] > 0]
        far = [n for j, n in enumerate(names) if result.stderr[n] > 0 and
               abs(r["x"][j] - sol.x[j]) > 3 * result.stderr[n]]
        if r["cost"] > best["cost"] and 2 * (r["cost"] - best["cost"]) <= 9 * scale and far:
            where = ", ".join("%s = %.4g" % (n, r["x"][names.index(n)]) for n in far)
            result.warnings.append(
                f"another minimum, chi-square higher by {2 * (r['cost'] - best['cost']):.3g}, "
                f"at {where} (more "
                f"than 3 standard errors away, up to {max(abs(d) for d in dx):.1f}): the data "
                "do not single out one solution")
    if result.nfailed:
        result.warnings.append(f"{result.nfailed} of {result.nfev} evaluated points "
                               "failed (counted as far off: steps into them rejected)")
    if report or figure:
        # one curve (one more batch) for both: the figure draws what the report holds
        from ._fitreport import fit_curve, plot_fit, write_report
        result.curve = fit_curve(result, x=x, ranks=ranks, rel_step=rel_step)
        if report:
            write_report(result, report)
        if figure:
            plot_fit(result, output=figure, x=x, ranks=ranks)
    return result
