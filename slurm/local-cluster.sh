#!/usr/bin/env bash
# local-cluster.sh start|stop|status: a one-node Slurm cluster on this machine (Debian's
# slurm-wlm and munge), for the tests and for trying the batch scripts. Needs root.
# The configuration and state live under /run/impactsweep-slurm; stop removes them.
set -euo pipefail
state=/run/impactsweep-slurm
conf=/etc/slurm/slurm.conf

start() {
    command -v slurmctld >/dev/null && command -v munged >/dev/null || {
        echo "local-cluster: slurm-wlm and munge are not installed" >&2; exit 2; }
    mkdir -p "$state"/{spool,ctld,log} /etc/slurm /run/munge /var/lib/munge /var/log/munge
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
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/spool
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
SlurmctldLogFile=$state/log/slurmctld.log
SlurmdLogFile=$state/log/slurmd.log
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
    if [ ! -s /etc/munge/munge.key ]; then
        mkdir -p /etc/munge
        dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key status=none
    fi
    chown -R munge:munge /etc/munge /run/munge /var/lib/munge /var/log/munge 2>/dev/null || true
    chmod 400 /etc/munge/munge.key
    pgrep -x munged >/dev/null || runuser -u munge -- /usr/sbin/munged
    pgrep -x slurmctld >/dev/null || slurmctld
    pgrep -x slurmd >/dev/null || slurmd
    for i in $(seq 1 60); do
        if sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
            echo "local-cluster: up ($host, $cpus CPUs)"
            return 0
        fi
        sleep 1
    done
    echo "local-cluster: the node did not come up; logs in $state/log" >&2
    sinfo >&2 || true
    exit 1
}

stop() {
    scancel --quiet --user=root 2>/dev/null || true
    for daemon in slurmd slurmctld munged; do
        pkill -x "$daemon" 2>/dev/null || true
    done
    for i in $(seq 1 20); do
        pgrep -x slurmd >/dev/null || pgrep -x slurmctld >/dev/null || pgrep -x munged >/dev/null || break
        sleep 0.5
    done
    rm -rf "$state"
    echo "local-cluster: stopped"
}

case "${1:-}" in
start) start ;;
stop) stop ;;
status) sinfo ;;
*) echo "usage: local-cluster.sh start|stop|status" >&2; exit 2 ;;
esac
