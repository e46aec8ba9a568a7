#!/usr/bin/env bash
# slurm/submit's options on a real scheduler:
#  - --launcher srun (Open MPI through Slurm's PMIx), --setup FILE sourced in the job,
#    --mem and other sbatch options passed through (Slurm records them): the same file as
#    a direct run;
#  - a stop signal under srun (what a time limit sends): the batch shell passes it to
#    srun, srun to the ranks, the run exits 75, the job requeues itself (its log keeps
#    both incarnations and says so) and resumes, and the file is the same as an
#    uninterrupted run's;
#  - --array 2 --chain 1: the resume array after the run, the merge after it (with the
#    run's partition and passed-through option, --kill-on-invalid-dep=yes, its own
#    memory); the merged file equals a direct run.
source "$(dirname "$0")/lib.sh"
job=$(dirname "$0")/sweep.ini

say "direct run for reference"
"$IMPACTSWEEP" run "$job" --output reference.h5 >/dev/null 2>&1 || die "reference run failed"

say "srun, a setup file, --mem and a passed-through option"
printf '%s\n' 'echo "setup: sourced on $(hostname -s)"' 'export IMPACTSWEEP_SETUP_RAN=1' >setup.sh
out=$("$SLURM_SUBMIT" --job-name impactsweep-test --ntasks 2 --time 00:05:00 --mem 300M \
      --comment=impactsweep-options --launcher srun --setup setup.sh \
      --output "$WORK/srun.h5" "$job") || die "submit failed: $out"
echo "$out"
id=$(echo "$out" | sed -n 's/^submitted job \([0-9]*\).*/\1/p')
[ -n "$id" ] || die "no job id in: $out"
scontrol show job "$id" | grep -q "MinMemoryNode=300M" || die "the job lacks --mem=300M: $(scontrol show job "$id" | grep -i mem)"
scontrol show job "$id" | grep -q "Comment=impactsweep-options" || die "the job lacks the passed-through --comment"
wait_job "$id" 300
grep -q "^setup: sourced on" "slurm-impactsweep-test-$id.out" || die "the setup file was not sourced"
"$H5COMPARE" srun.h5 reference.h5 || die "the srun run differs from the direct run"
[ "$(attribute srun.h5 ranks)" = 2 ] || die "srun started $(attribute srun.h5 ranks) ranks, not 2"

say "a stop signal under srun: requeued, resumed, the same file"
# early_stop = 0: every drop runs its whole budget (with the early stop this chattering
# sweep ends within seconds, before the signal)
work=(--set model.samples=400000 --set model.early_stop=0 --set sweep.unit_size=1)
out=$("$SLURM_SUBMIT" --job-name impactsweep-test --ntasks 2 --time 00:10:00 --launcher srun \
      --output "$WORK/signalled.h5" "$job" -- "${work[@]}") || die "submit failed: $out"
id=$(echo "$out" | sed -n 's/^submitted job \([0-9]*\).*/\1/p')
stop_when_computing "$id" "slurm-impactsweep-test-$id.out" 0
wait_job "$id" 600
requeued_logged "$id" "slurm-impactsweep-test-$id.out"
run_log signalled.h5 | grep -q "interrupted" || die "the run log records no interruption"
$MPIEXEC $MPIEXEC_FLAGS -n 2 "$IMPACTSWEEP" run "$job" "${work[@]}" --output signal_reference.h5 \
    >/dev/null 2>&1 || die "reference run failed"
"$H5COMPARE" signalled.h5 signal_reference.h5 || die "signal + requeue under srun differs"

say "--array 2 --chain 1: the merge after the resume array, with the run's options"
out=$("$SLURM_SUBMIT" --job-name impactsweep-test --ntasks 1 --time 00:05:00 --array 2 \
      --chain 1 --partition debug --comment=impactsweep-merge --mem 200M \
      --output "$WORK/chained.h5" "$job") || die "submit failed: $out"
echo "$out"
resume=$(echo "$out" | sed -n 's/^submitted resume job \([0-9]*\).*/\1/p')
merge=$(echo "$out" | sed -n 's/^submitted merge job \([0-9]*\).*/\1/p')
[ -n "$resume" ] && [ -n "$merge" ] || die "no resume or merge job id in: $out"
scontrol show job "$merge" | grep -q "Dependency=afterok:${resume}" ||
    die "the merge job does not wait for the resume array: $(scontrol show job "$merge" | grep -o 'Dependency=[^ ]*')"
# the merge job carries the partition and the passed-through option, not the run's
# memory, and goes when its dependency can never be met
for want in "Partition=debug" "Comment=impactsweep-merge" "KillOInInvalidDependent=Yes" "MinMemoryNode=1G"; do
    scontrol show job "$merge" | grep -q "$want" || die "the merge job lacks $want"
done
wait_job "$merge" 300
"$H5COMPARE" chained.h5 reference.h5 || die "the chained array's merge differs from the direct run"
echo "PASS"
