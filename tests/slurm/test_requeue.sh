#!/usr/bin/env bash
# A time limit too short to finish, on a job over 3 nodes (a rank on each): Slurm signals
# the batch shell (--signal=B:USR1@20, which Slurm sends up to ~30 s early), the script
# passes the signal to mpirun, which passes it to the ranks on every node; the run stops
# at its next work unit and exits 75, the script requeues the job, the requeued job
# resumes, and the finished file is the same as an uninterrupted run's. The sweep is
# sized to about 60 s on the machine's 2 cores (measured first, so that the test keeps
# working when the model gets faster or slower; a slower machine needs more requeues).
# The signal comes 10-40 s after the start: a calibration on a shared machine can
# overstate the run by a third (with the signal at 50 s at the latest, a run of 55 s
# nominal once ended in 45 s, unsignalled), and one signal before 10 s could find the
# run still starting.
# The job's log keeps every incarnation, each requeue said by the script.
source "$(dirname "$0")/lib.sh"
need_nodes 3
job=$(dirname "$0")/sweep.ini
samples=$(calibrated_samples "$job" 120 --set model.early_stop=0 --set sweep.unit_size=1) # 60 s on 2 cores
[ "$samples" -le 50000000 ] || samples=50000000
echo "samples = $samples"
work=(--set model.samples=$samples --set model.early_stop=0 --set sweep.unit_size=1)

say "a job over 3 nodes with a 1-minute limit and about a minute of work"
t0=$(now)
out=$("$SLURM_SUBMIT" --job-name impactsweep-test --nodes 3 --ntasks-per-node 1 --time 00:01:00 \
      --grace 20 --output "$WORK/requeued.h5" "$job" -- "${work[@]}") || die "submit failed: $out"
echo "$out"
id=$(submitted_id "$out")
[ -n "$id" ] || die "no job id in: $out"
wait_job "$id" 600
echo "   submission to the end: $(since "$t0") s"
log=slurm-impactsweep-test-$id.out
requeued_logged "$id" "$log"
echo "requeued $(job_restarts "$id") time(s)"
grep "impactsweep.sbatch:" "$log"
log=$(run_log requeued.h5)
echo "$log"
echo "$log" | grep -q "interrupted" || die "the run log records no interruption"
echo "$log" | grep -q "resumed" || die "the run log records no resumption"
[ "$(run_state requeued.h5)" = complete ] || die "the run state is not complete"
echo "$log" | grep "resumed" | grep -q "SLURM_RESTART_COUNT=[1-9]" ||
    die "the run log lacks the restart count"
echo "$log" | grep -q "3 ranks.*SLURM_JOB_NODELIST=" || die "the run log shows no 3-rank run"

say "the uninterrupted run, for comparison"
$MPIEXEC $MPIEXEC_FLAGS -n 2 "$IMPACTSWEEP" run "$job" "${work[@]}" --output reference.h5 \
    >/dev/null 2>&1 || die "reference run failed"
"$H5COMPARE" requeued.h5 reference.h5 || die "signal + requeue + resume differs from one run"
echo "PASS"
