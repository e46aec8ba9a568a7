#!/usr/bin/env bash
# example.sh: one command from a fresh Debian machine to a result: installs what is
# missing, builds, and runs the built-in example sweep (jobs/example.ini: chatter, n = 4,
# a 40 x 40 (rho, gamma) grid) on all local cores. Extra arguments go to `impactsweep run`.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cores=$(nproc)
output=${IMPACTSWEEP_OUTPUT:-$PWD/example.h5}
mpirun --use-hwthread-cpus -n "$cores" "$IMPACTSWEEP_BUILD/impactsweep" run \
    "$IMPACTSWEEP_ROOT/jobs/example.ini" --output "$output" --overwrite "$@"
echo "result file: $output (open it with xarray.open_dataset(\"$output\", engine=\"h5netcdf\"))"
