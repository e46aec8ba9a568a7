#!/usr/bin/env bash
# figure.sh: the pictures of a result file, by default the example sweep's (./example.h5,
# or $IMPACTSWEEP_OUTPUT as in example.sh): its figures as PNG and PDF next to it
# (example.h5 -> example_regime.png, example_impacts.png, ...), the paths printed. Extra
# arguments go to analysis/impactplot.py (--format, --dpi, --field, --output PREFIX).
#     scripts/example.sh && scripts/figure.sh
#     scripts/figure.sh [FILE] [--dpi 300 --format pdf ...]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
python=/usr/bin/python3
file=${IMPACTSWEEP_OUTPUT:-example.h5}
if [ $# -gt 0 ] && [[ $1 != -* ]]; then
    file=$1
    shift
fi
if [ ! -e "$file" ]; then
    echo "figure.sh: $file not found (run scripts/example.sh first, or name a result file)" >&2
    exit 2
fi
if ! "$python" -c "import importlib.util as u, sys
sys.exit(any(u.find_spec(m) is None for m in ('matplotlib', 'xarray', 'h5netcdf', 'h5py')))"
then
    echo "figure.sh: $python lacks matplotlib, xarray, h5netcdf or h5py" \
        "(scripts/setup.sh installs them)" >&2
    exit 1
fi
exec "$python" "$root/analysis/impactplot.py" "$file" "$@"
