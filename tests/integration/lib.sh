# shellcheck shell=bash disable=SC2086 # $MPIEXEC_FLAGS is split into words on purpose
# lib.sh: helpers shared by the integration tests; each test sources it first:
#   source "$TESTS/integration/lib.sh"
# It checks the environment ctest provides, moves into a fresh temporary directory that
# is removed on exit (after stopping any background run the test started) and defines:
#   say TEXT                    print what is being checked
#   die TEXT                    fail the test loudly
#   run_status CMD...           run CMD, stdout to out.txt, stderr to err.txt; prints the
#                               exit status (never fails itself)
#   expect_status N WHAT CMD... run CMD and fail unless it exits N
#   mpi2 ARGS...                impactsweep ARGS under mpiexec with 2 ranks
#   mpi1 ARGS...                impactsweep ARGS under mpiexec with 1 rank
#   same_results A B WHAT       fail unless h5compare finds A and B equal
#   points FILE KIND            done / failed / pending / total count of FILE (from info)
#   start_mpi2 OUT ARGS...      start `impactsweep run ARGS --output OUT` on 2 ranks in
#                               the background (log in OUT.out / OUT.err); sets run_pid
#                               to mpiexec's pid
#   wait_for_done FILE N PID    wait until FILE has >= N points done (fails if PID ends)
#   interrupt PID OUT           SIGUSR1 to mpiexec PID (started by start_mpi2 OUT ...);
#                               fails unless it exits 75
#   sha FILE                    the sha256 of FILE
#   interruptible_samples       a model.samples value for which jobs/sweep.ini runs for
#                               about 4 s on 2 ranks (measured, so that the interrupt
#                               tests keep working when the model gets faster or slower)
set -euo pipefail

for var in IMPACTSWEEP H5COMPARE MPIEXEC JOBS TESTS PYTHON; do
    if [ -z "${!var:-}" ]; then
        echo "FAIL: environment variable $var is not set (run the test through ctest)" >&2
        exit 1
    fi
done
MPIEXEC_FLAGS=${MPIEXEC_FLAGS:-}
INTEGRATION_JOBS="$TESTS/integration/jobs"
TEST_NAME=$(basename "$0" .sh)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/impactsweep-$TEST_NAME-XXXXXX")

cleanup() {
    local status=$?
    # a background run still going (the test failed): mpiexec and its ranks
    local pid kids
    for pid in $(jobs -p); do
        kids=$(pgrep -P "$pid" | tr '\n' ' ' || true)
        kill -9 "$pid" $kids 2>/dev/null || true
    done
    cd /
    rm -rf "$WORK"
    if [ "$status" -eq 0 ]; then
        echo "PASS: $TEST_NAME"
    else
        echo "FAIL: $TEST_NAME (exit status $status)" >&2
    fi
}
trap cleanup EXIT
cd "$WORK"

say() { echo "--- $*"; }

die() {
    echo "FAIL: $*" >&2
    for f in out.txt err.txt; do
        if [ -s "$f" ]; then
            echo "  last $f:" >&2
            tail -n 15 "$f" | sed 's/^/    /' >&2
        fi
    done
    exit 1
}

run_status() {
    local status=0
    "$@" >out.txt 2>err.txt || status=$?
    echo "$status"
}

expect_status() {
    local want=$1 what=$2
    shift 2
    local got
    got=$(run_status "$@")
    [ "$got" -eq "$want" ] || die "$what: expected exit status $want, got $got (command: $*)"
}

mpi2() { $MPIEXEC $MPIEXEC_FLAGS -n 2 "$IMPACTSWEEP" "$@"; }
mpi1() { $MPIEXEC $MPIEXEC_FLAGS -n 1 "$IMPACTSWEEP" "$@"; }

same_results() {
    local a=$1 b=$2 what=$3
    if ! "$H5COMPARE" "$a" "$b" 2>compare.txt; then
        sed 's/^/    /' compare.txt >&2
        die "$what: $a and $b do not hold the same results"
    fi
}

# `impactsweep info` says "points:  400 total, 10 done, 0 failed, 390 pending".
points() {
    local file=$1 kind=$2 line
    line=$("$IMPACTSWEEP" info "$file" 2>/dev/null | grep '^points:') || return 1
    echo "$line" | sed -E "s/.* ([0-9]+) $kind.*/\\1/"
}

start_mpi2() {
    local out=$1
    shift
    # a simple command in the background, so that $! is mpiexec itself
    $MPIEXEC $MPIEXEC_FLAGS -n 2 "$IMPACTSWEEP" run "$@" --output "$out" --progress lines \
        >"$out.out" 2>"$out.err" &
    # shellcheck disable=SC2034 # for the caller
    run_pid=$!
}

interrupt() {
    local pid=$1 out=$2 status=0
    kill -USR1 "$pid"
    wait "$pid" || status=$?
    if [ "$status" -ne 75 ]; then
        tail -n 15 "$out.err" | sed 's/^/    /' >&2
        die "run writing $out, stopped by SIGUSR1: expected exit status 75, got $status"
    fi
}

# kill_run PID [LABEL]: kill -9 of mpiexec PID and every rank under it, mid-run, and wait
# until none is left (LABEL prefixes the messages).
kill_run() {
    local pid=$1 label=${2:-} ranks alive
    ranks=$(pgrep -P "$pid" || true)
    [ -n "$ranks" ] || die "${label}found no rank processes under mpiexec (pid $pid)"
    # shellcheck disable=SC2086
    kill -9 "$pid" $ranks
    wait "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do
        alive=""
        for rank in $ranks; do kill -0 "$rank" 2>/dev/null && alive="$alive $rank"; done
        [ -z "$alive" ] && break
        sleep 0.1
    done
    [ -z "$alive" ] || die "${label}ranks$alive survived kill -9"
}

wait_for_done() {
    local file=$1 want=$2 pid=$3 n
    for _ in $(seq 1 600); do
        if ! kill -0 "$pid" 2>/dev/null; then
            [ -f "$file.err" ] && tail -n 15 "$file.err" | sed 's/^/    /' >&2
            die "the run ended before $want points of $file were done"
        fi
        if [ -f "$file" ] && n=$(points "$file" "done") && [ "$n" -ge "$want" ]; then
            return 0
        fi
        sleep 0.1
    done
    die "$file did not reach $want points done within 60 s"
}

sha() { sha256sum "$1" | cut -d' ' -f1; }

interruptible_samples() {
    local t0 t1 ms samples
    t0=$(date +%s%N)
    "$IMPACTSWEEP" run "$INTEGRATION_JOBS/sweep.ini" --set model.samples=5000 \
        --output "$WORK/calibrate.h5" >/dev/null 2>&1 || die "the calibration run failed"
    t1=$(date +%s%N)
    rm -f "$WORK/calibrate.h5"
    ms=$(((t1 - t0) / 1000000 - 300)) # less the start-up time
    [ "$ms" -ge 50 ] || ms=50
    samples=$((5000 * 8000 / ms)) # 8 s on 1 rank, about 4 s on 2
    [ "$samples" -ge 20000 ] || samples=20000
    [ "$samples" -le 5000000 ] || samples=5000000
    echo "$samples"
}
