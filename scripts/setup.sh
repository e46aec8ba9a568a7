#!/usr/bin/env bash
# setup.sh: installs impactsweep's Debian dependencies (when missing) and builds it in
# build/. Sourced by example.sh and test.sh; safe to run again.
set -euo pipefail
IMPACTSWEEP_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
IMPACTSWEEP_BUILD=${IMPACTSWEEP_BUILD:-$IMPACTSWEEP_ROOT/build}
packages=(build-essential cmake pkg-config git libopenmpi-dev openmpi-bin
          libhdf5-openmpi-dev hdf5-tools libsundials-dev libcunit1-dev libinih-dev
          python3-h5py python3-matplotlib python3-xarray python3-h5netcdf python3-dask python3-scipy
          python3-pytest python3-pandas udunits-bin netcdf-bin clang libclang-rt-dev poppler-utils)

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}"
    sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    $sudo apt-get update
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${missing[@]}"
fi

# Open MPI refuses to run as root unless told that it is meant.
if [ "$(id -u)" = 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

cmake -S "$IMPACTSWEEP_ROOT" -B "$IMPACTSWEEP_BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$IMPACTSWEEP_BUILD" -j "$(nproc)"
