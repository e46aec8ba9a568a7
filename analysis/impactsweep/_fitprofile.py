"""_fitprofile: each free parameter's profile (the least chi-square with that parameter held
at a value and the others refitted), walked outwards from the estimate until the
chi-square has risen by 9 (three standard deviations) or a bound is met. Where the
chi-square is far from quadratic (a weakly identified Bouc-Wen group on an e(v0) curve
is), the Jacobian's standard error understates the uncertainty; the profile's interval
does not, and a lower minimum met on the way is returned so the fit can move there."""

from typing import Callable, Dict, List, Optional, Tuple

import numpy as np

DCHI2 = 9.0                            # three standard deviations (Wilks, one parameter)
STEPS = (1, 2, 4, 8, 16, 32)          # multiples of the linear standard error
BISECTIONS = 3                         # refinements of a crossing of DCHI2


def profile(names: List[str], x: np.ndarray, cost: float, stderr: Dict[str, float],
            lower: np.ndarray, upper: np.ndarray, scale: float,
            refit: Callable[[int, float, np.ndarray], Tuple[float, np.ndarray]]
            ) -> Tuple[Dict[str, dict], Optional[np.ndarray]]:
    """For each parameter j: REFIT(j, value, start) -> (cost, full x) at points
    value = x_j +- k stderr_j (k in STEPS) until 2 (cost - COST)/SCALE passes DCHI2.
    Returns {name: {lower, upper (the 3-sigma interval; a bound or the last point if the
    profile never rose that far), bounded_lower, bounded_upper, points}}, and a point of
    lower cost if one was met (else None)."""
    out, better, best_cost = {}, None, cost
    for j, name in enumerate(names):
        se = stderr[name]
        if not np.isfinite(se) or se <= 0:
            se = 0.1 * (upper[j] - lower[j]) if np.isfinite(upper[j] - lower[j]) \
                else 0.1 * max(1.0, abs(x[j]))
        entry = {"points": [[float(x[j]), 0.0]]}
        for side, bound in ((-1, lower[j]), (1, upper[j])):
            key = "lower" if side < 0 else "upper"
            start, prev_t, prev_d = x.copy(), float(x[j]), 0.0
            edge, closed = float(bound), False
            for k in STEPS:
                t = x[j] + side * k * se
                at_bound = (t <= bound) if side < 0 else (t >= bound)
                if at_bound:
                    t = float(bound) - side * 1e-9 * max(1.0, abs(bound))
                c, xs = refit(j, float(t), start)
                for _ in range(3):     # failed: closer to the last good value
                    if np.isfinite(c):
                        break
                    t, at_bound = 0.5 * (prev_t + t), False
                    c, xs = refit(j, float(t), start)
                if not np.isfinite(c):
                    break              # the model is not defined there: the profile ends
                d = 2.0 * (c - cost) / scale
                entry["points"].append([float(t), float(d)])
                if c < best_cost - 1e-9 * max(1.0, best_cost):
                    best_cost, better = c, xs.copy()
                if d >= DCHI2:
                    # Bisect towards the crossing from the last point below it (warm starts
                    # from there: a refit far from its start may stop in a worse minimum
                    # and close the interval too early), then interpolate linearly.
                    for _ in range(BISECTIONS):
                        mid = 0.5 * (prev_t + t)
                        cm, xm = refit(j, float(mid), start)
                        if not np.isfinite(cm):
                            t, d = mid, np.inf
                            continue
                        dm = 2.0 * (cm - cost) / scale
                        entry["points"].append([float(mid), float(dm)])
                        if cm < best_cost - 1e-9 * max(1.0, best_cost):
                            best_cost, better = cm, xm.copy()
                        if dm >= DCHI2:
                            t, d = mid, dm
                        else:
                            prev_t, prev_d, start = mid, dm, xm
                    edge = prev_t if not np.isfinite(d) else \
                        prev_t + (DCHI2 - prev_d) * (t - prev_t) / (d - prev_d)
                    closed = True
                    break
                start, prev_t, prev_d = xs, float(t), d
                edge = float(t)
                if at_bound:
                    break
            entry[key] = float(edge)
            entry[f"bounded_{key}"] = closed
        entry["points"].sort()
        out[name] = entry
    return out, better
