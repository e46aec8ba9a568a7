#!/usr/bin/env bash
# bench_refine.sh: refined sweeps ([sweep] refine) against full-grid runs of the same job:
# the points computed (against the grid), the agreement of the class point by point with
# the full grid, and each class's recall (of its points in the full grid, the share the
# refined file gives that class), for each refine output. Not part of ctest (minutes).
#
#   tests/bench/bench_refine.sh [MAP...]
#
# MAP (default: all):
#   band       chatter Fig. 7, n = 4, early_stop 1, 257 x 257: refine = impacts_mean >= 50,
#              a band about 3 points wide along the ICC/CC boundary (issue 21)
#   stop_ks    stop oscillator over (k12, s), epsilon 0.6, x2_0 3, t_end 500, log axes,
#              257 x 257: refine = regime, then regime, t_regime >= 300 (where the regime
#              was proved late, undecided specks live)
#   chatter    chatter Fig. 7 regime map, 1025 x 1025, samples 50, early_stop 1: regime
#   collision  collision outcome (bwm over pi1, pi2), 257 x 257: outcome
#   stop       stop oscillator regime map (k12, epsilon), 257 x 257: regime, then regime,
#              t_regime >= 300
# Each refined at LEVELS (default "3 4 5").
#
# Environment: IMPACTSWEEP (default build/impactsweep), MPIEXEC (mpiexec), RANKS (2),
# PYTHON (/usr/bin/python3, with h5py and numpy), OUT (a directory for the files, default
# a new one under /tmp, kept), LEVELS, and per map its size: BAND_N (257), STOP_KS_N
# (257), CHATTER_N (1025), CHATTER_SAMPLES (50), COLLISION_N (257), STOP_N (257).
# BASELINE: another impactsweep (say main's) whose refined runs of one output are reported
# beside, for the cost against it (`NAME >= T` given to it as refine_threshold). A full grid already in OUT (NAME_full.h5, complete) is reused.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${IMPACTSWEEP:-$ROOT/build/impactsweep}
MPIEXEC=${MPIEXEC:-mpiexec}
RANKS=${RANKS:-2}
PYTHON=${PYTHON:-/usr/bin/python3}
OUT=${OUT:-$(mktemp -d /tmp/bench_refine.XXXXXX)}
LEVELS=${LEVELS:-3 4 5}
BASELINE=${BASELINE:-}
mkdir -p "$OUT"
MAPS=("$@")
[ ${#MAPS[@]} -gt 0 ] || MAPS=(band stop_ks chatter collision stop)

run() { # run BIN FILE ARGS...: the job on RANKS ranks; prints the wall time
    local bin=$1 file=$2 t0 t1
    shift 2
    t0=$(date +%s.%N)
    $MPIEXEC --oversubscribe -n "$RANKS" "$bin" run "$@" --output "$file" --overwrite \
        --progress lines </dev/null >"$file.out" 2>"$file.err" || {
        tail -n 5 "$file.err" >&2
        exit 1
    }
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc
}

compare() { # compare FULL REFINED SPEC: computed fraction, agreement, recall per class
    "$PYTHON" - "$@" <<'EOF'
import sys
import h5py
import numpy as np
full, refined, spec = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r"), sys.argv[3]
st = refined["status"][...]
computed = (st != 7).sum()
line = "computed %5.2f%% (%d of %d)" % (100.0 * computed / st.size, computed, st.size)
every = np.ones(st.shape, bool)
parts = []
for item in spec.split(","):
    name, _, threshold = item.partition(">=")
    name = name.strip()
    a, b = full[name][...], refined[name][...]
    if threshold:
        t = float(threshold)
        classes = lambda v: np.where(np.isnan(v), 2, v >= t)
        names = {0: "<%g" % t, 1: ">=%g" % t, 2: "nan"}
    else:
        meanings = full[name].attrs["flag_meanings"]
        meanings = (meanings.decode() if isinstance(meanings, bytes) else meanings).split()
        classes = lambda v: v
        names = dict(enumerate(meanings))
    ca, cb = classes(a), classes(b)
    every &= ca == cb
    recalls = []
    for c in np.unique(ca):
        mine = ca == c
        recall = (cb[mine] == c).mean()
        recalls.append("%s %d: %.1f%%" % (names.get(int(c), c), mine.sum(), 100 * recall))
    worst = min((cb[ca == c] == c).mean() for c in np.unique(ca) if (ca == c).sum() >= 50)
    parts.append("%s [%s; worst of >= 50 points %.1f%%]" % (name, ", ".join(recalls),
                                                          100 * worst))
print("  %s; class agrees %.3f%%; recall: %s" % (line, 100.0 * every.mean(), "; ".join(parts)))
EOF
}

bench() { # bench NAME JOB "SPEC; SPEC..." ARGS...: the full grid, then each spec at LEVELS
    local name=$1 job=$2 specs=$3 full="$OUT/$1_full.h5" tf
    shift 3
    echo "== $name: $job $* ($RANKS ranks)"
    if [ -f "$full" ] && "$BIN" info "$full" 2>/dev/null | grep -q "state complete"; then
        tf="(reused)"
    else
        tf=$(run "$BIN" "$full" "$job" "$@")
    fi
    echo "  full grid: $tf s"
    local spec level file t
    while IFS= read -r spec; do
        [ -n "$spec" ] || continue
        for level in $LEVELS; do
            file="$OUT/${name}_$(echo "$spec" | tr -c 'a-z0-9_\n' '_')_L$level.h5"
            t=$(run "$BIN" "$file" "$job" "$@" --set "sweep.refine=$spec" \
                --set sweep.refine_levels="$level")
            echo " refine = $spec, $level levels: $t s"
            compare "$full" "$file" "$spec"
            if [ -n "$BASELINE" ] && [[ $spec != *,* ]]; then # it knows one output
                local keys=(--set "sweep.refine=$spec")
                if [[ $spec =~ ^([a-z_0-9]+)\ *\>=\ *(.+)$ ]]; then
                    keys=(--set "sweep.refine=${BASH_REMATCH[1]}"
                        --set "sweep.refine_threshold=${BASH_REMATCH[2]}")
                fi
                t=$(run "$BASELINE" "$file.baseline.h5" "$job" "$@" "${keys[@]}" \
                    --set sweep.refine_levels="$level")
                echo " baseline ($BASELINE): $t s"
                compare "$full" "$file.baseline.h5" "$spec"
            fi
        done
    done <<<"$(echo "$specs" | tr ';' '\n' | sed 's/^ *//')"
}

# The (k12, s) map: the job in jobs/ where there is one, else the same written here.
stop_ks_job() {
    local job=$ROOT/jobs/stop_regime_map_ks.ini
    if [ ! -f "$job" ]; then
        job=$OUT/stop_regime_map_ks.ini
        printf '%s\n' "[sweep]" "model = stop-oscillator" "[model]" "k = 1" "epsilon = 0.6" \
            "x1_0 = 0" "v1_0 = 0" "x2_0 = 3" "v2_0 = 0" "t_end = 500" "orbit_t_max = 20" \
            "[axis.k12]" "from = 0.2" "to = 10" "count = 40" "scale = log" \
            "[axis.s]" "from = 0.1" "to = 10" "count = 40" "scale = log" >"$job"
    fi
    echo "$job"
}

for map in "${MAPS[@]}"; do
    case $map in
    band)
        n=${BAND_N:-257}
        bench "band_$n" "$ROOT/jobs/chatter_fig67_n4.ini" "impacts_mean >= 50" \
            --set model.early_stop=1 --set axis.rho.count="$n" --set axis.gamma.count="$n"
        ;;
    stop_ks)
        n=${STOP_KS_N:-257}
        bench "stop_ks_$n" "$(stop_ks_job)" "regime; regime, t_regime >= 300" \
            --set axis.k12.count="$n" --set axis.s.count="$n"
        ;;
    chatter)
        n=${CHATTER_N:-1025}
        bench "chatter_$n" "$ROOT/jobs/chatter_fig67_n4.ini" regime \
            --set model.samples="${CHATTER_SAMPLES:-50}" --set model.early_stop=1 \
            --set axis.rho.from=0.05 --set axis.rho.to=1.5 --set axis.rho.count="$n" \
            --set axis.gamma.from=0.02 --set axis.gamma.to=0.95 --set axis.gamma.count="$n"
        ;;
    collision)
        n=${COLLISION_N:-257}
        bench "collision_$n" "$ROOT/jobs/collision_bwm_surface.ini" outcome \
            --set axis.pi1.count="$n" --set axis.pi2.count="$n"
        ;;
    stop)
        n=${STOP_N:-257}
        bench "stop_$n" "$ROOT/jobs/stop_regime_map.ini" "regime; regime, t_regime >= 300" \
            --set axis.k12.count="$n" --set axis.epsilon.count="$n"
        ;;
    *)
        echo "unknown map '$map' (band stop_ks chatter collision stop)" >&2
        exit 2
        ;;
    esac
done
echo "files in $OUT"
