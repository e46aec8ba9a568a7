"""_fitresult: the result of a fit, shaped like lmfit's (params and stderr by name, cov,
corr, residuals, cost, evaluations, time), and the diagnosis of what the data cannot tell
apart: correlated parameters, an ill-conditioned problem, a parameter at its bound, a flat
direction; each warning names the parameters."""

from dataclasses import dataclass, field
from typing import Dict, List, Optional

import numpy as np

from ._fitdata import FitData

CORR_LIMIT = 0.99        # |correlation| beyond which two parameters are not told apart
COND_LIMIT = 1e8         # condition number of the (column-scaled) normal matrix J^T J
FLAT_COMPONENT = 0.3     # a parameter takes part in a flat direction beyond this share


@dataclass
class FitResult:
    model: str
    names: List[str]
    params: Dict[str, float]
    stderr: Dict[str, float]
    cov: np.ndarray
    corr: np.ndarray
    residuals: np.ndarray            # (model - data)/sigma, output by output
    fitted: np.ndarray               # rows x outputs, the model at the solution
    cost: float                      # half the sum of squared residuals (least_squares')
    chisqr: float
    redchi: float
    rms: float                       # rms of model - data, in the data's units
    condition: float
    bounds: Dict[str, tuple]
    fixed: Dict[str, object]
    data: FitData
    warnings: List[str] = field(default_factory=list)
    success: bool = False
    message: str = ""
    nfev: int = 0                    # points the engine evaluated
    nbatches: int = 0                # eval batches (one per point the optimizer visited)
    nfailed: int = 0
    time: float = 0.0
    ranks: int = 1
    starts: List[dict] = field(default_factory=list)
    settings: Dict[str, object] = field(default_factory=dict)
    command_line: Optional[str] = None
    report: Optional[str] = None
    stderr_linear: Dict[str, float] = field(default_factory=dict)   # from the Jacobian
    profiles: Dict[str, dict] = field(default_factory=dict)
    curve: Optional[dict] = None     # the fitted curve and its band (report, figure)

    def apply_profiles(self, profiles: Dict[str, dict]) -> None:
        """Standard errors from the profiles' 3-sigma intervals where those are wider than
        3 linear standard errors; warnings where a side never reached it."""
        self.profiles = profiles
        self.stderr_linear = dict(self.stderr)
        for name, p in profiles.items():
            x, se = self.params[name], self.stderr[name]
            half = max(x - p["lower"], p["upper"] - x)
            open_sides = [s for s in ("lower", "upper") if not p[f"bounded_{s}"]]
            if half / 3 > 1.5 * se or not np.isfinite(se):
                self.stderr[name] = half / 3
                self.warnings.append(
                    f"{name}: the chi-square is not quadratic; standard error "
                    f"{half / 3:.3g} from the profile's 3-sigma interval [{p['lower']:.4g}, "
                    f"{p['upper']:.4g}] (linear {se:.3g})")
            if open_sides:
                self.warnings.append(
                    f"{name}: the chi-square rises by less than 9 up to "
                    f"{' and '.join(f'{p[s]:.4g}' for s in open_sides)} (a bound, or where "
                    "the model's points fail): the data do not bound it on that side")
            elif half / 3 > abs(x) and self.stderr[name] == half / 3:
                pass  # the standard error above already exceeds the estimate

    @property
    def ndata(self) -> int:
        return self.residuals.size

    @property
    def nfree(self) -> int:
        return self.ndata - len(self.names)

    def __str__(self) -> str:
        lines = [f"fit of {self.model}: {', '.join(self.data.outputs)} at {self.data.rows} "
                 f"rows; {'converged' if self.success else 'NOT converged'} ({self.message})",
                 f"  cost {self.cost:.6g}, chi-square {self.chisqr:.6g}, reduced "
                 f"{self.redchi:.6g}, rms {self.rms:.4g}; condition {self.condition:.3g}",
                 f"  {self.nfev} points in {self.nbatches} batches, {self.time:.2f} s on "
                 f"{self.ranks} rank{'s' if self.ranks > 1 else ''}"]
        for n in self.names:
            lo, hi = self.bounds[n]
            lines.append(f"  {n:>10} = {self.params[n]:.8g} +/- {self.stderr[n]:.3g}"
                         f"   [{lo:.4g}, {hi:.4g}]")
        lines += [f"  warning: {w}" for w in self.warnings]
        return "\n".join(lines)

    def as_dict(self) -> dict:
        def num(v):
            v = float(v)
            return v if np.isfinite(v) else str(v)
        return {"model": self.model, "free": self.names,
                "params": {n: num(v) for n, v in self.params.items()},
                "stderr": {n: num(v) for n, v in self.stderr.items()},
                "bounds": {n: [num(a), num(b)] for n, (a, b) in self.bounds.items()},
                "fixed": {n: (v if isinstance(v, str) else num(v))
                          for n, v in self.fixed.items()},
                "cov": [[num(v) for v in row] for row in self.cov],
                "corr": [[num(v) for v in row] for row in self.corr],
                "cost": self.cost, "chisqr": self.chisqr, "redchi": self.redchi,
                "rms": self.rms, "condition": num(self.condition),
                "ndata": self.ndata, "nfree": self.nfree,
                "residuals": self.residuals.tolist(),
                "fitted": {o: self.fitted[:, i].tolist()
                           for i, o in enumerate(self.data.outputs)},
                "warnings": self.warnings, "success": self.success, "message": self.message,
                "nfev": self.nfev, "nbatches": self.nbatches, "nfailed": self.nfailed,
                "time": self.time, "ranks": self.ranks, "starts": self.starts,
                "settings": self.settings,
                "stderr_linear": {n: num(v) for n, v in self.stderr_linear.items()},
                "profiles": self.profiles}


def _near_bound(x, lo, hi):
    span = hi - lo if np.isfinite(hi - lo) else max(1.0, abs(x))
    tol = 1e-4 * span
    if np.isfinite(lo) and x - lo <= tol:
        return "lower", lo
    if np.isfinite(hi) and hi - x <= tol:
        return "upper", hi
    return None


def diagnose(*, model, names, x, lower, upper, residuals, jac, fitted, data: FitData,
             fixed, scale_covar) -> FitResult:
    """The covariance (J^T J)^-1 from the Jacobian of the weighted residuals at the
    solution (times the reduced chi-square if SCALE_COVAR), its correlations, and the
    warnings."""
    m, n = jac.shape
    chisqr = float(residuals @ residuals)
    dof = max(m - n, 1)
    redchi = chisqr / dof
    warnings = []
    norms = np.linalg.norm(jac, axis=0)
    # Condition and flat directions of the column-scaled problem: independent of units.
    scaled = jac / np.where(norms > 0, norms, 1.0)
    _, s_scaled, vt_scaled = np.linalg.svd(scaled, full_matrices=False)
    condition = float((s_scaled[0] / s_scaled[-1]) ** 2) if s_scaled[-1] > 0 else np.inf
    _, s, vt = np.linalg.svd(jac, full_matrices=False)
    tiny = np.finfo(float).eps * max(m, n) * (s[0] if s.size else 0.0)
    inv_s2 = np.where(s > tiny, 1.0 / np.where(s > tiny, s, 1.0) ** 2, 0.0)
    cov = (vt.T * inv_s2) @ vt
    if scale_covar:
        cov = cov * redchi
    var = np.diag(cov).copy()
    for k in np.nonzero(s <= tiny)[0]:          # no information along vt[k]: unbounded
        var[np.abs(vt[k]) > 1e-6] = np.inf
    for j in np.nonzero(norms == 0)[0]:
        var[j] = np.inf
        warnings.append(f"flat direction: the data do not depend on {names[j]} at all "
                        "(its column of the Jacobian is zero)")
    stderr = np.sqrt(np.maximum(var, 0.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        d = np.sqrt(np.diag(cov))
        corr = cov / np.outer(d, d)
    corr[~np.isfinite(corr)] = np.nan
    for i in range(n):
        corr[i, i] = 1.0
        for j in range(i + 1, n):
            if np.isfinite(corr[i, j]) and abs(corr[i, j]) > CORR_LIMIT:
                warnings.append(f"{names[i]} and {names[j]} are correlated (corr "
                                f"{corr[i, j]:+.4f}): the data hardly tell them apart")
    if condition > COND_LIMIT:
        v = vt_scaled[-1]
        involved = [names[j] for j in np.argsort(-np.abs(v)) if abs(v[j]) > FLAT_COMPONENT]
        combo = " ".join(f"{v[j]:+.2f} {names[j]}" for j in np.argsort(-np.abs(v))
                         if abs(v[j]) > FLAT_COMPONENT)
        warnings.append(f"condition number {condition:.3g} beyond {COND_LIMIT:.0e}: a flat "
                        f"direction ({combo}, column-scaled): "
                        f"{', '.join(involved)} cannot be determined separately")
    for j, name in enumerate(names):
        at = _near_bound(x[j], lower[j], upper[j])
        if at:
            warnings.append(f"{name} = {x[j]:.6g} at its {at[0]} bound {at[1]:.6g}: its "
                            "standard error does not hold there")
        if np.isfinite(stderr[j]) and stderr[j] > abs(x[j]) or not np.isfinite(stderr[j]):
            warnings.append(f"{name}: standard error {stderr[j]:.3g} larger than the estimate "
                            f"{x[j]:.6g}: not determined by the data")
    diff = (fitted - data.values)
    rms = float(np.sqrt(np.nanmean(diff ** 2))) if np.isfinite(diff).any() else np.inf
    return FitResult(model=model, names=list(names),
                     params={nm: float(v) for nm, v in zip(names, x)},
                     stderr={nm: float(v) for nm, v in zip(names, stderr)},
                     cov=cov, corr=corr, residuals=residuals, fitted=fitted,
                     cost=0.5 * chisqr, chisqr=chisqr, redchi=redchi, rms=rms,
                     condition=condition,
                     bounds={nm: (float(a), float(b)) for nm, a, b in zip(names, lower, upper)},
                     fixed=dict(fixed), data=data, warnings=warnings)
