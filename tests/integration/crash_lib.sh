# shellcheck shell=bash
# crash_lib.sh: the machinery of test_crash.sh (sourced by it after lib.sh): running a
# command under the crashpoint shim (tests/tools/crashpoint.c), a pool of background
# crash points, the per-point checks of a result file, and the verdicts.
#
#   shim DIR MATCH AT MODE CMD...  runs CMD in DIR under the shim (counter DIR/counter,
#                                  log DIR/events, stdout/stderr DIR/crash.out, .err);
#                                  AT 0 counts only; prints CMD's exit status
#   event_count DIR                the number of events of the last shim run in DIR
#   event_line DIR N               event N's line of DIR/events, the directory left out
#   event_summary DIR              how many events of each kind and file, and the events
#                                  in order as runs of the same kind and file
#   pool CMD...                    CMD in the background, at most $CRASH_PARALLEL at once
#   pool_wait                      waits for the whole pool
#   A crash point's worker (in the background, in its own directory) records with
#   cp_begin DIR, cp_note KEY VALUE, cp_fail REASON (a safety check failed), cp_broken
#   REASON (the crash did not happen as planned) and cp_end its verdict in DIR/verdict
#   ("ok" or "FAIL") and DIR/details (key: value lines, "reason: ...", "broken: ...");
#   tally NAME DIR... prints "NAME: K of N crash points recovered" and every failure.

CRASH_PARALLEL=${CRASH_PARALLEL:-2}

shim() {
    local dir=$1 match=$2 at=$3 mode=$4 st=0
    shift 4
    head -c 8 /dev/zero >"$dir/counter"
    rm -f "$dir/events"
    # the extra braces keep bash's "Killed" notice off the test's output
    { (cd "$dir" && CRASHPOINT_MATCH="$match" CRASHPOINT_COUNTER="$dir/counter" \
        CRASHPOINT_AT="$at" CRASHPOINT_MODE="$mode" CRASHPOINT_LOG="$dir/events" \
        LD_PRELOAD="$CRASHPOINT_LIB" exec "$@" >"$dir/crash.out" 2>"$dir/crash.err") ||
        st=$?; } 2>/dev/null
    echo "$st"
}

event_count() { od -An -tu8 -N8 "$1/counter" | tr -d ' '; }

event_line() {
    local dir=$1 n=$2
    awk -v n="$n" '$1 == n' "$dir/events" | sed "s#$dir/##g"
}

event_summary() {
    local dir=$1
    sed "s#$dir/##g" "$dir/events" | sort -n | awk '{ print $3, $4 }' | sort | uniq -c |
        sed 's/^ */      /'
    echo "    in order:"
    sed "s#$dir/##g" "$dir/events" | sort -n | awk '
        { key = $3 " " $4 }
        key != last { if (NR > 1) flush(); first = $1; last = key; n = 0 }
        { n++; end = $1 }
        END { flush() }
        function flush() {
            printf "      %s: %s%s\n", (first == end ? first : first "-" end), last,
                   (n > 1 ? " (" n ")" : "")
        }'
}

pool() {
    while [ "$(jobs -rp | wc -l)" -ge "$CRASH_PARALLEL" ]; do
        wait -n || true
    done
    "$@" &
}

pool_wait() { wait || true; }

# --- a crash point's verdict (in its worker) ---------------------------------------------
cp_begin() {
    cp_dir=$1
    rm -rf "$cp_dir"
    mkdir -p "$cp_dir"
    : >"$cp_dir/details"
    cp_failed=0
}
cp_note() { echo "$1: $2" >>"$cp_dir/details"; }
cp_fail() {
    echo "reason: $*" >>"$cp_dir/details"
    cp_failed=1
}
# the crash itself did not happen as planned (not a finding about the program's safety)
cp_broken() {
    echo "broken: $*" >>"$cp_dir/details"
    cp_failed=1
}
cp_end() {
    if [ "$cp_failed" -eq 0 ]; then echo ok; else echo FAIL; fi >"$cp_dir/verdict"
}
cp_get() { sed -n "s/^$2: //p" "$1/details" | head -n 1; }

# tally NAME DIR...: counts the verdicts; prints each failure with its details. Adds the
# failures to $WORK/failures and the count to $WORK/counts.
tally() {
    local name=$1 dir ok=0 all=0
    shift
    for dir in "$@"; do
        all=$((all + 1))
        if [ "$(cat "$dir/verdict" 2>/dev/null)" = ok ]; then
            ok=$((ok + 1))
        else
            [ -f "$dir/verdict" ] || echo "reason: the worker ended without a verdict" >>"$dir/details"
            {
                if grep -q '^broken:' "$dir/details"; then
                    echo "  FAILED crash point, the crash did not happen as planned ($name, $(basename "$dir")):"
                else
                    echo "  UNSAFE crash point ($name, $(basename "$dir")):"
                fi
                sed 's/^/      /' "$dir/details"
            } | tee -a "$WORK/failures"
        fi
    done
    echo "=== $name: $ok of $all crash points recovered"
    echo "$name: $ok of $all" >>"$WORK/counts"
}

# --- checks of a result file -------------------------------------------------------------

# check_result REF FILE WHAT: FILE equals REF, info works, its state is complete, its log
# starts with a "created" line, ends with a "complete" line and has one "created" line.
# Notes the log; failures through cp_fail.
check_result() {
    local ref=$1 file=$2 what=$3 first last created
    if ! "$H5COMPARE" "$ref" "$file" >"$cp_dir/compare.txt" 2>&1; then
        cp_fail "$what: differs from the uninterrupted reference: $(head -n 5 "$cp_dir/compare.txt" | tr '\n' ';')"
    fi
    if ! "$IMPACTSWEEP_TEST" info "$file" >"$cp_dir/info.txt" 2>&1; then
        cp_fail "$what: info fails: $(tail -n 2 "$cp_dir/info.txt" | tr '\n' ' ')"
        return
    fi
    grep -q "state complete" "$cp_dir/info.txt" ||
        cp_fail "$what: state is not complete: $(grep times: "$cp_dir/info.txt")"
    # every checksum holds: the fixed bytes were never touched, each point's status and
    # checksum became valid together whatever the crash interrupted or tore
    "$IMPACTSWEEP_TEST" info "$file" --verify >"$cp_dir/verify.txt" 2>&1 ||
        cp_fail "$what: info --verify fails: $(tail -n 1 "$cp_dir/verify.txt")"
    if ! "$IMPACTSWEEP_TEST" info "$file" --log >"$cp_dir/log.txt" 2>&1; then
        cp_fail "$what: info --log fails: $(tail -n 2 "$cp_dir/log.txt" | tr '\n' ' ')"
        return
    fi
    sed -n '/^log:$/,$p' "$cp_dir/log.txt" | sed 1d >"$cp_dir/loglines.txt"
    first=$(head -n 1 "$cp_dir/loglines.txt")
    last=$(tail -n 1 "$cp_dir/loglines.txt")
    created=$(grep -c " created by " "$cp_dir/loglines.txt" || true)
    cp_note "log" "$(awk '{ print $2 }' "$cp_dir/loglines.txt" | tr -d ':' | tr '\n' ' ')"
    cp_note "created_lines" "$created"
    [[ $first == *" created by "* || $first == *" merged from "* ]] ||
        cp_fail "$what: the log does not start with a created line: '$first'"
    [[ $last == *" complete:"* || $last == *" merged: "* ]] ||
        cp_fail "$what: the log does not end with a complete line: '$last'"
    [ "$created" -le 1 ] || cp_fail "$what: the log has $created 'created' lines"
}

# leftovers DIR NAME: fails for any sibling of NAME (NAME.partial, NAME.lock, NAME.lock.N)
# or any file lock (.impactsweep-lock.INODE)
leftovers() {
    local dir=$1 name=$2 left
    left=$(cd "$dir" && find . -maxdepth 1 \( -name "$name.*" -o -name '.impactsweep-lock.*' \) -printf '%f ' | sort)
    [ -z "$left" ] || cp_fail "left behind after the recovery: $left"
}

# state_of DIR FILE: "state S, P pending" of a result file (or "does not open: ...")
state_of() {
    local dir=$1 file=$2 line
    if "$IMPACTSWEEP_TEST" info "$dir/$file" >"$dir/before.txt" 2>&1; then
        line=$(grep '^times:' "$dir/before.txt" | sed 's/.*state //')
        echo "state $line, $(grep '^points:' "$dir/before.txt" | sed -E 's/.* ([0-9]+) pending.*/\1/') pending"
    else
        echo "does not open: $(tail -n 1 "$dir/before.txt")"
    fi
}
