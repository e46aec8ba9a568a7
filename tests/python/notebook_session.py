"""A notebook session, as a new user runs it cell by cell (run end to end by
test_notebook.py in a fresh interpreter): a sweep from a job file, the file opened lazily,
a class selected by name and drawn, plain xarray plots, the points evaluated again and
compared with the file, a refused point, and a figure of impactplot from the eval."""
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import impactsweep as isw  # noqa: E402
import impactplot.collision  # noqa: E402

jobs, out = sys.argv[1], sys.argv[2]

# cell 1: a chatter map, one progress line, the result loaded (no file left behind)
ds = isw.run(os.path.join(jobs, "example.ini"), axis__rho__count=8, axis__gamma__count=6,
             model__samples=16)
assert ds.sizes == {"rho": 8, "gamma": 6}

# cell 2: the same sweep into a file of our own, opened lazily
path = os.path.join(out, "map.h5")
isw.run(os.path.join(jobs, "example.ini"), output=path, progress=False,
        axis__rho__count=8, axis__gamma__count=6, model__samples=16)
lazy = isw.open_dataset(path, chunks={})
cc = (lazy.regime == "cc").sum().compute()
assert int(cc) == int((ds.regime == "cc").sum()) > 0

# cell 3: figures: the class map with its legend, a probability with its symbol
fig, (a, b) = plt.subplots(1, 2)
lazy.regime.load().isw.plot(ax=a)
lazy.p_cc.plot(ax=b)
fig.savefig(os.path.join(out, "map.png"))
plt.close(fig)

# cell 4: the file's points again, through eval on 2 processes: the same Dataset
fixed = {k[len("parameter_"):]: v for k, v in ds.attrs.items() if k.startswith("parameter_")}
again = isw.eval("chatter", rho=ds.rho.values, gamma=ds.gamma.values, ranks=2, **fixed)
for name in ds.data_vars:
    assert again[name].dtype == ds[name].dtype, name
    assert np.array_equal(again[name].values, ds[name].values), name

# cell 5: a typo is refused, naming it; errors kept on request
try:
    isw.eval("chatter", rho=0.3, gama=0.1)
    raise SystemExit("a misspelt parameter was accepted")
except isw.ImpactsweepError as error:
    assert "gama" in str(error) and "gamma" in str(error)
kept = isw.eval("chatter", rho=[0.3, -1.0], gamma=0.1, samples=4, errors="keep")
assert list(kept.status.values) == ["done", "failed_invalid"]

# cell 6: a CoR curve by eval, drawn by impactplot as a file's
curve = isw.eval("collision", law="bwshc", pi1=np.geomspace(0.05, 2, 12), pi2=1.0)
assert curve.cor.dims == ("pi1",) and curve.cor.notnull().all()
fig, ax = plt.subplots()
impactplot.collision.cor(curve, ax)
fig.savefig(os.path.join(out, "cor.png"))
plt.close(fig)
lazy.close()
print("notebook session: done")
