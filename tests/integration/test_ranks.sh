# test_ranks.sh: the results do not depend on how the sweep is run: 1 rank without
# mpiexec, 1 rank and 2 (and 3) ranks under mpiexec, several work-unit sizes, and rank 0
# computing or only coordinating all give files that h5compare finds identical.
# shellcheck source=lib.sh
source "$TESTS/integration/lib.sh"

job="$INTEGRATION_JOBS/sweep.ini"
# 17 x 23 points: units of 7 straddle the rows of the grid in every possible way.
shape=(--set axis.rho.count=17 --set axis.gamma.count=23)

say "reference: 1 rank, no mpiexec"
expect_status 0 "serial run" "$IMPACTSWEEP" run "$job" "${shape[@]}" --output ref.h5
[ "$(points ref.h5 total)" -eq 391 ] || die "ref.h5 should have 17 x 23 = 391 points"
[ "$(points ref.h5 "done")" -eq 391 ] || die "ref.h5 is not complete: $(points ref.h5 "done") done"
[ "$(points ref.h5 pending)" -eq 0 ] || die "ref.h5 has pending points"

say "h5compare is not vacuous: another seed gives other results, the same file itself"
expect_status 0 "run with seed 8" "$IMPACTSWEEP" run "$job" "${shape[@]}" --set model.seed=8 \
    --output seed8.h5
if "$H5COMPARE" ref.h5 seed8.h5 2>/dev/null; then
    die "h5compare finds seeds 7 and 8 identical"
fi
same_results ref.h5 ref.h5 "a file against itself"

check() { # NAME DESCRIPTION COMMAND...: run COMMAND writing NAME.h5, compare with ref.h5
    local name=$1 what=$2
    shift 2
    say "$what"
    expect_status 0 "$what" "$@" "$job" "${shape[@]}" --output "$name.h5"
    same_results ref.h5 "$name.h5" "$what"
}

check serial_u7 "1 rank, no mpiexec, unit_size 7" "$IMPACTSWEEP" run --set sweep.unit_size=7
check mpi1 "1 rank under mpiexec -n 1" mpi1 run
check mpi1_u1 "1 rank under mpiexec -n 1, unit_size 1" mpi1 run --set sweep.unit_size=1
check mpi2 "2 ranks" mpi2 run
check mpi2_u1 "2 ranks, unit_size 1" mpi2 run --set sweep.unit_size=1
check mpi2_u7 "2 ranks, unit_size 7" mpi2 run --set sweep.unit_size=7
check mpi2_auto "2 ranks, unit_size auto" mpi2 run --set sweep.unit_size=auto
check mpi2_big "2 ranks, unit_size 1000 (one unit for the whole grid)" mpi2 run \
    --set sweep.unit_size=1000
check mpi2_nomaster "2 ranks, rank 0 only coordinates, unit_size 7" mpi2 run \
    --set sweep.master_computes=false --set sweep.unit_size=7
# shellcheck disable=SC2086 # $MPIEXEC_FLAGS is split into words on purpose
check mpi3_u7 "3 ranks on 2 cores, unit_size 7" \
    $MPIEXEC $MPIEXEC_FLAGS -n 3 "$IMPACTSWEEP" run --set sweep.unit_size=7

say "the ranks are recorded (run-specific, ignored by h5compare)"
"$IMPACTSWEEP" info mpi2.h5 | grep "created on 2 ranks" >/dev/null || die "info of mpi2.h5 does not say 2 ranks"
"$IMPACTSWEEP" info ref.h5 | grep "created on 1 ranks" >/dev/null || die "info of ref.h5 does not say 1 rank"
