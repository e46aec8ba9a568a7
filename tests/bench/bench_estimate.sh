#!/usr/bin/env bash
# bench_estimate.sh: `run --dry-run`'s cost estimate against the measured CPU time of the
# same job run on one rank, one job per model (chatter; collision with CVODE and with the
# DOPRI5 lanes; the stop oscillator): the median of REPEATS dry runs, their spread, and
# the ratio estimate / measured. Not part of ctest (a few minutes).
#
#   tests/bench/bench_estimate.sh
#
# Environment: IMPACTSWEEP (default build/impactsweep), REPEATS (dry runs a job, 5), RUNS
# (runs a job, 2), OUT (a directory for the files, default a new one under /tmp).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${IMPACTSWEEP:-$ROOT/build/impactsweep}
REPEATS=${REPEATS:-5}
RUNS=${RUNS:-2}
OUT=${OUT:-$(mktemp -d /tmp/bench_estimate.XXXXXX)}
mkdir -p "$OUT"
J=$ROOT/jobs

seconds() { # "2.16 s" or "140 ms" or "3.5 min" -> seconds
    awk '{ f = $1; if ($2 == "us") f /= 1e6; else if ($2 == "ms") f /= 1e3;
           else if ($2 == "min") f *= 60; else if ($2 == "h") f *= 3600;
           else if ($2 == "days") f *= 86400; printf "%.6g\n", f }'
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

check() { # check NAME ARGS...: the job ARGS, REPEATS dry runs against RUNS runs
    local name=$1 estimates="" measured="" i e t
    shift
    for ((i = 0; i < REPEATS; i++)); do
        e=$("$BIN" run "$@" --dry-run --output "$OUT/dry.h5" </dev/null |
            sed -nE 's/^estimate: +(about|at least) ([0-9.e+-]+ [a-z]+) of one core.*/\2/p' | seconds)
        estimates="$estimates$e"$'\n'
    done
    for ((i = 0; i < RUNS; i++)); do
        t=$( { /usr/bin/time -f "%U %S" "$BIN" run "$@" --output "$OUT/$name.h5" --overwrite \
            --quiet </dev/null; } 2>&1 | tail -n 1 | awk '{ print $1 + $2 }')
        measured="$measured$t"$'\n'
    done
    local em mm lo hi
    em=$(printf '%s' "$estimates" | median)
    mm=$(printf '%s' "$measured" | median)
    lo=$(printf '%s' "$estimates" | sort -g | head -n 1)
    hi=$(printf '%s' "$estimates" | sort -g | tail -n 1)
    printf '%-16s estimate %8.3g s (%d dry runs: %.3g to %.3g)  run CPU %8.3g s  estimate/run %.2f\n' \
        "$name" "$em" "$REPEATS" "$lo" "$hi" "$mm" "$(echo "$em / $mm" | bc -l)"
}

check chatter "$J/chatter_fig67_n4.ini" --set axis.rho.count=200 --set axis.gamma.count=200
check collision_cvode "$J/collision_bwm_surface.ini" --set axis.pi1.count=60 \
    --set axis.pi2.count=60
check collision_lanes "$J/collision_bwshc_surface.ini" --set axis.pi1.count=600 \
    --set axis.pi2.count=600
check stop "$J/stop_regime_map.ini" --set axis.k12.count=300 --set axis.epsilon.count=300
echo "files in $OUT"
