#!/usr/bin/env bash
# bench_pieces.sh: the balance of job-array pieces, measured: the grid of a job is cut
# into N pieces of equal size (`--piece I/N`) and into N pieces of equal estimated cost
# (`run --dry-run --pieces N`, what `slurm/submit --array N` does), every piece is run on
# one rank, and the slowest piece's time is set against the mean (1.00: perfectly even;
# an array's wall time is its slowest piece's). Not part of ctest (minutes).
#
#   tests/bench/bench_pieces.sh [JOB.ini [N ...]]   (default jobs/collision_bwm_surface.ini, 4 16)
#
# Environment: IMPACTSWEEP (default build/impactsweep), ROUNDS (3: each piece's time is
# the median of its rounds), OUT (a directory for the files, default a new one, removed).
# A piece's time is its CPU time (user + system, from /usr/bin/time: steadier than wall
# time on a shared machine) less the start-up (the CPU time of a run of one point), and,
# for comparison, the computing time the run reports (wall). Where the model has an
# output `steps` (collision: integrator steps), the pieces' sums of it (from one run of
# the whole grid) give a third, noise-free measure of their work.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${IMPACTSWEEP:-$ROOT/build/impactsweep}
JOB=${1:-$ROOT/jobs/collision_bwm_surface.ini}
[ $# -gt 0 ] && shift
COUNTS=("$@")
[ ${#COUNTS[@]} -gt 0 ] || COUNTS=(4 16)
ROUNDS=${ROUNDS:-3}
OUT=${OUT:-}
if [ -z "$OUT" ]; then
    OUT=$(mktemp -d /tmp/bench_pieces.XXXXXX)
    trap 'rm -rf "$OUT"' EXIT
fi

# piece_times PIECE_ARG: "cpu computing first points" of one run of that piece
piece_times() {
    local err=$OUT/piece.err
    /usr/bin/time -f "cpu %U %S" "$BIN" run "$JOB" --piece "$1" --output "$OUT/piece.h5" \
        --overwrite --progress lines >/dev/null 2>"$err" || { tail -n 5 "$err" >&2; exit 1; }
    awk '/^cpu / { cpu = $2 + $3 } /this run computed/ { for (i = 1; i < NF; i++)
             if ($i == "in" && $(i + 2) == "s") wall = $(i + 1) }
         END { printf "%.3f %.3f\n", cpu, wall }' "$err"
}

# balance NAME ARG...: runs the pieces ROUNDS times; prints slowest/mean of the medians
# (of CPU less start-up, of computing time, and of the steps of the pieces' points, from
# whole.h5 and the bounds in $OUT/bounds)
balance() {
    local name=$1 r i
    shift
    : >"$OUT/times"
    for ((r = 0; r < ROUNDS; r++)); do
        for ((i = 1; i <= $#; i++)); do echo "$i $(piece_times "${!i}")" >>"$OUT/times"; done
    done
    /usr/bin/python3 "$OUT/balance.py" "$OUT/times" "$name" "$startup" "$OUT/whole.h5" "$OUT/bounds"
}

cat >"$OUT/balance.py" <<'EOF'
import statistics, sys
import h5py, numpy as np
times, name, startup, whole, bounds = sys.argv[1:6]
rows = [line.split() for line in open(times)]
pieces = sorted({int(r[0]) for r in rows})
def ratio(col, less=0.0):
    med = [max(statistics.median(float(r[col]) for r in rows if int(r[0]) == p) - less, 1e-3)
           for p in pieces]
    return max(med) / statistics.mean(med), med
cpu, cpu_med = ratio(1, float(startup))
wall, _ = ratio(2)
steps = ""
with h5py.File(whole, "r") as f:
    if "steps" in f:
        work = np.asarray(f["steps"][()], dtype=float).ravel()
        b = [int(x) for x in open(bounds).read().split()]
        sums = [work[b[i]:b[i + 1]].sum() for i in range(len(b) - 1)]
        steps = f", steps {max(sums) / np.mean(sums):.2f}"
print(f"  {name:<20} slowest/mean: cpu {cpu:.2f}, computing {wall:.2f}{steps}; "
      f"pieces' cpu s: {' '.join(f'{t:.2f}' for t in cpu_med)}")
EOF

echo "bench_pieces: $JOB, $ROUNDS rounds, $(nproc) cores, $(date -u +%FT%TZ)"
"$BIN" run "$JOB" --output "$OUT/whole.h5" --overwrite --quiet
points=$(/usr/bin/python3 -c 'import h5py, sys; print(int(h5py.File(sys.argv[1], "r").attrs["grid_points"]))' "$OUT/whole.h5")
startups=()
for ((r = 0; r < ROUNDS; r++)); do startups+=("$(piece_times "0/$points:0-0" | cut -d' ' -f1)"); done
startup=$(printf '%s\n' "${startups[@]}" | sort -n | sed -n "$(((ROUNDS + 1) / 2))p")
echo "start-up (a run of one point): $startup s of CPU"
for n in "${COUNTS[@]}"; do
    plan=$("$BIN" run "$JOB" --dry-run --pieces "$n" --output "$OUT/plan.h5")
    echo "$n pieces: $(echo "$plan" | sed -n 's/^pieces: *//p')"
    read -r -a b <<<"$(echo "$plan" | sed -n 's/^piece bounds: *//p')"
    equal=() cost=()
    for ((i = 0; i < n; i++)); do
        equal+=("$i/$n")
        cost+=("$i/$n:${b[$i]}-$((b[i + 1] - 1))")
    done
    # the equal-size pieces' bounds: each piece's first point, as its file records it
    for ((i = 0; i < n; i++)); do
        "$BIN" run "$JOB" --piece "$i/$n" --output "$OUT/p$i.h5" --overwrite --quiet
    done
    /usr/bin/python3 -c 'import h5py, sys
b = [int(h5py.File(p, "r").attrs["piece_first"]) for p in sys.argv[2:]]
print(" ".join(str(x) for x in b + [int(sys.argv[1])]))' "$points" \
        $(for ((i = 0; i < n; i++)); do echo "$OUT/p$i.h5"; done) >"$OUT/bounds"
    balance "equal size" "${equal[@]}"
    echo "${b[*]}" >"$OUT/bounds"
    balance "equal estimated cost" "${cost[@]}"
done
