#!/usr/bin/env bash
# slurm-tests.sh: the Slurm tests against a real scheduler. Installs slurm-wlm and munge
# when missing, builds, starts a one-node cluster (slurm/local-cluster.sh), runs
# `ctest -L slurm`, and stops the cluster again, whatever happened. Needs root.
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
started=0
if ! sinfo -h >/dev/null 2>&1; then
    "$cluster" start
    started=1
    eval "$("$cluster" env)" # its configuration, for sbatch and the tests
fi
stop() { [ "$started" -eq 0 ] || "$cluster" stop; }
trap stop EXIT
ctest --test-dir "$IMPACTSWEEP_BUILD" -L slurm --output-on-failure --timeout 1200
