# test_boundary.sh: the plug-in boundary, tried as a plug-in author's mistakes would try
# it: the boundary family of tests/models/plugins/boundary.c, each kind misbehaving on the
# same 12 of the 1,600 points of a 40 x 40 grid (crash, exit, abort, hang, a write past
# an array, bad statuses, outputs against their declaration, a SIGSEGV or SIGBUS raised on
# purpose, a child and a setsid grandchild that write the outputs after the call; and a
# table of contract 2),
# (and a plug-in built by the documented cc line whose own function has an engine internal's name), each run
# through
#  - a sweep on 2 ranks: exit 0, every point stored; the 12 bad points get their status
#    (failed_crash, failed_timeout with a point_timeout of 0.5 s, failed_check) and are
#    named with their coordinates in the run log; every other point holds the bits of the
#    clean kind's sweep; 1 and 2 ranks give the same file;
#  - a stop (SIGUSR1, exit 75) in the middle and a resume: the same data as the sweep;
#  - a dry run: exit 0, the sampled bad points counted and one of them named;
#  - models --check: exit 2 naming what broke (the array, for a write past one), 0 for the
#    clean and the old-contract kinds;
#  - eval of a bad point: its status, exit 1;
# and a hung point without point_timeout stops on SIGTERM within seconds (exit 75); every
# failed point of a sweep with more than 20 a rank is named by `info --failures`, after a
# resume and a merge too.
# shellcheck source=lib.sh
source "$TESTS/integration/lib.sh"
# Under the sanitizers (scripts/sanitize-tests.sh): the model processes here die on purpose
# (SIGSEGV, exit() inside a batch); ASan's SEGV handler and the leak check at exit would
# speak for the plug-in (another exit status, a report) where the engine must see the
# signal or the exit. The engine's own memory errors are still reported.
[ -z "${ASAN_OPTIONS:-}" ] || export ASAN_OPTIONS="$ASAN_OPTIONS:handle_segv=0:detect_leaks=0"
[ -n "${PLUGIN_DIR:-}" ] || die "PLUGIN_DIR is not set (run the test through ctest)"
LIBS=$PLUGIN_DIR/boundary

job() { # KIND [KEY=VALUE ...]: the job file KIND.ini over the 40 x 40 grid
    local kind=$1
    shift
    printf '%s\n' "[sweep]" "model = $LIBS/libboundary_$kind.so" "$@" "[axis.x]" "from = 0" \
        "to = 39" "count = 40" "[axis.y]" "from = 0" "to = 39" "count = 40" >"$kind.ini"
}

# KIND STATUS REASON: the expected status of the bad points and the reason the log gives
# (an extended regular expression, '.' for a blank or a parenthesis)
kinds="crash 8 signal.11..Segmentation.fault.
exit 8 exit.0.
abort 8 signal.6..Aborted.
hang 9 point.timeout.of.[0-9.]+.s
oob 6 wrote.past.the.end.of.its.(outputs|status).array
status 6 gave.the.point.status.(200|7)
output 6 (is.NaN|not.an.int32|names.no.category)
old_abi 1 -
namesake 1 -
raise 8 signal.(11..Segmentation.fault|7..Bus.error).
linger 6 could.still.be.written.after.eval_batch.had.returned"

say "the reference: the clean kind on 2 ranks"
job clean
expect_status 0 "clean" mpi2 run clean.ini --output clean.h5
"$PYTHON" -c 'import sys, h5py; assert "references" not in h5py.File(sys.argv[1], "r").attrs' \
    clean.h5 || die "a model without references (NULL) gave its file a references attribute"

# FILE STATUS: the bad points hold STATUS, every other one the clean sweep's bits
check_file() {
    "$PYTHON" - "$1" clean.h5 "$2" <<'PY' || die "$1 does not hold what it should"
import sys, h5py, numpy as np
path, ref, want = sys.argv[1], sys.argv[2], int(sys.argv[3])
with h5py.File(path, "r") as f, h5py.File(ref, "r") as r:
    x, y = np.meshgrid(f["x"][...], f["y"][...], indexing="ij")
    bad = (x * 40 + y) % 137 == 0
    assert bad.sum() == 12, bad.sum()
    st = f["status"][...]
    assert (st[bad] == want).all(), (np.unique(st[bad]), want)
    assert (st[~bad] == 1).all(), np.unique(st[~bad])
    for name in ("value", "count", "class"):
        a, b = f[name][...], r[name][...]
        assert a[~bad].tobytes() == b[~bad].tobytes(), name
PY
}

while read -r kind status reason <&3; do # (fd 3: mpiexec reads stdin)
    say "$kind: a sweep on 2 ranks, the bad points failed ($status) and named, the rest exact"
    extra=()
    [ "$kind" = hang ] && extra=("point_timeout = 0.5")
    job "$kind" "${extra[@]}"
    expect_status 0 "$kind on 2 ranks" mpi2 run "$kind.ini" --output "$kind.h5"
    check_file "$kind.h5" "$status"
    "$IMPACTSWEEP" info "$kind.h5" --log >log.txt
    grep -q "complete: 1600 done\|complete: 1588 done, 12 failed" log.txt ||
        die "$kind: $(grep complete log.txt)"
    if [ "$reason" != - ]; then
        for point in "0 (x = 0, y = 0)" "137 (x = 3, y = 17)" "1507 (x = 37, y = 27)"; do
            grep -F "grid point $point: failed_" log.txt | grep -Eq "$reason" ||
                die "$kind: the run log does not name grid point $point: $(grep 'grid point' log.txt | head -3)"
        done
        [ "$(grep -c '^grid point' log.txt)" = 12 ] || die "$kind: not 12 points named in the log"
    fi

    say "$kind: stopped in the middle (exit 75) and resumed: the same points"
    job "$kind" "${extra[@]}"
    # (small units: stored as they end; a cost per point: time to stop it)
    start_mpi2 "$kind.resumed.h5" "$kind.ini" --set model.cost=0.0005 --set sweep.unit_size=40
    wait_for_done "$kind.resumed.h5" 100 "$run_pid"
    interrupt "$run_pid" "$kind.resumed.h5"
    [ "$(points "$kind.resumed.h5" pending)" -gt 0 ] || die "$kind: nothing was left pending"
    expect_status 0 "$kind resumed" mpi2 run "$kind.ini" --set model.cost=0.0005 \
        --output "$kind.resumed.h5" --resume
    check_file "$kind.resumed.h5" "$status"

    say "$kind: a dry run samples a bad point and says so"
    expect_status 0 "$kind --dry-run" "$IMPACTSWEEP" run "$kind.ini" --dry-run --output dry.h5
    if [ "$reason" != - ]; then
        line=$(grep -E "^failures: +[1-9][0-9]* of the [0-9]+ sampled points" out.txt) ||
            die "$kind: the dry run counts no failures: $(cat out.txt)"
        # the point it names is one of the bad ones, with the reason
        [[ $line =~ the\ first,\ x\ =\ ([0-9]+),\ y\ =\ ([0-9]+):\ FAILED_ ]] ||
            die "$kind: the dry run names no point: $line"
        [ $(((BASH_REMATCH[1] * 40 + BASH_REMATCH[2]) % 137)) = 0 ] ||
            die "$kind: the dry run names a good point: $line"
        grep -Eq "$reason" <<<"$line" || die "$kind: the dry run's reason: $line"
    fi

    say "$kind: models --check and eval of a bad point"
    if [ "$reason" = - ]; then
        expect_status 0 "$kind: models --check" "$IMPACTSWEEP" models --check "$LIBS/libboundary_$kind.so"
        expect_status 0 "$kind: eval" "$IMPACTSWEEP" eval "$LIBS/libboundary_$kind.so" x=3 y=17
    else
        expect_status 2 "$kind: models --check" "$IMPACTSWEEP" models --check --timeout 1 \
            "$LIBS/libboundary_$kind.so"
        grep -Eq "breaks the contract: .*$reason" err.txt || die "$kind: models --check says: $(cat err.txt)"
        expect_status 1 "$kind: eval" "$IMPACTSWEEP" eval "$LIBS/libboundary_$kind.so" x=3 y=17 \
            --timeout 1
        grep -q "\"status\": \"FAILED_" out.txt || die "$kind: eval prints $(cat out.txt)"
    fi
done 3<<<"$kinds"

say "every failed point is named in the file: 50 of 100 crash (more than 20 a rank)"
# (x = 0: x * 40 + y is a multiple of 137 on every point; x = 1: on none)
many() {
    printf '%s\n' "[sweep]" "model = $LIBS/libboundary_crash.so" "$@" "[axis.x]" "from = 0" \
        "to = 1" "count = 2" "[axis.y]" "from = 0" "to = $((137 * 49))" "count = 50" >many.ini
}
# FILE: `info --failures` names exactly the 50 points of x = 0 (grid points 0 .. 49), each
# failed_crash, with its coordinates; REASONS of them at least with the crash's reason
# (every one: the file keeps each failed point's reason)
check_failures() {
    local file=$1 reasons=$2
    expect_status 0 "info --failures $file" "$IMPACTSWEEP" info "$file" --failures
    [ "$(grep -c '^  grid point' out.txt)" = 50 ] ||
        die "$file: info --failures names $(grep -c '^  grid point' out.txt) points, not 50"
    for i in $(seq 0 49); do
        grep -q "^  grid point $i (x = 0, y = $((137 * i))): failed_crash" out.txt ||
            die "$file: info --failures does not name grid point $i: $(head -3 out.txt)"
    done
    [ "$(grep -c 'failed_crash: the model.s code crashed with signal 11' out.txt)" -ge "$reasons" ] ||
        die "$file: fewer than $reasons reasons: $(grep -c 'signal 11' out.txt)"
    expect_status 0 "info $file" "$IMPACTSWEEP" info "$file"
    grep -q "^failed points, with the reasons the engine failed them (50):" out.txt &&
        grep -q "^  ... and 45 more: .impactsweep info $file --failures. lists them all" out.txt ||
        die "$file: info does not show the first failed points: $(grep -A6 '^failed points' out.txt)"
}
many
expect_status 0 "50 crashing points on 2 ranks" mpi2 run many.ini --output many.h5
check_failures many.h5 50
expect_status 0 "info --failures of a file without failures" "$IMPACTSWEEP" info clean.h5 --failures
grep -q "^no failed points$" out.txt || die "clean.h5: $(tail -2 out.txt)"
say "... after a stop and a resume"
many
start_mpi2 many.resumed.h5 many.ini --set model.cost=0.05 --set sweep.unit_size=4
wait_for_done many.resumed.h5 4 "$run_pid"
interrupt "$run_pid" many.resumed.h5
[ "$(points many.resumed.h5 pending)" -gt 0 ] || die "many: nothing was left pending"
expect_status 0 "many resumed" mpi2 run many.ini --set model.cost=0.05 --output many.resumed.h5 \
    --resume
check_failures many.resumed.h5 50
say "... and after a merge of two pieces (their reasons carried)"
expect_status 0 "piece 0/2" mpi2 run many.ini --piece 0/2 --output many.p1.h5
expect_status 0 "piece 1/2" mpi2 run many.ini --piece 1/2 --output many.p2.h5
expect_status 0 "merge" "$IMPACTSWEEP" merge many.merged.h5 many.p1.h5 many.p2.h5
check_failures many.merged.h5 50

say "1 and 2 ranks give the same file (the crashing kind)"
expect_status 0 "crash on 1 rank" mpi1 run crash.ini --output crash1.h5
same_results crash1.h5 crash.h5 "boundary-crash on 1 and 2 ranks"

say "models --check names the array written past"
expect_status 2 "oob: models --check" "$IMPACTSWEEP" models --check "$LIBS/libboundary_oob.so"
grep -Eq "wrote past the end of its outputs array" err.txt || die "oob: $(cat err.txt)"

say "a hung point without point_timeout: SIGTERM stops the run within seconds (exit 75)"
job hang
start_mpi2 hung.h5 hang.ini
sleep 2
started=$(date +%s%N)
# shellcheck disable=SC2046 # the ranks, as Slurm signals every task at its time limit
kill -TERM $(pgrep -P "$run_pid")
status=0
wait "$run_pid" || status=$?
took=$((($(date +%s%N) - started) / 1000000))
[ "$status" = 75 ] || die "the hung run stopped with exit status $status: $(tail -3 hung.h5.err)"
[ "$took" -lt 8000 ] || die "the hung run took $took ms to stop"
echo "    stopped in $took ms"
! pgrep -f "__evaluator.*boundary_hang" >/dev/null || die "an evaluator process outlived the run"

say "trace runs a plug-in's code in a process of its own: a crash there is a message, exit 1"
expect_status 1 "trace of a crashing point" "$IMPACTSWEEP" trace "$LIBS/libboundary_crash.so" \
    x=3 y=17 --output crash_trace.h5
grep -q "crashed with signal 11 (Segmentation fault) on this point: no trace written" err.txt ||
    die "trace of a crashing point: $(cat err.txt)"
[ ! -e crash_trace.h5 ] || die "a trace file was written for the crashing point"
expect_status 1 "trace of an exiting point" "$IMPACTSWEEP" trace "$LIBS/libboundary_exit.so" \
    x=3 y=17 --output exit_trace.h5
grep -q "ended the process with exit(0)" err.txt || die "trace of an exiting point: $(cat err.txt)"
expect_status 0 "trace of a good point" "$IMPACTSWEEP" trace "$LIBS/libboundary_crash.so" \
    x=3 y=18 --output good_trace.h5
[ -s good_trace.h5 ] || die "no trace file for a good point"

say "a validate that crashes on a point refuses the sweep there (exit 2), not the engine"
job validate
expect_status 2 "a sweep whose validate crashes" mpi2 run validate.ini --output validate.h5
grep -q "at grid point 0 (x = 0, y = 0): validate crashed on it: the model's code crashed with signal 11" err.txt ||
    die "validate crash: $(grep impactsweep: err.txt | head -3)"
[ ! -e validate.h5 ] || die "a file was made for a job its validate refused"
expect_status 2 "eval of a point whose validate crashes" "$IMPACTSWEEP" eval \
    "$LIBS/libboundary_validate.so" x=3 y=17
grep -q "validate crashed on it" err.txt || die "eval, validate crash: $(cat err.txt)"
expect_status 0 "eval of a point it takes" "$IMPACTSWEEP" eval "$LIBS/libboundary_validate.so" x=3 y=18

say "point_timeout needs the model out of the engine's process"
job clean "containment = none" "point_timeout = 1"
expect_status 2 "containment none with point_timeout" "$IMPACTSWEEP" run clean.ini --output x.h5
grep -q "point_timeout = 1 needs the model in an evaluator process" err.txt || die "$(cat err.txt)"
