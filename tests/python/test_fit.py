"""impactsweep.fit and `impactfit FIT.ini`: recovery of a known Bouc-Wen-Simon-Hunt-Crossley
law from noisy e(v0) (independent truth: the data are made here from chosen parameters and
noise of known sigma), the warnings when the data cannot separate parameters, the same
answer on 1 and 2 ranks, the report's provenance, and refusal of bad FIT.ini files."""
import hashlib
import json
import os
import subprocess

import numpy as np
import pytest

from conftest import ROOT

TRUTH = {"pi1b": 0.5, "pi2b": 1.0, "pi3b": 0.5}
FIXED = {"law": "bwshc", "form": "velocity", "n": 1.0, "p": 2.0, "alpha": 0.5, "A": 1.0}
SIGMA = 0.01
FREE = {"pi1b": (0.2, 1e-3, 10.0), "pi2b": (2.0, 1e-2, 10.0), "pi3b": (0.0, -5.0, 5.0)}
IMPACTFIT = os.path.join(ROOT, "analysis", "impactfit.py")


@pytest.fixture(scope="module")
def noisy(impactsweep_binary):
    import impactsweep as isw
    v0 = np.geomspace(0.05, 10.0, 25)
    exact = isw.eval("collision", dict(FIXED, **TRUTH), v0=v0).cor.values
    cor = exact + np.random.default_rng(1).normal(0.0, SIGMA, v0.size)
    return {"v0": v0, "cor": cor, "sigma_cor": np.full(v0.size, SIGMA)}


@pytest.fixture(scope="module")
def fitted(noisy):
    import impactsweep as isw
    return isw.fit("collision", noisy, FREE, FIXED, n_starts=2)


def test_recovers_the_law_within_its_standard_errors(fitted):
    assert fitted.success, fitted.message
    for name, true in TRUTH.items():
        assert abs(fitted.params[name] - true) <= 3 * fitted.stderr[name], str(fitted)
    assert SIGMA / 2 <= fitted.rms <= 2 * SIGMA, str(fitted)
    # lmfit's shape: by name, the covariance symmetric with unit-diagonal correlations
    assert set(fitted.stderr) == set(TRUTH)
    assert np.allclose(fitted.cov, fitted.cov.T)
    assert np.allclose(np.diag(fitted.corr), 1.0)
    assert fitted.residuals.shape == (25,)
    assert fitted.cost == pytest.approx(0.5 * float(fitted.residuals @ fitted.residuals))
    # every batch is one point the optimizer visited: residuals and Jacobian together
    assert fitted.nfev >= fitted.nbatches * 25
    # the profile's interval holds the estimate, and never narrows the standard error
    for name in TRUTH:
        p = fitted.profiles[name]
        assert p["lower"] < fitted.params[name] < p["upper"]
        assert fitted.stderr[name] >= fitted.stderr_linear[name]


def test_failed_points_reject_steps_not_the_fit(noisy):
    """pi3b must stay below pi2b = 1: steps beyond fail in the engine, and the fit goes on."""
    import impactsweep as isw
    fixed = dict(FIXED, pi1b=TRUTH["pi1b"], pi2b=TRUTH["pi2b"])
    r = isw.fit("collision", noisy, {"pi3b": (0.95, -5.0, 5.0)}, fixed, n_starts=3,
                profile=False)
    assert r.nfailed > 0, str(r)
    assert np.isfinite(r.cost) and abs(r.params["pi3b"]) < 1.0, str(r)
    assert any("failed" in w for w in r.warnings)


def test_same_result_on_two_ranks(noisy):
    import impactsweep as isw
    one = isw.fit("collision", noisy, FREE, FIXED, n_starts=2, profile=False)
    two = isw.fit("collision", noisy, FREE, FIXED, n_starts=2, profile=False, ranks=2)
    assert two.ranks == 2
    assert two.params == one.params and two.stderr == one.stderr
    assert two.nfev == one.nfev and two.nbatches == one.nbatches


def test_alpha_and_A_free_are_flagged(noisy):
    """alpha and A trade against pi2b, pi3b along e(v0): the fit must say so."""
    import impactsweep as isw
    free = dict(FREE, alpha=(0.3, 0.01, 0.99), A=(2.0, 0.1, 10.0))
    fixed = {k: v for k, v in FIXED.items() if k not in free}
    r = isw.fit("collision", noisy, free, fixed, n_starts=1, profile=False)
    undetermined = [n for n in r.names if not r.stderr[n] <= abs(r.params[n])]
    assert r.warnings or undetermined, str(r)
    assert any(n in " ".join(r.warnings) for n in ("alpha", "A")), str(r)


def test_data_forms_agree(noisy, impactsweep_binary, tmp_path):
    import pandas as pd
    import xarray as xr
    from impactsweep import describe
    from impactsweep._fitdata import read_data
    path = tmp_path / "d.csv"
    pd.DataFrame(noisy).to_csv(path, index=False)
    table = describe("collision")
    forms = [noisy, pd.DataFrame(noisy), xr.Dataset({k: ("row", v) for k, v in noisy.items()}),
             str(path)]
    got = [read_data(f, table, set(FREE), FIXED, None) for f in forms]
    for g in got:
        assert g.outputs == ["cor"] and g.sigma_given
        assert np.array_equal(g.inputs["v0"], noisy["v0"])
        assert np.allclose(g.values[:, 0], noisy["cor"], rtol=1e-15)
    assert got[-1].source["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    with pytest.raises(Exception, match="'speed'"):
        read_data(dict(noisy, speed=noisy["v0"]), table, set(FREE), FIXED, None)


def _ini(tmp_path, text, data=True):
    if data:
        rows = "\n".join(f"{v!r},{e!r}" for v, e in zip(np.geomspace(0.1, 10, 6),
                                                       np.linspace(0.9, 0.1, 6)))
        (tmp_path / "e.csv").write_text("v0,cor\n" + rows + "\n")
    path = tmp_path / "fit.ini"
    path.write_text(text)
    return str(path)


GOOD = """[fit]
model = collision
data = e.csv
output = cor
n_starts = 1
figure = fit.png
[free]
pi1b = 0.4, 0.001, 10
[fixed]
law = bwshc
form = velocity
"""


def test_command_writes_report_and_figure(tmp_path, impactsweep_binary):
    path = _ini(tmp_path, GOOD)
    # through the engine's own command, which runs the fitter beside it
    proc = subprocess.run([impactsweep_binary, "fit", path], capture_output=True,
                          text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode in (0, 1), proc.stderr
    report = json.loads((tmp_path / "fit.json").read_text())
    assert report["model"] == "collision" and report["free"] == ["pi1b"]
    prov = report["provenance"]
    assert prov["data"]["sha256"] == hashlib.sha256((tmp_path / "e.csv").read_bytes()).hexdigest()
    version = subprocess.run([impactsweep_binary, "--version"], capture_output=True,
                             text=True).stdout.strip()
    assert prov["versions"]["engine"] == version
    assert "fit.ini" in prov["command"]
    assert (tmp_path / "fit.png").stat().st_size > 1000


@pytest.mark.parametrize("text,where", [
    (GOOD.replace("n_starts = 1", "n_start = 1"), ":5: [fit] unknown key 'n_start'"),
    (GOOD.replace("pi1b = 0.4, 0.001, 10", "pi1b = 0.4, 10, 0.001"), ":8: [free] pi1b: lower"),
    (GOOD.replace("pi1b = 0.4, 0.001, 10", "pi1b = 20, 0.001, 10"), ":8: [free] pi1b: start"),
    (GOOD.replace("pi1b = 0.4", "pie = 0.4"), ":8: [free] unknown parameter 'pie'"),
    (GOOD.replace("law = bwshc", "law = bwshcx"), ":10: [fixed] law = 'bwshcx'"),
    (GOOD.replace("output = cor", "output = corr"), ":4: [fit] output: 'corr'"),
    (GOOD.replace("output = cor", "output = t_sep"), "no column t_sep"),
    (GOOD.replace("[fixed]", "[fixd]"), ":9: unknown section [fixd]"),
    (GOOD.replace("pi1b = 0.4, 0.001, 10", "pi1b = 0.4, x, 10"), ":8: [free] pi1b = 'x'"),
    (GOOD.replace("model = collision\n", ""), "[fit] model missing"),
])
def test_bad_fit_file_exits_2(tmp_path, impactsweep_binary, text, where):
    path = _ini(tmp_path, text)
    proc = subprocess.run(["/usr/bin/python3", IMPACTFIT, path], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert where in proc.stderr, proc.stderr
