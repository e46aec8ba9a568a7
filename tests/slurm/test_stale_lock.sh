#!/usr/bin/env bash
# The locks of a result file held by a run on another host (another node: its own
# hostname and network): the lock of the file's name (stale.h5.lock) and the lock of the
# file itself (.impactsweep-lock.INODE beside it). While that run lives, its heartbeat
# moves and a run on this node is refused (exit 2, naming the holder's host). Once it is
# killed (kill -9: no chance to remove its locks) the heartbeat stands still, and a run
# here takes both locks over after IMPACTSWEEP_LOCK_TIMEOUT seconds, not before (by the
# next generation, stale.h5.lock.1, never by rewriting the dead run's), resumes the file,
# leaves no lock behind and ends with the same results as an uninterrupted run. Each run
# is a Slurm job of its own (srun -w NODE), so the lock's Slurm job is never the taker's.
source "$(dirname "$0")/lib.sh"
need_nodes 2
job=$(dirname "$0")/sweep.ini
read -r here there <<<"$(nodes_up | head -2 | tr '\n' ' ')"
export IMPACTSWEEP_LOCK_TIMEOUT=8
# about 20 s of work on one core (measured: the holder must outlive the refused run, a
# fixed sample count was finished in 4 s on a quiet machine)
samples=$(calibrated_samples "$job" 20 --set model.early_stop=0 --set sweep.unit_size=1)
work=(--set model.samples=$samples --set model.early_stop=0 --set sweep.unit_size=1)
echo "samples = $samples"

say "a run on $there holds stale.h5"
srun -w "$there" -N 1 -n 1 --job-name impactsweep-test "$IMPACTSWEEP" run "$job" "${work[@]}" \
    --output "$WORK/stale.h5" --progress lines >holder.out 2>&1 &
holder=$!
for _ in $(seq 1 150); do
    grep -qE "^impactsweep: [1-9][0-9]*/[0-9]+ points" holder.out && break
    kill -0 "$holder" 2>/dev/null || die "the holding run ended early: $(tail -3 holder.out)"
    sleep 0.2
done
[ -f stale.h5.lock ] || die "no lock file beside stale.h5"
grep -q "^host=$there$" stale.h5.lock || die "the lock does not name $there: $(cat stale.h5.lock)"
file_lock=.impactsweep-lock.$(stat -c %i stale.h5)
grep -qs "^host=$there$" "$file_lock" || die "no lock of the file itself ($file_lock) naming $there"

say "a run on $here while the holder lives: refused"
t0=$(now)
status=0
srun -w "$here" -N 1 -n 1 --job-name impactsweep-test "$IMPACTSWEEP" run "$job" "${work[@]}" \
    --output "$WORK/stale.h5" --resume >refused.out 2>&1 || status=$?
echo "   refused after $(since "$t0") s with status $status: $(grep -m1 'in use' refused.out)"
[ "$status" -eq 2 ] || die "a second run on a live lock exited $status, not 2: $(tail -3 refused.out)"
grep -q "in use by another run (host $there" refused.out || die "the refusal does not name $there"

say "the holder dies (kill -9); a run on $here takes the lock over"
# (its pid, from the lock: the nodes share the machine's process ids)
pid=$(sed -n 's/^pid=//p' stale.h5.lock)
[ -n "$pid" ] && kill -0 "$pid" || die "the lock names no live process: $(cat stale.h5.lock)"
kill -KILL "$pid"
wait "$holder" 2>/dev/null || true
grep -q "^host=$there$" stale.h5.lock || die "the killed run's lock is gone: the test needs it"
locks() { ls -a | grep -E '^(stale\.h5\.lock(\.[0-9]+)?|\.impactsweep-lock\..*)$' || true; }
t0=$(now)
srun -w "$here" -N 1 -n 1 --job-name impactsweep-test "$IMPACTSWEEP" run "$job" "${work[@]}" \
    --output "$WORK/stale.h5" --resume --progress lines >taker.out 2>&1 &
taker=$!
took=""
while kill -0 "$taker" 2>/dev/null; do # when does a lock of the name (a generation) name this node?
    [ -z "$took" ] && grep -qs "^host=$here$" stale.h5.lock stale.h5.lock.[0-9]* && took=$(since "$t0")
    if [ -n "$took" ] && [ -z "${replaced:-}" ]; then # the dead run's lock: never rewritten
        grep -qs "^host=$here$" stale.h5.lock && die "the dead run's lock file was rewritten, not superseded"
        replaced=1
    fi
    sleep 0.1
done
wait "$taker" || die "the run after the holder's death failed: $(tail -3 taker.out)"
echo "   the run on $here took the lock over ${took:-?} s after the kill; done $(since "$t0") s after it"
# the lock was taken only once the heartbeat had stood still for the timeout
[ -n "$took" ] && awk -v t="$took" -v l="$IMPACTSWEEP_LOCK_TIMEOUT" 'BEGIN { exit !(t >= l - 0.5) }' ||
    die "the lock was taken over after ${took:-?} s, before its ${IMPACTSWEEP_LOCK_TIMEOUT} s timeout"
[ -z "$(locks)" ] || die "locks left behind: $(locks | tr '\n' ' ')"
[ "$(run_state stale.h5)" = complete ] || die "the run state is not complete"
run_log stale.h5
run_log stale.h5 | grep "resumed" | grep -q "on $here" || die "the run log shows no resumption on $here"

say "the uninterrupted run, for comparison"
"$IMPACTSWEEP" run "$job" "${work[@]}" --output reference.h5 >/dev/null 2>&1 || die "reference run failed"
"$H5COMPARE" stale.h5 reference.h5 || die "the file whose lock was taken over differs from one run"
echo "PASS"
