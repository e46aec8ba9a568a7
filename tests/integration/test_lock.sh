# shellcheck shell=bash
# test_lock.sh: one file, one writer, by the file's identity (src/core/store/lock.h), on the
# synthetic test model ($IMPACTSWEEP_TEST).
#  1. aliases: while a run computes s.h5, a second run (--resume) is refused at once (exit
#     2, naming the holder) through a hard link in the same directory, a symbolic link to
#     the file, a symbolic link to its directory and ./s.h5, and so is merge --overwrite
#     through a hard link; a hard link in another directory is refused outright, saying
#     why; the holder is undisturbed and its file equals an uninterrupted run.
#  2. planted locks: s.h5.lock as a symbolic link to a victim file, a fifo or a directory
#     is refused at once and never written through (the victim byte-identical); a hard
#     link to a victim as the lock is taken over after the 2 s grace of an unwritten lock,
#     the victim byte-identical; a dead process's file lock (.impactsweep-lock.INODE) is
#     taken over at once.
#  3. the take-over race, with the delay shim (tests/tools/delayshim.c, $DELAYSHIM_LIB):
#     LOCK_ROUNDS rounds (default 3) for each place where one run is paused for 0.5 s
#     (before creating its lock, before its first or second listing of the directory,
#     before removing the stale lock, and no pause), two --resume runs of a half-done slow
#     file with a stale lock of a dead process, started together: exactly one computes,
#     the other exits 2 naming the lock; the file equals the uninterrupted run, with one
#     more 'resumed' line in its log, and no lock file is left. The same with the file's
#     own lock contended (the runs through two hard links, a stale .impactsweep-lock).
# shellcheck source=lib.sh
source "$TESTS/integration/lib.sh"

[ -n "${IMPACTSWEEP_TEST:-}" ] || die "environment variable IMPACTSWEEP_TEST is not set (run through ctest)"
if [ -z "${DELAYSHIM_LIB:-}" ] || [ ! -f "$DELAYSHIM_LIB" ]; then
    die "environment variable DELAYSHIM_LIB does not name the delay shim (run through ctest)"
fi
IMPACTSWEEP=$IMPACTSWEEP_TEST
export OMPI_MCA_odls_base_sigkill_timeout=0
unset IMPACTSWEEP_LOCK_TIMEOUT
ROUNDS=${LOCK_ROUNDS:-3}
host=$(uname -n)
dead_pid=999999
while kill -0 "$dead_pid" 2>/dev/null; do dead_pid=$((dead_pid - 1)); done
ok() { echo "    ok: $*"; }
# write_lock FILE PID: a lock record of PID on this host (lock.c's format)
write_lock() {
    printf 'impactsweep lock\nhost=%s\npid=%s\npid_start=0\nslurm_job=\nslurm_restart=0\nstarted=2026-01-01T00:00:00Z\nheartbeat=%020d\n' \
        "$host" "$2" 0 >"$1"
}
# no_locks DIR WHAT: no lock file of any kind is left in DIR
no_locks() {
    local left
    left=$(find "$1" -maxdepth 1 \( -name '*.lock*' -o -name '.impactsweep-lock.*' \) -printf '%f ' | sort)
    [ -z "$left" ] || die "$2: lock files left behind: $left"
}

cat >s.ini <<'EOF'
[sweep]
model = synthetic
output = s.h5
[model]
cost = 0.005
[axis.x]
from = -3
to = 3
count = 20
[axis.y]
from = -2
to = 2
count = 30
EOF
job=$WORK/s.ini # 600 points, 3 s of work on one rank

say "setup: the uninterrupted run, and a half-done file (stopped by SIGUSR1)"
expect_status 0 "reference run" "$IMPACTSWEEP" run "$job" --output ref.h5 --quiet
"$IMPACTSWEEP" run "$job" --output half.h5 --quiet &
pid=$!
sleep 1.2
kill -USR1 "$pid"
status=0
wait "$pid" || status=$?
[ "$status" -eq 75 ] || die "the run stopped by SIGUSR1 exited $status, not 75"
pending=$(points half.h5 pending)
[ "$pending" -gt 0 ] && [ "$pending" -lt 600 ] || die "the half-done file has $pending of 600 points pending"
ok "half.h5: $pending of 600 points pending"

# ===================================================================================
say "1. aliases of a file a run holds are refused at once"
mkdir -p d other
sed 's/^cost = .*/cost = 0.02/' s.ini >slow.ini # 12 s of work: it holds the file throughout
job=$WORK/slow.ini
"$IMPACTSWEEP" run "$job" --output d/s.h5 --quiet &
holder=$!
# the lock comes before the file: wait for both (a loaded machine can take seconds)
for _ in $(seq 1 300); do [ -e d/s.h5.lock ] && [ -e d/s.h5 ] && break; sleep 0.1; done
[ -e d/s.h5.lock ] || die "(1) the holding run made no lock"
[ -e d/s.h5 ] || die "(1) the holding run made no file"
ln d/s.h5 d/hard.h5
ln -s s.h5 d/soft.h5
ln -s "$WORK/d" dirlink
# refuse_alias WHAT PATH [merge]: exits 2 at once, naming the holder; nothing new in d/
refuse_alias() {
    local what=$1 path=$2 t0 took before after
    before=$(find d -mindepth 1 -maxdepth 1 -printf '%f\n' | sort)
    t0=$(date +%s%N)
    if [ "${3:-}" = merge ]; then
        status=$(run_status "$IMPACTSWEEP" merge --overwrite "$path" half.h5)
    else
        status=$(run_status "$IMPACTSWEEP" run "$job" --output "$path" --resume)
    fi
    took=$((($(date +%s%N) - t0) / 1000000))
    [ "$status" -eq 2 ] || die "(1) $what: expected exit status 2, got $status: $(tail -n 1 err.txt)"
    grep -q "in use by another run (host $host, pid $holder" err.txt ||
        die "(1) $what: the refusal does not name the holder (pid $holder): $(tail -n 1 err.txt)"
    [ "$took" -lt 5000 ] || die "(1) $what: the refusal took $took ms"
    after=$(find d -mindepth 1 -maxdepth 1 -printf '%f\n' | sort)
    [ "$before" = "$after" ] || die "(1) $what: files appeared or vanished in d/: $(diff <(echo "$before") <(echo "$after") | tr '\n' ' ')"
    ok "$what: refused in $took ms"
}
refuse_alias "the same name" d/s.h5
refuse_alias "./d/s.h5" ./d/s.h5
refuse_alias "a hard link in the same directory" d/hard.h5
refuse_alias "a symbolic link to the file" d/soft.h5
refuse_alias "the file through a symbolic link to its directory" dirlink/s.h5
refuse_alias "merge --overwrite through a hard link" d/hard.h5 merge
ln d/s.h5 other/far.h5
expect_status 2 "(1) a run on a file with a hard link in another directory" \
    "$IMPACTSWEEP" run "$job" --output other/far.h5 --resume
grep -q "hard links), 2 of them outside" err.txt || die "(1) the refusal of a far hard link says: $(tail -n 1 err.txt)"
ok "a hard link in another directory: $(tail -n 1 err.txt | sed 's/^impactsweep: //' | cut -c1-120)"
rm other/far.h5
kill -0 "$holder" 2>/dev/null || die "(1) the holding run ended before the refusals were done"
kill -USR1 "$holder"
status=0
wait "$holder" || status=$?
[ "$status" -eq 75 ] || die "(1) the holding run, stopped, exited $status"
expect_status 0 "(1) info --verify of the holder's file" "$IMPACTSWEEP" info d/s.h5 --verify --log
! grep -q " resumed by " out.txt || die "(1) a refused run wrote into the holder's file"
rm d/hard.h5 d/soft.h5 dirlink
no_locks d "(1)"
ok "the holder stopped with exit 75; its file verifies, and no refused run wrote to it"
job=$WORK/s.ini

# ===================================================================================
say "2. planted locks are never written through"
echo "precious data" >victim
victim_sha=$(sha victim)
sed 's/^cost = .*/cost = 0/' s.ini >fast.ini # a complete file: a resume is the lock alone
job=$WORK/fast.ini
expect_status 0 "(2) a complete file of a fast job" "$IMPACTSWEEP" run "$job" --output fast_ref.h5 --quiet
cp fast_ref.h5 p.h5
# planted KIND: p.h5.lock made as KIND; the resume is refused at once
for kind in symlink fifo directory; do
    case $kind in
        symlink) ln -s "$WORK/victim" p.h5.lock ;;
        fifo) mkfifo p.h5.lock ;;
        directory) mkdir p.h5.lock ;;
    esac
    status=$(run_status timeout 20 "$IMPACTSWEEP" run "$job" --output p.h5 --resume)
    [ "$status" -eq 2 ] || die "(2) a $kind as p.h5.lock: expected exit status 2, got $status"
    grep -q "is not a lock file impactsweep made" err.txt || die "(2) $kind: $(tail -n 1 err.txt)"
    [ "$(sha victim)" = "$victim_sha" ] || die "(2) $kind: the victim changed"
    rm -rf p.h5.lock
    ok "a $kind as the lock: refused, nothing written"
done
ln victim p.h5.lock
t0=$(date +%s%N)
expect_status 0 "(2) resume with a hard link to a victim as the lock" "$IMPACTSWEEP" run "$job" --output p.h5 --resume
took=$((($(date +%s%N) - t0) / 1000000))
[ "$(sha victim)" = "$victim_sha" ] || die "(2) the hard-linked victim changed"
[ "$(stat -c %h victim)" -eq 1 ] || die "(2) the victim's planted link is still there"
[ "$took" -ge 1800 ] && [ "$took" -lt 8000 ] || die "(2) the planted hard link was taken over after $took ms (2 s of grace expected)"
same_results fast_ref.h5 p.h5 "(2) the file resumed past a planted hard link"
no_locks . "(2)"
ok "a hard link to a victim as the lock: taken over after $took ms (an unwritten lock's grace), the victim untouched"
cp fast_ref.h5 q.h5
write_lock ".impactsweep-lock.$(stat -c %i q.h5)" "$dead_pid"
t0=$(date +%s%N)
expect_status 0 "(2) resume with a dead process's file lock" "$IMPACTSWEEP" run "$job" --output q.h5 --resume
took=$((($(date +%s%N) - t0) / 1000000))
[ "$took" -lt 1800 ] || die "(2) a dead process's file lock was taken over after $took ms"
no_locks . "(2)"
ok "a dead process's file lock: taken over at once ($took ms for the whole run)"
job=$WORK/s.ini

# ===================================================================================
say "3. the take-over race: two runs, a stale lock, one of them paused (delay shim)"
# race DIR MATCH CALL SKIP NAME_A NAME_B: one round; prints "A" or "B", whichever computed
race() {
    local dir=$1 match=$2 call=$3 skip=$4 a=$5 b=$6 sa=0 sb=0 pa pb
    (cd "$dir" && DELAYSHIM_MATCH="$match" DELAYSHIM_CALL="$call" DELAYSHIM_SKIP="$skip" \
        DELAYSHIM_SECONDS=0.5 LD_PRELOAD="$DELAYSHIM_LIB" \
        exec "$IMPACTSWEEP" run "$job" --output "$a" --resume --quiet >a.out 2>a.err) &
    pa=$!
    (cd "$dir" && exec "$IMPACTSWEEP" run "$job" --output "$b" --resume --quiet >b.out 2>b.err) &
    pb=$!
    wait "$pa" || sa=$?
    wait "$pb" || sb=$?
    if [ "$sa" -eq 0 ] && [ "$sb" -eq 2 ] && grep -q "in use" "$dir/b.err"; then
        echo A
    elif [ "$sa" -eq 2 ] && [ "$sb" -eq 0 ] && grep -q "in use" "$dir/a.err"; then
        echo B
    else
        echo "both or neither: A exited $sa ($(tail -n 1 "$dir/a.err")), B exited $sb ($(tail -n 1 "$dir/b.err"))"
    fi
}
# rounds LABEL STALE MATCH CALL SKIP NAME_A NAME_B: ROUNDS rounds on a fresh copy each
rounds() {
    local label=$1 stale=$2 match=$3 call=$4 skip=$5 a=$6 b=$7 r dir verdict wins=""
    for r in $(seq 1 "$ROUNDS"); do
        dir="$WORK/race"
        rm -rf "$dir"
        mkdir "$dir"
        cp half.h5 "$dir/s.h5"
        [ "$b" = s.h5 ] || ln "$dir/s.h5" "$dir/$b"
        [ "$a" = s.h5 ] || ln "$dir/s.h5" "$dir/$a"
        if [ "$stale" = name ]; then
            write_lock "$dir/s.h5.lock" "$dead_pid"
        else
            write_lock "$dir/.impactsweep-lock.$(stat -c %i "$dir/s.h5")" "$dead_pid"
        fi
        verdict=$(race "$dir" "$match" "$call" "$skip" "$a" "$b")
        [ "$verdict" = A ] || [ "$verdict" = B ] || die "(3) $label, round $r: $verdict"
        same_results ref.h5 "$dir/s.h5" "(3) $label, round $r"
        "$IMPACTSWEEP" info "$dir/s.h5" --log >"$dir/info.txt" || die "(3) $label, round $r: info fails"
        [ "$(grep -c ' resumed by ' "$dir/info.txt")" -eq 1 ] ||
            die "(3) $label, round $r: the log has $(grep -c ' resumed by ' "$dir/info.txt") 'resumed' lines, not 1"
        rm -f "$dir"/*.out "$dir"/*.err "$dir/info.txt"
        no_locks "$dir" "(3) $label, round $r"
        wins="$wins$verdict"
    done
    ok "$label: $ROUNDS rounds, one writer in each (computed by: $wins)"
}
name_lock=s.h5.lock
rounds "no pause" name "" none 0 s.h5 s.h5
rounds "A paused before creating its lock" name "$name_lock" create 0 s.h5 s.h5
rounds "A paused before its first listing" name race opendir 0 s.h5 s.h5
rounds "A paused before its second listing" name race opendir 1 s.h5 s.h5
rounds "A paused before removing the stale lock" name "$name_lock" unlink 0 s.h5 s.h5
rounds "the file's own lock, A through a hard link paused before creating it" file \
    .impactsweep-lock create 0 h.h5 s.h5
# A's listings: the name lock's two (0, 1), the sweep of dead file locks (2), the count of
# the file's links (3), the file lock's two (4, 5)
rounds "the file's own lock, A paused before its second listing" file race opendir 5 h.h5 s.h5
say "done in $SECONDS s"
