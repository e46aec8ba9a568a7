#!/usr/bin/env bash
# figure.sh: the pictures of a result file, by default the example sweep's (./example.h5,
# or $IMPACTSWEEP_OUTPUT as in example.sh): its figures as PNG and PDF next to it
# (example.h5 -> example_regime.png, example_impacts.png, ...), the paths printed. Extra
# arguments go to analysis/impactplot.py (--format png,pdf,svg,eps, --size single|double|WxH,
# --dpi, --field, --sel, --facet, --title, --footer, --source-path, --output PREFIX; more
# files of the same model after FILE are drawn beside it).
#     scripts/example.sh && scripts/figure.sh
#     scripts/figure.sh [FILE [FILE ...]] [--size double --format pdf,eps ...]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
python=/usr/bin/python3
files=()
while [ $# -gt 0 ] && [[ $1 != -* ]]; do
    files+=("$1")
    shift
done
[ ${#files[@]} -gt 0 ] || files=("${IMPACTSWEEP_OUTPUT:-example.h5}")
for file in "${files[@]}"; do
    if [ ! -e "$file" ]; then
        echo "figure.sh: $file not found (run scripts/example.sh first, or name a result file)" >&2
        exit 2
    fi
done
if ! "$python" -c "import importlib.util as u, sys
sys.exit(any(u.find_spec(m) is None for m in ('matplotlib', 'xarray', 'h5netcdf', 'h5py')))"
then
    echo "figure.sh: $python lacks matplotlib, xarray, h5netcdf or h5py" \
        "(scripts/setup.sh installs them)" >&2
    exit 1
fi
exec "$python" "$root/analysis/impactplot.py" "${files[@]}" "$@"
