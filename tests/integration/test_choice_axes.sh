# test_choice_axes.sh: a choice parameter (the collision law, the parameter form, the
# integrator) swept as an axis:
#  - the coordinate holds the names (xarray: ds.sel(law="bwshc")), in the order given;
#  - each choice's slice equals a separate run with that choice fixed, bit for bit, on 2
#    ranks and in a piece-and-merge run;
#  - a repeated choice, and a parameter that applies with none of the swept choices, are
#    refused (exit 2); one that applies with some of them is accepted;
#  - a fixed choice is recorded by name (parameter_form = "nondimensional"); info lists
#    the names; ncdump reads the file; --resume of a finished file is a no-op.
# shellcheck source=lib.sh
source "$TESTS/integration/lib.sh"

cat >laws.ini <<'INI'
[sweep]
model = collision
[axis.law]
values = bwm, bwshc
[axis.pi1]
values = 0.2, 0.5, 1
[axis.pi2]
values = 1, 2
INI
say "a law axis on 2 ranks; each law's slice equals a run with that law fixed"
expect_status 0 "the law sweep" mpi2 run laws.ini --output laws.h5
for law in bwm bwshc; do
    sed "s/^values = bwm, bwshc$/values = $law/" laws.ini >one.ini
    expect_status 0 "law $law alone" "$IMPACTSWEEP" run one.ini --output "one_$law.h5"
done
"$PYTHON" - <<'PY' || die "a law's slice differs from its own run"
import numpy as np, xarray as xr
ds = xr.open_dataset("laws.h5", engine="h5netcdf")
assert list(ds.law.values) == ["bwm", "bwshc"], ds.law.values
assert ds.law.attrs["scale"] == "choice"
for law in ds.law.values:
    one = xr.open_dataset(f"one_{law}.h5", engine="h5netcdf")
    for name in ds.data_vars:
        a = ds[name].sel(law=law).values
        b = one[name].isel(law=0).values
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), (law, name)
assert not (ds.cor.sel(law="bwshc") == ds.cor.sel(law="bwm")).all()
PY
expect_status 0 "info on the law sweep" "$IMPACTSWEEP" info laws.h5
grep -q "law  *2 choices: bwm, bwshc" out.txt || die "info does not list the law names: $(grep -A3 axes: out.txt)"
if command -v ncdump >/dev/null 2>&1; then
    ncdump laws.h5 >dump.txt 2>&1 || die "ncdump cannot read a file with a choice axis: $(head dump.txt)"
    grep -q 'law = "bwm", "bwshc"' dump.txt || die "ncdump: no law names"
fi
"$PYTHON" - <<'PY' || die "the fixed form is not recorded by name"
import h5py
with h5py.File("laws.h5", "r") as f:
    form = f.attrs["parameter_form"]
    assert (form.decode() if isinstance(form, bytes) else form) == "nondimensional", form
PY
expect_status 0 "resume of the finished law sweep" "$IMPACTSWEEP" run laws.ini --output laws.h5 --resume

say "pieces of a law sweep merge into the whole run"
expect_status 0 "piece 0/3" "$IMPACTSWEEP" run laws.ini --piece 0/3 --output p0.h5
expect_status 0 "piece 1/3" "$IMPACTSWEEP" run laws.ini --piece 1/3 --output p1.h5
expect_status 0 "piece 2/3" "$IMPACTSWEEP" run laws.ini --piece 2/3 --output p2.h5
expect_status 0 "merge" "$IMPACTSWEEP" merge merged.h5 p0.h5 p1.h5 p2.h5
same_results laws.h5 merged.h5 "the merged law pieces"

say "refused: a repeated choice; a parameter that applies with none of the swept choices"
expect_status 2 "a repeated law" "$IMPACTSWEEP" run laws.ini --output x.h5 --dry-run \
    --set "axis.law.values=bwshc, hunt-crossley, bwshc"
grep -q "item 3 (bwshc) is given twice" err.txt || die "repeated choice: $(cat err.txt)"
printf '%s\n' "[sweep]" "model = collision" "[model]" "pi1 = 0.5" "[axis.law]" \
    "values = hooke, hertz" >classical.ini
expect_status 2 "pi1 with the laws hooke and hertz" "$IMPACTSWEEP" run classical.ini --dry-run
grep -q "pi1 does not apply with form = nondimensional, law in hooke | hertz" err.txt || die "pi1 with hooke/hertz: $(cat err.txt)"
printf '%s\n' "[sweep]" "model = collision" "[model]" "pi1 = 0.5" "[axis.law]" \
    "values = hooke, bwshc" >mixed.ini
expect_status 0 "pi1 with the laws hooke and bwshc (it applies with bwshc)" \
    "$IMPACTSWEEP" run mixed.ini --output mixed.h5

say "the stop oscillator's integrator as an axis: exact and CVODE agree"
printf '%s\n' "[sweep]" "model = stop-oscillator" "[model]" "t_end = 20" "rtol = 1e-12" \
    "[axis.integrator]" "values = exact, cvode" "[axis.epsilon]" "values = 0.5, 0.8" >stop.ini
expect_status 0 "integrator axis" "$IMPACTSWEEP" run stop.ini --output stop.h5
"$PYTHON" - <<'PY' || die "exact and CVODE disagree along the integrator axis"
import numpy as np, xarray as xr
ds = xr.open_dataset("stop.h5", engine="h5netcdf")
e, c = ds.energy.sel(integrator="exact").values, ds.energy.sel(integrator="cvode").values
assert np.all(np.abs(e - c) <= 1e-6 * np.abs(e)), (e, c)
assert (ds.rebounds.sel(integrator="exact").values == ds.rebounds.sel(integrator="cvode").values).all()
PY

say "the figures: one set per law, never blended across laws"
"$PYTHON" "$TESTS/../analysis/impactplot.py" laws.h5 -o figs/laws --format png >plot.out 2>plot.err ||
    die "impactplot on a law sweep: $(cat plot.err)"
for law in bwm bwshc; do
    [ -s "figs/laws_law-${law}_cor.png" ] || die "no cor figure for law $law: $(cat plot.out)"
done
[ "$(grep -c '_cor\.png$' plot.out)" -eq 2 ] || die "expected one cor figure per law: $(cat plot.out)"
