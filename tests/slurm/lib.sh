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
WORK=$(mktemp -d)
cleanup() { scancel --quiet --name=impactsweep-test 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
cd "$WORK"
say() { echo "== $*"; }
die() { echo "FAIL: $*" >&2; for f in "$WORK"/slurm-*.out; do [ -e "$f" ] && { echo "--- $f" >&2; tail -20 "$f" >&2; }; done; exit 1; }

# job_state ID: the JobState of a job ("" once Slurm has forgotten it)
job_state() { scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p'; }
job_restarts() { scontrol show job "$1" 2>/dev/null | sed -n 's/.*Restarts=\([0-9]*\).*/\1/p'; }

# wait_job ID SECONDS: waits until the job has ended; fails on timeout. A requeued job is
# released at once (Slurm would hold it for a while before starting it again).
wait_job() {
    local id=$1 limit=$2 waited=0 state
    while :; do
        state=$(job_state "$id")
        case "$state" in
        COMPLETED) return 0 ;;
        FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | BOOT_FAIL | DEADLINE)
            die "job $id ended $state" ;;
        PENDING)
            [ "$(job_restarts "$id")" = 0 ] || scontrol update JobId="$id" StartTime=now 2>/dev/null || true ;;
        "") return 0 ;;
        esac
        [ "$waited" -lt "$limit" ] || die "job $id not done after ${limit}s (state $state)"
        sleep 2
        waited=$((waited + 2))
    done
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
