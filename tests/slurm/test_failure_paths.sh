#!/usr/bin/env bash
# The paths around the happy one, each failing loudly with the file left resumable:
#  - the restart cap: a job with --max-restarts 1 stopped twice (the signal a time limit
#    sends) is requeued once, then fails (exit code 75) saying it hit the cap;
#  - a Slurm that forbids requeueing (the local cluster's partition `norequeue`, where a
#    job_submit.lua makes every job non-requeueable): the stopped job's requeue fails, and
#    the job fails (75) with Slurm's reason in its log, instead of ending COMPLETED;
#  - the merge job of an array one of whose pieces fails is cancelled (afterok with
#    --kill-on-invalid-dep=yes), instead of waiting for ever;
#  - the file of the capped job, resumed, equals an uninterrupted run's.
source "$(dirname "$0")/lib.sh"
job=$(dirname "$0")/sweep.ini
# work for about 20 s on one core (calibrated: with a fixed count a quiet machine finished a
# requeued incarnation in 2 s, before the test could stop it)
samples=$(calibrated_samples "$job" 20 --set model.early_stop=0 --set sweep.unit_size=1)
work=(--set model.samples="$samples" --set model.early_stop=0 --set sweep.unit_size=1)

# expect_failed ID WANT: the job ended FAILED with exit code 75 and WANT in its log
expect_failed() {
    local id=$1 want=$2 state code log=slurm-impactsweep-test-$1.out
    state=$(wait_end "$id" 120)
    code=$(job_field "$id" ExitCode)
    echo "   job $id: $state, exit code $code: $(grep -m1 -E "$want" "$log")"
    [ "$state" = FAILED ] && [ "$code" = 75:0 ] || die "job $id ended $state ($code), not FAILED (75:0)"
    grep -qE "$want" "$log" || die "job $id's log does not say '$want'"
}

say "the restart cap: --max-restarts 1, stopped twice"
out=$("$SLURM_SUBMIT" --job-name impactsweep-test --ntasks 1 --time 00:10:00 --max-restarts 1 \
      --output "$WORK/capped.h5" "$job" -- "${work[@]}") || die "submit failed: $out"
id=$(submitted_id "$out")
stop_when_computing "$id" "slurm-impactsweep-test-$id.out" 0
for _ in $(seq 1 100); do [ "$(job_restarts "$id")" = 1 ] && break; sleep 0.2; done
[ "$(job_restarts "$id")" = 1 ] || die "the first stop did not requeue job $id"
stop_when_computing "$id" "slurm-impactsweep-test-$id.out" 1
expect_failed "$id" "NOT requeued: .* the cap \(--max-restarts 1\)"
[ "$(run_state capped.h5)" = interrupted ] || die "the capped job's file is $(run_state capped.h5), not interrupted"

say "a Slurm that forbids requeueing (partition norequeue)"
if sinfo -h -p norequeue -o %P | grep -q norequeue && [ -n "${IMPACTSWEEP_LOCAL_CLUSTER:-}" ]; then
    out=$("$SLURM_SUBMIT" --job-name impactsweep-test --partition norequeue --ntasks 1 \
          --time 00:10:00 --output "$WORK/forbidden.h5" "$job" -- "${work[@]}") || die "submit failed: $out"
    id=$(submitted_id "$out")
    [ "$(job_field "$id" Requeue)" = 0 ] || die "the partition norequeue took a requeueable job"
    stop_when_computing "$id" "slurm-impactsweep-test-$id.out" 0
    expect_failed "$id" "the requeue FAILED: scontrol requeue $id: .*disabled"
    [ "$(run_state forbidden.h5)" = interrupted ] || die "the file is $(run_state forbidden.h5), not interrupted"

    say "the merge job of an array whose piece fails is cancelled"
    out=$("$SLURM_SUBMIT" --job-name impactsweep-test --partition norequeue --ntasks 1 \
          --time 00:10:00 --array 2 --output "$WORK/array.h5" "$job" -- "${work[@]}" 2>&1) ||
        die "submit failed: $out"
    id=$(submitted_id "$out")
    merge=$(echo "$out" | sed -n 's/^submitted merge job \([0-9]*\).*/\1/p')
    [ -n "$id" ] && [ -n "$merge" ] || die "no job ids in: $out"
    [ "$(job_field "$merge" Partition)" = norequeue ] || die "the merge job left the run's partition"
    for _ in $(seq 1 150); do [ -n "$(squeue -h -j "${id}_0" -t RUNNING -o %i)" ] && break; sleep 0.2; done
    stop_when_computing "${id}_0" "slurm-impactsweep-test-${id}_0.out" 0
    state=$(wait_end "$merge" 120)
    echo "   merge job $merge: $state ($(job_field "$merge" Reason))"
    [ "$state" = CANCELLED ] || die "the merge job of a failed array ended $state, not CANCELLED"
    scancel "$id" 2>/dev/null || true
else
    echo "   (skipped: no partition norequeue; this needs the local cluster)"
fi

say "the capped job's file, resumed, equals an uninterrupted run"
"$IMPACTSWEEP" run "$job" "${work[@]}" --output capped.h5 --resume >/dev/null 2>&1 || die "the resume failed"
run_log capped.h5
"$IMPACTSWEEP" run "$job" "${work[@]}" --output reference.h5 >/dev/null 2>&1 || die "reference run failed"
"$H5COMPARE" capped.h5 reference.h5 || die "the capped, resumed file differs from one run"
echo "PASS"
