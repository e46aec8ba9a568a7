# test_reasons.sh: every point the engine fails has its reason in the result file (a code
# per point in /run/reason, its text in /run/reasons), not only the first few a run logs:
# the boundary family's `output` kind breaks a different output on each of its bad points
# (47 of the 80 x 80 integer grid: x * 40 + y a multiple of 137), so each bad point's
# reason is known beforehand (tests/models/plugins/boundary.c: the output count % 3 picks
# value = NaN, count = 1e300 or class = 7). Checked after a run on 2 ranks, after a kill -9
# and --resume, after a merge of pieces; `info --failures` and the Python module
# (failure_reason) give the same reasons; the count equals the failed statuses.
source "$TESTS/integration/lib.sh"
[ -n "${PLUGIN_DIR:-}" ] || die "PLUGIN_DIR is not set (run the test through ctest)"
LIB=$PLUGIN_DIR/boundary/libboundary_output.so

job() { # NAME [KEY=VALUE ...]: the job NAME.ini over the 80 x 80 grid
    local name=$1
    shift
    printf '%s\n' "[sweep]" "model = $LIB" "$@" "[axis.x]" "from = 0" "to = 79" \
        "count = 80" "[axis.y]" "from = 0" "to = 79" "count = 80" >"$name.ini"
}

# FILE: every failed point has the reason its broken output predicts, every other point
# none; the failed points are exactly the bad ones; `info --failures` names each with it.
check_reasons() {
    local file=$1
    PYTHONPATH="$TESTS/../analysis" "$PYTHON" - "$file" <<'PY' || die "$file: the reasons are not all there"
import re, sys
import h5py, numpy as np
import impactsweep as isw
path = sys.argv[1]
with h5py.File(path, "r") as f:
    status = f["status"][()]
    codes = f["run/reason"][()].reshape(status.shape)
    rows = [bytes(r).rstrip(b"\0").decode() for r in f["run/reasons"][()]]
    x, y = f["x"][()], f["y"][()]
expected = {0: "real output value is NaN on a done point",
            1: "integer output count = 1e+300 is not an int32",
            2: "categorical output class = 7 names no category"}
failed = (status != 1) & (status != 0)
bad = np.zeros(status.shape, bool)
for i, xv in enumerate(x):
    for j, yv in enumerate(y):
        bad[i, j] = (xv * 40 + yv) % 137 == 0
assert bad.sum() == 47 and (failed == bad).all(), (bad.sum(), failed.sum())
assert (status[failed] == 6).all(), "not failed_check"
assert ((codes != 0) == failed).all(), f"{(codes != 0).sum()} codes, {failed.sum()} failed"
for i, j in zip(*np.nonzero(failed)):
    text = rows[codes[i, j] - 1]
    want = expected[int(x[i] + y[j]) % 3]
    assert text.startswith(want), (x[i], y[j], text, want)
ds = isw.open_dataset(path)
reasons = ds.failure_reason.values
assert ((reasons != "") == failed).all()
for i, j in zip(*np.nonzero(failed)):
    assert reasons[i, j] == rows[codes[i, j] - 1]
lazy = isw.open_dataset(path, chunks={})
assert (lazy.failure_reason.values == reasons).all()
PY
    "$IMPACTSWEEP" info "$file" --failures >failures.txt || die "info --failures $file"
    local named
    named=$(grep -cE "^  grid point [0-9]+ \(x = [0-9]+, y = [0-9]+\): failed_check: (real output value is NaN|integer output count = 1e\+300|categorical output class = 7)" failures.txt || true)
    [ "$named" -eq 47 ] || die "$file: info --failures names $named points with their reasons, not 47"
    [ "$(points "$file" failed)" -eq 47 ] || die "$file: info does not count 47 failed"
    expect_status 0 "$file: info --verify" "$IMPACTSWEEP" info "$file" --verify
}

say "a run on 2 ranks: 47 failed points, each with its own reason (more than a log's 20)"
job plain
expect_status 0 "run" mpi2 run plain.ini --output plain.h5 --quiet
check_reasons plain.h5
"$PYTHON" -c 'import sys, xarray; xarray.open_dataset(sys.argv[1], engine="h5netcdf").load()' \
    plain.h5 || die "xarray does not open the file"

say "kill -9 mid-run, then --resume: the reasons of the points stored before the kill are kept"
job slow "[model]" "cost = 0.0015"
start_mpi2 slow.h5 slow.ini
wait_for_done slow.h5 1500 "$run_pid"
kill_run "$run_pid" "kill: "
pending=$(points slow.h5 pending)
[ "$pending" -gt 0 ] || die "nothing pending after the kill: the run was too short"
say "killed with $pending pending"
expect_status 0 "resume" mpi2 run slow.ini --output slow.h5 --resume --quiet
check_reasons slow.h5

say "three pieces, merged: the pieces' reasons in the merged file"
job pieces
for i in 0 1 2; do
    expect_status 0 "piece $i" "$IMPACTSWEEP" run pieces.ini --piece "$i/3" --output "p$i.h5" --quiet
done
expect_status 0 "merge" mpi2 merge merged.h5 p2.h5 p0.h5 p1.h5
check_reasons merged.h5
say "ok"
