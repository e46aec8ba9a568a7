#!/usr/bin/env bash
# bench_containment.sh: what running a plug-in in an evaluator process of its own costs
# (docs/development.md, "Tests and benchmarks"): the same sweep with `[sweep] containment = auto` (the
# plug-in contained) and `= none` (in the engine's process), run in turn, A B A B ..., on
# one rank, and the ratio A/B of whole-process CPU time (user + system, the evaluator
# process included: it is the run's child) and of wall time taken pair by pair; printed
# as the median and the range. Aim: under 1.03 on the cheap sweep.
#   cheap:        the boundary-clean plug-in (tests/models/plugins/boundary.c: a few
#                 nanoseconds a point, so that the engine's own work, and the boundary's,
#                 is all there is) over 10^7 points;
#   forced_stop:  examples/forced_stop's own job (2,400 points of its plug-in, about
#                 1.5 ms each), when FORCED_STOP names its built forced_stop.so.
# The results of the two forms are the same bits (h5compare, the job text aside).
# Usage: bench_containment.sh [ROUNDS]   (default 7)
#   from the environment: IMPACTSWEEP, PLUGIN_DIR (the test plug-ins), H5COMPARE;
#   FORCED_STOP (optional: the example's forced_stop.so), JOBS_EXAMPLE (its directory,
#   default the source tree's examples/forced_stop).
set -euo pipefail
: "${IMPACTSWEEP:?}" "${PLUGIN_DIR:?}"
rounds=${1:-7}
here=$(cd "$(dirname "$0")" && pwd)
example=${JOBS_EXAMPLE:-$here/../../examples/forced_stop}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

# seconds of CPU (user + system of the process and the children it waited for) and of
# wall time of one run: "cpu wall"
timed() {
    /usr/bin/time -f "%U %S %e" -o times.txt "$@" >/dev/null 2>run.err ||
        { cat run.err >&2; exit 1; }
    awk '{printf "%.3f %.3f\n", $1 + $2, $3}' times.txt
}

# NAME JOB: rounds of A (auto) and B (none) in turn, the ratios' medians
measure() {
    local name=$1 job=$2 a b
    : >ratios.txt
    timed "$IMPACTSWEEP" run "$job" --output warm.h5 --overwrite --quiet >/dev/null # warm-up
    for _ in $(seq 1 "$rounds"); do
        a=$(timed "$IMPACTSWEEP" run "$job" --output a.h5 --overwrite --quiet \
            --set sweep.containment=auto)
        b=$(timed "$IMPACTSWEEP" run "$job" --output b.h5 --overwrite --quiet \
            --set sweep.containment=none)
        echo "$a $b" >>ratios.txt
    done
    if [ -n "${H5COMPARE:-}" ]; then
        "$H5COMPARE" a.h5 b.h5 2>&1 | grep -v "root attribute job: texts differ" |
            grep -q "differ ([2-9]\|differ ([0-9][0-9]" && { echo "$name: the files differ" >&2; exit 1; }
    fi
    /usr/bin/python3 - "$name" ratios.txt <<'PY'
import statistics, sys
name, path = sys.argv[1], sys.argv[2]
rows = [list(map(float, line.split())) for line in open(path) if line.strip()]
cpu = [a / b for a, _, b, _ in rows]
wall = [a / b for _, a, _, b in rows]
med = lambda xs: statistics.median(xs)
print(f"{name}: contained / in process, {len(rows)} pairs: CPU {med(cpu):.3f} "
      f"({min(cpu):.3f} to {max(cpu):.3f}), wall {med(wall):.3f} ({min(wall):.3f} to "
      f"{max(wall):.3f}); medians {med([r[0] for r in rows]):.2f} s CPU, "
      f"{med([r[1] for r in rows]):.2f} s wall contained")
PY
}

printf '%s\n' "[sweep]" "model = $PLUGIN_DIR/boundary/libboundary_clean.so" "[axis.x]" \
    "from = 0" "to = 3999" "count = 4000" "[axis.y]" "from = 0" "to = 2499" "count = 2500" \
    >cheap.ini
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
measure "cheap plug-in sweep (10^7 points)" cheap.ini
if [ -n "${FORCED_STOP:-}" ]; then
    sed "s|^model = .*|model = $FORCED_STOP|" "$example/forced_stop.ini" >forced_stop.ini
    measure "examples/forced_stop (2400 points)" forced_stop.ini
fi
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
