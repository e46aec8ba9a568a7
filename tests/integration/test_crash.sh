# test_crash.sh: crash safety of the result-file layer, exhaustively (src/core/store/results.h,
# lock.h, merge.h, run.c), with the crashpoint shim (tests/tools/crashpoint.c,
# $CRASHPOINT_LIB): a count-only run learns the number E of file events (writes,
# truncates, renames, links, unlinks, creations) on OUTPUT, OUTPUT.partial and
# OUTPUT.lock; then for every N in 1..E the same command is SIGKILLed before event N
# (exit 137, event N logged as killed), recovered, and compared with an uninterrupted
# reference. Single-process runs (Open MPI singleton mode) on $IMPACTSWEEP_TEST.
#  1. fresh run (`run JOB --output out.h5`, synthetic 6 x 5 grid with failures, units of
#     4 points) killed at each N; if out.h5 exists it must open (info); the recovery
#     `run --resume` must exit 0, compute exactly the points the crashed file had
#     pending, and leave a file equal to the reference (h5compare, with /run/tally and
#     /run/state and /run/check), state complete, `info --verify` passing (every
#     checksum valid), whose log starts with "created", ends with "complete" and has one
#     "created" line; nothing but out.h5 may remain (no out.h5.partial, out.h5.lock,
#     out.h5.lock.N, .impactsweep-lock.INODE). Also for the chatter job.
#  2. resume: a file left by a fresh run killed in the middle of its data writes (with
#     its stale lock); `run --resume` killed at each N of the resume's own events;
#     recovery and checks as in 1.
#  3. finish: the last 5 events of a fresh run (final log line, tally, state, close,
#     lock removal): the recovered file is complete with exactly one "created" line.
#  4. merge: `merge m.h5 p0.h5 p1.h5 p2.h5` (pieces I/3) killed at each N: the inputs
#     stay byte-identical, a second merge succeeds and equals the whole-grid run; and
#     `merge --overwrite` onto an existing (different) m.h5 killed at each N: m.h5 is
#     then either the old file byte for byte or the complete new one, and a second
#     `merge --overwrite` gives the whole-grid run.
#  5. torn writes: scenario 1 again with CRASHPOINT_MODE=torn (event N, if a write,
#     writes half its bytes before the kill).
# Every crash point is checked fully (two at a time in the background, each in its own
# directory with its own counter); the failures are listed with their event (number,
# kind, path, bytes, offset from the shim's log), the files the crash left and what the
# recovery did, and the test fails at the end if there was any ("UNSAFE": a check of the
# file or of its recovery failed; "the crash did not happen as planned": the command
# was not killed at event N). The binaries are copied first, so that a rebuild during
# the test (~5 minutes) cannot disturb it.
# CRASH_PARALLEL (default 2) sets how many crash points run at once.
# shellcheck source=lib.sh
source "$TESTS/integration/lib.sh"
# shellcheck source=crash_lib.sh
source "$TESTS/integration/crash_lib.sh"

[ -n "${IMPACTSWEEP_TEST:-}" ] || die "environment variable IMPACTSWEEP_TEST is not set (run through ctest)"
if [ -z "${CRASHPOINT_LIB:-}" ] || [ ! -f "$CRASHPOINT_LIB" ]; then
    die "environment variable CRASHPOINT_LIB does not name the crashpoint shim (run through ctest)"
fi
WORK=$(pwd -P) # the shim compares absolute paths; resolve any symlink in TMPDIR
cd "$WORK"
# Snapshots of the binaries, so that a rebuild while the test runs cannot disturb it.
mkdir "$WORK/bin"
cp "$IMPACTSWEEP_TEST" "$WORK/bin/impactsweep-test"
cp "$H5COMPARE" "$WORK/bin/h5compare"
cp "$CRASHPOINT_LIB" "$WORK/bin/libcrashpoint.so"
IMPACTSWEEP_TEST=$WORK/bin/impactsweep-test
IMPACTSWEEP=$IMPACTSWEEP_TEST
H5COMPARE=$WORK/bin/h5compare
CRASHPOINT_LIB=$WORK/bin/libcrashpoint.so
T0=$(date +%s)
: >"$WORK/failures"
: >"$WORK/counts"

cat >"$WORK/syn.ini" <<'EOF'
; 6 x 5 points, the 10 with x < 0.25 fail
[sweep]
model = synthetic
output = syn.h5

[model]
fail_below = 0.25

[axis.x]
from = 0
to = 1
count = 6

[axis.y]
from = -1
to = 1
count = 5
EOF
SYN=("$WORK/syn.ini" --set sweep.unit_size=4)
SYN_TOTAL=30
CHATTER=("$INTEGRATION_JOBS/sweep.ini" --set axis.rho.count=4 --set axis.gamma.count=3
    --set model.samples=20 --set sweep.unit_size=3)
CHATTER_TOTAL=12

elapsed() { echo "$(($(date +%s) - T0)) s"; }

# reference JOBARRAY-NAME FILE: an uninterrupted run, no shim
reference() {
    local -n job=$1
    expect_status 0 "reference run $2" "$IMPACTSWEEP_TEST" run "${job[@]}" --output "$2"
    "$IMPACTSWEEP_TEST" info "$2" | grep "state complete" >/dev/null || die "$2 is not complete"
}

# count_only DIR MATCHNAME CMD...: runs CMD in DIR under the shim without killing, prints
# the event summary; sets E.
count_only() {
    local dir=$1 name=$2 st
    shift 2
    mkdir -p "$dir"
    st=$(shim "$dir" "$dir/$name" 0 before "$@")
    [ "$st" -eq 0 ] || [ "$st" -eq "${COUNT_STATUS:-0}" ] ||
        die "the count-only run in $dir exited $st: $(tail -n 3 "$dir/crash.err")"
    E=$(event_count "$dir")
    [ "$E" -eq "$(wc -l <"$dir/events")" ] || die "the counter ($E) and the log disagree in $dir"
    [ "$E" -gt 0 ] || die "no events seen in $dir: is the shim working?"
    echo "    $E events:"
    event_summary "$dir"
}

# expected_tag MODE EVENTLINE: " torn" for a data write in torn mode, else " killed"
expected_tag() {
    local kind
    kind=$(echo "$2" | awk '{ print $3 }')
    if [ "$1" = torn ] && [[ $kind == write || $kind == pwrite || $kind == writev || $kind == pwritev ]]; then
        echo torn
    else
        echo killed
    fi
}

# --- the worker of scenarios 1, 2, 3, 5 ---------------------------------------------------
# run_point DIR N MODE START REF TOTAL JOBARRAY-NAME: `run` (fresh; --resume of the files
# of directory START if given) killed before event N, then recovered with --resume.
run_point() {
    set +e
    local d=$1 n=$2 mode=$3 start=$4 ref=$5 total=$6 st ev tag files state pending computed
    local -n job=$7
    local resume=()
    cp_begin "$d"
    if [ -n "$start" ]; then
        cp -p "$start"/out.h5* "$d"/
        resume=(--resume)
    fi
    st=$(shim "$d" "$d/out.h5" "$n" "$mode" "$IMPACTSWEEP_TEST" run "${job[@]}" --output out.h5 \
        "${resume[@]}")
    ev=$(event_line "$d" "$n")
    cp_note event "$ev"
    [ "$st" -eq 137 ] ||
        cp_broken "the run under the shim exited $st, not 137 (SIGKILL): $(tail -n 1 "$d/crash.err")"
    tag=$(expected_tag "$mode" "$ev")
    [[ $ev == *" $tag" ]] || cp_broken "event $n is not logged as $tag: '$ev'"
    files=$(cd "$d" && find . -maxdepth 1 -name 'out.h5*' -printf '%f ' | sort)
    cp_note files_after_crash "$files"
    pending=$total
    if [ -e "$d/out.h5" ]; then
        state=$(state_of "$d" out.h5)
        cp_note crashed_file "$state"
        if [[ $state == state* ]]; then
            pending=$(echo "$state" | sed -E 's/.*, ([0-9]+) pending/\1/')
        else
            cp_fail "the crashed file does not open: $state"
            pending=
        fi
    fi
    (cd "$d" && exec "$IMPACTSWEEP_TEST" run "${job[@]}" --output out.h5 --resume \
        >"$d/recovery.out" 2>"$d/recovery.err")
    st=$?
    computed=$(sed -n 's/.*this run computed \([0-9]*\) .*/\1/p' "$d/recovery.err")
    cp_note recovery "exit $st, computed ${computed:-?} points$(grep -q '(resume)' "$d/recovery.err" && echo ' (resumed)')"
    if [ "$st" -ne 0 ]; then
        cp_fail "the recovery (run --resume) exited $st: $(grep -v '^impactsweep: [0-9]*/' "$d/recovery.err" | tail -n 2 | tr '\n' ' ')"
    else
        [ -z "$pending" ] || [ "$computed" = "$pending" ] ||
            cp_fail "the recovery computed ${computed:-?} points, the crashed file had $pending pending"
        check_result "$ref" "$d/out.h5" "after the recovery"
        [ "$(cp_get "$d" created_lines)" = 1 ] ||
            cp_fail "the recovered log has $(cp_get "$d" created_lines) 'created' lines, not 1"
    fi
    leftovers "$d" out.h5
    cp_end
    # keep the disk use small: the directory of a good point is not needed
    [ "$cp_failed" -eq 1 ] || rm -f "$d"/*.h5 "$d"/out.h5.*
}

# run_scenario NAME BASE MODE START REF TOTAL JOBARRAY-NAME: every N of 1..E
run_scenario() {
    local name=$1 base=$2 mode=$3 start=$4 ref=$5 total=$6 jobname=$7 n dirs=()
    for n in $(seq 1 "$E"); do
        dirs+=("$base/$n")
        pool run_point "$base/$n" "$n" "$mode" "$start" "$ref" "$total" "$jobname"
    done
    pool_wait
    tally "$name" "${dirs[@]}"
}

# --- scenario 1: fresh runs -----------------------------------------------------------------
say "references: uninterrupted runs of the synthetic and the chatter job"
reference SYN "$WORK/syn_ref.h5"
reference CHATTER "$WORK/chatter_ref.h5"

say "1. fresh run (synthetic, $SYN_TOTAL points, units of 4): count-only run"
count_only "$WORK/s1count" out.h5 "$IMPACTSWEEP_TEST" run "${SYN[@]}" --output out.h5
E1=$E
cp "$WORK/s1count/events" "$WORK/s1.events"
say "1. fresh run killed before each of its $E1 events, recovered with --resume"
run_scenario "1 fresh run (synthetic)" "$WORK/s1" before "" "$WORK/syn_ref.h5" "$SYN_TOTAL" SYN
say "1. done ($(elapsed))"

say "1. fresh run of the chatter job (4 x 3 points, units of 3): count-only run"
count_only "$WORK/c1count" out.h5 "$IMPACTSWEEP_TEST" run "${CHATTER[@]}" --output out.h5
say "1. chatter fresh run killed before each of its $E events"
run_scenario "1 fresh run (chatter)" "$WORK/c1" before "" "$WORK/chatter_ref.h5" \
    "$CHATTER_TOTAL" CHATTER
say "1. chatter done ($(elapsed))"

# --- scenario 3: the end of a run (from scenario 1's crash points) ----------------------------
say "3. finish: the last 5 events of a fresh run"
finish_dirs=()
for n in $(seq $((E1 > 5 ? E1 - 4 : 1)) "$E1"); do
    d="$WORK/s1/$n"
    finish_dirs+=("$d")
    echo "    event $(cp_get "$d" event)"
    echo "      crashed file: $(cp_get "$d" crashed_file); recovery: $(cp_get "$d" recovery);" \
        "log: $(cp_get "$d" log)"
    if [ "$(cp_get "$d" created_lines)" != 1 ]; then
        cp_dir=$d
        cp_fail "finish: the log has $(cp_get "$d" created_lines) 'created' lines, not 1"
        echo FAIL >"$d/verdict"
    fi
done
tally "3 finish (last 5 events of a fresh run)" "${finish_dirs[@]}"

# --- scenario 2: resuming an interrupted file -------------------------------------------------
# the start: a fresh run killed at the middle one of its writes to out.h5 itself
mid=$(sed "s#$WORK/s1count/##g" "$WORK/s1.events" | awk '$3 ~ /write/ && $4 == "out.h5" { print $1 }' |
    sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
[ -n "$mid" ] || die "no writes to out.h5 in the count-only run"
say "2. resume: the start file is a fresh run killed before event $mid ($(event_line "$WORK/s1count" "$mid"))"
mkdir -p "$WORK/s2start"
st=$(shim "$WORK/s2start" "$WORK/s2start/out.h5" "$mid" before "$IMPACTSWEEP_TEST" run "${SYN[@]}" \
    --output out.h5)
[ "$st" -eq 137 ] || die "the run making the start file exited $st, not 137"
rm -f "$WORK/s2start/counter" "$WORK/s2start/events" "$WORK/s2start"/crash.*
start_state=$(state_of "$WORK/s2start" out.h5)
rm -f "$WORK/s2start/before.txt"
echo "    start: $(cd "$WORK/s2start" && find . -maxdepth 1 -type f -printf '%f ' | sort)-- $start_state"
[[ $start_state == *"state running"* ]] || die "the start file is not a killed run: $start_state"
start_pending=$(echo "$start_state" | sed -E 's/.*, ([0-9]+) pending/\1/')
if [ "$start_pending" -eq 0 ] || [ "$start_pending" -ge "$SYN_TOTAL" ]; then
    die "the start file should hold some points and miss some: $start_state"
fi
mkdir -p "$WORK/s2count"
cp -p "$WORK/s2start"/out.h5* "$WORK/s2count/"
say "2. count-only resume"
count_only "$WORK/s2count" out.h5 "$IMPACTSWEEP_TEST" run "${SYN[@]}" --output out.h5 --resume
say "2. resume killed before each of its $E events, recovered with another --resume"
run_scenario "2 resume (synthetic)" "$WORK/s2" before "$WORK/s2start" "$WORK/syn_ref.h5" \
    "$SYN_TOTAL" SYN
say "2. done ($(elapsed))"

# --- scenario 4: merge ------------------------------------------------------------------------
say "4. merge: pieces 0/3, 1/3, 2/3 and the whole-grid reference"
mkdir -p "$WORK/pieces"
for i in 0 1 2; do
    st=$(run_status "$IMPACTSWEEP_TEST" run "${SYN[@]}" --piece "$i/3" --output "$WORK/pieces/p$i.h5")
    [ "$st" -eq 0 ] || die "piece $i/3 exited $st"
done
(cd "$WORK/pieces" && sha256sum p0.h5 p1.h5 p2.h5 >sums)
# the old output for --overwrite: pieces 0 and 1 only (10 points pending; exit 1)
st=$(run_status "$IMPACTSWEEP_TEST" merge "$WORK/pieces/old.h5" "$WORK/pieces/p0.h5" "$WORK/pieces/p1.h5")
[ "$st" -eq 1 ] || die "the merge of two pieces exited $st, not 1 (points pending)"
old_sha=$(sha "$WORK/pieces/old.h5")

# merge_point DIR N OVERWRITE(0|1)
merge_point() {
    set +e
    local d=$1 n=$2 overwrite=$3 st ev files after=""
    local flags=()
    cp_begin "$d"
    cp -p "$WORK/pieces"/p?.h5 "$d"/
    if [ "$overwrite" -eq 1 ]; then
        cp -p "$WORK/pieces/old.h5" "$d/m.h5"
        flags=(--overwrite)
    fi
    st=$(shim "$d" "$d/m.h5" "$n" before "$IMPACTSWEEP_TEST" merge m.h5 p0.h5 p1.h5 p2.h5 "${flags[@]}")
    ev=$(event_line "$d" "$n")
    cp_note event "$ev"
    [ "$st" -eq 137 ] ||
        cp_broken "the merge under the shim exited $st, not 137 (SIGKILL): $(tail -n 1 "$d/crash.err")"
    [[ $ev == *" killed" ]] || cp_broken "event $n is not logged as killed: '$ev'"
    files=$(cd "$d" && find . -maxdepth 1 -name 'm.h5*' -printf '%f ' | sort)
    cp_note files_after_crash "$files"
    (cd "$d" && sha256sum --quiet -c "$WORK/pieces/sums" >/dev/null 2>&1) ||
        cp_fail "an input changed in the crash: $(cd "$d" && sha256sum -c "$WORK/pieces/sums" 2>&1 | grep -v ': OK' | tr '\n' ' ')"
    if [ -e "$d/m.h5" ]; then
        if [ "$overwrite" -eq 1 ] && [ "$(sha "$d/m.h5")" = "$old_sha" ]; then
            after="the old file, byte-identical"
        elif "$H5COMPARE" "$WORK/syn_ref.h5" "$d/m.h5" >/dev/null 2>&1 &&
            [[ $(state_of "$d" m.h5) == "state complete, 0 pending" ]]; then
            after="the complete new file"
        else
            after="neither the old file nor the complete new one: $(state_of "$d" m.h5)"
            cp_fail "after the crash m.h5 is $after"
        fi
    else
        after="absent"
        [ "$overwrite" -eq 0 ] || cp_fail "after the crash the old m.h5 is gone"
    fi
    cp_note m.h5_after_crash "$after"
    (cd "$d" && exec "$IMPACTSWEEP_TEST" merge m.h5 p0.h5 p1.h5 p2.h5 "${flags[@]}" \
        >"$d/recovery.out" 2>"$d/recovery.err")
    st=$?
    cp_note recovery "merge ${flags[*]} exit $st"
    if [ "$st" -ne 0 ]; then
        cp_fail "the second merge${flags:+ ${flags[*]}} exited $st: $(tail -n 2 "$d/recovery.err" | tr '\n' ' ')"
        if [ "$overwrite" -eq 0 ] && [ -e "$d/m.h5" ]; then
            # what it takes instead: --overwrite (reported, the point stays failed)
            (cd "$d" && exec "$IMPACTSWEEP_TEST" merge m.h5 p0.h5 p1.h5 p2.h5 --overwrite \
                >"$d/recovery2.out" 2>"$d/recovery2.err")
            st=$?
            cp_note with_overwrite "merge --overwrite exit $st"
            [ "$st" -ne 0 ] || check_result "$WORK/syn_ref.h5" "$d/m.h5" "after merge --overwrite"
        fi
    else
        check_result "$WORK/syn_ref.h5" "$d/m.h5" "after the second merge"
    fi
    (cd "$d" && sha256sum --quiet -c "$WORK/pieces/sums" >/dev/null 2>&1) ||
        cp_fail "an input changed in the recovery"
    leftovers "$d" m.h5
    cp_end
    [ "$cp_failed" -eq 1 ] || rm -f "$d"/*.h5 "$d"/m.h5.*
}

say "4. merge into a new m.h5: count-only run"
mkdir -p "$WORK/m1count"
cp -p "$WORK/pieces"/p?.h5 "$WORK/m1count/"
count_only "$WORK/m1count" m.h5 "$IMPACTSWEEP_TEST" merge m.h5 p0.h5 p1.h5 p2.h5
"$H5COMPARE" "$WORK/syn_ref.h5" "$WORK/m1count/m.h5" || die "the merged pieces differ from the whole-grid run"
say "4. merge killed before each of its $E events, then merged again"
dirs=()
for n in $(seq 1 "$E"); do
    dirs+=("$WORK/m1/$n")
    pool merge_point "$WORK/m1/$n" "$n" 0
done
pool_wait
tally "4 merge (new output)" "${dirs[@]}"

say "4. merge --overwrite onto an existing m.h5 (pieces 0 and 1 only): count-only run"
mkdir -p "$WORK/m2count"
cp -p "$WORK/pieces"/p?.h5 "$WORK/m2count/"
cp -p "$WORK/pieces/old.h5" "$WORK/m2count/m.h5"
count_only "$WORK/m2count" m.h5 "$IMPACTSWEEP_TEST" merge m.h5 p0.h5 p1.h5 p2.h5 --overwrite
say "4. merge --overwrite killed before each of its $E events, then merged again"
dirs=()
for n in $(seq 1 "$E"); do
    dirs+=("$WORK/m2/$n")
    pool merge_point "$WORK/m2/$n" "$n" 1
done
pool_wait
tally "4 merge --overwrite" "${dirs[@]}"
say "4. done ($(elapsed))"

# --- scenario 5: torn writes --------------------------------------------------------------------
say "5. torn writes: scenario 1 with CRASHPOINT_MODE=torn ($E1 crash points)"
E=$E1
run_scenario "5 torn writes (synthetic fresh run)" "$WORK/s5" torn "" "$WORK/syn_ref.h5" \
    "$SYN_TOTAL" SYN
say "5. done ($(elapsed))"

# --- the verdict --------------------------------------------------------------------------------
say "summary (total $(elapsed)):"
sed 's/^/    /' "$WORK/counts"
if [ -s "$WORK/failures" ]; then
    echo "FAIL: crash points that failed (event: number, pid, kind, path, bytes, offset):" >&2
    sed 's/^/  /' "$WORK/failures" >&2
    exit 1
fi
