#!/usr/bin/env bash
# slurm-tests.sh: the Slurm tests against a real scheduler. Installs slurm-wlm and munge
# when missing, builds, starts a cluster of 3 nodes on this machine (slurm/local-cluster.sh:
# each node its own network and UTS namespace), runs `ctest -L slurm` as a client of it,
# and stops the cluster again, whatever happened. Needs root. With a Slurm already
# reachable (SLURM_CONF set and sinfo answering) the tests run against that one instead,
# and those that lose a node or forbid requeueing skip.
#   scripts/slurm-tests.sh [ctest options]    e.g. -R slurm.node_loss
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
missing=()
for p in slurm-wlm munge; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "slurm-tests: installing ${missing[*]}"
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi
cluster="$IMPACTSWEEP_ROOT/slurm/local-cluster.sh"
tests=(ctest --test-dir "$IMPACTSWEEP_BUILD" -L slurm --output-on-failure --timeout 1200 "$@")
if [ -n "${SLURM_CONF:-}" ] && sinfo -h >/dev/null 2>&1; then
    "${tests[@]}"
    exit
fi
# a cluster of our own, in a directory of its own (another one may be running)
export IMPACTSWEEP_SLURM_DIR=${IMPACTSWEEP_SLURM_DIR:-/run/impactsweep-slurm-tests.$$}
stop() { "$cluster" stop; }
trap stop EXIT
"$cluster" start --nodes 3
start=$(date +%s)
"$cluster" exec env IMPACTSWEEP_LOCAL_CLUSTER="$cluster" "${tests[@]}"
echo "slurm-tests: $(($(date +%s) - start)) s"
