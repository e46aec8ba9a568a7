# shellcheck shell=bash
# test_safety.sh: the result-file layer's safety guarantees (src/core/store/lock.h, results.h,
# run.h, merge.h), on the synthetic test model ($IMPACTSWEEP_TEST).
#  1. locks, one run per result file (OUTPUT.lock):
#     (a) a second run (--resume, --overwrite) or a merge on a file a live run holds is
#         refused with 2 at once, naming the holder (host, pid) and the lock file; the
#         holder's lock and datasets are undisturbed: stopped (75) and resumed, the file
#         equals an uninterrupted run; a hand-made lock of a live process refuses too;
#     (b) a lock of a dead process on this host (or of a reused pid) is taken over at
#         once, and the lock file is gone after the run;
#     (c) a lock from another host with a still heartbeat is taken over after
#         IMPACTSWEEP_LOCK_TIMEOUT; one with a moving heartbeat is refused;
#     (d) a lock of an earlier incarnation of the same Slurm job (requeue) is taken over
#         at once, one of another Slurm job only after the timeout;
#     (e) an empty lock file (crash between creation and first write) after ~2 s;
#  2. nothing replaced by accident: --overwrite onto a symbolic link, a directory,
#     /dev/null, a fifo or the job file itself, and a plain run onto an existing file,
#     exit 2 and leave everything byte-identical; a good --overwrite leaves the new job's
#     file and no .partial or .lock;
#  3. merge: pieces merged equal a whole run (1 and 2 ranks), an agreeing overlap (pieces
#     1/2 and 1/3, 2/3) is fine; the output as an input (same name, ./name, hard link), an
#     input from another job, overlapping inputs that disagree (a value changed with its
#     checksum) and a damaged input (a bit flipped: named with its point and dataset) are
#     refused and leave nothing behind; a merge only ever makes things better: a complete
#     m.h5 is not replaced by a merge with a piece missing, one piece alone, an earlier
#     merge's pieces after one was purged, or an interrupted piece, nor with a piece given
#     twice (a copy, the same name, a hard link); another job's result and a non-result
#     file are never replaced; a partial merge's last line names the missing and the
#     incomplete pieces (exit 1);
#  4. long paths: > 600 characters of directories work on 1 and 2 ranks; a 250-character
#     file name is refused before anything is created, saying how long it may be; a
#     file name of the longest length accepted keeps its stale lock takeover working;
#  5. full disk (a 6 MB tmpfs, skipped where it cannot be mounted): a file that does not
#     fit is refused before anything is written (exit 2, saying how much it needs and how
#     much is free) and leaves nothing (or, with --overwrite, the old file
#     byte-identical); a --resume on a full disk completes or
#     exits 1 with a clear message, leaves the file readable with its log, and once room
#     is made a --resume gives the uninterrupted run's results; a disk that fills up while
#     a new file is made (paused by the delay shim while the disk is filled) fails it with
#     exit 1, saying no space is left and that nothing of the file is kept (never that
#     --resume keeps points), and leaves nothing.
# Checks that found a bug do not stop the test: they are reported as FAIL lines as they
# happen, the other checks go on, and the test fails at the end listing them.
# shellcheck source=lib.sh
source "$TESTS/integration/lib.sh"

[ -n "${IMPACTSWEEP_TEST:-}" ] || die "environment variable IMPACTSWEEP_TEST is not set (run through ctest)"
# Every command of this test (and lib.sh's mpi1/mpi2/start_mpi2/points) uses the CLI with
# the synthetic model compiled in.
IMPACTSWEEP=$IMPACTSWEEP_TEST
# A rank exiting non-zero makes mpiexec wait 1 s per rank before it kills the others.
export OMPI_MCA_odls_base_sigkill_timeout=0
unset IMPACTSWEEP_LOCK_TIMEOUT

failures=()
# fail_later TEXT: a failed check after which the test can go on; reported at the end.
fail_later() {
    echo "FAIL (the test goes on, fails at the end): $*" >&2
    if [ -s err.txt ]; then
        grep '^impactsweep: ' err.txt | tail -n 2 | cut -c1-400 | sed 's/^/    stderr: /' >&2
    fi
    failures+=("$*")
}
ok() { echo "    ok: $*"; }

host=$(uname -n)
ms_now() { echo $(($(date +%s%N) / 1000000)); }
# timed_status CMD...: runs CMD like run_status; sets `status` to its exit status and
# `took` to its run time in ms.
timed_status() {
    local t0
    t0=$(ms_now)
    status=$(run_status "$@")
    took=$(($(ms_now) - t0))
}
# listing DIR: the names in DIR (not the test's own out/err/compare files).
listing() { find "${1:-.}" -mindepth 1 -maxdepth 1 ! -name out.txt ! -name err.txt ! -name compare.txt | sort; }

# write_lock FILE HOST PID PID_START SLURM_JOB SLURM_RESTART HEARTBEAT: a lock record in
# lock.c's format, written under another name and renamed (a reader never sees half).
write_lock() {
    printf 'impactsweep lock\nhost=%s\npid=%s\npid_start=%s\nslurm_job=%s\nslurm_restart=%s\nstarted=2026-01-01T00:00:00Z\nheartbeat=%020llu\n' \
        "$2" "$3" "$4" "$5" "$6" "$7" >"$(dirname "$1")/lock.tmp"
    mv -f "$(dirname "$1")/lock.tmp" "$1"
}
dead_pid=999999
while kill -0 "$dead_pid" 2>/dev/null; do dead_pid=$((dead_pid - 1)); done
# field 22 of /proc/PID/stat: the process's start time (what lock.c records as pid_start)
proc_start() { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $20 }'; }

cat >s.ini <<'EOF'
[sweep]
model = synthetic
output = s.h5
[axis.x]
from = -3
to = 3
count = 40
[axis.y]
from = -2
to = 2
count = 30
EOF
job=$WORK/s.ini
slow=(--set model.cost=0.02 --set axis.x.count=20 --set axis.y.count=30) # 600 points, 12 s of work
slow_total=600
other=(--set axis.x.count=41) # another job: 1230 points

say "setup: a complete result file R.h5 of the job (1200 points) and a slow job's reference"
expect_status 0 "run of the job" "$IMPACTSWEEP" run "$job" --output R.h5
[ "$(points R.h5 "done")" -eq 1200 ] || die "R.h5 is not complete"
cp R.h5 whole.h5 # the whole run's results, for later sections (R.h5 is overwritten in 2)
expect_status 0 "uninterrupted 2-rank run of the slow job" mpi2 run "$job" "${slow[@]}" --output slow_ref.h5
[ "$(points slow_ref.h5 "done")" -eq "$slow_total" ] || die "slow_ref.h5 is not complete"

# ===================================================================================
say "1a. a live run holds its file: a second run or a merge is refused at once"
held="$WORK/slow.h5"
start_mpi2 "$held" "$job" "${slow[@]}"
wait_for_done "$held" 30 "$run_pid"
[ -f "$held.lock" ] || die "(1a) the running run has no lock file $held.lock"
holder_pid=$(sed -n 's/^pid=//p' "$held.lock")
pgrep -P "$run_pid" | grep -qx "$holder_pid" ||
    die "(1a) the lock names pid $holder_pid, which is not a rank of the run (mpiexec $run_pid): $(cat "$held.lock")"
grep -qx "host=$host" "$held.lock" || die "(1a) the lock does not name this host ($host): $(cat "$held.lock")"
owner_of() { grep -v '^heartbeat=' "$1"; } # the lock's record less its heartbeat, which moves
lock_owner=$(owner_of "$held.lock")
timed_status timeout 60 "$IMPACTSWEEP" run "$job" "${slow[@]}" --output "$held" --resume
[ "$status" -eq 2 ] || die "(1a) run --resume on a file in use: expected exit status 2, got $status"
[ "$took" -lt 5000 ] || die "(1a) the refusal took $took ms (expected < 5 s)"
grep -q -F "host $host, pid $holder_pid" err.txt || die "(1a) the refusal does not name the holder (host $host, pid $holder_pid)"
grep -q -F "slow.h5.lock" err.txt || die "(1a) the refusal does not name the lock file"
ok "run --resume refused in $took ms: $(grep -m1 'in use' err.txt)"
timed_status mpi2 run "$job" "${slow[@]}" --output "$held" --resume
[ "$status" -eq 2 ] || die "(1a) run --resume on 2 ranks on a file in use: expected 2, got $status"
grep -q -F "pid $holder_pid" err.txt || die "(1a) the 2-rank refusal does not name the holder's pid"
expect_status 2 "(1a) run --overwrite of a file in use" \
    "$IMPACTSWEEP" run "$job" "${slow[@]}" --output "$held" --overwrite
grep -q "in use" err.txt || die "(1a) the --overwrite refusal does not say the file is in use"
expect_status 2 "(1a) merge --overwrite into a file in use" "$IMPACTSWEEP" merge --overwrite "$held" R.h5
grep -q "in use" err.txt || die "(1a) the merge refusal does not say the file is in use"
ok "run --overwrite and merge --overwrite refused: $(grep -m1 'in use' err.txt | cut -c1-100)..."
if [ ! -f "$held.lock" ] || [ "$(owner_of "$held.lock")" != "$lock_owner" ]; then
    die "(1a) the refused commands removed the holder's lock file or changed its owner"
fi
ls "$held".partial >/dev/null 2>&1 && die "(1a) a refused command left $held.partial"
kill -0 "$run_pid" 2>/dev/null || die "(1a) the holding run ended before it was interrupted: make it slower"
interrupt "$run_pid" "$held"
[ ! -e "$held.lock" ] || die "(1a) the interrupted run left its lock file behind"
pending=$(points "$held" pending)
[ "$pending" -gt 0 ] || die "(1a) nothing pending after the interruption: the run was too short"
say "1a. stopped with $pending pending; --resume completes it"
expect_status 0 "(1a) resume" mpi2 run "$job" "${slow[@]}" --output "$held" --resume
same_results slow_ref.h5 "$held" "(1a) held, refused others, interrupted, resumed vs uninterrupted"
"$IMPACTSWEEP" info "$held" --log >info.txt || die "(1a) info --log fails"
n=$(grep -c " resumed by " info.txt || true)
[ "$n" -eq 1 ] || die "(1a) the log has $n 'resumed' lines; the refused runs must not write to the file"
[ ! -e "$held.lock" ] || die "(1a) the resumed run left its lock file behind"
ok "resumed file equals the uninterrupted run; one 'resumed' log line; no lock left"

say "1a. a lock of a live process (this shell, with its start time) refuses run and merge"
write_lock held2.h5.lock "$host" "$$" "$(proc_start $$)" "" 0 0
lock_sha=$(sha held2.h5.lock)
timed_status timeout 60 env IMPACTSWEEP_LOCK_TIMEOUT=30 "$IMPACTSWEEP" run "$job" --output held2.h5
[ "$status" -eq 2 ] || die "(1a) run onto a file locked by a live process: expected 2, got $status"
[ "$took" -lt 5000 ] || die "(1a) the refusal took $took ms (expected < 5 s: the holder is local and alive)"
grep -q -F "pid $$" err.txt || die "(1a) the refusal does not name pid $$"
expect_status 2 "(1a) merge into a file locked by a live process" "$IMPACTSWEEP" merge held2.h5 R.h5
grep -q "in use" err.txt || die "(1a) the merge refusal does not say the file is in use"
[ ! -e held2.h5 ] || die "(1a) a refused command created held2.h5"
[ "$(sha held2.h5.lock)" = "$lock_sha" ] || die "(1a) a refused command changed the live process's lock"
rm -f held2.h5.lock
ok "refused in $took ms, lock untouched"

# ===================================================================================
say "1b. a lock of a dead process on this host is taken over at once"
write_lock dead.h5.lock "$host" "$dead_pid" 0 "" 0 0
timed_status timeout 60 env IMPACTSWEEP_LOCK_TIMEOUT=30 "$IMPACTSWEEP" run "$job" --output dead.h5
[ "$status" -eq 0 ] || die "(1b) run with a stale local lock (pid $dead_pid): expected 0, got $status"
[ "$took" -lt 5000 ] || die "(1b) taking over a dead process's lock took $took ms (expected at once)"
[ ! -e dead.h5.lock ] || die "(1b) the lock file is still there after the run: $(cat dead.h5.lock)"
same_results R.h5 dead.h5 "(1b) run after a takeover"
ok "taken over in $took ms, lock gone"
write_lock reused.h5.lock "$host" "$$" 1 "" 0 0 # a live pid, but another process's start time
timed_status timeout 60 env IMPACTSWEEP_LOCK_TIMEOUT=30 "$IMPACTSWEEP" run "$job" --output reused.h5
[ "$status" -eq 0 ] || die "(1b) run with a lock whose pid was reused: expected 0, got $status"
[ "$took" -lt 5000 ] || die "(1b) taking over a reused pid's lock took $took ms"
[ ! -e reused.h5.lock ] || die "(1b) the lock file of the reused pid is still there"
ok "a reused pid's lock (pid_start differs) taken over in $took ms"

# ===================================================================================
say "1c. another host's lock: a still heartbeat is taken over after the timeout (2 s)"
write_lock far.h5.lock elsewhere.invalid 4321 0 "" 0 17
timed_status timeout 60 env IMPACTSWEEP_LOCK_TIMEOUT=2 "$IMPACTSWEEP" run "$job" --output far.h5
[ "$status" -eq 0 ] || die "(1c) run with another host's stale lock: expected 0, got $status"
[ "$took" -ge 1800 ] || die "(1c) another host's lock taken over after $took ms, before the 2 s timeout"
[ "$took" -lt 10000 ] || die "(1c) another host's lock taken over only after $took ms (timeout 2 s)"
[ ! -e far.h5.lock ] || die "(1c) the lock file is still there after the run"
ok "taken over after $took ms"

say "1c. another host's lock whose heartbeat moves (every 0.3 s) is refused"
(
    beat=1
    while :; do
        write_lock alive.h5.lock elsewhere.invalid 4321 0 "" 0 "$beat"
        beat=$((beat + 1))
        sleep 0.3
    done
) &
beat_pid=$!
sleep 0.5
timed_status timeout 60 env IMPACTSWEEP_LOCK_TIMEOUT=2 "$IMPACTSWEEP" run "$job" --output alive.h5
kill "$beat_pid" 2>/dev/null || true
wait "$beat_pid" 2>/dev/null || true
[ "$status" -eq 2 ] || die "(1c) run with another host's live lock: expected 2, got $status"
grep -q -F "host elsewhere.invalid, pid 4321" err.txt || die "(1c) the refusal does not name the holder"
grep -q -F "alive.h5.lock" err.txt || die "(1c) the refusal does not name the lock file"
[ ! -e alive.h5 ] || die "(1c) the refused run created alive.h5"
grep -q "host=elsewhere.invalid" alive.h5.lock 2>/dev/null || die "(1c) the refused run removed or replaced the live lock"
rm -f alive.h5.lock lock.tmp
ok "refused after $took ms: $(grep -m1 'in use' err.txt | cut -c1-110)..."

# ===================================================================================
say "1d. Slurm requeue: the lock of restart 0 of job 4242 is taken over at once by restart 1"
write_lock requeue.h5.lock elsewhere.invalid 4321 0 4242 0 5
timed_status timeout 60 env SLURM_JOB_ID=4242 SLURM_RESTART_COUNT=1 IMPACTSWEEP_LOCK_TIMEOUT=30 \
    "$IMPACTSWEEP" run "$job" --output requeue.h5
[ "$status" -eq 0 ] || die "(1d) requeued run of job 4242: expected 0, got $status"
[ "$took" -lt 5000 ] || die "(1d) the requeued job took $took ms to take its own lock over (timeout 30 s: it waited)"
[ ! -e requeue.h5.lock ] || die "(1d) the lock file is still there after the requeued run"
ok "taken over in $took ms"
say "1d. ... but a run of another Slurm job (4243) only after the timeout (2 s)"
write_lock otherjob.h5.lock elsewhere.invalid 4321 0 4242 0 5
timed_status timeout 60 env SLURM_JOB_ID=4243 SLURM_RESTART_COUNT=1 IMPACTSWEEP_LOCK_TIMEOUT=2 \
    "$IMPACTSWEEP" run "$job" --output otherjob.h5
[ "$status" -eq 0 ] || die "(1d) run of Slurm job 4243 on job 4242's stale lock: expected 0, got $status"
[ "$took" -ge 1800 ] || die "(1d) Slurm job 4243 took job 4242's lock over after $took ms, before the timeout"
[ ! -e otherjob.h5.lock ] || die "(1d) the lock file is still there after the run"
ok "taken over after $took ms"

# ===================================================================================
say "1e. an empty lock file (crash before its first write) is taken over after about 2 s"
: >empty.h5.lock
timed_status timeout 60 env IMPACTSWEEP_LOCK_TIMEOUT=30 "$IMPACTSWEEP" run "$job" --output empty.h5
[ "$status" -eq 0 ] || die "(1e) run with an empty lock file: expected 0, got $status"
[ "$took" -ge 1500 ] || die "(1e) the empty lock was taken over after $took ms (expected ~2 s of grace)"
[ "$took" -lt 10000 ] || die "(1e) the empty lock was taken over only after $took ms"
[ ! -e empty.h5.lock ] || die "(1e) the lock file is still there after the run"
ok "taken over after $took ms"

# ===================================================================================
say "2. nothing replaced by accident (R.h5 a complete result file)"
R_sha=$(sha R.h5)
job_sha=$(sha s.ini)
ln -s R.h5 link.h5
mkdir adir.h5
mkfifo fifo.h5
ln s.ini hardjob.ini
# refuse_output WHAT WANT ARGS...: `run ARGS` (on $ranks ranks) exits 2 with a message
# containing WANT, within 30 s (a fifo opened for reading would block), touching nothing.
ranks=1
refuse_output() {
    local what=$1 want=$2 before after
    shift 2
    before=$(listing)
    if [ "$ranks" -eq 1 ]; then
        expect_status 2 "(2) $what" timeout 30 "$IMPACTSWEEP" run "$@"
    else
        what="$what, $ranks ranks"
        # shellcheck disable=SC2086
        expect_status 2 "(2) $what" timeout 30 $MPIEXEC $MPIEXEC_FLAGS -n "$ranks" "$IMPACTSWEEP" run "$@"
    fi
    grep -q -F -- "$want" err.txt || die "(2) $what: the message does not say '$want'"
    [ "$(sha R.h5)" = "$R_sha" ] || die "(2) $what: R.h5 changed"
    [ "$(sha s.ini)" = "$job_sha" ] || die "(2) $what: the job file changed"
    if [ ! -L link.h5 ] || [ "$(readlink link.h5)" != R.h5 ]; then die "(2) $what: the symbolic link changed"; fi
    if [ ! -d adir.h5 ] || [ -n "$(listing adir.h5)" ]; then die "(2) $what: the directory changed"; fi
    [ -p fifo.h5 ] || die "(2) $what: the fifo is no longer a fifo"
    [ -c /dev/null ] || die "(2) $what: /dev/null is no longer a device"
    after=$(listing)
    [ "$before" = "$after" ] || die "(2) $what: files appeared or vanished: $(diff <(echo "$before") <(echo "$after") | tr '\n' ' ')"
    ok "$what -> $(grep -m1 -F -- "$want" err.txt | sed 's/^impactsweep: //' | cut -c1-110)"
}
refuse_output "--overwrite onto a symbolic link to R.h5" "symbolic link" "$job" --output link.h5 --overwrite
refuse_output "--overwrite onto a directory" "directory" "$job" --output adir.h5 --overwrite
refuse_output "--overwrite onto /dev/null" "not a regular file" "$job" --output /dev/null --overwrite
refuse_output "--overwrite onto a fifo" "not a regular file" "$job" --output fifo.h5 --overwrite
refuse_output "--overwrite onto the job file" "job file itself" "$job" --output s.ini --overwrite
refuse_output "--overwrite onto the job file (absolute path)" "job file itself" "$job" --output "$WORK/s.ini" --overwrite
refuse_output "--overwrite onto a hard link of the job file" "job file itself" "$job" --output hardjob.ini --overwrite
refuse_output "plain run onto an existing file" "exists" "$job" --output R.h5
refuse_output "plain run onto a symbolic link to it" "exists" "$job" --output link.h5
refuse_output "plain run onto a fifo" "not a regular file" "$job" --output fifo.h5
ranks=2
refuse_output "--overwrite onto a symbolic link to R.h5" "symbolic link" "$job" --output link.h5 --overwrite
refuse_output "--overwrite onto a fifo" "not a regular file" "$job" --output fifo.h5 --overwrite
refuse_output "--overwrite onto the job file" "job file itself" "$job" --output s.ini --overwrite
refuse_output "plain run onto an existing file" "exists" "$job" --output R.h5
ranks=1

say "2. --overwrite of R.h5 with another job builds the new file and leaves nothing beside it"
expect_status 0 "(2) reference run of the other job" "$IMPACTSWEEP" run "$job" "${other[@]}" --output other_ref.h5
expect_status 0 "(2) --overwrite with another job" mpi2 run "$job" "${other[@]}" --output R.h5 --overwrite
[ "$(points R.h5 total)" -eq 1230 ] || die "(2) after --overwrite R.h5 holds $(points R.h5 total) points, not the new job's 1230"
same_results other_ref.h5 R.h5 "(2) overwritten file vs a fresh run of the new job"
for f in R.h5.partial R.h5.lock; do [ ! -e "$f" ] || die "(2) --overwrite left $f behind"; done
ok "R.h5 now holds the new job (1230 points), no R.h5.partial or R.h5.lock"

# ===================================================================================
say "3. merge: three pieces merged equal the whole run (1 and 2 ranks)"
for i in 0 1 2; do
    expect_status 0 "(3) piece $i/3" "$IMPACTSWEEP" run "$job" --piece "$i/3" --output "p$i.h5"
done
expect_status 0 "(3) merge of the pieces" "$IMPACTSWEEP" merge m.h5 p0.h5 p1.h5 p2.h5
same_results whole.h5 m.h5 "(3) merged pieces vs the whole run"
expect_status 0 "(3) merge of the pieces on 2 ranks" mpi2 merge m2.h5 p2.h5 p0.h5 p1.h5
same_results whole.h5 m2.h5 "(3) merged pieces (2 ranks, inputs out of order) vs the whole run"
expect_status 0 "(3) piece 1/2, which overlaps pieces 0/3 to 2/3" "$IMPACTSWEEP" run "$job" --piece 1/2 --output q1.h5
expect_status 0 "(3) merge with an overlap that agrees" "$IMPACTSWEEP" merge m3.h5 p0.h5 p1.h5 q1.h5 p2.h5
same_results whole.h5 m3.h5 "(3) merge with an agreeing overlap vs the whole run"
"$IMPACTSWEEP" info m3.h5 --verify >out.txt 2>err.txt || die "(3) info --verify fails on the merged file: $(tail -n 1 err.txt)"
ok "pieces merged (1 and 2 ranks, with an agreeing overlap of pieces 1/2 and 1/3, 2/3) equal the whole run and verify"

say "3. merge with the output among the inputs is refused and leaves m.h5 byte-identical"
m_sha=$(sha m.h5)
ln m.h5 mlink.h5
# refuse_merge WHAT WANT ARGS...: `merge ARGS` exits 2 saying WANT; m.h5 unchanged; no
# m.h5.partial or m.h5.lock.
refuse_merge() {
    local what=$1 want=$2
    shift 2
    expect_status 2 "(3) $what" "$IMPACTSWEEP" merge "$@"
    grep -q -F -- "$want" err.txt || die "(3) $what: the message does not say '$want': $(tail -n 1 err.txt)"
    [ "$(sha m.h5)" = "$m_sha" ] || die "(3) $what: m.h5 changed"
    for f in m.h5.partial m.h5.lock; do [ ! -e "$f" ] || die "(3) $what: left $f behind"; done
    ok "$what -> $(grep -m1 -F -- "$want" err.txt | sed 's/^impactsweep: //' | cut -c1-110)"
}
refuse_merge "merge m.h5 m.h5 p1.h5" "both the output and an input" m.h5 m.h5 p1.h5
refuse_merge "merge m.h5 ./m.h5 p1.h5" "both the output and an input" m.h5 ./m.h5 p1.h5
refuse_merge "merge m.h5 (hard link of m.h5) p1.h5" "both the output and an input" m.h5 mlink.h5 p1.h5
refuse_merge "merge --overwrite m.h5 m.h5 p1.h5" "both the output and an input" --overwrite m.h5 m.h5 p1.h5
refuse_merge "merge --overwrite m.h5 p0.h5 ./m.h5" "both the output and an input" --overwrite m.h5 p0.h5 ./m.h5
refuse_merge "merge --overwrite m.h5 (hard link) p1.h5" "both the output and an input" --overwrite m.h5 mlink.h5 p1.h5

say "3. merge --overwrite with an input from another job is refused, m.h5 untouched"
expect_status 0 "(3) a piece of another job" "$IMPACTSWEEP" run "$job" "${other[@]}" --piece 1/3 --output X.h5
refuse_merge "merge --overwrite m.h5 p0.h5 X.h5" "another job" --overwrite m.h5 p0.h5 X.h5
refuse_merge "merge m.h5 p0.h5 X.h5 (no --overwrite)" "another job" m.h5 p0.h5 X.h5

say "3. a merge only ever makes things better: m.h5 (complete) is replaced only by a merge that holds all of it"
refuse_merge "merge --overwrite m.h5 with piece 2/3 missing" "holds 420 points that the merge does not" --overwrite m.h5 p0.h5 p1.h5
refuse_merge "merge --overwrite m.h5 with one piece alone" "that the merge does not" --overwrite m.h5 p1.h5
refuse_merge "merge m.h5 again (an earlier merge) after piece 2/3 was purged" "holds 420 points that the merge does not" m.h5 p0.h5 p1.h5
# an interrupted piece 2/3 of the same job: killed (the crashpoint shim) at 3/4 of its writes
piece_cut() { # piece_cut AT: events seen (AT = 0: counted only)
    head -c 8 /dev/zero >ctr
    CRASHPOINT_MATCH="$WORK/p2slow.h5" CRASHPOINT_COUNTER="$WORK/ctr" CRASHPOINT_AT=$1 \
        LD_PRELOAD="$CRASHPOINT_LIB" "$IMPACTSWEEP" run "$job" --piece 2/3 --set sweep.unit_size=20 \
        --output "$WORK/p2slow.h5" >/dev/null 2>&1 || true
    od -An -tu8 -N8 ctr | tr -d ' '
}
events=$(piece_cut 0)
rm -f p2slow.h5
piece_cut $((events * 3 / 4)) >/dev/null
rm -f p2slow.h5.lock p2slow.h5.partial
left=$(points p2slow.h5 pending) || die "(3) the interrupted piece 2/3 does not open"
[ "$left" -gt 0 ] && [ "$left" -lt 420 ] || die "(3) the interrupted piece 2/3 has $left of 420 points pending"
refuse_merge "merge --overwrite m.h5 with an interrupted piece 2/3 ($left points pending)" "that the merge does not" --overwrite m.h5 p0.h5 p1.h5 p2slow.h5
cp p1.h5 p1copy.h5
refuse_merge "merge --overwrite m.h5 with piece 1/3 twice (a copy)" "both piece 1/3" --overwrite m.h5 p0.h5 p1.h5 p1copy.h5 p2.h5
refuse_merge "merge --overwrite m.h5 with p1.h5 given twice" "given twice" --overwrite m.h5 p0.h5 p1.h5 p2.h5 p1.h5
ln p1.h5 p1link.h5
refuse_merge "merge --overwrite m.h5 with p1.h5 and a hard link to it" "given twice" --overwrite m.h5 p0.h5 p1.h5 p2.h5 p1link.h5
expect_status 0 "(3) merge --overwrite m.h5 with every piece" "$IMPACTSWEEP" merge --overwrite m.h5 p2.h5 p1.h5 p0.h5
same_results whole.h5 m.h5 "(3) m.h5 merged again with every piece"
m_sha=$(sha m.h5)
expect_status 0 "(3) a whole run of another job" "$IMPACTSWEEP" run "$job" "${other[@]}" --output otherwhole.h5
other_sha=$(sha otherwhole.h5)
expect_status 2 "(3) merge --overwrite onto another job's result" "$IMPACTSWEEP" merge --overwrite otherwhole.h5 p0.h5 p1.h5 p2.h5
grep -q "results of another job" err.txt || die "(3) the refusal to replace another job's result says: $(tail -n 1 err.txt)"
[ "$(sha otherwhole.h5)" = "$other_sha" ] || die "(3) the refused merge changed another job's result"
echo "not a result file" >notresult.h5
expect_status 2 "(3) merge --overwrite onto a file that is not a result" "$IMPACTSWEEP" merge --overwrite notresult.h5 p0.h5 p1.h5 p2.h5
[ "$(cat notresult.h5)" = "not a result file" ] || die "(3) the refused merge changed notresult.h5"
ok "another job's result and a non-result file are left as they are"

say "3. a partial merge says plainly what it holds"
status=$(run_status "$IMPACTSWEEP" merge part.h5 p0.h5 p2slow.h5)
[ "$status" -eq 1 ] || die "(3) a merge with points missing exited $status, not 1"
last=$(tail -n 1 err.txt)
for want in "part.h5 is incomplete" "missing piece(s) 1/3" "p2slow.h5 (piece 2/3) holds"; do
    [[ $last == *"$want"* ]] || die "(3) the last line of a partial merge does not say '$want': $last"
done
ok "exit 1; $(echo "$last" | sed 's/^impactsweep: //' | cut -c1-160)"

say "3. overlapping inputs that disagree, and a damaged input, are refused and leave no output"
cp q1.h5 q1alt.h5
# a value changed with its checksum recomputed: the file verifies, only the overlap tells
"$PYTHON" "$TESTS/integration/checksums.py" set q1alt.h5 sum 7 12345.5 || die "(3) altering q1alt.h5 failed"
"$IMPACTSWEEP" info q1alt.h5 --verify >out.txt 2>err.txt || die "(3) q1alt.h5 does not verify: $(tail -n 1 err.txt)"
cp p1.h5 p1alt.h5
"$PYTHON" - p1alt.h5 <<'PYEOF' || die "(3) altering p1alt.h5 with h5py failed"
import sys
import h5py
import numpy as np
with h5py.File(sys.argv[1], "r+") as f:
    status = f["status"][()]
    done = np.argwhere(status == 1)
    at = tuple(done[len(done) // 2])
    value = np.array([f["sum"][at]], dtype="<f8").view("<u8")
    f["sum"][at] = (value ^ np.uint64(1 << 40)).view("<f8")[0]  # one bit, not its checksum
print("flipped a bit of sum at", at)
PYEOF
for launcher in serial mpi2; do
    for case in "q1alt.h5 differ p0.h5 p1.h5 p2.h5" "p1alt.h5 damaged p0.h5 p2.h5"; do
        read -r input want others <<<"$case"
        # shellcheck disable=SC2086 # the other inputs, split on purpose
        if [ "$launcher" = serial ]; then
            status=$(run_status "$IMPACTSWEEP" merge c.h5 $others "$input")
        else
            status=$(run_status mpi2 merge c.h5 "$input" $others)
        fi
        [ "$status" -eq 2 ] || die "(3) merge with $input ($launcher) exited $status, not 2: $(tail -n 1 err.txt)"
        grep -q "$want" err.txt || die "(3) merge with $input ($launcher): the message does not say '$want': $(tail -n 1 err.txt)"
        leftover=$(ls c.h5* 2>/dev/null || true)
        [ -z "$leftover" ] || die "(3) merge with $input ($launcher) left: $leftover"
        ok "$launcher, $input: exit $status, $(grep -m1 "$want" err.txt | sed 's/^impactsweep: //' | cut -c1-140)"
    done
done
grep -q "p1alt.h5 is damaged: point .*: its value of sum differs in one bit from its checksum (bit 40" err.txt ||
    die "(3) the damaged input's message does not name the file, the point and sum: $(tail -n 1 err.txt)"

# ===================================================================================
say "4. long paths: an output under > 600 characters of directories, 1 and 2 ranks"
d200=$(printf 'd%.0s' $(seq 1 200))
deep="$WORK/$d200/$d200/$d200"
mkdir -p "$deep"
[ "${#deep}" -gt 600 ] || die "(4) the nest is only ${#deep} characters long"
expect_status 0 "(4) 1 rank into a ${#deep}-character directory" "$IMPACTSWEEP" run "$job" --output "$deep/long1.h5"
same_results whole.h5 "$deep/long1.h5" "(4) long path (1 rank) vs short path"
expect_status 0 "(4) 2 ranks into a ${#deep}-character directory" mpi2 run "$job" --output "$deep/long2.h5"
same_results whole.h5 "$deep/long2.h5" "(4) long path (2 ranks) vs short path"
expect_status 0 "(4) 2-rank merge into the long path" mpi2 merge "$deep/longm.h5" p0.h5 p1.h5 p2.h5
same_results whole.h5 "$deep/longm.h5" "(4) merge into a long path vs the whole run"
left=$(listing "$deep" | sed 's|.*/||' | tr '\n' ' ')
[ "$left" = "long1.h5 long2.h5 longm.h5 " ] || die "(4) the long directory holds: $left"
ok "${#deep}-character directory: 1 rank, 2 ranks and merge equal the short-path run"

say "4. a 250-character file name is refused before anything is created"
mkdir names
name250=$(printf 'n%.0s' $(seq 1 247)).h5
for launcher in serial mpi2; do
    if [ "$launcher" = serial ]; then
        expect_status 2 "(4) 250-character file name" "$IMPACTSWEEP" run "$job" --output "names/$name250"
    else
        expect_status 2 "(4) 250-character file name, 2 ranks" mpi2 run "$job" --output "names/$name250"
    fi
    [ -z "$(listing names)" ] || die "(4) a refused long name left files: $(listing names | cut -c1-30)..."
    grep -q -E "at most [0-9]+" err.txt || die "(4) the refusal does not say how long the name may be"
done
name_max=$(grep -m1 -o -E "at most [0-9]+" err.txt | grep -o -E "[0-9]+")
ok "refused, nothing created: ...$(grep -m1 -o -E 'the file name is .{0,60}' err.txt)"

say "4. the longest name accepted ($name_max characters) works, and so does its stale-lock takeover"
longest=$(printf 'n%.0s' $(seq 1 $((name_max - 3)))).h5
expect_status 0 "(4) a $name_max-character file name" "$IMPACTSWEEP" run "$job" --output "names/$longest"
same_results whole.h5 "names/$longest" "(4) $name_max-character name vs short name"
rm -f "names/$longest"
write_lock "names/$longest.lock" "$host" "$dead_pid" 0 "" 0 0
timed_status timeout 60 env IMPACTSWEEP_LOCK_TIMEOUT=30 "$IMPACTSWEEP" run "$job" --output "names/$longest"
if [ "$status" -ne 0 ]; then
    fail_later "(4) run onto a $name_max-character name (accepted) whose lock is stale (dead pid $dead_pid on this host): expected 0 (takeover), got $status: $(grep -m1 -o 'is in use by another run' err.txt || true) (the takeover's temporary NAME.lock.PID is longer than the file system allows)"
else
    [ ! -e "names/$longest.lock" ] || die "(4) the stale lock is still there after the run"
    ok "stale lock of a $name_max-character name taken over in $took ms"
fi
rm -f names/*

# ===================================================================================
say "5. full disk (a 6 MB tmpfs)"
disk="$WORK/disk"
mkdir "$disk"
beat_pid=${beat_pid:-}
# Unmount before lib.sh's cleanup removes $WORK (after stopping our background runs,
# which would keep the file system busy).
safety_exit() {
    local status=$? pid kids
    set +e
    for pid in $(jobs -p); do
        kids=$(pgrep -P "$pid" | tr '\n' ' ')
        # shellcheck disable=SC2086
        kill -9 "$pid" $kids 2>/dev/null
        wait "$pid" 2>/dev/null
    done
    if mountpoint -q "$disk" 2>/dev/null; then
        umount "$disk" 2>/dev/null || umount -l "$disk"
    fi
    (exit "$status")
    cleanup
}
trap safety_exit EXIT
free_kb() { df -k --output=avail "$disk" | tail -n 1 | tr -d ' '; }
# fill_disk: a ballast file takes every free block of the tmpfs.
fill_disk() {
    dd if=/dev/zero of="$disk/ballast" bs=4k oflag=append conv=notrunc 2>/dev/null || true
    [ "$(free_kb)" -eq 0 ] || die "(5) the ballast left $(free_kb) KB free"
}
if ! mount -t tmpfs -o size=6m tmpfs "$disk" 2>mount.txt; then
    echo "--- 5. skipped: cannot mount tmpfs ($(head -n 1 mount.txt))"
else
    big=(--set axis.x.count=200 --set axis.y.count=2000) # 400000 points, about 8.8 MB
    say "5a. creating a file that does not fit: refused before anything is written"
    for launcher in serial mpi2; do
        if [ "$launcher" = serial ]; then
            status=$(run_status "$IMPACTSWEEP" run "$job" "${big[@]}" --output "$disk/out.h5")
        else
            status=$(run_status mpi2 run "$job" "${big[@]}" --output "$disk/out.h5")
        fi
        [ "$status" -eq 2 ] || die "(5a) creating a file too big for the disk ($launcher): expected exit status 2, got $status"
        left=$(listing "$disk" | sed 's|.*/||' | tr '\n' ' ')
        echo "    $launcher: exit $status; left on the disk: ${left:-nothing}; $(grep -m1 -v -E '^impactsweep: .*writing .*/out.h5$' err.txt | sed 's/^impactsweep: //')"
        [ -z "$left" ] || die "(5a) the refused creation ($launcher) left files: $left"
        grep -q "GB free" err.txt ||
            die "(5a) creating a file too big for the disk ($launcher): the message does not say how much is free: $(tail -n 1 err.txt)"
    done

    say "5a. --overwrite of a small file by one that does not fit: the old file survives"
    expect_status 0 "(5a) a small file on the disk" "$IMPACTSWEEP" run "$job" --output "$disk/small.h5"
    small_sha=$(sha "$disk/small.h5")
    status=$(run_status mpi2 run "$job" "${big[@]}" --output "$disk/small.h5" --overwrite)
    [ "$status" -eq 2 ] || die "(5a) --overwrite by a file too big for the disk: expected exit status 2, got $status"
    grep -q "GB free" err.txt ||
        die "(5a) --overwrite by a file too big for the disk: the message does not say how much is free"
    [ "$(sha "$disk/small.h5")" = "$small_sha" ] || die "(5a) the failed --overwrite changed the old file"
    left=$(listing "$disk" | sed 's|.*/||' | tr '\n' ' ')
    [ "$left" = "small.h5 " ] || die "(5a) the failed --overwrite left: $left"
    same_results whole.h5 "$disk/small.h5" "(5a) the old file after a failed --overwrite"
    ok "exit 2, small.h5 byte-identical, nothing else on the disk"
    rm -f "$disk/small.h5"

    say "5b. two slow runs on the disk, interrupted while there is room"
    slow5=(--set model.cost=0.005 --set axis.x.count=20 --set axis.y.count=30) # 3 s of work
    expect_status 0 "(5b) uninterrupted 2-rank run of the job" mpi2 run "$job" "${slow5[@]}" --output slow5_ref.h5
    for r in r1 r2; do
        start_mpi2 "$disk/$r.h5" "$job" "${slow5[@]}"
        wait_for_done "$disk/$r.h5" 30 "$run_pid"
        interrupt "$run_pid" "$disk/$r.h5"
        rm -f "$disk/$r.h5.out" "$disk/$r.h5.err"
        [ "$(points "$disk/$r.h5" pending)" -gt 0 ] || die "(5b) $r.h5: nothing pending after the interruption"
    done
    dd if=/dev/zero of="$disk/spare" bs=4k count=4 2>/dev/null || die "(5b) cannot write the spare file"
    fill_disk
    say "5b. --resume of r1.h5 on a full disk: completes, or exits 1 with a clear message"
    status=$(run_status "$IMPACTSWEEP" run "$job" "${slow5[@]}" --output "$disk/r1.h5" --resume)
    case $status in
        0) ok "the resume on a full disk completed" ;;
        1)
            grep -q -i "no space left" err.txt ||
                die "(5b) the resume on a full disk exits 1 without saying 'no space left': $(tail -n 1 err.txt)"
            ok "exit 1: $(tail -n 1 err.txt | sed 's/^impactsweep: //')"
            ;;
        *) die "(5b) the resume on a full disk: expected exit status 0 or 1, got $status" ;;
    esac
    expect_status 0 "(5b) info on r1.h5 after the resume on a full disk" "$IMPACTSWEEP" info "$disk/r1.h5" --log
    grep -q " created by impactsweep " out.txt || die "(5b) the log of r1.h5 lost its creation line"
    grep -q "^points: " out.txt || die "(5b) info shows no point counts for r1.h5"
    for f in r1.h5.lock r1.h5.partial; do [ ! -e "$disk/$f" ] || die "(5b) the resume on a full disk left $f"; done
    ok "info opens r1.h5, its log holds the creation line"

    say "5b. --resume of r2.h5 with 16 KB free (room for the lock; the data storage is preallocated)"
    rm -f "$disk/spare"
    status=$(run_status mpi2 run "$job" "${slow5[@]}" --output "$disk/r2.h5" --resume)
    if [ "$status" -eq 0 ]; then
        same_results slow5_ref.h5 "$disk/r2.h5" "(5b) r2.h5 resumed on a nearly full disk"
        ok "completed on a nearly full disk, equal to the uninterrupted run"
    else
        fail_later "(5b) --resume of an interrupted file on a disk with 16 KB free: expected 0 (all storage is preallocated), got $status: $(grep -m1 -v 'writing' err.txt || true)"
    fi
    expect_status 0 "(5b) info on r2.h5" "$IMPACTSWEEP" info "$disk/r2.h5" --log
    grep -q " created by impactsweep " out.txt || die "(5b) the log of r2.h5 lost its creation line"

    say "5b. the ballast removed, --resume completes r1.h5 into the uninterrupted run's results"
    rm -f "$disk/ballast"
    expect_status 0 "(5b) resume of r1.h5 with room again" mpi2 run "$job" "${slow5[@]}" --output "$disk/r1.h5" --resume
    same_results slow5_ref.h5 "$disk/r1.h5" "(5b) r1.h5 interrupted, refused on a full disk, resumed"
    "$IMPACTSWEEP" info "$disk/r1.h5" --log >info.txt || die "(5b) info fails on r1.h5"
    grep -q "state complete" info.txt || die "(5b) r1.h5 is not 'complete'"
    left=$(listing "$disk" | sed 's|.*/||' | tr '\n' ' ')
    [ "$left" = "r1.h5 r2.h5 " ] || die "(5b) the disk holds: $left"
    ok "r1.h5 complete and equal to the uninterrupted run"

    say "5c. the disk fills up while a new file is made (another writer, after the space check)"
    rm -f "$disk"/r1.h5 "$disk"/r2.h5
    fits=(--set axis.x.count=100 --set axis.y.count=1000) # 100,000 points, about 4 MB
    # the run pauses at its second plain open of new.h5.partial (the first is HDF5's look
    # before it creates the file; the second the ranks' open, after the check of the space
    # and the metadata), and the disk fills meanwhile
    DELAYSHIM_MATCH=new.h5.partial DELAYSHIM_CALL=open DELAYSHIM_SKIP=1 DELAYSHIM_SECONDS=3 \
        LD_PRELOAD="$DELAYSHIM_LIB" "$IMPACTSWEEP" run "$job" "${fits[@]}" --output "$disk/new.h5" \
        >out.txt 2>err.txt &
    pid=$!
    for _ in $(seq 1 600); do [ -e "$disk/new.h5.partial" ] && break; sleep 0.05; done
    [ -e "$disk/new.h5.partial" ] || die "(5c) new.h5.partial never appeared"
    # (not fill_disk: the failed run removes its .partial at once, freeing its blocks)
    dd if=/dev/zero of="$disk/ballast" bs=4k oflag=append conv=notrunc 2>/dev/null || true
    status=0
    wait "$pid" || status=$?
    [ "$status" -eq 1 ] || die "(5c) a full disk while the file was made: expected exit status 1, got $status: $(tail -n 1 err.txt)"
    grep -q "no space left" err.txt || die "(5c) the message does not say the disk is full: $(tail -n 1 err.txt)"
    grep -q "nothing of it is kept" err.txt || die "(5c) the message does not say nothing was kept: $(tail -n 1 err.txt)"
    ! grep -q -- "--resume, which keeps" err.txt || die "(5c) the message promises kept points: $(tail -n 1 err.txt)"
    left=$(listing "$disk" | sed 's|.*/||' | tr '\n' ' ')
    [ "$left" = "ballast " ] || die "(5c) the failed creation left: $left"
    rm -f "$disk/ballast"
    ok "exit 1: $(grep -m1 'no space' err.txt | sed 's/^impactsweep: //' | cut -c1-150)"
    cd "$WORK"
    umount "$disk" || die "(5) cannot unmount $disk"
fi

say "done in $SECONDS s"
if [ "${#failures[@]}" -gt 0 ]; then
    printf '  %s\n' "${failures[@]}" >&2
    rm -f err.txt out.txt
    die "${#failures[@]} check(s) failed (above)"
fi
true
