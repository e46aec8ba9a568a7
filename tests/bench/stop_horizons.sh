#!/usr/bin/env bash
# stop_horizons.sh: issue 21's long-horizon check of the stop oscillator's regime maps. Each
# map is computed at a short horizon and at a long one (by default 500 and 20000, on
# 200 x 200 points); no point decided at the short horizon may have another decided class
# at the long one (undecided at either is allowed: it decides nothing). Prints the classes
# and their bases at both horizons, the transitions, and the count of points that changed;
# exit status 1 if any did. unit.stop runs a bounded version (the jobs as given, 40 x 40,
# at 400, 500, 600 and 20000).
# Usage: stop_horizons.sh [JOB.ini ...]   (default: jobs/stop_regime_map.ini and
#   jobs/stop_regime_map_ks.ini); from the environment: IMPACTSWEEP (default
#   build/impactsweep), SIDE (200), SHORT (500), LONG (20000), RANKS (1), PYTHON
#   (/usr/bin/python3, with h5py). The orbit search is off (orbit_t_max = 0): the regime
#   does not depend on it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
impactsweep=${IMPACTSWEEP:-$root/build/impactsweep}
side=${SIDE:-200}
short=${SHORT:-500}
long=${LONG:-20000}
ranks=${RANKS:-1}
python=${PYTHON:-/usr/bin/python3}
[ $# -gt 0 ] || set -- "$root/jobs/stop_regime_map.ini" "$root/jobs/stop_regime_map_ks.ini"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
for job in "$@"; do
    # the job's two axes, each at SIDE values
    mapfile -t axes < <(sed -n 's/^\[axis\.\([A-Za-z0-9_]*\)\]$/\1/p' "$job")
    sets=()
    [ "$ranks" = 1 ] || sets+=(-n "$ranks")
    for a in "${axes[@]}"; do sets+=(--set "axis.$a.count=$side"); done
    name=$(basename "$job" .ini)
    for t in "$short" "$long"; do
        start=$(date +%s.%N)
        "$impactsweep" run "$job" "${sets[@]}" --set model.orbit_t_max=0 \
            --set "model.t_end=$t" -o "$work/$name.$t.h5" --overwrite -q
        echo "$name at t_end $t: $(awk -v a="$start" -v b="$(date +%s.%N)" \
            'BEGIN { printf "%.1f", b - a }') s"
    done
    "$python" - "$work/$name.$short.h5" "$work/$name.$long.h5" "$name" "$short" "$long" <<'END' ||
import collections, sys
import h5py
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
name, short, long = sys.argv[3:6]
def meanings(f, v):
    m = f[v].attrs["flag_meanings"]
    return (m.decode() if isinstance(m, bytes) else m).split()
regimes, bases = meanings(a, "regime"), meanings(a, "regime_basis")
ra, rb = a["regime"][...].ravel(), b["regime"][...].ravel()
for f, t in ((a, short), (b, long)):
    print(f"  t_end {t}: " + ", ".join(f"{bases[k]} {v}" for k, v in sorted(
        collections.Counter(f["regime_basis"][...].ravel().tolist()).items())))
undecided = regimes.index("undecided")
pairs = collections.Counter(zip(ra.tolist(), rb.tolist()))
print("  transitions: " + ", ".join(f"{regimes[x]} -> {regimes[y]} {n}"
                                     for (x, y), n in sorted(pairs.items())))
changed = int(((ra != undecided) & (rb != undecided) & (ra != rb)).sum())
decided = int((ra != undecided).sum())
print(f"  {name}: {changed} of {decided} points decided at t_end {short} have another "
      f"decided class at {long}")
sys.exit(1 if changed else 0)
END
        status=1
done
exit $status
