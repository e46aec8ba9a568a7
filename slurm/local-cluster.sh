#!/usr/bin/env bash
# local-cluster.sh start|stop|status|env: a one-node Slurm cluster on this machine
# (Debian's slurm-wlm and munge), for the tests and for trying the batch scripts. Needs
# root. Everything it uses lives in its own directory (IMPACTSWEEP_SLURM_DIR, default
# /run/impactsweep-slurm): the configuration (clients find it through SLURM_CONF, which
# `env` prints), its own munged with its own key and socket, the daemons' state, logs and
# pid files. It never reads or writes /etc/slurm or /etc/munge, nor touches a cluster or a
# munged already on the machine; stop ends only the daemons it started, by their pids,
# and removes the directory.
set -euo pipefail
dir=${IMPACTSWEEP_SLURM_DIR:-/run/impactsweep-slurm}
conf=$dir/slurm.conf
munge_dir=$dir/munge
export SLURM_CONF=$conf

die() { echo "local-cluster: $*" >&2; exit 2; }

# alive PIDFILE: the daemon whose pid the file holds is running
alive() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

write_conf() {
    local host cpus memory
    host=$(hostname -s)
    cpus=$(nproc)
    memory=$(awk '/MemTotal/ { printf "%d", $2 / 1024 * 0.9 }' /proc/meminfo)
    cat >"$conf" <<CONF
# written by impactsweep's slurm/local-cluster.sh: one node, everything as root
ClusterName=impactsweep
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$munge_dir/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/ctld
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldPort=16817
SlurmdPort=16818
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
JobRequeue=1
KillWait=30
InactiveLimit=0
MinJobAge=300
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$host CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
CONF
}

# Our own munged: its key, socket, pid, log and seed in $munge_dir, owned by munge.
start_munge() {
    mkdir -p "$munge_dir"
    [ -s "$munge_dir/munge.key" ] ||
        dd if=/dev/urandom bs=1 count=1024 of="$munge_dir/munge.key" status=none
    chown -R munge:munge "$munge_dir"
    chmod 711 "$munge_dir" # (munged wants its socket's directory searchable by all)
    chmod 400 "$munge_dir/munge.key"
    alive "$munge_dir/munged.pid" && return 0
    runuser -u munge -- /usr/sbin/munged --key-file="$munge_dir/munge.key" \
        --socket="$munge_dir/munge.socket" --pid-file="$munge_dir/munged.pid" \
        --log-file="$munge_dir/munged.log" --seed-file="$munge_dir/munged.seed"
}

start() {
    command -v slurmctld >/dev/null && command -v munged >/dev/null ||
        die "slurm-wlm and munge are not installed"
    mkdir -p "$dir"/{spool,ctld,log}
    chmod 755 "$dir"
    write_conf
    start_munge
    alive "$dir/slurmctld.pid" || slurmctld -f "$conf"
    alive "$dir/slurmd.pid" || slurmd -f "$conf"
    for _ in $(seq 1 60); do
        if sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
            echo "local-cluster: up ($(hostname -s), $(nproc) CPUs); clients need: export SLURM_CONF=$conf"
            return 0
        fi
        sleep 1
    done
    echo "local-cluster: the node did not come up; logs in $dir/log" >&2
    sinfo >&2 || true
    exit 1
}

# stop_daemon PIDFILE: TERM, then KILL after 10 s, to the pid the file names (if alive)
stop_daemon() {
    local pidfile=$1 pid
    alive "$pidfile" || return 0
    pid=$(cat "$pidfile")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 20); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.5
    done
    kill -KILL "$pid" 2>/dev/null || true
}

stop() {
    [ -d "$dir" ] || { echo "local-cluster: not running"; return 0; }
    [ -f "$conf" ] && scancel --quiet --user=root 2>/dev/null || true
    stop_daemon "$dir/slurmd.pid"
    stop_daemon "$dir/slurmctld.pid"
    stop_daemon "$munge_dir/munged.pid"
    rm -rf "$dir"
    echo "local-cluster: stopped"
}

case "${1:-}" in
start) start ;;
stop) stop ;;
status) sinfo ;;
env) echo "export SLURM_CONF=$conf" ;;
*) echo "usage: local-cluster.sh start|stop|status|env" >&2; exit 2 ;;
esac
