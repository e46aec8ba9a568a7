#!/usr/bin/env bash
# bench.sh: the chatter benchmarks. (1) impacts per second per core of the batch kernel
# in the chattering regime (bench_chatter); (2) parallel efficiency of 2 ranks against 1
# on the same sweep, from the engine's own "computed N in T s" line, median of 3 runs.
# Aims (issue 2): >= 1e8 impacts/s/core, efficiency >= 0.9 on 2 cores; (issue 13)
# >= 3.5e8 impacts/s/core at n = 4, rho = 0.3, gamma = 0.1.
# (3) CoR evaluations per second per core of the collision model, and the error reached.
# Aims (issue 3): >= 5e4 evaluations/s/core with |error in e| < 1e-8 at rtol 1e-8.
# (4) rebounds simulated per second per core by the stop oscillator (aim, issue 4: >= 1e7).
# Usage: bench.sh PATH/TO/bench_chatter PATH/TO/bench_collision PATH/TO/bench_stop
#        (IMPACTSWEEP, MPIEXEC, JOBS from the environment)
set -euo pipefail
bench_chatter=$1
bench_collision=${2:-}
bench_stop=${3:-}
: "${IMPACTSWEEP:?}" "${MPIEXEC:?}" "${JOBS:?}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ -n "$bench_collision" ]; then
    echo "== collision: CoR evaluations per second per core"
    "$bench_collision" bwshc 1e-8 20000 5
fi
if [ -n "$bench_stop" ]; then
    echo "== stop oscillator: rebounds per second per core"
    "$bench_stop" 5
fi
echo "== kernel: impacts per second per core"
"$bench_chatter" 4 0.3 0.1 20000 200 9

# A chattering sweep (every drop takes its whole budget), ~5 s on one core. Runs of 1 and
# 2 ranks alternate, so that drifts of a shared machine hit both alike; medians of 5.
job=(run "$JOBS/bench_chatter.ini" --overwrite --progress lines)
seconds_of() { sed -n 's/.* in \([0-9.]*\) s on .*/\1/p' "$1"; }
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
one_rank() { "$IMPACTSWEEP" "${job[@]}" --output "$work/$1.h5" >/dev/null 2>"$work/$1.log"; seconds_of "$work/$1.log"; }
two_ranks() {
    "$MPIEXEC" ${MPIEXEC_FLAGS:-} -n 2 "$IMPACTSWEEP" "${job[@]}" --output "$work/r2.h5" \
        >/dev/null 2>"$work/r2.log"
    seconds_of "$work/r2.log"
}
echo "== parallel efficiency, 2 ranks against 1 ($(nproc) cores)"
: >"$work/t1"; : >"$work/t2"; : >"$work/tc"
for i in 1 2 3 4 5; do
    one_rank r1 >>"$work/t1"
    two_ranks >>"$work/t2"
done
# The machine's own ceiling: two independent 1-rank runs at once. Where the two cores
# share a clock or a cache this is below 1, and no scheduler can beat it.
for i in 1 2 3; do
    one_rank c1 >"$work/c1" & one_rank c2 >"$work/c2"; wait
    cat "$work/c1" "$work/c2" >>"$work/tc"
done
t1=$(median <"$work/t1"); t2=$(median <"$work/t2"); tc=$(median <"$work/tc")
echo "1 rank: $(tr '\n' ' ' <"$work/t1")s; 2 ranks: $(tr '\n' ' ' <"$work/t2")s"
echo "median compute time: 1 rank ${t1} s, 2 ranks ${t2} s; two 1-rank runs at once ${tc} s each"
awk -v a="$t1" -v b="$t2" -v c="$tc" 'BEGIN {
    printf "speed-up %.3f, parallel efficiency %.3f (machine ceiling %.3f)\n", a / b, a / (2 * b), a / c }'
"$(dirname "$IMPACTSWEEP")/tests/h5compare" "$work/r1.h5" "$work/r2.h5" >/dev/null 2>&1 &&
    echo "1-rank and 2-rank results identical" || echo "(h5compare unavailable or files differ)"
