# lib.sh: helpers of the Slurm tests (sourced). They need a running Slurm cluster
# (slurm/local-cluster.sh start, as .ci/run does) and skip (exit 77) without one.
set -euo pipefail
: "${IMPACTSWEEP:?}" "${H5COMPARE:?}" "${SLURM_SUBMIT:?}"
# Without a configuration there is nothing to ask (sinfo would wait for a controller that
# is not there); with one, a live controller answers in milliseconds.
slurm_conf=${SLURM_CONF:-/etc/slurm/slurm.conf}
if ! command -v sbatch >/dev/null 2>&1 || [ ! -r "$slurm_conf" ] ||
    ! timeout 5 sinfo -h >/dev/null 2>&1; then
    echo "SKIP: no Slurm cluster reachable (start one with slurm/local-cluster.sh start)"
    exit 77
fi
# Debian's Open MPI starts under srun by PMIx (a site sets MpiDefault, or this)
export SLURM_MPI_TYPE=${SLURM_MPI_TYPE:-pmix}
WORK=$(mktemp -d)
cleanup() { scancel --quiet --name=impactsweep-test 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
cd "$WORK"
say() { echo "== $*"; }
die() { echo "FAIL: $*" >&2; for f in "$WORK"/slurm-*.out; do [ -e "$f" ] && { echo "--- $f" >&2; tail -20 "$f" >&2; }; done; exit 1; }

# the cluster: its nodes that respond (names, one a line), and the test's needs
nodes_up() { sinfo -h -N -o '%N %t' 2>/dev/null | awk '$2 !~ /[*]$/ && $2 !~ /^(down|drain|fail)/ { print $1 }' | sort -u; }
need_nodes() { # need_nodes N: skip (77) with fewer responding nodes
    local have
    have=$(nodes_up | wc -l)
    [ "$have" -ge "$1" ] || { echo "SKIP: needs $1 nodes, the cluster has $have"; exit 77; }
}
need_local_cluster() { # skip unless scripts/slurm-tests.sh made the cluster (nodes to kill)
    [ -n "${IMPACTSWEEP_LOCAL_CLUSTER:-}" ] ||
        { echo "SKIP: needs the cluster of slurm/local-cluster.sh (scripts/slurm-tests.sh)"; exit 77; }
}
# node_state NODE: its state as scontrol gives it (IDLE, MIXED+NOT_RESPONDING,
# DOWN+NOT_RESPONDING, ...)
node_state() { scontrol show node -o "$1" 2>/dev/null | tr ' ' '\n' | sed -n 's/^State=//p'; }
# submitted_id OUTPUT: the id in submit's "submitted job ID" line
submitted_id() { echo "$1" | sed -n 's/^submitted job \([0-9][0-9]*\).*/\1/p'; }
# hostnames LIST: a Slurm host list (isnode[1-3]) one name a line
hostnames() { scontrol show hostnames "$1"; }
job_field() { scontrol show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# wait_running ID FILE SECONDS: until the job runs and FILE exists
wait_running() {
    local id=$1 file=$2 limit=$3 waited=0
    until [ "$(job_state "$id")" = RUNNING ] && [ -f "$file" ]; do
        [ "$waited" -lt "$((limit * 5))" ] || die "job $id not running with $file after ${limit}s (state $(job_state "$id"))"
        sleep 0.2
        waited=$((waited + 1))
    done
}

# wait_end ID SECONDS: until the job has ended, whatever the end; prints its state
# (requeued jobs are released at once, as wait_job does)
wait_end() {
    local id=$1 limit=$2 waited=0 state
    while :; do
        state=$(job_state "$id")
        case "$state" in
        PENDING) release "$id" ;;
        RUNNING | CONFIGURING | COMPLETING | REQUEUED | RESIZING | SUSPENDED) ;;
        "") echo GONE; return 0 ;;
        *) echo "$state"; return 0 ;;
        esac
        [ "$waited" -lt "$limit" ] || die "job $id not ended after ${limit}s (state $state)"
        sleep 1
        waited=$((waited + 1))
    done
}

# job_state ID: the JobState of a job ("" once Slurm has forgotten it)
job_state() { scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p'; }
job_restarts() { scontrol show job "$1" 2>/dev/null | sed -n 's/.*Restarts=\([0-9]*\).*/\1/p'; }

# release ID: a requeued job waiting (Slurm holds one for a while before it may start
# again) is let go, 2 s after it was first seen waiting: one started in the second of
# its requeue is refused by slurmd ("Job credential revoked")
declare -A pending_since=()
release() {
    local id=$1 t
    t=$(date +%s)
    [ "$(job_state "$id")" = PENDING ] && [ "$(job_restarts "$id")" != 0 ] || { unset "pending_since[$id]"; return 0; }
    [ -n "${pending_since[$id]:-}" ] || pending_since[$id]=$t
    [ "$((t - pending_since[$id]))" -lt 2 ] || scontrol update JobId="$id" StartTime=now 2>/dev/null || true
}

# requeued_after ID SECONDS: true if a job seen in a final state (FAILED, ...) is requeued
# within SECONDS. The batch script requeues its own job (scontrol requeue); on this
# simulated cluster (every node on one host) a requeued job that Slurm starts again within
# the second of its requeue is refused by slurmd ("Job credential revoked") and ends FAILED
# without running (see release). Where the job's log ends with the script's own
# "requeued job ID" line (the requeue was asked for, no run began after it), the job is
# requeued again here, once per restart, as a site's retry would.
declare -A retried=()
requeued_after() {
    local id=$1 limit=$2 waited=0 restarts log
    restarts=$(job_restarts "$id")
    log=$(scontrol show job "$id" 2>/dev/null | sed -n 's/.*StdOut=\([^ ]*\).*/\1/p')
    if [ -n "$log" ] && [ -f "$log" ] && [ "${retried[$id]:-}" != "$restarts" ] &&
        tail -n 1 "$log" | grep "requeued job $id (restart" >/dev/null; then
        retried[$id]=$restarts
        echo "   (job $id: $(job_state "$id") after its own requeue, without a run: requeued again)"
        scontrol requeue "$id" 2>/dev/null || true
    fi
    while [ "$waited" -lt "$limit" ]; do
        sleep 1
        waited=$((waited + 1))
        case "$(job_state "$id")" in
        PENDING | REQUEUED | REQUEUE_HOLD | REQUEUE_FED | CONFIGURING | RUNNING) return 0 ;;
        esac
        [ "$(job_restarts "$id")" = "$restarts" ] || return 0
    done
    return 1
}

# wait_job ID SECONDS: waits until the job has ended; fails on timeout. A requeued job is
# released (see release).
wait_job() {
    local id=$1 limit=$2 waited=0 state
    while :; do
        state=$(job_state "$id")
        case "$state" in
        COMPLETED) return 0 ;;
        FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | BOOT_FAIL | DEADLINE)
            requeued_after "$id" 15 || die "job $id ended $state" ;;
        PENDING) release "$id" ;;
        "") return 0 ;;
        esac
        [ "$waited" -lt "$limit" ] || die "job $id not done after ${limit}s (state $state)"
        sleep 2
        waited=$((waited + 2))
    done
}

# calibrated_samples JOB SECONDS [RUN OPTIONS]: a model.samples for which JOB (with the
# options) computes for about SECONDS on one rank of this machine: from the fastest of
# three short runs (the machine is shared: the fastest is the least disturbed, so the
# real run is at least that long), by the computing time the run reports
calibrated_samples() {
    local job=$1 seconds=$2 best="" t
    shift 2
    for _ in 1 2 3; do
        t=$("$IMPACTSWEEP" run "$job" "$@" --set model.samples=20000 --output "$WORK/calibrate.h5" \
                --overwrite --progress lines 2>&1 >/dev/null |
            sed -n 's/.*this run computed [0-9]* in \([0-9.]*\) s.*/\1/p')
        [ -n "$t" ] || die "the calibration run failed"
        best=$(awk -v a="$t" -v b="${best:-$t}" 'BEGIN { print (a < b ? a : b) }')
    done
    rm -f "$WORK/calibrate.h5"
    awk -v t="$best" -v s="$seconds" 'BEGIN { t = t < 0.05 ? 0.05 : t; printf "%d\n", 20000 * s / t }'
    echo "(samples for $seconds s: the fastest of 3 calibration runs computed in $best s)" >&2
}

# stop_when_computing ID LOG RESTART: USR1 to the batch shell once its incarnation
# RESTART (0 the first) has printed a progress line (the run has started computing)
stop_when_computing() {
    local id=$1 log=$2 restart=$3
    for _ in $(seq 1 300); do
        awk -v r="restart $restart on" 'index($0, r) { since = 1 }
             since && /^impactsweep: [0-9]+\/[0-9]+ points/ { found = 1 } END { exit !found }' \
            "$log" 2>/dev/null && break
        release "$id"
        sleep 0.2
    done
    scancel --signal=USR1 --batch "$id" || die "cannot signal job $id"
    echo "   USR1 to job $id (incarnation $restart) while computing"
}

# attribute FILE NAME: a root attribute of a result file, as text
attribute() {
    /usr/bin/python3 -c 'import h5py, sys
v = h5py.File(sys.argv[1], "r").attrs[sys.argv[2]]
print(v.decode() if isinstance(v, bytes) else v)' "$1" "$2"
}

# run_state FILE: the run state (/run/state); run_log FILE: the run log, a line each
run_state() {
    /usr/bin/python3 -c 'import h5py, sys
print(bytes(h5py.File(sys.argv[1], "r")["run/state"][()]).decode().rstrip("\0"))' "$1"
}
run_log() {
    /usr/bin/python3 -c 'import h5py, sys
f = h5py.File(sys.argv[1], "r")
for line in f["run/log"][: int(f["run/log_count"][()])]:
    print(bytes(line).decode().rstrip("\0"))' "$1"
}
