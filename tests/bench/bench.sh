#!/usr/bin/env bash
# bench.sh: the benchmarks of issues 13 and 26, each figure printed next to its aim and, where a
# peer written by hand can be built from Debian packages, next to the peer measured in the
# same run (the ratio is what the issue aims at).
# (1) chatter: impacts per second per core of the batch kernel in its chattering regime
#     (n = 4, rho = 0.3, gamma = 0.1, 200 impacts per drop, 20000 drops; bench_chatter).
#     Aims: >= 3.5e8, and >= 3.5x the numba scalar loop (peer_numba_chatter.py, run by
#     /usr/bin/python3 when `import numba` works: Debian's python3-numba).
# (2) collision: CoR evaluations per second per core at error < 1e-8 on the bench point
#     (bwshc, pi1 0.5, pi2 1, pi3 0.5, n 1, p 1.5, alpha 0.5, A 1; bench_collision).
#     Aims: >= 2.5e5 (about 30x the GSL odeiv2 rk8pd loop, peer_gsl_collision, built when
#     CMake finds GSL: Debian's libgsl-dev), >= 1e5 with general exponents.
# (3) stop oscillator: rebounds per second per core (bench_stop). Aims: >= 2e7 on Zeno
#     sequences, >= 4e6 on long impacting runs.
# (4) 2 ranks against 1 on jobs/bench_chatter.ini, from the engine's own "computed N in T s"
#     line. Aim: parallel efficiency >= 0.95 of the machine's ceiling, measured in the same
#     rounds: two 1-rank runs at once, pinned to the cores mpiexec binds its two ranks to.
# (5) the stop oscillator's map (issue 27): jobs/stop_regime_map.ini at 200 x 200, t_end 500,
#     one core, against the C peer (peer_stop_map.c, PEER_STOP; bench_stop_map.sh, CPU
#     seconds of the whole processes, medians of STOP_MAP_ROUNDS rounds, default 3). Aim:
#     >= 5x the peer; the kernels' ratio (orbit search off) and the orbit search's share
#     of the map's time beside it.
# (6) issue 26 (the lane layer): chatter and the stop oscillator against a build from before
#     it, run by run in turn (BASE_BENCH_CHATTER, BASE_BENCH_STOP: that build's
#     bench_chatter and bench_stop; unset: skipped), LANES_ROUNDS pairs (default 9), the
#     median of the pairs' ratios of CPU seconds (chatter: the whole process) or of the
#     rates per CPU second bench_stop prints. Aim: >= 0.97 (the speed kept). Beside (2):
#     the collision lanes against the GSL peer per CPU second (aim >= 30x). And the
#     examples' model code in lines (examples/*/NAME.c, tests not counted): forced_stop
#     <= 320, bouncing_ball <= 180 (300 and 150 before issue 30 gave them invariants;
#     integration.install fails beyond them too).
# Rates are per second of wall-clock time, as the benchmarks print them, and where they
# can be had per second of CPU time too (the peers; bench_chatter's and the collision
# lanes' processes): on a shared machine only the latter are comparable between runs.
# bench_collision and bench_stop are parsed loosely (any "<number> <word>/s" is a rate,
# "error in e| <number>" an error, "aim >= <number>" the line's aim, else "general",
# "Zeno", "impacting" name it), so that their own output can change; it is printed first.
# Usage: bench.sh PATH/TO/bench_chatter [PATH/TO/bench_collision [PATH/TO/bench_stop]]
#   from the environment: IMPACTSWEEP, MPIEXEC, JOBS (required); MPIEXEC_FLAGS, H5COMPARE;
#   PEER_GSL (the peer_gsl_collision binary; empty or unset: skipped), PEER_STOP (the
#   peer_stop_map binary; empty or unset: skipped), PEER_NUMBA
#   (peer_numba_chatter.py), PEER_PYTHON (default /usr/bin/python3), BENCH_ROUNDS (rounds
#   of the efficiency measurement, default 5), BASE_BENCH_CHATTER, BASE_BENCH_STOP,
#   LANES_ROUNDS (see (6)).
set -euo pipefail
bench_chatter=$1
bench_collision=${2:-}
bench_stop=${3:-}
: "${IMPACTSWEEP:?}" "${MPIEXEC:?}" "${JOBS:?}"
peer_gsl=${PEER_GSL:-}
peer_numba=${PEER_NUMBA:-$(dirname "$0")/peer_numba_chatter.py}
python=${PEER_PYTHON:-/usr/bin/python3}
rounds=${BENCH_ROUNDS:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
summary=$work/summary
: >"$summary"

load() { cut -d' ' -f1-3 /proc/loadavg; }
# The rate of a line: the first number followed by a word ending in "/s", else the number
# after "median". Its error: the number after "error in e".
num='[0-9][0-9.]*([eE][-+]?[0-9]+)?'
rate_of() {
    local m
    m=$(grep -oE "$num *[A-Za-z]+/s" <<<"$1" | head -1 || true)
    [ -n "$m" ] || m=$(grep -oE "median $num" <<<"$1" | head -1 || true)
    grep -oE "$num" <<<"${m#median }" | head -1 || true
}
# The aim of a line: the number after "aim >=" in it; empty when other lines of FILE name
# aims and this one does not; "none" when no line does (then bench.sh knows the aims).
aim_of() {
    local a
    a=$(grep -oE "aim >= *$num" <<<"$1" | grep -oE "$num\$" | head -1 || true)
    if [ -n "$a" ]; then echo "$a"; elif grep -q "aim >=" "$2"; then echo; else echo none; fi
}
error_of() { grep -oE "error in e[|: =]*$num" <<<"$1" | grep -oE "$num\$" | head -1 || true; }
# figure NAME VALUE UNIT AIM [NOTE]: one line of the summary, the figure against its aim
# (AIM empty: none).
figure() {
    awk -v name="$1" -v v="$2" -v unit="$3" -v aim="$4" -v note="${5:-}" 'BEGIN {
        line = sprintf("%-44s %10.3g %-16s", name, v, unit)
        if (aim != "")
            line = line sprintf(" aim >= %-8.3g %s (%.2f of it)", aim,
                                v >= aim ? "met    " : "NOT met", v / aim)
        print line (note != "" ? "  " note : "") }' | tee -a "$summary"
}
# budget NAME VALUE UNIT MAX: a figure whose aim is an upper bound.
budget() {
    awk -v name="$1" -v v="$2" -v unit="$3" -v max="$4" 'BEGIN {
        printf "%-44s %10d %-16s aim <= %-8d %s\n", name, v, unit, max,
               v <= max ? "met" : "NOT met" }' | tee -a "$summary"
}
quot() { awk -v a="$1" -v b="$2" 'BEGIN { print a / b }'; } # a / b, all its digits
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3g", a / b }'; }

# The share of the CPUs that other work keeps busy, over one second before anything runs.
cpu_busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6 }' /proc/stat; }
b0=$(cpu_busy); sleep 1; b1=$(cpu_busy)
busy_start=$(awk -v a="$b0" -v b="$b1" 'BEGIN { split(a, x, " "); split(b, y, " ")
    d = (y[1] - x[1]) + (y[2] - x[2]); print (d > 0 ? (y[1] - x[1]) / d : 0) }')
echo "== load average at the start: $(load) ($(nproc) cores; $(awk -v b="$busy_start" \
    'BEGIN { printf "%.0f%%", 100 * b }') of the CPUs busy over the last second)"

# --- (1) chatter ------------------------------------------------------------------------
echo "== chatter: impacts per second per core"
# Its CPU time too (the whole process: 9 batches of 20000 drops, and the set-up), since a
# shared machine's load lowers rates per wall-clock second, not per CPU second.
TIMEFORMAT='%3U %3S'
{ time "$bench_chatter" 4 0.3 0.1 20000 200 9 >"$work/chatter"; } 2>"$work/chatter.time"
cat "$work/chatter"
chatter_rate=$(rate_of "$(grep -i 'per second' "$work/chatter")")
chatter_pcc=$(sed -n 's/.*(p_cc \([0-9.]*\).*/\1/p' "$work/chatter")
chatter_cpu=$(awk -v i="$(sed -n 's/.* x \([0-9.]*\) impacts.*/\1/p' "$work/chatter")" \
    'END { print 9 * 20000 * i / ($1 + $2) }' "$work/chatter.time")
figure "chatter impacts/s/core (bench point)" "$chatter_rate" "" 3.5e8
figure "  per second of CPU time" "$chatter_cpu" "" 3.5e8
if "$python" -c 'import numba' 2>/dev/null; then
    echo "-- peer: numba scalar loop ($python $(basename "$peer_numba"))"
    "$python" "$peer_numba" 4 0.3 0.1 20000 200 5 | tee "$work/numba"
    numba_rate=$(rate_of "$(grep -i 'per second' "$work/numba")")
    numba_cpu=$(grep -oE "$num per second of CPU" "$work/numba" | grep -oE "^$num" || true)
    numba_pcc=$(sed -n 's/.*(p_cc \([0-9.]*\).*/\1/p' "$work/numba")
    figure "  numba peer impacts/s/core" "$numba_rate" "" "" \
        "p_cc $numba_pcc (impactsweep $chatter_pcc)"
    figure "  chatter / numba" "$(ratio "$chatter_rate" "$numba_rate")" "x" 3.5
    [ -z "$numba_cpu" ] || figure "  chatter / numba, per CPU second" \
        "$(ratio "$chatter_cpu" "$numba_cpu")" "x" 3.5 "numba $numba_cpu impacts per CPU second"
else
    echo "numba peer: skipped: install python3-numba (for $python)" | tee -a "$summary"
fi

# --- (2) collision ----------------------------------------------------------------------
gsl_rate='' gsl_cpu='' lanes_rate=''
if [ -n "$peer_gsl" ] && [ -x "$peer_gsl" ]; then
    echo "== collision peer: GSL odeiv2 rk8pd, separation by bisection"
    "$peer_gsl" 2000 5 | tee "$work/gsl"
    gsl_rate=$(rate_of "$(grep -i 'per second' "$work/gsl")")
    gsl_cpu=$(grep -oE "$num per second of CPU" "$work/gsl" | grep -oE "^$num" || true)
    figure "collision GSL peer CoR/s/core" "$gsl_rate" "" "" \
        "|error in e| $(error_of "$(head -1 "$work/gsl")"); ${gsl_cpu:-?} per CPU second"
else
    echo "collision GSL peer: skipped: install libgsl-dev (and configure again)" |
        tee -a "$summary"
fi
if [ -n "$bench_collision" ]; then
    echo "== collision: CoR evaluations per second per core"
    "$bench_collision" bwshc 1e-8 4000 5 | tee "$work/collision"
    while IFS= read -r line; do
        r=$(rate_of "$line")
        [ -n "$r" ] || continue
        e=$(error_of "$line")
        name=$(sed -E "s/^ *//; s/ +rtol .*//; s/ *$num *[A-Za-z]+\/s.*//; s/ *:\$//; s/  +/ /g" \
            <<<"$line" | cut -c1-34)
        aim=$(aim_of "$line" "$work/collision")
        [ "$aim" != none ] || { grep -qi general <<<"$line" && aim=1e5 || aim=2.5e5; }
        [ "$aim" != "" ] || aim=none
        note=${e:+|error in e| $e}
        # bench_collision's rates are per CPU second where its line says so: the peer's
        # rate of the same kind is the one to divide by
        peer=$gsl_rate
        grep -q "CPU time" <<<"$line" && peer=${gsl_cpu:-}
        if [ -n "$peer" ] && ! grep -qi general <<<"$line"; then
            note="$note; $(ratio "$r" "$peer")x GSL"
        fi
        grep -q "lanes" <<<"$line" && ! grep -qi general <<<"$line" && lanes_rate=$r
        figure "collision $name" "$r" "CoR/s/core" "${aim#none}" "$note"
    done <"$work/collision"
    if [ -n "${lanes_rate:-}" ] && [ -n "${gsl_cpu:-}" ] &&
        grep "lanes" "$work/collision" | grep -q "CPU time"; then
        figure "  collision lanes / GSL peer, per CPU second" "$(ratio "$lanes_rate" "$gsl_cpu")" \
            "x" 30 "both at |error in e| < 1e-8 on the bench point"
    fi
    # The lanes alone on the bench point, timed by CPU (5 x 4000 evaluations; the two
    # reference points and the set-up count too), where bench_collision offers it.
    if grep -q "lanes" "$work/collision"; then
        { time "$bench_collision" bwshc 1e-8 4000 5 lanes-bench >"$work/lanes"; } \
            2>"$work/lanes.time" || true
        if [ "$(grep -c "/s" "$work/lanes")" = 1 ]; then
            lanes_cpu=$(awk 'END { print 5 * 4000 / ($1 + $2) }' "$work/lanes.time")
            figure "  the lanes' whole process, per CPU second" "$lanes_cpu" "CoR/s/core" "" \
                "references and set-up included${gsl_cpu:+; $(ratio "$lanes_cpu" "$gsl_cpu")x GSL}"
        fi
    fi
fi

# --- (3) stop oscillator ----------------------------------------------------------------
if [ -n "$bench_stop" ]; then
    echo "== stop oscillator: rebounds per second per core"
    "$bench_stop" 5 | tee "$work/stop"
    while IFS= read -r line; do
        r=$(rate_of "$line")
        [ -n "$r" ] || continue
        aim=$(aim_of "$line" "$work/stop")
        if [ "$aim" = none ]; then
            aim=
            grep -qi zeno <<<"$line" && aim=2e7
            grep -qi impacting <<<"$line" && aim=4e6
        fi
        name=$(sed 's/^stop oscillator, *//; s/ *[(:].*//' <<<"$line" | cut -c1-26)
        figure "stop $name" "$r" "rebounds/s/core" "$aim"
    done <"$work/stop"
fi

# --- (4) 2 ranks against 1 --------------------------------------------------------------
# A chattering sweep, ~4 s on one core: every drop takes its whole budget (early_stop = 0:
# no drop stops where complete chatter is proven). Each round runs
# 1 rank, 2 ranks, and two 1-rank runs at once (the ceiling), so that the drifts of a
# shared machine hit all three alike; the ratio to the ceiling is taken within each round
# (two 1-rank runs at once take tc each: 2 ranks at the ceiling take tc / 2), and its
# median reported. The two runs of the ceiling are pinned to cores 0 and 1, as mpiexec
# binds its two ranks (where taskset and two cores are there).
job=(run "$JOBS/bench_chatter.ini" --set model.early_stop=0 --overwrite --progress lines)
seconds_of() { sed -n 's/.* in \([0-9.]*\) s on .*/\1/p' "$1"; }
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
one_rank() { # one_rank NAME [CPU]
    local pin=()
    [ -n "${2:-}" ] && command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ] &&
        pin=(taskset -c "$2")
    "${pin[@]}" "$IMPACTSWEEP" "${job[@]}" --output "$work/$1.h5" >/dev/null 2>"$work/$1.log"
    seconds_of "$work/$1.log"
}
two_ranks() {
    "$MPIEXEC" ${MPIEXEC_FLAGS:-} -n 2 "$IMPACTSWEEP" "${job[@]}" --output "$work/r2.h5" \
        >/dev/null 2>"$work/r2.log"
    seconds_of "$work/r2.log"
}
echo "== 2 ranks against 1 ($(nproc) cores), $rounds rounds; load average $(load)"
: >"$work/t1"; : >"$work/t2"; : >"$work/tc"; : >"$work/ratio"
for ((i = 1; i <= rounds; i++)); do
    a=$(one_rank r1)
    b=$(two_ranks)
    one_rank c1 0 >"$work/c1" & one_rank c2 1 >"$work/c2"; wait
    c=$(awk '{ s += $1 } END { print s / NR }' "$work/c1" "$work/c2")
    echo "$a" >>"$work/t1"; echo "$b" >>"$work/t2"; echo "$c" >>"$work/tc"
    awk -v b="$b" -v c="$c" 'BEGIN { print c / (2 * b) }' >>"$work/ratio"
    awk -v a="$a" -v b="$b" -v c="$c" -v l="$(load)" 'BEGIN { printf "round %d: 1 rank %.2f s, " \
        "2 ranks %.2f s, two 1-rank runs at once %.2f s each: efficiency %.3f, ceiling %.3f, " \
        "ratio %.3f (load %s)\n", '"$i"', a, b, c, a / (2 * b), a / c, c / (2 * b), l }'
done
t1=$(median <"$work/t1"); t2=$(median <"$work/t2"); tc=$(median <"$work/tc")
r=$(median <"$work/ratio")
echo "median compute time: 1 rank ${t1} s, 2 ranks ${t2} s; two 1-rank runs at once ${tc} s each"
spread=$(sort -g "$work/ratio" | awk '{ v[NR] = $1 } END { printf "%.3f to %.3f", v[1], v[NR] }')
eff=$(awk -v a="$t1" -v b="$t2" 'BEGIN { print a / (2 * b) }')
ceiling=$(ratio "$t1" "$tc")
figure "2 ranks vs 1: parallel efficiency" "$eff" "" "" "medians of $rounds rounds"
figure "  machine ceiling (two 1-rank runs)" "$ceiling" "" ""
figure "  efficiency / ceiling" "$r" "" 0.95 "median of the rounds' ratios ($spread)"
"${H5COMPARE:-$(dirname "$IMPACTSWEEP")/tests/h5compare}" "$work/r1.h5" "$work/r2.h5" \
    >/dev/null 2>&1 && echo "1-rank and 2-rank results identical" ||
    echo "(h5compare unavailable or the 1-rank and 2-rank files differ)"
# --- (5) the stop oscillator's map against the C peer ----------------------------------
peer_stop=${PEER_STOP:-}
if [ -n "$peer_stop" ] && [ -x "$peer_stop" ]; then
    echo "== stop oscillator map: jobs/stop_regime_map.ini, 200 x 200, t_end 500, one core"
    ROUNDS=${STOP_MAP_ROUNDS:-3} bash "$(dirname "$0")/bench_stop_map.sh" "$peer_stop" |
        tee "$work/stopmap"
    map_line=$(grep '^map ratio' "$work/stopmap")
    kernel_line=$(grep '^kernel ratio' "$work/stopmap")
    share_line=$(grep '^orbit share' "$work/stopmap")
    note() { local n=${1#* (}; echo "${n%)}"; } # what the line says in parentheses
    figure "stop map: impactsweep / C peer, CPU" "$(grep -oE "$num" <<<"$map_line" | head -1)" \
        "x" 5 "$(note "$map_line")"
    figure "  kernels, orbit search off" "$(grep -oE "$num" <<<"$kernel_line" | head -1)" \
        "x" "" "$(note "$kernel_line")"
    figure "  orbit search's share of the map" "$(grep -oE "$num" <<<"$share_line" | head -1)" \
        "" "" "$(note "$share_line")"
else
    echo "stop map peer: skipped (PEER_STOP unset)" | tee -a "$summary"
fi

# --- (6) issue 26: the lane layer ------------------------------------------------------
lanes_rounds=${LANES_ROUNDS:-9}
pin=()
command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ] && pin=(taskset -c 1)
cpu_of() { # cpu_of OUT CMD...: CMD's CPU seconds (user + sys), its output in OUT
    local out=$1
    shift
    { time "${pin[@]}" "$@" >"$out"; } 2>"$out.time"
    awk '{ print $1 + $2 }' "$out.time"
}
# median_spread FILE: "median (min to max)" of the numbers in FILE
median_spread() {
    sort -g "$1" | awk '{ v[NR] = $1 } END { printf "%.3f (%.3f to %.3f)", v[int((NR + 1) / 2)],
        v[1], v[NR] }'
}
base_chatter=${BASE_BENCH_CHATTER:-}
if [ -n "$base_chatter" ] && [ -x "$base_chatter" ]; then
    echo "== chatter against the build before the lanes: $lanes_rounds pairs, load $(load)"
    : >"$work/cr"
    args=(4 0.3 0.1 200000 200 5)
    for ((i = 1; i <= lanes_rounds; i++)); do
        a=$(cpu_of "$work/ca" "$bench_chatter" "${args[@]}")
        b=$(cpu_of "$work/cb" "$base_chatter" "${args[@]}")
        quot "$b" "$a" >>"$work/cr"
    done
    m=$(median_spread "$work/cr")
    figure "chatter speed / before the lanes" "${m%% *}" "CPU" 0.97 "pairs ${m#* }"
else
    echo "chatter against before the lanes: skipped (BASE_BENCH_CHATTER unset)" | tee -a "$summary"
fi
base_stop=${BASE_BENCH_STOP:-}
if [ -n "$bench_stop" ] && [ -n "$base_stop" ] && [ -x "$base_stop" ]; then
    echo "== stop oscillator against the build before the lanes: $lanes_rounds pairs, load $(load)"
    : >"$work/sz"; : >"$work/si"; : >"$work/sp"
    stop_rate() { grep "$1" "$2" | grep -oE "$num rebounds/s" | grep -oE "^$num" || true; }
    for ((i = 1; i <= lanes_rounds; i++)); do
        a=$(cpu_of "$work/sa" "$bench_stop" 9)
        b=$(cpu_of "$work/sb" "$base_stop" 9)
        quot "$b" "$a" >>"$work/sp"
        quot "$(stop_rate Zeno "$work/sa")" "$(stop_rate Zeno "$work/sb")" >>"$work/sz"
        quot "$(stop_rate impacting "$work/sa")" "$(stop_rate impacting "$work/sb")" >>"$work/si"
    done
    for w in sz:"Zeno, eval_batch" si:"impacting, eval_batch" sp:"the whole bench_stop"; do
        m=$(median_spread "$work/${w%%:*}")
        figure "stop ${w#*:} / before the lanes" "${m%% *}" "CPU" 0.97 "pairs ${m#* }"
    done
else
    echo "stop oscillator against before the lanes: skipped (BASE_BENCH_STOP unset)" |
        tee -a "$summary"
fi
examples=$(dirname "$0")/../../examples
for e in forced_stop:320 bouncing_ball:180; do
    f=$examples/${e%%:*}/${e%%:*}.c
    [ -f "$f" ] && budget "${e%%:*} model code" "$(wc -l <"$f")" "lines" "${e#*:}"
done

echo "== load average at the end: $(load)"

echo "== issues 13 and 26: each figure against its aim"
cat "$summary"
awk -v busy="$busy_start" 'BEGIN { if (busy > 0.25)
    printf "(other work kept %.0f%% of the CPUs busy as this began: the wall-clock figures " \
           "and the efficiency are unreliable; trust the per-CPU-second lines)\n", 100 * busy }'
