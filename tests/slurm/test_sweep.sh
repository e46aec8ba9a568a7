#!/usr/bin/env bash
# A real sweep through Slurm, over several nodes: slurm/submit turns a job file into a
# batch script, sbatch runs it as one MPI job with a rank on each of 3 nodes (each node a
# host of its own: its own network namespace and hostname), started by mpirun inside the
# allocation and by srun with PMIx; the result file equals a 1-rank run, and its
# provenance names the job and the 3 hosts the ranks ran on. Then the job-array mode: 3
# pieces of equal estimated cost, each a job that fills a node (so the array spreads
# over the nodes), and the merge job give the same file.
source "$(dirname "$0")/lib.sh"
need_nodes 3
job=$(dirname "$0")/sweep.ini

say "direct run for reference"
"$IMPACTSWEEP" run "$job" --output reference.h5 >/dev/null 2>&1 || die "reference run failed"

for launcher in mpirun srun; do
    say "one MPI job over 3 nodes, a rank on each, started by $launcher"
    t0=$(now)
    out=$("$SLURM_SUBMIT" --job-name impactsweep-test --nodes 3 --ntasks-per-node 1 \
          --time 00:05:00 --launcher "$launcher" --output "$WORK/$launcher.h5" "$job") ||
        die "submit failed: $out"
    echo "$out"
    id=$(submitted_id "$out")
    [ -n "$id" ] || die "no job id in: $out"
    wait_job "$id" 300
    echo "   $launcher over 3 nodes: $(since "$t0") s from submission to the end"
    "$H5COMPARE" "$launcher.h5" reference.h5 || die "the 3-node run ($launcher) differs from the 1-rank run"
    [ "$(run_state "$launcher.h5")" = complete ] || die "the run state is not complete"
    attribute "$launcher.h5" slurm | grep -q "SLURM_JOB_ID=$id" || die "provenance lacks SLURM_JOB_ID=$id"
    [ "$(attribute "$launcher.h5" ranks)" = 3 ] || die "ranks is not 3"
    # the hosts the ranks ran on: exactly the job's 3 nodes, a rank each
    nodelist=$(attribute "$launcher.h5" slurm | tr ' ' '\n' | sed -n 's/^SLURM_JOB_NODELIST=//p')
    want=$(hostnames "$nodelist" | sed 's/$/:1/' | sort | tr '\n' ' ')
    got=$(attribute "$launcher.h5" hosts | tr ' ' '\n' | sort | tr '\n' ' ')
    echo "   hosts: $got(job's nodes: $nodelist)"
    [ "$(hostnames "$nodelist" | wc -l)" = 3 ] && [ "$got" = "$want" ] ||
        die "the provenance's hosts '$got' are not the job's 3 nodes '$want'"
done

say "a job array of 3 pieces of equal estimated cost, spread over the nodes, and the merge job"
cpus=$(sinfo -h -N -o %c | sort -n | head -1) # a piece takes a whole node
out=$("$SLURM_SUBMIT" --job-name impactsweep-test --ntasks "$cpus" --time 00:05:00 --array 3 \
      --output "$WORK/array.h5" "$job" 2>&1) || die "submit failed: $out"
echo "$out"
echo "$out" | grep -q "^submit: pieces: 3 of equal estimated cost" || die "submit cut no pieces of equal cost"
merge=$(echo "$out" | sed -n 's/^submitted merge job \([0-9]*\).*/\1/p')
[ -n "$merge" ] || die "no merge job id in: $out"
wait_job "$merge" 300
hosts=()
for i in 0 1 2; do
    [ -f "array.piece$i.h5" ] || die "piece $i missing"
    attribute "array.piece$i.h5" slurm | grep -q "SLURM_ARRAY_TASK_ID=$i" ||
        die "piece $i lacks its array index"
    attribute "array.piece$i.h5" piece | grep -qE "^$i/3:[0-9]+-[0-9]+$" ||
        die "piece $i is not a piece of given points: $(attribute "array.piece$i.h5" piece)"
    hosts+=("$(attribute "array.piece$i.h5" host)")
done
echo "   the pieces ran on: ${hosts[*]}"
[ "$(printf '%s\n' "${hosts[@]}" | sort -u | wc -l)" = 3 ] ||
    die "the 3 pieces did not run on 3 nodes: ${hosts[*]}"
"$H5COMPARE" array.h5 reference.h5 || die "the merged array differs from the direct run"
echo "PASS"
