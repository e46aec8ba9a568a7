#!/usr/bin/env bash
# bench_refine.sh: refined sweeps ([sweep] refine) against full-grid runs of the same job,
# on the three region maps of issue 14: the points computed (against the grid) and the
# agreement of the class, point by point, with the full grid. Not part of ctest (minutes).
#
#   tests/bench/bench_refine.sh [MAP...]     MAP: chatter collision stop (default: all)
#
# Environment: IMPACTSWEEP (default build/impactsweep), MPIEXEC (mpiexec), RANKS (2),
# PYTHON (/usr/bin/python3, with h5py and numpy), OUT (a directory for the files, default
# a new one under /tmp, kept), and per map its size and levels:
#   CHATTER_N (1025), CHATTER_SAMPLES (50), CHATTER_LEVELS (5)
#   COLLISION_N (257), COLLISION_LEVELS (4)
#   STOP_N (257), STOP_LEVELS (4)
# A full grid already in OUT (MAP_N_full.h5, complete) is reused (N: the points per axis).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${IMPACTSWEEP:-$ROOT/build/impactsweep}
MPIEXEC=${MPIEXEC:-mpiexec}
RANKS=${RANKS:-2}
PYTHON=${PYTHON:-/usr/bin/python3}
OUT=${OUT:-$(mktemp -d /tmp/bench_refine.XXXXXX)}
mkdir -p "$OUT"
MAPS=("$@")
[ ${#MAPS[@]} -gt 0 ] || MAPS=(chatter collision stop)

run() { # run FILE ARGS...: the job on RANKS ranks; prints the wall time
    local file=$1 t0 t1
    shift
    t0=$(date +%s.%N)
    $MPIEXEC --oversubscribe -n "$RANKS" "$BIN" run "$@" --output "$file" --overwrite \
        --progress lines >"$file.out" 2>"$file.err" || {
        tail -n 5 "$file.err" >&2
        exit 1
    }
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc
}

compare() { # compare FULL REFINED VARIABLE
    "$PYTHON" - "$@" <<'EOF'
import sys
import h5py
import numpy as np
full, refined, var = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r"), sys.argv[3]
a, b = full[var][...], refined[var][...]
st = refined["status"][...]
computed = (st != 7).sum()
agree = a == b
wrong = ~agree
classes = dict(zip(*np.unique(a, return_counts=True)))
# the misses: how far (in fine cells, along the axes) from the nearest computed point of
# another class in the full map, i.e. are they thin features the coarse grid stepped over
print("grid %s, %d points: computed %d (%.2f%%), inferred %d; class agrees on %d (%.3f%%); "
      "%d differ (%d of them inferred); classes of the full map %s"
      % ("x".join(map(str, a.shape)), a.size, computed, 100.0 * computed / a.size,
         (st == 7).sum(), agree.sum(), 100.0 * agree.sum() / a.size, wrong.sum(),
         (wrong & (st == 7)).sum(), {int(k): int(v) for k, v in classes.items()}))
if wrong.any():
    miss = np.argwhere(wrong)
    print("  first misses (index: full -> refined):",
          ", ".join("%s: %d -> %d" % (tuple(int(i) for i in m), a[tuple(m)], b[tuple(m)])
                    for m in miss[:8]))
EOF
}

bench() { # bench NAME JOB VARIABLE LEVELS ARGS...
    local name=$1 job=$2 var=$3 levels=$4 full="$OUT/$1_full.h5" refined="$OUT/$1_refined.h5"
    local tf tr
    shift 4
    echo "== $name: $job, refine = $var, refine_levels = $levels, $* ($RANKS ranks)"
    if [ -f "$full" ] && "$BIN" info "$full" 2>/dev/null | grep -q "state complete"; then
        tf="(reused)"
    else
        tf=$(run "$full" "$job" "$@")
    fi
    tr=$(run "$refined" "$job" "$@" --set sweep.refine="$var" --set sweep.refine_levels="$levels")
    echo "  full grid $tf s, refined $tr s"
    compare "$full" "$refined" "$var"
}

for map in "${MAPS[@]}"; do
    case $map in
    chatter)
        n=${CHATTER_N:-1025}
        bench "chatter_$n" "$ROOT/jobs/chatter_fig67_n4.ini" regime "${CHATTER_LEVELS:-5}" \
            --set model.samples="${CHATTER_SAMPLES:-50}" --set model.early_stop=1 \
            --set axis.rho.from=0.05 --set axis.rho.to=1.5 --set axis.rho.count="$n" \
            --set axis.gamma.from=0.02 --set axis.gamma.to=0.95 --set axis.gamma.count="$n"
        ;;
    collision)
        n=${COLLISION_N:-257}
        bench "collision_$n" "$ROOT/jobs/collision_bwm_surface.ini" outcome \
            "${COLLISION_LEVELS:-4}" --set axis.pi1.count="$n" --set axis.pi2.count="$n"
        ;;
    stop)
        n=${STOP_N:-257}
        bench "stop_$n" "$ROOT/jobs/stop_regime_map.ini" regime "${STOP_LEVELS:-4}" \
            --set axis.k12.count="$n" --set axis.epsilon.count="$n"
        ;;
    *)
        echo "unknown map '$map' (chatter, collision, stop)" >&2
        exit 2
        ;;
    esac
done
echo "files in $OUT"
