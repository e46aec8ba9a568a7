# test_xarray.sh: result files open with xarray's h5netcdf engine as labelled data.
#  - a complete 2-rank sweep over a log axis (rho) and an explicit-values axis (gamma):
#    the axes are coordinates named after the parameters with the job's values; every
#    output (and status) is a variable over the axes in job order with units and
#    long_name; the categorical regime and status carry flag_values / flag_meanings;
#    p_icc + p_cc + p_pcc + p_flat == 1 where status is done; the provenance attributes exist,
#    and CF's `references` names the chatter paper;
#  - an interrupted 2-rank sweep over linear axes: the axes equal numpy's linspace, the
#    pending points are NaN in every float output (and masked in integer ones), the done
#    points are finite.
# shellcheck source=lib.sh
source "$TESTS/integration/lib.sh"

"$PYTHON" -c "import xarray, h5netcdf, numpy" 2>/dev/null ||
    die "$PYTHON cannot import xarray, h5netcdf and numpy (Debian: python3-xarray python3-h5netcdf)"

cat >check_complete.py <<'EOF'
import sys
import numpy as np
import xarray as xr

path = sys.argv[1]
problems = []
def check(ok, what):
    if not ok:
        problems.append(what)

ds = xr.open_dataset(path, engine="h5netcdf")
outputs = ds.attrs["outputs"].split()
print("    variables:", ", ".join(ds.data_vars), "| coordinates:", ", ".join(ds.coords))

# The axes, as in jobs/axes.ini: rho log from 0.1 to 2.0 in 9, gamma explicit values.
check(set(ds.dims) == {"rho", "gamma"},
      f"dimensions {dict(ds.sizes)}, expected rho and gamma")
check(ds.attrs["axes"] == "rho gamma", f"axes attribute {ds.attrs['axes']!r}")
for name in ("rho", "gamma"):
    check(name in ds.coords, f"{name} is not a coordinate")
rho = ds["rho"].values
want_rho = np.logspace(np.log10(0.1), np.log10(2.0), 9)
check(rho.shape == (9,) and np.allclose(rho, want_rho, rtol=1e-13, atol=0),
      f"rho values {rho}, expected {want_rho}")
check(rho[0] == 0.1 and rho[-1] == 2.0, f"rho end points {rho[0]!r}, {rho[-1]!r} are not exact")
gamma = ds["gamma"].values
check(np.array_equal(gamma, [0.05, 0.125, 0.25, 0.5, 0.7]), f"gamma values {gamma}")
for name in ("rho", "gamma"):
    check(ds[name].attrs.get("units") and ds[name].attrs.get("long_name"),
          f"coordinate {name} lacks units or long_name")

# The variables: every output and status, over (rho, gamma), described.
check(outputs == ["p_icc", "p_cc", "p_pcc", "impacts_mean", "impacts_max", "time_mean", "regime",
                  "cone", "cone_rounds_used", "p_icc_lo", "p_icc_hi", "p_cc_lo", "p_cc_hi",
                  "p_pcc_lo", "p_pcc_hi", "p_certified", "p_undecided", "p_flat", "p_flat_lo",
                  "p_flat_hi"],
      f"outputs attribute {outputs}")
for name in outputs + ["status"]:
    if name not in ds.data_vars:
        check(False, f"output {name} is not a variable")
        continue
    v = ds[name]
    check(v.dims == ("rho", "gamma"), f"{name} has dims {v.dims}, expected ('rho', 'gamma')")
    check(bool(v.attrs.get("units")), f"{name} has no units")
    check(bool(v.attrs.get("long_name")), f"{name} has no long_name")

# Categorical variables: flag_values 0..n-1 with one meaning each (status: the codes of the
# statuses the file can hold, one meaning each, in order; `inferred` only in a refined file).
for name, meanings in (("regime", ["icc", "cc", "pcc", "flat"]), ("status", None)):
    a = ds[name].attrs
    values, words = a.get("flag_values"), str(a.get("flag_meanings", "")).split()
    check(values is not None and len(words) > 0, f"{name} lacks flag_values or flag_meanings")
    if values is None:
        continue
    values = [int(v) for v in np.atleast_1d(values)]
    if name == "status":
        check(len(values) == len(words) and values == sorted(set(values)) and 7 not in values,
              f"{name} flag_values {values} vs meanings {words}")
    else:
        check(values == list(range(len(words))), f"{name} flag_values {values} vs meanings {words}")
    if meanings:
        check(words == meanings, f"{name} flag_meanings {words}, expected {meanings}")
status_words = str(ds["status"].attrs.get("flag_meanings", "")).split()
check(status_words[:2] == ["pending", "done"], f"status flag_meanings {status_words}")

status = ds["status"].values
done = status == 1
check(done.all(), f"{(~done).sum()} points of the complete file are not done")
total = ds["p_icc"].values + ds["p_cc"].values + ds["p_pcc"].values + ds["p_flat"].values
check(np.all(np.abs(total[done] - 1) <= 1e-12),
      f"p_icc + p_cc + p_pcc + p_flat != 1 at done points: {total[done][np.abs(total[done] - 1) > 1e-12][:5]}")
regime = ds["regime"].values
check(np.all(np.isin(regime[done], [0, 1, 2, 3])), f"regime values {np.unique(regime)}")

# Provenance.
for name in ("model", "job", "engine_version", "git_commit", "hdf5_version", "mpi_library",
             "ranks", "seed", "start_time"):
    value = ds.attrs.get(name)
    check(value is not None and str(value) != "", f"provenance attribute {name} is missing or empty")
check(ds.attrs.get("model") == "chatter", f"model attribute {ds.attrs.get('model')!r}")
check(int(ds.attrs.get("ranks", 0)) == 2, f"ranks attribute {ds.attrs.get('ranks')!r}, expected 2")
check(int(ds.attrs.get("seed", -1)) == 3, f"seed attribute {ds.attrs.get('seed')!r}, expected 3")
check("[axis.rho]" in str(ds.attrs.get("job")), "the job attribute does not hold the job text")
# CF's `references`: the paper the model implements, from its table (is_model.references)
references = str(ds.attrs.get("references", ""))
check("arXiv:1704.03044" in references and "Zeno chattering of rigid bodies" in references,
      f"references attribute {references!r}")
ds.close()
# the run state, raw data in /run (hidden from xarray, which reads the root group)
import h5py
with h5py.File(path, "r") as f:
    state = f["run/state"][()].decode().rstrip("\0")
    end = f["run/end_time"][()].decode().rstrip("\0")
    tally = f["run/tally"][()]
    log = [bytes(l).decode().rstrip("\0") for l in f["run/log"][: int(f["run/log_count"][()])]]
check(state == "complete", f"run state {state!r}")
check(end != "", "no end time")
check(int(tally[1]) == int(done.sum()), f"tally {tally} vs {int(done.sum())} done")
check(len(log) == 2 and "created" in log[0] and "complete" in log[1], f"log {log}")

for p in problems:
    print("PROBLEM:", p, file=sys.stderr)
sys.exit(1 if problems else 0)
EOF

cat >check_partial.py <<'EOF'
import sys
import numpy as np
import xarray as xr

path = sys.argv[1]
problems = []
def check(ok, what):
    if not ok:
        problems.append(what)

ds = xr.open_dataset(path, engine="h5netcdf")
# jobs/sweep.ini: rho linear 0.05 .. 1.0 in 20, gamma linear 0.02 .. 0.8 in 20.
for name, lo, hi in (("rho", 0.05, 1.0), ("gamma", 0.02, 0.8)):
    v = ds[name].values
    want = np.linspace(lo, hi, 20)
    check(v.shape == (20,) and np.allclose(v, want, rtol=1e-14, atol=0), f"{name} {v} vs {want}")
    check(v[0] == lo and v[-1] == hi, f"{name} end points not exact")
status = ds["status"].values
pending, done = status == 0, status == 1
print(f"    partial file: {done.sum()} done, {pending.sum()} pending")
check(pending.any(), "no pending point in the interrupted file")
check(done.any(), "no done point in the interrupted file")
for name in ds.attrs["outputs"].split():
    v = ds[name].values
    check(np.issubdtype(v.dtype, np.floating), f"{name} is not decoded as float (dtype {v.dtype})")
    if not np.issubdtype(v.dtype, np.floating):
        continue
    check(np.all(np.isnan(v[pending])), f"{name}: {np.sum(~np.isnan(v[pending]))} pending points are not NaN")
    check(np.all(np.isfinite(v[done])), f"{name}: {np.sum(~np.isfinite(v[done]))} done points are not finite")
raw = xr.open_dataset(path, engine="h5netcdf", mask_and_scale=False)
for name in ("p_icc", "p_cc", "p_pcc", "impacts_mean", "time_mean"):
    v = raw[name].values
    check(v.dtype == np.float64, f"{name} is stored as {v.dtype}, expected float64")
    check(np.all(np.isnan(v[pending])), f"{name}: stored values of pending points are not NaN")
for name in ("impacts_max", "regime"):
    v = raw[name].values
    check(np.all(v[pending] == -1), f"{name}: stored values of pending points are not the fill -1")
raw.close()
ds.close()
import h5py
with h5py.File(path, "r") as f:
    state = f["run/state"][()].decode().rstrip("\0")
check(state == "interrupted", f"run state {state!r}")

for p in problems:
    print("PROBLEM:", p, file=sys.stderr)
sys.exit(1 if problems else 0)
EOF

say "a complete 2-rank sweep over a log axis and an explicit-values axis"
expect_status 0 "2-rank run of axes.ini" mpi2 run "$INTEGRATION_JOBS/axes.ini" --output axes.h5
say "xarray: coordinates, variables, attributes, p_icc + p_cc + p_pcc + p_flat == 1, provenance"
"$PYTHON" check_complete.py axes.h5 || die "axes.h5 does not read as expected with xarray"

samples=$(interruptible_samples)
say "an interrupted 2-rank sweep over linear axes ($samples samples a point)"
start_mpi2 "$WORK/partial.h5" "$INTEGRATION_JOBS/sweep.ini" --set model.samples="$samples"
wait_for_done "$WORK/partial.h5" 20 "$run_pid"
interrupt "$run_pid" "$WORK/partial.h5"
say "xarray: linspace axes, pending points NaN"
"$PYTHON" check_partial.py partial.h5 || die "partial.h5 does not read as expected with xarray"
