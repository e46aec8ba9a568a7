# test_sharing.sh: work shared between points (issue 27; src/core/contract/memo.h) changes no bit.
# The stop oscillator searches a point's 2-phase orbits once per (k, k12, s, orbit_t_max)
# on a rank; its regime map with the orbit search is computed with the memo off
# (IMPACTSWEEP_SHARE=0) and on, on 1 and 3 ranks, in units of 1, 7 and the whole grid,
# with the swept k12 the slow axis and the fast one, and with more k12 values than the
# memo holds (so that it evicts): every file is identical, orbit outputs included.
# shellcheck source=lib.sh
source "$TESTS/integration/lib.sh"

job="$JOBS/stop_regime_map.ini"
shape=(--set axis.k12.count=24 --set axis.epsilon.count=9)

say "reference: the memo off, 1 rank"
IMPACTSWEEP_SHARE=0 expect_status 0 "run without sharing" "$IMPACTSWEEP" run "$job" \
    "${shape[@]}" --output ref.h5
"$PYTHON" - ref.h5 <<'END' || die "the reference has no orbits to compare"
import sys
import h5py
import numpy as np
f = h5py.File(sys.argv[1], "r")
orbits = f["orbits"][...]
# orbits on some k12 values and none on others, the same along each k12 row
assert (orbits > 0).any() and (orbits == 0).any(), orbits
assert (orbits == orbits[:, :1]).all()
assert np.isfinite(f["orbit_v"][...]).any()
END

check() { # NAME WHAT COMMAND...: run COMMAND writing NAME.h5, compare with REF (ref.h5)
    local name=$1 what=$2
    shift 2
    say "$what"
    expect_status 0 "$what" "$@" "$job" "${shape[@]}" --output "$name.h5"
    same_results "${REF:-ref.h5}" "$name.h5" "$what"
}

check shared1 "the memo on, 1 rank" "$IMPACTSWEEP" run
check shared1_u1 "the memo on, 1 rank, units of 1 point" "$IMPACTSWEEP" run \
    --set sweep.unit_size=1
check shared1_all "the memo on, 1 rank, one unit" "$IMPACTSWEEP" run --set sweep.unit_size=1000
# shellcheck disable=SC2086 # $MPIEXEC_FLAGS is split into words on purpose
check shared3_u7 "the memo on, 3 ranks, units of 7" \
    $MPIEXEC $MPIEXEC_FLAGS -n 3 "$IMPACTSWEEP" run --set sweep.unit_size=7
# shellcheck disable=SC2086
IMPACTSWEEP_SHARE=0 check unshared3_u7 "the memo off, 3 ranks, units of 7" \
    $MPIEXEC $MPIEXEC_FLAGS -n 3 "$IMPACTSWEEP" run --set sweep.unit_size=7

say "k12 the fast axis, 1100 values: more keys than the memo's 1024 entries (it evicts)"
{
    grep -v '^\[axis' "$job" | sed '/^from\|^to\|^count\|^scale/d'
    printf '%s\n' "[axis.epsilon]" "from = 0.2" "to = 0.3" "count = 2" \
        "[axis.k12]" "from = 1.4" "to = 2" "count = 1100"
} >fast.ini
IMPACTSWEEP_SHARE=0 expect_status 0 "fast k12, the memo off" "$IMPACTSWEEP" run fast.ini \
    --set model.t_end=20 --output fast_ref.h5
expect_status 0 "fast k12, the memo on" "$IMPACTSWEEP" run fast.ini --set model.t_end=20 \
    --set sweep.unit_size=1000 --output fast_shared.h5
same_results fast_ref.h5 fast_shared.h5 "fast k12, evicting"
# shellcheck disable=SC2086
expect_status 0 "fast k12, the memo on, 3 ranks" $MPIEXEC $MPIEXEC_FLAGS -n 3 \
    "$IMPACTSWEEP" run fast.ini --set model.t_end=20 --set sweep.unit_size=7 \
    --output fast_shared3.h5
same_results fast_ref.h5 fast_shared3.h5 "fast k12, 3 ranks"

say "ok"
