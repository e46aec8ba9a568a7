#!/usr/bin/env bash
# bench_stop_map.sh: issue 27's map figure. The paper's stop-oscillator regime map as given
# (jobs/stop_regime_map.ini at 200 x 200, t_end 500, orbit_t_max 20) on one core, by
# impactsweep (one rank, no mpiexec: the whole process, start-up and file included) and by
# the peer (peer_stop_map.c: an event-driven C program on the same closed-form flows that a
# researcher would write in a day), each also with the orbit search off (orbit_t_max = 0;
# the peer: its fourth argument 0), which gives the orbit search's share of the map's time
# and the kernels' ratio. The four run in turn, ROUNDS times, so that a shared machine's
# load hits them alike; times are CPU seconds (user + system) of the whole process, with
# the wall-clock time beside them; each figure is the median over the rounds, each ratio
# the median of the rounds' ratios. The last lines are the figures bench.sh reports:
#   map ratio <x> (impactsweep <s> s, peer <s> s of CPU)
#   kernel ratio <x> (orbit search off: impactsweep <s> s, peer <s> s of CPU)
#   orbit share <fraction> (of impactsweep's map time)
# and the points' mean rebound count from each (they agree to rounding: long runs near
# grazing are sensitive to the last bits of the flows).
# Usage: bench_stop_map.sh PEER_BINARY   from the environment: IMPACTSWEEP (required),
#   JOBS (required), ROUNDS (default 3), SIDE (default 200).
set -euo pipefail
peer=${1:?usage: bench_stop_map.sh PEER_BINARY}
: "${IMPACTSWEEP:?}" "${JOBS:?}"
rounds=${ROUNDS:-3}
side=${SIDE:-200}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
job=(run "$JOBS/stop_regime_map.ini" --set "axis.k12.count=$side"
     --set "axis.epsilon.count=$side" --overwrite -q)

# timed NAME CMD...: runs CMD; appends "cpu wall" to $work/NAME; its output to NAME.out
timed() {
    local name=$1
    shift
    local start end
    start=$(date +%s.%N)
    TIMEFORMAT='%3U %3S'
    { time "$@" >"$work/$name.out" 2>&1; } 2>"$work/$name.time"
    end=$(date +%s.%N)
    awk -v a="$start" -v b="$end" '{ print $1 + $2, b - a }' "$work/$name.time" >>"$work/$name"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
col() { awk -v c="$2" '{ print $c }' "$work/$1"; }

for ((i = 1; i <= rounds; i++)); do
    timed is "$IMPACTSWEEP" "${job[@]}" -o "$work/map.h5"
    timed peer "$peer" "$side" "$side" 500 20
    timed is0 "$IMPACTSWEEP" "${job[@]}" --set model.orbit_t_max=0 -o "$work/map0.h5"
    timed peer0 "$peer" "$side" "$side" 500 0
    paste "$work/is" "$work/peer" | tail -1 | awk '{ print $3 / $1 }' >>"$work/ratio"
    paste "$work/is0" "$work/peer0" | tail -1 | awk '{ print $3 / $1 }' >>"$work/ratio0"
    paste "$work/is0" "$work/is" | tail -1 | awk '{ print 1 - $1 / $3 }' >>"$work/share"
    paste "$work/is" "$work/peer" "$work/is0" "$work/peer0" | tail -1 | awk -v i="$i" '{
        printf "round %d: CPU (wall) s: impactsweep %.3f (%.2f), peer %.3f (%.2f); orbit " \
               "search off: %.3f (%.2f), %.3f (%.2f)\n", i, $1, $2, $3, $4, $5, $6, $7, $8 }'
done
cat "$work/peer.out"
is_rebounds=$("$IMPACTSWEEP" info "$work/map.h5" | awk '$1 == "rebounds" { print $3 }')
echo "impactsweep: rebounds mean $is_rebounds; $("$IMPACTSWEEP" info "$work/map.h5" |
    grep -E '^  regime ' | sed 's/^ *//')"
printf 'map ratio %.3g (impactsweep %.3f s, peer %.3f s of CPU; median of %d rounds)\n' \
    "$(median <"$work/ratio")" "$(col is 1 | median)" "$(col peer 1 | median)" "$rounds"
printf 'kernel ratio %.3g (orbit search off: impactsweep %.3f s, peer %.3f s of CPU)\n' \
    "$(median <"$work/ratio0")" "$(col is0 1 | median)" "$(col peer0 1 | median)"
printf 'orbit share %.3f (of impactsweep map time: %.3f s with, %.3f s without)\n' \
    "$(median <"$work/share")" "$(col is 1 | median)" "$(col is0 1 | median)"
