#!/usr/bin/env bash
# A real sweep through Slurm: slurm/submit turns a job file into a batch script, sbatch
# runs it on 2 tasks, and the result file equals a direct run and records the Slurm job.
# Then the job-array mode: 3 pieces and the merge job give the same file.
source "$(dirname "$0")/lib.sh"
job=$(dirname "$0")/sweep.ini

say "direct run for reference"
"$IMPACTSWEEP" run "$job" --output reference.h5 >/dev/null 2>&1 || die "reference run failed"

say "one MPI job over 2 tasks"
out=$("$SLURM_SUBMIT" --job-name impactsweep-test --ntasks 2 --time 00:05:00 \
      --output "$WORK/slurm.h5" "$job") || die "submit failed: $out"
echo "$out"
id=$(echo "$out" | sed -n 's/^submitted job \([0-9]*\).*/\1/p')
[ -n "$id" ] || die "no job id in: $out"
wait_job "$id" 300
[ -f slurm.h5 ] || die "no result file"
"$H5COMPARE" slurm.h5 reference.h5 || die "the Slurm run differs from the direct run"
[ "$(run_state slurm.h5)" = complete ] || die "the run state is not complete"
attribute slurm.h5 slurm | grep -q "SLURM_JOB_ID=$id" || die "provenance lacks SLURM_JOB_ID=$id"
attribute slurm.h5 slurm | grep -q "SLURM_JOB_NODELIST=" || die "provenance lacks the node list"
[ "$(attribute slurm.h5 ranks)" = 2 ] || die "ranks is not 2"

say "a job array of 3 pieces and the merge job"
out=$("$SLURM_SUBMIT" --job-name impactsweep-test --ntasks 1 --time 00:05:00 --array 3 \
      --output "$WORK/array.h5" "$job") || die "submit failed: $out"
echo "$out"
merge=$(echo "$out" | sed -n 's/^submitted merge job \([0-9]*\).*/\1/p')
[ -n "$merge" ] || die "no merge job id in: $out"
wait_job "$merge" 300
for i in 0 1 2; do
    [ -f "array.piece$i.h5" ] || die "piece $i missing"
    attribute "array.piece$i.h5" slurm | grep -q "SLURM_ARRAY_TASK_ID=$i" ||
        die "piece $i lacks its array index"
done
"$H5COMPARE" array.h5 reference.h5 || die "the merged array differs from the direct run"
echo "PASS"
