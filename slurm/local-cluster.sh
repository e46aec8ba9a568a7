#!/usr/bin/env bash
# local-cluster.sh: a Slurm cluster of N nodes on this machine (Debian's slurm-wlm and
# munge), for the tests and for trying the batch scripts. Needs root.
#
#   local-cluster.sh start [--nodes N]   N slurmd nodes (default 1) and one slurmctld
#   local-cluster.sh stop                ends all of it and removes what it made
#   local-cluster.sh env                 what clients need (SLURM_CONF; see exec)
#   local-cluster.sh exec CMD ...        runs CMD as a client of the cluster
#   local-cluster.sh status              sinfo
#   local-cluster.sh kill-node K         node K loses power: every process in it is killed
#   local-cluster.sh start-node K        node K boots again (its slurmd restarts)
#
# Each node is a host of its own: a network namespace (a veth pair to a bridge that has
# no address; the node's address from 198.18.0.0/15, the range set aside for testing),
# a UTS namespace (its hostname, isnodeK) and a mount namespace (a private /etc/hosts
# naming the cluster's hosts). The controller, isctl, is one more such host, and clients
# run there (`exec`): its slurmctld, and the srun and mpirun of jobs, must reach the nodes
# and be reached by them, which nothing outside these namespaces can. Traffic goes
# nowhere else: no namespace has a route beyond the bridge, and the bridge none at all.
# The nodes share the machine's cores, memory and file systems (/tmp, the job's
# directory), like nodes on a shared file system.
#
# Everything it uses lives in its own directory (IMPACTSWEEP_SLURM_DIR, default
# /run/impactsweep-slurm): the configuration (clients find it through SLURM_CONF), its
# own munged (key and socket), the daemons' state, spool, logs and pid files. The names
# of its namespaces and links carry a tag made from that directory, so that two clusters
# with different directories can run side by side. It never reads or writes /etc/slurm
# or /etc/munge, nor touches a cluster, munged or network it did not make; stop ends
# only the processes inside its own namespaces and the daemons it started, by pid.
#
# The test cluster's timeouts are short (a lost node is DOWN after about 15 s), a
# requeued job starts again about 6 s after its requeue (see write_conf), and its
# partition `norequeue` is a Slurm that forbids requeueing (a job_submit.lua makes
# every job submitted there non-requeueable), for the tests of that failure path.
set -euo pipefail
dir=${IMPACTSWEEP_SLURM_DIR:-/run/impactsweep-slurm}
conf=$dir/slurm.conf
munge_dir=$dir/munge
export SLURM_CONF=$conf
tag=$(printf '%s' "$dir" | md5sum | cut -c1-4)
bridge=isw${tag}br
subnet=198.18.0
controller=isctl
max_nodes=200

die() { echo "local-cluster: $*" >&2; exit 2; }

# alive PIDFILE: the daemon whose pid the file holds is running
alive() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

netns_of() { [ "$1" = ctl ] && echo "isw${tag}ctl" || echo "isw${tag}n$1"; }
host_of() { [ "$1" = ctl ] && echo "$controller" || echo "isnode$1"; }
address_of() { [ "$1" = ctl ] && echo "$subnet.1" || echo "$subnet.$((10 + $1))"; }
node_count() { cat "$dir/nodes" 2>/dev/null || echo 0; }

write_conf() {
    local nodes=$1 cpus memory i
    cpus=$(nproc)
    # the nodes share the memory: each is given its share, so that Slurm never packs
    # more on the machine than it has
    memory=$(awk -v n="$nodes" '/MemTotal/ { printf "%d", $2 / 1024 * 0.9 / n }' /proc/meminfo)
    # A requeued job: slurmd refuses ("Job credential revoked") a credential made within
    # the second its job was ended in, and slurmctld holds a requeued job back for
    # cred_expire seconds (default 120) so that none is. 5 s (the least Slurm takes) keeps
    # that guard and the credential's lifetime ample for a step started on this machine;
    # a scheduler that looks every second starts the job once it may. (Starting it early,
    # by `scontrol update StartTime=now`, is what runs into the refusal.)
    cat >"$conf" <<CONF
# written by impactsweep's slurm/local-cluster.sh: $nodes node(s), everything as root
ClusterName=impactsweep
SlurmctldHost=$controller($(address_of ctl))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$munge_dir/munge.socket,cred_expire=5
CredType=cred/munge
StateSaveLocation=$dir/ctld
SlurmdSpoolDir=$dir/spool/%n
TmpFS=$dir/tmp/%n
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.%n.log
SlurmctldPort=6817
SlurmdPort=6818
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1,sched_interval=1
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobSubmitPlugins=lua
ReturnToService=2
JobRequeue=1
KillWait=10
InactiveLimit=0
MinJobAge=300
MessageTimeout=5
SlurmctldTimeout=10
SlurmdTimeout=10
CONF
    for ((i = 1; i <= nodes; i++)); do
        echo "NodeName=$(host_of "$i") NodeHostname=$(host_of "$i") NodeAddr=$(address_of "$i")" \
             "CPUs=$cpus RealMemory=$memory State=UNKNOWN" >>"$conf"
    done
    cat >>"$conf" <<CONF
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
PartitionName=norequeue Nodes=ALL MaxTime=INFINITE State=UP OverSubscribe=NO
CONF
    # (slurmctld reads job_submit.lua from slurm.conf's directory)
    cat >"$dir/job_submit.lua" <<'LUA'
-- written by impactsweep's slurm/local-cluster.sh: the partition `norequeue` is a Slurm
-- that forbids requeueing, whatever the job asks (#SBATCH --requeue included)
function slurm_job_submit(job_desc, part_list, submit_uid)
    if job_desc.partition == "norequeue" then
        job_desc.requeue = 0
    end
    return slurm.SUCCESS
end
function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
    return slurm.SUCCESS
end
LUA
    {
        echo "127.0.0.1 localhost"
        echo "$(address_of ctl) $controller"
        for ((i = 1; i <= nodes; i++)); do echo "$(address_of "$i") $(host_of "$i")"; done
    } >"$dir/hosts"
}

# The network: a bridge without an address, one namespace per host joined to it by a
# veth pair, the host's address on its end (and lo up). Nothing routes off the bridge.
make_host_network() {
    local who=$1 ns veth
    ns=$(netns_of "$who")
    veth=isw${tag}v$who
    ip netns add "$ns"
    ip link add "$veth" type veth peer name "${veth}p"
    ip link set "$veth" master "$bridge" up
    ip link set "${veth}p" netns "$ns"
    ip -n "$ns" link set "${veth}p" name eth0
    ip -n "$ns" addr add "$(address_of "$who")/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" link set lo up
}

make_network() {
    local nodes=$1 i
    ip link add "$bridge" type bridge
    ip link set "$bridge" up
    make_host_network ctl
    for ((i = 1; i <= nodes; i++)); do make_host_network "$i"; done
}

# in_host WHO CMD...: runs CMD as host WHO: in its network namespace, with a new UTS
# namespace (its hostname) and mount namespace (its /etc/hosts). `ip netns exec` is not
# used: it mounts a /sys without the cgroup mounts, and slurmd refuses to start there.
in_host() {
    local who=$1
    shift
    nsenter --net="/run/netns/$(netns_of "$who")" -- unshare --uts --mount --propagation private \
        -- sh -c 'hostname "$1" && mount --bind "$2" /etc/hosts && shift 2 && exec "$@"' \
        sh "$(host_of "$who")" "$dir/hosts" "$@"
}

# Our own munged: its key, socket, pid, log and seed in $munge_dir, owned by munge. A
# unix socket is a file: the daemons and clients in every namespace reach it.
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
        --log-file="$munge_dir/munged.log" --seed-file="$munge_dir/munged.seed" --force
}

start_slurmd() {
    local k=$1
    alive "$dir/run/slurmd.$(host_of "$k").pid" && return 0
    mkdir -p "$dir/spool/$(host_of "$k")" "$dir/tmp/$(host_of "$k")"
    # an absolute -f: with a relative one slurmstepd cannot find it and srun times out
    in_host "$k" slurmd -f "$conf" -N "$(host_of "$k")"
}

# wait_nodes N SECONDS: until N nodes are up (idle, mixed or allocated)
wait_nodes() {
    local want=$1 limit=$2 up
    for ((t = 0; t < limit * 5; t++)); do
        up=$(client sinfo -h -N -o %T 2>/dev/null | grep -cE '^(idle|mixed|allocated)' || true)
        [ "$up" -ge "$want" ] && return 0
        sleep 0.2
    done
    return 1
}

start() {
    local nodes=1 i
    while [ $# -gt 0 ]; do
        case "$1" in
        --nodes) nodes=${2:-}; shift 2 || die "--nodes needs a count" ;;
        --nodes=*) nodes=${1#--nodes=}; shift ;;
        *) die "start: unknown option '$1' (start [--nodes N])" ;;
        esac
    done
    [[ "$nodes" =~ ^[1-9][0-9]*$ ]] && [ "$nodes" -le "$max_nodes" ] ||
        die "--nodes takes a count from 1 to $max_nodes, not '$nodes'"
    [ "$(id -u)" = 0 ] || die "needs root (network namespaces, daemons)"
    for tool in slurmctld slurmd munged ip nsenter unshare; do
        command -v "$tool" >/dev/null || die "$tool is missing (slurm-wlm, munge, iproute2, util-linux)"
    done
    if [ -d "$dir" ]; then
        alive "$dir/run/slurmctld.pid" && [ "$(node_count)" = "$nodes" ] &&
            { echo "local-cluster: already up ($nodes nodes)"; return 0; }
        die "$dir exists (a cluster of $(node_count) nodes, or its remains): stop it first"
    fi
    # state, spool and tmp are new together: leftover per-step files in the spool
    # ("pmix.J.S") break later steps once job ids start again from 1
    mkdir -p "$dir"/{spool,ctld,log,run,tmp}
    chmod 755 "$dir"
    echo "$nodes" >"$dir/nodes"
    write_conf "$nodes"
    make_network "$nodes"
    start_munge
    in_host ctl slurmctld -f "$conf"
    for ((i = 1; i <= nodes; i++)); do start_slurmd "$i"; done
    if wait_nodes "$nodes" 60; then
        echo "local-cluster: up: $nodes node(s) isnode1..isnode$nodes ($subnet.11-$((10 + nodes))," \
             "$(nproc) CPUs each, shared), controller $controller ($subnet.1)"
        echo "local-cluster: clients: export SLURM_CONF=$conf; $0 exec COMMAND"
        return 0
    fi
    echo "local-cluster: the nodes did not come up; logs in $dir/log" >&2
    client sinfo >&2 || true
    exit 1
}

# client CMD...: runs CMD as a client of the cluster, on the controller's host (its
# network, hostname and /etc/hosts), with SLURM_CONF set
client() {
    alive "$dir/run/slurmctld.pid" || die "not running (no slurmctld; start it first)"
    nsenter -t "$(cat "$dir/run/slurmctld.pid")" --net --uts --mount --wd="$PWD" -- env SLURM_CONF="$conf" "$@"
}

# kill_namespace NS: SIGKILL to every process in network namespace NS (all ours: the
# namespace is), until none is left
kill_namespace() {
    local ns=$1 pids
    [ -e "/run/netns/$ns" ] || return 0
    for _ in $(seq 1 50); do
        pids=$(ip netns pids "$ns" 2>/dev/null | tr '\n' ' ')
        [ -n "${pids// /}" ] || return 0
        # shellcheck disable=SC2086
        kill -KILL $pids 2>/dev/null || true
        sleep 0.1
    done
    echo "local-cluster: processes left in $ns: $pids" >&2
}

node_arg() {
    [[ "${1:-}" =~ ^[1-9][0-9]*$ ]] && [ "$1" -le "$(node_count)" ] ||
        die "no node '${1:-}' (nodes 1 to $(node_count))"
}

kill_node() {
    node_arg "${1:-}"
    kill_namespace "$(netns_of "$1")"
    rm -f "$dir/run/slurmd.$(host_of "$1").pid"
    echo "local-cluster: $(host_of "$1") lost: every process in it killed"
}

start_node() {
    node_arg "${1:-}"
    start_slurmd "$1"
    echo "local-cluster: $(host_of "$1") started again"
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
    local nodes i
    [ -d "$dir" ] || { echo "local-cluster: not running"; return 0; }
    nodes=$(node_count)
    alive "$dir/run/slurmctld.pid" && client scancel --quiet --user=root 2>/dev/null || true
    for ((i = 1; i <= nodes; i++)); do stop_daemon "$dir/run/slurmd.$(host_of "$i").pid"; done
    stop_daemon "$dir/run/slurmctld.pid"
    # what is left in our namespaces (steps, ranks) is ours; then the network
    for ((i = 1; i <= nodes; i++)); do kill_namespace "$(netns_of "$i")"; done
    kill_namespace "$(netns_of ctl)"
    for ((i = 1; i <= nodes; i++)); do ip netns del "$(netns_of "$i")" 2>/dev/null || true; done
    ip netns del "$(netns_of ctl)" 2>/dev/null || true
    ip link del "$bridge" 2>/dev/null || true
    stop_daemon "$munge_dir/munged.pid"
    rm -rf "$dir"
    echo "local-cluster: stopped"
}

command=${1:-}
[ $# -eq 0 ] || shift
case "$command" in
start) start "$@" ;;
stop) stop ;;
status) client sinfo -N -l ;;
env)
    echo "export SLURM_CONF=$conf"
    echo "# the cluster is reachable from its controller's host only: run clients there"
    echo "# with $0 exec COMMAND (e.g. exec bash)"
    ;;
exec) [ $# -gt 0 ] || die "exec needs a command"; client "$@" ;;
kill-node) kill_node "$@" ;;
start-node) start_node "$@" ;;
*) sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$0" >&2; exit 2 ;;
esac
