# test_resume.sh: interrupted runs and --resume.
#  (a) SIGUSR1 to mpiexec mid-run: the ranks stop gracefully, exit 75, the file says
#      which points are pending; --resume completes it, equal to an uninterrupted run.
#  (b) kill -9 of mpiexec and every rank mid-run: the file still opens; --resume (with
#      1 rank this time) completes it, equal to the uninterrupted run.
#  (c) --resume with another job (other axis count, other model parameter) is refused
#      with exit 2 and leaves the file byte-identical.
#  (d) --resume when the file does not exist starts a fresh run.
# shellcheck source=lib.sh
source "$TESTS/integration/lib.sh"

job="$INTEGRATION_JOBS/sweep.ini"
samples=$(interruptible_samples) # about 4 s on 2 ranks: long enough to interrupt
big=(--set model.samples="$samples")
total=400
third=$((total / 3))

say "reference: an uninterrupted 2-rank run ($samples samples a point)"
expect_status 0 "uninterrupted run" mpi2 run "$job" "${big[@]}" --output full.h5
[ "$(points full.h5 "done")" -eq "$total" ] || die "full.h5 is not complete"

# --- (a) graceful stop -------------------------------------------------------------
say "(a) SIGUSR1 to mpiexec once some points are done"
graceful="$WORK/graceful.h5"
start_mpi2 "$graceful" "$job" "${big[@]}"
wait_for_done "$graceful" 20 "$run_pid"
interrupt "$run_pid" "$graceful"
grep -q "continue with --resume" "$graceful.err" || die "(a) the interrupted run does not say how to continue"
"$IMPACTSWEEP" info "$graceful" >info.txt || die "(a) info fails on the interrupted file"
grep -q "state interrupted" info.txt || die "(a) info does not say 'state interrupted': $(grep times: info.txt)"
done_a=$(points "$graceful" "done")
pending_a=$(points "$graceful" pending)
say "(a) stopped with $done_a done, $pending_a pending"
[ "$pending_a" -gt 0 ] || die "(a) nothing pending after the interruption: the run was too short"
[ "$done_a" -ge 20 ] || die "(a) only $done_a points done after the interruption"

say "(a) --resume completes the interrupted run"
expect_status 0 "(a) resume" mpi2 run "$job" "${big[@]}" --output "$graceful" --resume
grep -q "(resume)" err.txt || die "(a) the resumed run does not say it resumes"
[ "$(points "$graceful" pending)" -eq 0 ] || die "(a) points pending after the resume"
same_results full.h5 "$graceful" "(a) interrupted + resumed vs uninterrupted"
grep -q "this run computed $pending_a " err.txt ||
    die "(a) the resumed run should compute exactly the $pending_a pending points: $(grep computed err.txt)"

# --- (b) hard kill ----------------------------------------------------------------
say "(b) kill -9 of mpiexec and all ranks once a third of the points are done"
hard="$WORK/hard.h5"
start_mpi2 "$hard" "$job" "${big[@]}"
wait_for_done "$hard" "$third" "$run_pid"
kill_run "$run_pid" "(b) "
if pgrep -f "$hard" >/dev/null; then
    die "(b) processes writing $hard are still running: $(pgrep -af "$hard")"
fi
expect_status 0 "(b) info on the killed run's file" "$IMPACTSWEEP" info "$hard"
done_b=$(points "$hard" "done")
pending_b=$(points "$hard" pending)
say "(b) killed with $done_b done, $pending_b pending"
[ "$done_b" -ge "$third" ] || die "(b) the killed file lost points: $done_b done, $third were seen before the kill"
[ "$pending_b" -gt 0 ] || die "(b) nothing pending after the kill: the run was too short"

say "(b) --resume (1 rank, no mpiexec) completes the killed run"
expect_status 0 "(b) resume" "$IMPACTSWEEP" run "$job" "${big[@]}" --output "$hard" --resume
[ "$(points "$hard" pending)" -eq 0 ] || die "(b) points pending after the resume"
same_results full.h5 "$hard" "(b) killed + resumed vs uninterrupted"
"$IMPACTSWEEP" info "$hard" | grep "state complete" >/dev/null || die "(b) the resumed file is not 'complete'"

# --- (c) resuming with another job ---------------------------------------------------
say "(c) --resume with another job is refused and leaves the file untouched"
cp full.h5 other.h5
before=$(sha other.h5)
expect_status 2 "(c) resume with another rho count" \
    "$IMPACTSWEEP" run "$job" "${big[@]}" --set axis.rho.count=19 --output other.h5 --resume
grep -q "another job" err.txt || die "(c) the refusal does not say the file belongs to another job"
[ "$(sha other.h5)" = "$before" ] || die "(c) the file changed after a refused resume (axis count)"
expect_status 2 "(c) resume with another model parameter (2 ranks)" \
    mpi2 run "$job" "${big[@]}" --set model.max_impacts=150 --output other.h5 --resume
grep -q "another job" err.txt || die "(c) the refusal does not say the file belongs to another job"
[ "$(sha other.h5)" = "$before" ] || die "(c) the file changed after a refused resume (max_impacts)"
expect_status 2 "(c) resume with other gamma values" \
    "$IMPACTSWEEP" run "$job" "${big[@]}" --set axis.gamma.to=0.7 --output other.h5 --resume
[ "$(sha other.h5)" = "$before" ] || die "(c) the file changed after a refused resume (gamma.to)"
ls other.h5.* >/dev/null 2>&1 && die "(c) a refused resume left files behind: $(ls other.h5.*)"

say "(c) --resume of a complete file with the same job succeeds and computes nothing"
expect_status 0 "(c) resume of a complete file" mpi2 run "$job" "${big[@]}" --output other.h5 --resume
grep -q "this run computed 0 " err.txt || die "(c) resuming a complete file computed points: $(grep computed err.txt)"
same_results full.h5 other.h5 "(c) complete file resumed"

# --- (d) resume without a file --------------------------------------------------------
say "(d) --resume when no file exists starts a fresh run"
expect_status 0 "(d) plain run" "$IMPACTSWEEP" run "$job" --output plain.h5
expect_status 0 "(d) --resume without a file" mpi2 run "$job" --output fresh.h5 --resume
[ -f fresh.h5 ] || die "(d) --resume without a file did not create it"
[ "$(points fresh.h5 pending)" -eq 0 ] || die "(d) the fresh run is not complete"
same_results plain.h5 fresh.h5 "(d) fresh run through --resume vs plain run"
