# test_scale.sh: the scheduler at scale, job-array pieces as boxes, units sized by time,
# prompt stops, signals to the launcher and the provenance of resumes.
#  1. 48 ranks oversubscribed on 2 cores (mpi_yield_when_idle) give the same file as 1
#     rank: chatter on jobs/sweep.ini (400 points) and a 3-axis synthetic job of 5000
#     points with failed points; both also with unit_size 1. The times are printed.
#  2. --piece I/N: 37 x 23 x 5 in 4 pieces, and 3 x 50 in 7 pieces (more pieces than
#     values of the first axis). Each piece file opens alone in xarray; its coordinates
#     are a contiguous slice of the whole run's; the pieces tile the grid in order
#     (piece_first and the shapes); each piece's data equals that slice of the whole run
#     (xarray, NaN-aware, and the raw HDF5 bytes); a quarter piece's file is at most half
#     the whole file (net of the fixed-size run log: see below); `merge` of the shuffled
#     pieces (1 process, and 2 ranks) equals the whole run and says 0 pending, complete.
#  3. Units sized by time: cost 0.01 s a point and unit_seconds 0.5 on 2 ranks completes
#     with the datasets of the cost-0 run, in more than 2 and far fewer units than points
#     (and unit_seconds 0.1 gives clearly more units). With unit_seconds 30 on a ~20 s
#     job (cost 0.05), SIGUSR1 to rank 0's process alone, to the worker's alone, and to
#     mpiexec: the run reports its stop within 1.5 s and exits 75 within 3 s, the file is
#     consistent with points pending and no lock left, and --resume completes it into the
#     uninterrupted run's file.
#  4. `run -n 2` (the CLI starts mpiexec itself): SIGTERM, and SIGINT, to it end the run
#     with 75 within 5 s, resumable to the reference. Plain mpiexec on SIGTERM: its exit
#     status is only printed; the file must be consistent and resumable (lock or not).
#  5. After every interrupted + resumed run of 3 and 4, `info --log` shows created,
#     interrupted, resumed and complete lines in that order (and before the resume,
#     created and interrupted but no complete).
# shellcheck source=lib.sh
source "$TESTS/integration/lib.sh"

[ -n "${IMPACTSWEEP_TEST:-}" ] || die "environment variable IMPACTSWEEP_TEST is not set (run the test through ctest)"
"$PYTHON" -c "import xarray, h5netcdf, h5py, numpy" 2>/dev/null ||
    die "$PYTHON cannot import xarray, h5netcdf, h5py and numpy"

SHIPPED=$IMPACTSWEEP
# the CLI with the synthetic model: lib.sh's mpi1/mpi2/start_mpi2/points use it from here on
IMPACTSWEEP=$IMPACTSWEEP_TEST
MANY=(--mca mpi_yield_when_idle 1 -n 48)

# A `run -n 2` launcher started in the background is not a child of mpiexec's: on a
# failure, kill its whole tree (lib.sh's cleanup kills only mpiexec and its children).
launch_pid=""
kill_tree() {
    local pid=$1 kid
    for kid in $(pgrep -P "$pid" 2>/dev/null || true); do kill_tree "$kid"; done
    kill -9 "$pid" 2>/dev/null || true
}
status_is() { return "$1"; }
on_exit() {
    local status=$?
    set +e
    [ -z "$launch_pid" ] || kill_tree "$launch_pid"
    status_is "$status" # cleanup reads the test's status from $?
    cleanup
}
trap on_exit EXIT

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# The numbers of the line "this run computed N in T s on R ranks (U units, target S s each)"
computed_line() { grep -o 'this run computed [0-9]* in [0-9.]* s on [0-9]* ranks\? ([0-9]* units, target [0-9.e+]* s each)' "$1" | tail -n 1; }
units_of() { computed_line "$1" | sed -E 's/.*\(([0-9]+) units.*/\1/'; }

# ------------------------------------------------------------------------------------
# job files
# ------------------------------------------------------------------------------------
# 3 axes, the third is fail_below: whole slices of failed points, and failed points
# inside slices (x < fail_below).
cat >cube.ini <<'EOF'
[sweep]
model = synthetic
output = cube.h5

[axis.x]
from = -1.5
to = 3.6
count = 37

[axis.y]
from = -1
to = 1.2
count = 23

[axis.fail_below]
values = -10, 0, 0.5, 2, 10
EOF

# fewer values on the first axis (3) than pieces (7)
cat >thin.ini <<'EOF'
[sweep]
model = synthetic
output = thin.h5

[model]
fail_below = 0.25

[axis.x]
values = 0, 0.5, 1

[axis.y]
from = -2
to = 2
count = 50
EOF

# 400 points; the tests set model.cost (busy-wait seconds a point)
cat >cost.ini <<'EOF'
[sweep]
model = synthetic
output = cost.h5

[axis.x]
from = 0
to = 1
count = 20

[axis.y]
from = -1
to = 1
count = 20
EOF

# ------------------------------------------------------------------------------------
# 1. 48 ranks
# ------------------------------------------------------------------------------------
t_part=$(now_ms)
chatter="$INTEGRATION_JOBS/sweep.ini"
five=(--set axis.x.count=40 --set axis.y.count=25) # 40 x 25 x 5 = 5000 points

say "1. references on 1 rank: chatter (jobs/sweep.ini) and synthetic 40 x 25 x 5 with failures"
expect_status 0 "1 rank, chatter" "$SHIPPED" run "$chatter" --output ch1.h5
expect_status 0 "1 rank, synthetic" "$IMPACTSWEEP" run cube.ini "${five[@]}" --output syn1.h5
[ "$(points ch1.h5 total)" -eq 400 ] || die "ch1.h5 should have 400 points"
[ "$(points ch1.h5 pending)" -eq 0 ] || die "ch1.h5 is not complete"
[ "$(points syn1.h5 total)" -eq 5000 ] || die "syn1.h5 should have 5000 points, has $(points syn1.h5 total)"
[ "$(points syn1.h5 pending)" -eq 0 ] || die "syn1.h5 is not complete"
syn_failed=$(points syn1.h5 failed)
syn_done=$(points syn1.h5 "done")
if [ "$syn_failed" -le 500 ] || [ "$syn_done" -le 500 ]; then
    die "syn1.h5 should hold many done and many failed points: $syn_done done, $syn_failed failed"
fi
if "$H5COMPARE" syn1.h5 ch1.h5 2>/dev/null; then die "h5compare finds the chatter and synthetic files equal"; fi

# shellcheck disable=SC2086 # $MPIEXEC_FLAGS is split into words on purpose
many() { # NAME WHAT BINARY ARGS...: 48 ranks writing NAME.h5, prints the time
    local name=$1 what=$2 bin=$3 t0 t1
    shift 3
    t0=$(now_ms)
    expect_status 0 "48 ranks, $what" $MPIEXEC $MPIEXEC_FLAGS "${MANY[@]}" "$bin" run "$@" \
        --output "$name.h5"
    t1=$(now_ms)
    grep -q "48 ranks" err.txt || die "48 ranks, $what: the run does not say it ran on 48 ranks: $(computed_line err.txt)"
    say "   48 ranks, $what: $((t1 - t0)) ms ($(computed_line err.txt))"
}

say "1. 48 ranks (oversubscribed, yielding when idle) give the files of 1 rank"
many ch48 "chatter" "$SHIPPED" "$chatter"
same_results ch1.h5 ch48.h5 "chatter, 48 ranks vs 1 rank"
many ch48u1 "chatter, unit_size 1" "$SHIPPED" "$chatter" --set sweep.unit_size=1
[ "$(units_of err.txt)" -eq 400 ] || die "chatter, unit_size 1: expected 400 units, got $(units_of err.txt)"
same_results ch1.h5 ch48u1.h5 "chatter, 48 ranks, unit_size 1 vs 1 rank"
many syn48 "synthetic 5000 points" "$IMPACTSWEEP" cube.ini "${five[@]}"
same_results syn1.h5 syn48.h5 "synthetic, 48 ranks vs 1 rank"
many syn48u1 "synthetic 5000 points, unit_size 1" "$IMPACTSWEEP" cube.ini "${five[@]}" \
    --set sweep.unit_size=1
[ "$(units_of err.txt)" -eq 5000 ] || die "synthetic, unit_size 1: expected 5000 units, got $(units_of err.txt)"
same_results syn1.h5 syn48u1.h5 "synthetic, 48 ranks, unit_size 1 vs 1 rank"
say "1. took $(($(now_ms) - t_part)) ms"

# ------------------------------------------------------------------------------------
# 2. job-array pieces
# ------------------------------------------------------------------------------------
t_part=$(now_ms)
cat >check_pieces.py <<'EOF'
# check_pieces.py WHOLE PIECE0 PIECE1 ...: the pieces (in piece order) against the whole run
import os
import sys

import h5py
import numpy as np
import xarray as xr

whole_path, pieces = sys.argv[1], sys.argv[2:]
problems = []

def check(ok, what):
    if not ok:
        problems.append(what)
    return ok

W = xr.open_dataset(whole_path, engine="h5netcdf")
dims = list(W["status"].dims)
shape = [W.sizes[d] for d in dims]
total = int(np.prod(shape))
flat = np.arange(total).reshape(shape)
variables = sorted(W.data_vars)
check(len(variables) >= 2, f"{whole_path}: only {variables}")
hw = h5py.File(whole_path, "r")
expect_first = 0
for path in pieces:
    P = xr.open_dataset(path, engine="h5netcdf")  # opens on its own
    with h5py.File(path, "r") as h:
        first = int(h.attrs["piece_first"])
    if not check(sorted(P.data_vars) == variables,
                 f"{path}: variables {sorted(P.data_vars)}, the whole run has {variables}"):
        continue
    if not check(list(P["status"].dims) == dims, f"{path}: dimensions {list(P['status'].dims)}, expected {dims}"):
        continue
    box, starts = [], []
    for d in dims:
        check(d in P.coords, f"{path}: {d} is not a coordinate")
        w, v = W[d].values, P[d].values
        hits = np.flatnonzero(w == v[0]) if v.size else []
        if not check(len(hits) == 1, f"{path}: {d}[0] = {v[:1]} is not one of the whole run's values"):
            break
        s = int(hits[0])
        check(np.array_equal(w[s:s + v.size], v),
              f"{path}: {d} = {v} is not a contiguous slice of the whole run's {w}")
        box.append(slice(s, s + v.size))
        starts.append(s)
    if len(box) != len(dims):
        continue
    box = tuple(box)
    indices = flat[box].ravel()
    n = indices.size
    check(first == expect_first,
          f"{path}: piece_first = {first}, but the pieces before it end at {expect_first} "
          f"({'overlap' if first < expect_first else 'gap'})")
    check(np.array_equal(indices, np.arange(first, first + n)),
          f"{path}: its box (starts {starts}, shape {list(P['status'].shape)}) is not the "
          f"point range {first} .. {first + n - 1}")
    expect_first = first + n
    for name in variables:
        a, b = W[name].values[box], P[name].values
        same = a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
        check(same, f"{path}: {name} differs from the whole run's {name}{list(starts)} slice")
    with h5py.File(path, "r") as hp:  # the stored bytes too, not only the decoded values
        for name in variables:
            a, b = np.ascontiguousarray(hw[name][box]), hp[name][()]
            check(a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes(),
                  f"{path}: raw dataset {name} differs from the whole file's slice")
    print(f"    {os.path.basename(path)}: points {first} .. {first + n - 1}, box starts {starts}, "
          f"shape {list(P['status'].shape)}, {os.path.getsize(path)} bytes")
check(expect_first == total, f"the pieces cover points 0 .. {expect_first - 1} of {total}")
if problems:
    print("\n".join("  " + p for p in problems), file=sys.stderr)
    sys.exit(1)
EOF

# size of a result file net of its run state (/run: the run log has a fixed capacity of
# IS_RESULTS_LOG_CAPACITY lines, 512 KiB in every file whatever its grid)
cat >size_net.py <<'EOF'
import os, sys
import h5py
path = sys.argv[1]
with h5py.File(path, "r") as f:
    fixed = sum(d.id.get_storage_size() for d in f["run"].values() if isinstance(d, h5py.Dataset))
print(os.path.getsize(path), os.path.getsize(path) - fixed)
EOF

say "2. pieces: whole run and --piece I/4 of the 37 x 23 x 5 grid"
expect_status 0 "whole run 37 x 23 x 5" "$IMPACTSWEEP" run cube.ini --output whole.h5
[ "$(points whole.h5 total)" -eq 4255 ] || die "whole.h5 should have 37 x 23 x 5 = 4255 points"
for i in 0 1 2 3; do
    if [ $((i % 2)) -eq 0 ]; then
        expect_status 0 "piece $i/4 (1 rank)" "$IMPACTSWEEP" run cube.ini --piece "$i/4" --output "q$i.h5"
    else
        expect_status 0 "piece $i/4 (2 ranks)" mpi2 run cube.ini --piece "$i/4" --output "q$i.h5"
    fi
    [ "$(points "q$i.h5" pending)" -eq 0 ] || die "q$i.h5 is not complete"
done
quarter_total=$(($(points q0.h5 total) + $(points q1.h5 total) + $(points q2.h5 total) + $(points q3.h5 total)))
[ "$quarter_total" -eq 4255 ] || die "the 4 pieces hold $quarter_total points, not 4255"
"$PYTHON" check_pieces.py whole.h5 q0.h5 q1.h5 q2.h5 q3.h5 2>pieces.txt ||
    { sed 's/^/    /' pieces.txt >&2; die "the pieces of 37 x 23 x 5 in 4 are not the whole run's boxes"; }

say "2. a quarter piece's file is at most half the whole file"
sizes=$("$PYTHON" size_net.py whole.h5) || die "cannot measure whole.h5"
read -r whole_size whole_net <<<"$sizes"
for i in 0 1 2 3; do
    sizes=$("$PYTHON" size_net.py "q$i.h5") || die "cannot measure q$i.h5"
    read -r q_size q_net <<<"$sizes"
    say "   q$i.h5: $q_size bytes ($q_net without the run state); whole.h5: $whole_size ($whole_net)"
    [ $((2 * q_net)) -le "$whole_net" ] ||
        die "q$i.h5 takes $q_net bytes besides its run state, more than half of the whole file's $whole_net"
    if [ $((2 * q_size)) -gt "$whole_size" ]; then
        say "   NOTE: counting the run state, q$i.h5 ($q_size bytes) is more than half of whole.h5 ($whole_size): the fixed 512 KiB run log dominates files this small"
    fi
done

say "2. pieces: 3 x 50 in 7 pieces (fewer values on the first axis than pieces)"
expect_status 0 "whole run 3 x 50" "$IMPACTSWEEP" run thin.ini --output thin.h5
[ "$(points thin.h5 failed)" -gt 0 ] || die "thin.h5 should have failed points"
thin_pieces=()
for i in 0 1 2 3 4 5 6; do
    expect_status 0 "piece $i/7 of 3 x 50" "$IMPACTSWEEP" run thin.ini --piece "$i/7" --output "t$i.h5"
    thin_pieces+=("t$i.h5")
done
"$PYTHON" check_pieces.py thin.h5 "${thin_pieces[@]}" 2>pieces.txt ||
    { sed 's/^/    /' pieces.txt >&2; die "the pieces of 3 x 50 in 7 are not the whole run's boxes"; }

say "2. merge of the shuffled pieces equals the whole run (1 process, then 2 ranks)"
check_merged() { # FILE WHAT
    same_results whole.h5 "$1" "$2"
    "$IMPACTSWEEP" info "$1" >info.txt 2>&1 || die "$2: info fails on $1"
    grep -q '^points:.* 0 pending' info.txt || die "$2: info does not say 0 pending: $(grep '^points:' info.txt)"
    grep -q 'state complete' info.txt || die "$2: info does not say 'state complete': $(grep 'times:' info.txt)"
}
expect_status 0 "merge, 1 process" "$IMPACTSWEEP" merge merged1.h5 q2.h5 q0.h5 q3.h5 q1.h5
check_merged merged1.h5 "merge of 4 pieces, 1 process"
expect_status 0 "merge, 2 ranks" mpi2 merge merged2.h5 q3.h5 q1.h5 q0.h5 q2.h5
check_merged merged2.h5 "merge of 4 pieces, 2 ranks"
expect_status 0 "merge of 3 x 50 in 7" "$IMPACTSWEEP" merge thinmerged.h5 t5.h5 t0.h5 t6.h5 t3.h5 \
    t1.h5 t4.h5 t2.h5
same_results thin.h5 thinmerged.h5 "merge of the 7 pieces of 3 x 50"
say "2. took $(($(now_ms) - t_part)) ms"

# ------------------------------------------------------------------------------------
# 3. units sized by time; prompt stops
# ------------------------------------------------------------------------------------
t_part=$(now_ms)
cat >same_datasets.py <<'EOF'
# same_datasets.py A B: every root dataset and /run/tally, /run/state equal byte for byte
# (the job text differs: model.cost is a parameter)
import sys
import h5py
import numpy as np

a, b = (h5py.File(p, "r") for p in sys.argv[1:3])
names = lambda f: sorted(k for k in f if isinstance(f[k], h5py.Dataset)) + ["run/tally", "run/state"]
problems = []
if names(a) != names(b):
    problems.append(f"datasets {names(a)} vs {names(b)}")
else:
    for n in names(a):
        x, y = a[n][()], b[n][()]
        if x.dtype != y.dtype or np.shape(x) != np.shape(y) or np.asarray(x).tobytes() != np.asarray(y).tobytes():
            problems.append(f"{n} differs")
if problems:
    print("\n".join("  " + p for p in problems), file=sys.stderr)
    sys.exit(1)
EOF
same_datasets() { # A B WHAT
    "$PYTHON" same_datasets.py "$1" "$2" 2>compare.txt ||
        { sed 's/^/    /' compare.txt >&2; die "$3: $1 and $2 do not hold the same datasets"; }
}

say "3. units sized by time: cost 0.01 s a point, unit_seconds 0.5, 2 ranks"
expect_status 0 "cost 0" "$IMPACTSWEEP" run cost.ini --output cost0.h5
expect_status 0 "fail_below 0.5 (for the comparison's sake)" "$IMPACTSWEEP" run cost.ini \
    --set model.fail_below=0.5 --output costfail.h5
if "$PYTHON" same_datasets.py cost0.h5 costfail.h5 2>/dev/null; then
    die "same_datasets.py finds files with and without failed points equal"
fi
t0=$(now_ms)
expect_status 0 "cost 0.01, unit_seconds 0.5" mpi2 run cost.ini --set model.cost=0.01 \
    --set sweep.unit_seconds=0.5 --output timed.h5
line=$(computed_line err.txt || true)
say "   $(($(now_ms) - t0)) ms: $line"
same_datasets cost0.h5 timed.h5 "cost 0.01, unit_seconds 0.5 vs cost 0"
units=$(units_of err.txt || true)
[ -n "$units" ] || die "no 'this run computed ... (U units' line in the run's stderr"
echo "$line" | grep -q "target 0.5 s each" || die "the run does not say it aimed at 0.5 s units: $line"
[ "$units" -ge 5 ] || die "unit_seconds 0.5 on ~4 s of work: only $units units (expected more than 2, growing from 1 point)"
[ $((units * 4)) -le 400 ] || die "unit_seconds 0.5 on ~4 s of work: $units units for 400 points (units did not grow)"

say "3. unit_seconds 0.1 cuts the same work into clearly more units"
expect_status 0 "cost 0.01, unit_seconds 0.1" mpi2 run cost.ini --set model.cost=0.01 \
    --set sweep.unit_seconds=0.1 --output timed01.h5
same_datasets cost0.h5 timed01.h5 "cost 0.01, unit_seconds 0.1 vs cost 0"
units01=$(units_of err.txt || true)
say "   $(computed_line err.txt)"
if [ -z "$units01" ] || [ "$units01" -lt $((2 * units)) ]; then
    die "unit_seconds 0.1 gave ${units01:-no} units, unit_seconds 0.5 gave $units: units are not capped by time"
fi

slow=(--set model.cost=0.05 --set sweep.unit_seconds=30) # 400 points, ~20 s of work

say "3. reference: cost 0.05, unit_seconds 30, 2 ranks, uninterrupted"
t0=$(now_ms)
expect_status 0 "uninterrupted cost 0.05" mpi2 run cost.ini "${slow[@]}" --output slowref.h5
say "   $(($(now_ms) - t0)) ms: $(computed_line err.txt)"
same_datasets cost0.h5 slowref.h5 "cost 0.05 vs cost 0"

rank_pid() { # MPIEXEC_PID RANK: the pid of that rank's process
    local kid
    for kid in $(pgrep -P "$1" || true); do
        if tr '\0' '\n' <"/proc/$kid/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$2"; then
            echo "$kid"
            return 0
        fi
    done
    return 1
}

# stop RUN_PID TARGET_PID SIGNAL OUT: sends SIGNAL to TARGET_PID and waits for RUN_PID;
# sets stop_status, stop_ms (signal to exit) and report_ms (signal to the "stopped by
# signal" line on stderr; empty if there is none)
stop() {
    local run=$1 target=$2 signal=$3 out=$4 t0
    stop_status=0
    report_ms=""
    t0=$(now_ms)
    kill "-$signal" "$target"
    while kill -0 "$run" 2>/dev/null; do
        if [ -z "$report_ms" ] && grep -q "stopped by signal" "$out.err" 2>/dev/null; then
            report_ms=$(($(now_ms) - t0))
        fi
        sleep 0.05
    done
    wait "$run" || stop_status=$?
    stop_ms=$(($(now_ms) - t0))
    if [ -z "$report_ms" ] && grep -q "stopped by signal" "$out.err" 2>/dev/null; then
        report_ms=$stop_ms
    fi
}

# after_stop OUT WHAT: the interrupted file is consistent, has points pending, no lock left
after_stop() {
    local out=$1 what=$2
    "$IMPACTSWEEP" info "$out" >info.txt 2>&1 || { cat info.txt >&2; die "$what: info fails on the interrupted file"; }
    grep -q "state interrupted" info.txt || die "$what: info does not say 'state interrupted': $(grep times: info.txt)"
    stopped_pending=$(points "$out" pending)
    say "   $what: $(points "$out" "done") done, $stopped_pending pending"
    [ "$stopped_pending" -gt 0 ] || die "$what: nothing pending after the stop"
    [ "$(points "$out" "done")" -ge 20 ] || die "$what: fewer than the 20 points seen before the stop"
    [ ! -e "$out.lock" ] || die "$what: the stopped run left $out.lock behind"
    "$IMPACTSWEEP" info "$out" --log >log_stopped.txt 2>&1 || die "$what: info --log fails"
    log_words <log_stopped.txt >words.txt
    if ! grep -qx created words.txt || ! grep -qx interrupted words.txt; then
        die "$what: the log of the stopped run lacks 'created' or 'interrupted': $(tr '\n' ' ' <words.txt)"
    fi
    ! grep -qx complete words.txt || die "$what: the log of the stopped run says 'complete'"
}

# the log lines' kinds (created, interrupted, resumed, complete, ...) in order
log_words() { sed -n '/^log:/,$p' | sed 1d | awk '{ w = $2; sub(/:$/, "", w); print w }'; }

# resume_check OUT WHAT: --resume (2 ranks) computes exactly the pending points and gives
# the reference file; then 5. the log says created, interrupted, resumed, complete in order
resumed_files=()
resume_check() {
    local out=$1 what=$2
    expect_status 0 "$what: resume" mpi2 run cost.ini "${slow[@]}" --output "$out" --resume
    grep -q "this run computed $stopped_pending " err.txt ||
        die "$what: the resume should compute exactly the $stopped_pending pending points: $(computed_line err.txt)"
    [ "$(points "$out" pending)" -eq 0 ] || die "$what: points pending after the resume"
    same_results slowref.h5 "$out" "$what: interrupted + resumed vs uninterrupted"
    resumed_files+=("$out")
}

signal_rank() { # NAME RANK|mpiexec
    local who=$2 out="$WORK/$1.h5" target
    [ "$who" = mpiexec ] || who="rank $who"
    say "3. SIGUSR1 to $who alone once 20 points are done (units of 30 s)"
    start_mpi2 "$out" cost.ini "${slow[@]}"
    wait_for_done "$out" 20 "$run_pid"
    if [ "$who" = mpiexec ]; then
        target=$run_pid
    else
        target=$(rank_pid "$run_pid" "$2") || die "no process of $who under mpiexec $run_pid"
    fi
    stop "$run_pid" "$target" USR1 "$out"
    say "   signal to $who: stop reported after ${report_ms:-?} ms, exit $stop_status after $stop_ms ms"
    if [ "$stop_status" -ne 75 ]; then
        tail -n 15 "$out.err" | sed 's/^/    /' >&2
        die "SIGUSR1 to $who: expected exit status 75, got $stop_status"
    fi
    [ -n "$report_ms" ] || die "SIGUSR1 to $who: no 'stopped by signal' line on stderr"
    [ "$report_ms" -le 1500 ] ||
        die "SIGUSR1 to $who: the stop was reported $report_ms ms after the signal (batches are ~0.25 s)"
    [ "$stop_ms" -le 3000 ] || die "SIGUSR1 to $who: the run ended $stop_ms ms after the signal (more than 3 s)"
    grep -q "target 30 s each" "$out.err" || die "SIGUSR1 to $who: the run did not use 30 s units: $(computed_line "$out.err")"
    after_stop "$out" "SIGUSR1 to $who"
    resume_check "$out" "SIGUSR1 to $who"
}
signal_rank rank0 0
signal_rank rank1 1
signal_rank viampiexec mpiexec
say "3. took $(($(now_ms) - t_part)) ms"

# ------------------------------------------------------------------------------------
# 4. signals to the launcher
# ------------------------------------------------------------------------------------
t_part=$(now_ms)
signal_launcher() { # NAME SIGNAL
    local signal=$2 out="$WORK/$1.h5"
    say "4. SIG$signal to \`run -n 2\` (which starts mpiexec itself)"
    IMPACTSWEEP_MPIEXEC="$MPIEXEC $MPIEXEC_FLAGS" "$IMPACTSWEEP" run -n 2 cost.ini "${slow[@]}" \
        --output "$out" --progress lines >"$out.out" 2>"$out.err" &
    run_pid=$!
    launch_pid=$run_pid
    wait_for_done "$out" 20 "$run_pid"
    grep -q "2 ranks" "$out.err" || die "run -n 2 does not run on 2 ranks: $(head -n 1 "$out.err")"
    stop "$run_pid" "$run_pid" "$signal" "$out"
    launch_pid=""
    say "   SIG$signal to run -n 2: stop reported after ${report_ms:-?} ms, exit $stop_status after $stop_ms ms"
    if [ "$stop_status" -ne 75 ]; then
        tail -n 15 "$out.err" | sed 's/^/    /' >&2
        die "SIG$signal to run -n 2: expected exit status 75, got $stop_status"
    fi
    [ "$stop_ms" -le 5000 ] || die "SIG$signal to run -n 2: the run ended $stop_ms ms after the signal"
    after_stop "$out" "SIG$signal to run -n 2"
    resume_check "$out" "SIG$signal to run -n 2"
}
signal_launcher launchterm TERM
signal_launcher launchint INT

say "4. SIGTERM to plain mpiexec (documented, not required to give 75)"
plain="$WORK/plainterm.h5"
start_mpi2 "$plain" cost.ini "${slow[@]}"
wait_for_done "$plain" 20 "$run_pid"
stop "$run_pid" "$run_pid" TERM "$plain"
lock_left=no
[ -e "$plain.lock" ] && lock_left=yes
say "   plain mpiexec on SIGTERM: exit status $stop_status after $stop_ms ms; lock left behind: $lock_left"
"$IMPACTSWEEP" info "$plain" >info.txt 2>&1 || { cat info.txt >&2; die "plain SIGTERM: info fails on the file"; }
say "   $(grep '^times:' info.txt | sed 's/.*state/state/'); $(grep '^points:' info.txt)"
stopped_pending=$(points "$plain" pending)
[ "$stopped_pending" -gt 0 ] || die "plain SIGTERM: nothing pending after the stop"
# the lock (if any) belongs to a dead pid: --resume must take it over
resume_check "$plain" "SIGTERM to plain mpiexec"
[ ! -e "$plain.lock" ] || die "plain SIGTERM: the resumed run left $plain.lock behind"
say "4. took $(($(now_ms) - t_part)) ms"

# ------------------------------------------------------------------------------------
# 5. the log of interrupted and resumed runs
# ------------------------------------------------------------------------------------
say "5. info --log: created, interrupted, resumed, complete in that order"
for f in "${resumed_files[@]}"; do
    "$IMPACTSWEEP" info "$f" --log >log.txt 2>&1 || die "info --log fails on $f"
    order=$(log_words <log.txt | awk '
        $0 == "created" && !c { c = NR } $0 == "interrupted" && !i { i = NR }
        $0 == "resumed" && !r { r = NR } $0 == "complete" && !k { k = NR }
        END { print (c && i && r && k && c < i && i < r && r < k) ? "ok" : "bad" }')
    if [ "$order" != ok ]; then
        sed -n '/^log:/,$p' log.txt | sed 's/^/    /' >&2
        die "$f: the log does not show created, interrupted, resumed, complete in that order"
    fi
done
[ "${#resumed_files[@]}" -eq 6 ] || die "expected 6 resumed files, checked ${#resumed_files[@]}"
