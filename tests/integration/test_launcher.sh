# test_launcher.sh: `impactsweep run -n N` on a small machine: it works, or it refuses
# with exit 2 before anything starts, and a launcher failure is never the run's (1):
#  1. more ranks than cores (Open MPI's mpirun alone would refuse: "not enough slots"):
#     the run oversubscribes with a one-line notice, and equals a 1-rank run; the
#     file's provenance names the host and its ranks;
#  2. a rank count that is not a whole number >= 1: exit 2, nothing written;
#  3. a launcher that is not there: exit 2, nothing written;
#  4. a launcher that fails before any rank starts: exit 2 with its reason; one that
#     started the ranks keeps its status (the run's own);
#  5. inside a Slurm allocation, more ranks than its tasks: exit 2.
# shellcheck source=lib.sh
source "$TESTS/integration/lib.sh"
job="$INTEGRATION_JOBS/sweep.ini"
small=(--set axis.rho.count=5 --set axis.gamma.count=4)
# the test environment lets Open MPI oversubscribe; run -n must do without it
unset OMPI_MCA_rmaps_base_oversubscribe IMPACTSWEEP_MPIEXEC
# (the start markers go to TMPDIR: this test's own, to see that none is left)
export TMPDIR=$WORK/tmp
mkdir -p "$TMPDIR"
cores=$(nproc)
ranks=$((cores + 1))

say "1. run -n $ranks on $cores cores: oversubscribed, with a notice"
expect_status 0 "the 1-rank run" "$IMPACTSWEEP" run "$job" "${small[@]}" --output one.h5
expect_status 0 "run -n $ranks" "$IMPACTSWEEP" run -n "$ranks" "$job" "${small[@]}" --output many.h5
grep -c "oversubscribed" err.txt | grep -qx 1 || die "no one-line notice of the oversubscription: $(head -3 err.txt)"
grep -q "^impactsweep: $ranks ranks on $cores cores: oversubscribed" err.txt || die "the notice: $(grep oversub err.txt)"
same_results one.h5 many.h5 "run -n $ranks against 1 rank"
hosts=$("$PYTHON" -c 'import h5py, sys; print(h5py.File(sys.argv[1], "r").attrs["hosts"])' many.h5)
[ "$hosts" = "$(hostname):$ranks" ] || die "the provenance's hosts: '$hosts', not '$(hostname):$ranks'"
expect_status 0 "run -n 1" "$IMPACTSWEEP" run -n 1 "$job" "${small[@]}" --output n1.h5
! grep -q "oversubscribed" err.txt || die "run -n 1 says it oversubscribes"

say "2. rank counts that are not whole numbers >= 1"
for bad in 0 -2 2x 1e3 "" 99999999999; do
    expect_status 2 "run -n '$bad'" "$IMPACTSWEEP" run -n "$bad" "$job" --output bad.h5
    grep -q "number of ranks" err.txt || die "run -n '$bad': $(cat err.txt)"
done
[ ! -e bad.h5 ] || die "a refused run -n left a file"

say "3. a launcher that is not there"
expect_status 2 "no such launcher" env IMPACTSWEEP_MPIEXEC="$WORK/nowhere/mpirun" \
    "$IMPACTSWEEP" run -n 2 "$job" --output bad.h5
grep -q "the MPI launcher '$WORK/nowhere/mpirun' is not found" err.txt || die "$(cat err.txt)"
[ ! -e bad.h5 ] || die "a run without a launcher left a file"

say "4. a launcher that fails before any rank starts, and one that fails after"
printf '#!/bin/sh\necho "fakempi: cannot reach the hosts" >&2\nexit 1\n' >fail-early
# starts the command once (no MPI: a singleton), then reports a failure of its own
printf '#!/bin/sh\nshift 2\n"$@"\nexit 1\n' >fail-late
chmod +x fail-early fail-late
expect_status 2 "a launcher failing before the ranks" env IMPACTSWEEP_MPIEXEC="$WORK/fail-early" \
    "$IMPACTSWEEP" run -n 2 "$job" "${small[@]}" --output bad.h5
grep -q "ended with status 1 before any rank started: nothing was computed" err.txt || die "$(cat err.txt)"
[ ! -e bad.h5 ] || die "a launcher that started nothing left a file"
expect_status 1 "a launcher failing after the ranks started" env IMPACTSWEEP_MPIEXEC="$WORK/fail-late" \
    "$IMPACTSWEEP" run -n 2 "$job" "${small[@]}" --output late.h5
same_results one.h5 late.h5 "the run under a launcher that failed afterwards"
# (Open MPI's own session directories, ompi.HOST.UID, may outlive a singleton on a loaded
# machine: they are not ours to count)
left=$(find "$TMPDIR" -mindepth 1 -maxdepth 1 -name 'impactsweep-launch-*' -printf '%f ')
[ -z "$left" ] || die "start markers left behind: $left"

say "5. inside a Slurm allocation of 2 tasks, run -n 3"
expect_status 2 "more ranks than the allocation's tasks" env SLURM_JOB_ID=99 SLURM_NTASKS=2 \
    "$IMPACTSWEEP" run -n 3 "$job" --output bad.h5
grep -q "this Slurm allocation (job 99) has 2 tasks" err.txt || die "$(cat err.txt)"
echo "PASS"
