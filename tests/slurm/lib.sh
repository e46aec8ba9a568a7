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
wait_end() {
    local id=$1 limit=$2 waited=0 state
    while :; do
        state=$(job_state "$id")
        case "$state" in
        PENDING | RUNNING | CONFIGURING | COMPLETING | REQUEUED | RESIZING | SUSPENDED) ;;
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

# slurm_diagnosis ID: why a job ended as it did: its reason and, on the local cluster,
# its slurmd's errors (e.g. "Job credential revoked")
slurm_diagnosis() {
    local id=$1
    echo "job $id: $(scontrol show job "$1" 2>/dev/null | grep -oE '(JobState|Reason|ExitCode|Restarts)=[^ ]*' | tr '\n' ' ')"
    [ -z "${IMPACTSWEEP_SLURM_DIR:-}" ] ||
        grep -hw "$id" "$IMPACTSWEEP_SLURM_DIR"/log/slurm*.log 2>/dev/null |
        grep -iE 'error|revoked|fail' | tail -5
}

# wait_job ID SECONDS: waits until the job has ended; fails on timeout or an end other
# than COMPLETED. A requeued job is waited for like any other: Slurm holds it back for
# the cluster's cred_expire (see slurm/local-cluster.sh), never hurried here.
wait_job() {
    local id=$1 limit=$2 waited=0 state
    while :; do
        state=$(job_state "$id")
        case "$state" in
        COMPLETED) return 0 ;;
        FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | BOOT_FAIL | DEADLINE)
            die "job $id ended $state; $(slurm_diagnosis "$id")" ;;
        "") return 0 ;;
        esac
        [ "$waited" -lt "$limit" ] || die "job $id not done after ${limit}s (state $state)"
        sleep 2
        waited=$((waited + 2))
    done
}

# requeued_logged ID LOG: the job was requeued (Slurm's restart count, at least 1; the
# job must still be known) and its log kept every incarnation, as the batch script asks
# (--open-mode=append; Slurm's default would truncate it at each restart): the lines
# "restart K on" for K from 0 to that count, in order, each but the last followed by
# the script's "requeued job ID (restart K+1" line.
requeued_logged() {
    local id=$1 log=$2 restarts
    restarts=$(job_restarts "$id")
    [ -n "$restarts" ] || die "job $id is no longer known to Slurm"
    [ "$restarts" -ge 1 ] || die "job $id was never requeued (Slurm's restart count is 0)"
    awk -v id="$id" -v n="$restarts" 'BEGIN { k = 0 }
        index($0, "impactsweep.sbatch: job " id " restart " k " on") == 1 {
            if (k > 0 && !asked) bad = 1
            k++; asked = 0; next }
        index($0, "requeued job " id " (restart " k " of") { asked = 1 }
        END { exit !(k == n + 1 && !bad) }' "$log" ||
        die "job $id's log lacks an incarnation or a requeue (restart count $restarts): $(grep -E 'impactsweep.sbatch|CANCELLED' "$log")"
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
