#!/usr/bin/env bash
# A node lost in the middle of a run over 3 nodes: every process on one node that is not
# the batch host is killed (its slurmd, its slurmstepd and its rank: the node loses
# power). mpirun sees its daemon there gone and breaks the run off; the batch script
# asks Slurm whether a node of the job is lost, Slurm finds the node not responding and
# sets it DOWN (SlurmdTimeout), the script requeues the job; the node comes back (its
# slurmd restarts; ReturnToService=2 makes it usable at once), the job runs again
# on the 3 nodes, resumes the file (taking the dead run's lock over at once: the same
# Slurm job) and the finished file is the same as an uninterrupted run's. The timeline
# is printed (seconds after the kill). Needs the local cluster (slurm/local-cluster.sh).
source "$(dirname "$0")/lib.sh"
need_local_cluster
need_nodes 3
job=$(dirname "$0")/sweep.ini
# about 25 s of work on one core (measured)
samples=$(calibrated_samples "$job" 25 --set model.early_stop=0 --set sweep.unit_size=1)
work=(--set model.samples=$samples --set model.early_stop=0 --set sweep.unit_size=1)
echo "samples = $samples"

say "a run over 3 nodes, one of which is lost"
out=$("$SLURM_SUBMIT" --job-name impactsweep-test --nodes 3 --ntasks-per-node 1 --time 00:10:00 \
      --output "$WORK/lost.h5" "$job" -- "${work[@]}") || die "submit failed: $out"
id=$(submitted_id "$out")
[ -n "$id" ] || die "no job id in: $out"
log=slurm-impactsweep-test-$id.out
wait_running "$id" lost.h5 120
for _ in $(seq 1 100); do # into the computation: some points stored
    grep -qE "^impactsweep: [1-9][0-9]*/[0-9]+ points" "$log" 2>/dev/null && break
    sleep 0.2
done
batch=$(job_field "$id" BatchHost)
victim=$(hostnames "$(job_field "$id" NodeList)" | grep -vx "$batch" | tail -1)
number=${victim#isnode}
[ -n "$victim" ] && [ "$victim" != "$number" ] || die "no node to lose (batch host $batch)"

kill_at=$(now)
"$IMPACTSWEEP_LOCAL_CLUSTER" kill-node "$number"
echo "   0.0 s: $victim lost (every process in it killed); the batch host is $batch"
broke="" responding="" requeued="" down="" back="" running=""
while [ -z "$running" ]; do
    t=$(since "$kill_at")
    awk -v t="$t" 'BEGIN { exit !(t > 180) }' && die "no recovery 180 s after the kill"
    if [ -z "$broke" ] && grep -q "the run broke off" "$log"; then
        broke=$t; echo "   $t s: the run broke off: $(grep -m1 'the run broke off' "$log")"
    fi
    if [ -z "$responding" ] && [[ "$(node_state "$victim")" =~ NOT_RESPONDING|DOWN ]]; then
        responding=$t; echo "   $t s: Slurm: $victim $(node_state "$victim")"
    fi
    state=$(job_state "$id")
    if [ -z "$requeued" ] && [ "$(job_restarts "$id")" = 1 ]; then
        requeued=$t; echo "   $t s: job requeued (state $state): $(grep -m1 'requeued job' "$log" || true)"
    fi
    # the node boots again once Slurm has given it up (DOWN)
    if [ -z "$down" ] && [[ "$(node_state "$victim")" == *DOWN* ]]; then
        down=$t; echo "   $t s: Slurm: $victim $(node_state "$victim")"
        "$IMPACTSWEEP_LOCAL_CLUSTER" start-node "$number" >/dev/null
        echo "   $(since "$kill_at") s: $victim boots again"
    fi
    if [ -n "$down" ] && [ -n "$requeued" ] && [ -z "$back" ] && [[ "$(node_state "$victim")" =~ ^(IDLE|MIXED|ALLOCATED)$ ]]; then
        back=$(since "$kill_at"); echo "   $back s: Slurm: $victim $(node_state "$victim")"
    fi
    if [ -n "$back" ] && [ "$state" = RUNNING ]; then
        running=$(since "$kill_at"); echo "   $running s: the job runs again on $(job_field "$id" NodeList)"
    fi
    sleep 0.5
done
wait_job "$id" 300
echo "   $(since "$kill_at") s: the job is done ($(job_state "$id"))"
[ -n "$broke" ] || die "the batch script did not see the run break off"
# the requeue: by the batch script (it saw the node DOWN) or by Slurm itself (it sets the
# node DOWN and requeues its jobs in one go, and then ends the waiting script)
grep -qE "node $victim lost|DUE TO NODE FAILURE" "$log" ||
    die "neither the batch script nor Slurm requeued the job for the lost node: $(grep -E 'impactsweep.sbatch|CANCELLED' "$log")"
grep -m1 -E "node $victim lost|DUE TO NODE FAILURE" "$log"
runs=$(run_log lost.h5)
echo "$runs"
echo "$runs" | grep "resumed" | grep -q "SLURM_RESTART_COUNT=1" || die "the run log shows no resumption after the requeue"
[ "$(run_state lost.h5)" = complete ] || die "the run state is not complete"

say "the uninterrupted run, for comparison"
$MPIEXEC $MPIEXEC_FLAGS -n 2 "$IMPACTSWEEP" run "$job" "${work[@]}" --output reference.h5 \
    >/dev/null 2>&1 || die "reference run failed"
"$H5COMPARE" lost.h5 reference.h5 || die "the run that lost a node differs from one run"
echo "PASS"
