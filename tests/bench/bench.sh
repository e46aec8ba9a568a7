#!/usr/bin/env bash
# bench.sh: the chatter benchmarks. (1) impacts per second per core of the batch kernel
# in the chattering regime (bench_chatter); (2) parallel efficiency of 2 ranks against 1
# on the same sweep, from the engine's own "computed N in T s" line, median of 3 runs.
# Aims (issue 2): >= 1e8 impacts/s/core, efficiency >= 0.9 on 2 cores.
# Usage: bench.sh PATH/TO/bench_chatter   (IMPACTSWEEP, MPIEXEC, JOBS from the environment)
set -euo pipefail
bench_chatter=$1
: "${IMPACTSWEEP:?}" "${MPIEXEC:?}" "${JOBS:?}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== kernel: impacts per second per core"
"$bench_chatter" 4 0.3 0.1 20000 200 9

# A chattering sweep (every drop takes its whole budget) of ~10 s on one core.
job=(run "$JOBS/bench_chatter.ini" --overwrite --progress lines)
seconds_of() { sed -n 's/.* in \([0-9.]*\) s on .*/\1/p' "$1"; }
median() { sort -g | sed -n "$(( ($# + 1) / 2 ))p"; }
run_times() { # ranks -> prints 3 timings
    for i in 1 2 3; do
        if [ "$1" = 1 ]; then
            "$IMPACTSWEEP" "${job[@]}" --output "$work/r1.h5" >/dev/null 2>"$work/log"
        else
            "$MPIEXEC" ${MPIEXEC_FLAGS:-} -n "$1" "$IMPACTSWEEP" "${job[@]}" \
                --output "$work/r$1.h5" >/dev/null 2>"$work/log"
        fi
        seconds_of "$work/log"
    done
}
echo "== parallel efficiency, 2 ranks against 1 ($(nproc) cores)"
t1=$(run_times 1 | sort -g | sed -n 2p)
t2=$(run_times 2 | sort -g | sed -n 2p)
echo "median compute time: 1 rank ${t1} s, 2 ranks ${t2} s"
awk -v a="$t1" -v b="$t2" 'BEGIN { printf "speed-up %.3f, parallel efficiency %.3f\n", a / b, a / (2 * b) }'
"$(dirname "$IMPACTSWEEP")/tests/h5compare" "$work/r1.h5" "$work/r2.h5" >/dev/null 2>&1 &&
    echo "1-rank and 2-rank results identical" || echo "(h5compare unavailable or files differ)"
