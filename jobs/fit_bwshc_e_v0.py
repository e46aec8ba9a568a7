#!/usr/bin/python3
"""The synthetic measurement fit_bwshc_e_v0.csv that fit_bwshc.ini fits: the coefficient
of restitution e(v0) of a Bouc-Wen-Simon-Hunt-Crossley law in its velocity form at 25
impact speeds (log-spaced, 0.05 to 20), each with Gaussian noise of known standard
deviation SIGMA (fixed seed: the file is reproducible). The true base parameters are
written in the file's header, so that a fit can be judged against them.

    /usr/bin/python3 jobs/fit_bwshc_e_v0.py [OUTPUT.csv]
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis"))

import numpy as np  # noqa: E402

import impactsweep as isw  # noqa: E402

TRUTH = {"pi1b": 0.5, "pi2b": 1.0, "pi3b": 0.5}
FIXED = {"law": "bwshc", "form": "velocity", "n": 1.0, "p": 2.0, "alpha": 0.5, "A": 1.0}
SIGMA = 0.01
SEED = 20241011


def generate(rows: int = 25, sigma: float = SIGMA, seed: int = SEED, truth=TRUTH,
             fixed=FIXED, v0_range=(0.05, 20.0)) -> dict:
    """Columns v0, cor (noisy), sigma_cor, and the noiseless cor_true."""
    v0 = np.geomspace(*v0_range, rows)
    exact = isw.eval("collision", dict(fixed, **truth), v0=v0).cor.values
    noise = np.random.default_rng(seed).normal(0.0, sigma, rows)
    return {"v0": v0, "cor": exact + noise, "sigma_cor": np.full(rows, sigma),
            "cor_true": exact}


def main() -> None:
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "fit_bwshc_e_v0.csv")
    d = generate()
    with open(out, "w") as f:
        f.write(f"# e(v0) of collision law=bwshc form=velocity "
                f"{' '.join(f'{k}={v}' for k, v in FIXED.items() if k not in ('law', 'form'))}"
                f"; truth {' '.join(f'{k}={v}' for k, v in TRUTH.items())}; Gaussian noise "
                f"sigma={SIGMA}, numpy seed {SEED}; made by jobs/fit_bwshc_e_v0.py\n")
        f.write("v0,cor,sigma_cor\n")
        for v, e, s in zip(d["v0"], d["cor"], d["sigma_cor"]):
            f.write(f"{v!r},{e!r},{s!r}\n")
    print(out)


if __name__ == "__main__":
    main()
