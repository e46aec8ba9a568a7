#!/usr/bin/env bash
# bench_integrity.sh: the figures of issue 22 about damage (src/core/store/results.h, verify.h):
#   a. the bit-flip campaign (bitflip.py): FLIPS random single-bit flips (default 100) of a
#      half-done file then `run --resume`, of a complete file then `info --verify`, of a
#      piece then `merge`, and a flip in each place that must be detected; counts of
#      detected / harmless / SILENT / other, and where the flips landed;
#   b. what the checksums cost, piece by piece, in CPU seconds (bench_checksum): the CRC of
#      10^7 points' records as the runs write them, the digest of a 10^7-point file's fixed
#      bytes, the check of its stored points (what --resume reads);
#   c. with BASELINE=DIR (a build of impactsweep from before the checksums: its
#      tests/impactsweep-test), the cheap 10^7-point sweep of bench_scale.sh (synthetic
#      model, 22 bytes a point) run by this build and by the baseline in turn, PAIRS pairs
#      (default 7): the median ratio of their wall and CPU times, and each run's own
#      "creating the file" and "computing" times (1 rank; RANKS=2 for mpirun -n 2).
# Usage: bench_integrity.sh [a] [b] [c]   (default: all; c only with BASELINE)
#   BUILD_DIR (default build/ beside tests/), FLIPS, PAIRS, RANKS, BASELINE, BENCH_SCRATCH.
# A benchmark, not a test: not in ctest (integration.integrity runs a short campaign).
set -uo pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
build=${BUILD_DIR:-$here/../../build}
test_bin=$build/tests/impactsweep-test
flips=${FLIPS:-100}
pairs=${PAIRS:-7}
ranks=${RANKS:-1}
parts=${*:-a b c}
python=/usr/bin/python3
for f in "$test_bin" "$build/tests/h5compare" "$build/tests/libcrashpoint.so" "$build/tests/bench_checksum"; do
    [ -e "$f" ] || { echo "bench_integrity.sh: $f: not built" >&2; exit 2; }
done
work=$(mktemp -d "${BENCH_SCRATCH:-/tmp}/bench_integrity.XXXXXX")
trap 'rm -rf "$work"' EXIT
say() { echo "[bench_integrity $(date +%T)] $*"; }

if [[ $parts == *a* ]]; then
    say "a. the bit-flip campaign: $flips flips a mode, on a 200 x 200 synthetic grid with failures"
    cat >"$work/flip.ini" <<'EOF'
[sweep]
model = synthetic
output = f.h5
[model]
fail_below = -2.5
[axis.x]
from = -3
to = 3
count = 200
[axis.y]
from = -2
to = 2
count = 200
EOF
    "$python" "$here/bitflip.py" --impactsweep "$test_bin" --h5compare "$build/tests/h5compare" \
        --crashpoint "$build/tests/libcrashpoint.so" --job "$work/flip.ini" --work "$work/flips" \
        --trials "$flips" --targeted --regions
fi

j7() { # the cheap 10^7-point sweep of bench_scale.sh
    printf '[sweep]\nmodel = synthetic\noutput = j7.h5\n[axis.x]\nfrom = 0\nto = 1\ncount = 10000\n[axis.y]\nfrom = 0\nto = 1\ncount = 1000\n' >"$work/j7.ini"
}

if [[ $parts == *b* ]]; then
    say "b. the checksums' cost, piece by piece (CPU seconds, medians of 5)"
    j7
    "$test_bin" run "$work/j7.ini" --output "$work/j7.h5" --quiet || exit 1
    "$build/tests/bench_checksum" 10000000 "$work/j7.h5" 5
    rm -f "$work/j7.h5"
fi

if [[ $parts == *c* && -n ${BASELINE:-} ]]; then
    base=$BASELINE/tests/impactsweep-test
    [ -x "$base" ] || { echo "bench_integrity.sh: $base: not found" >&2; exit 2; }
    say "c. the 10^7-point sweep, this build (A) against the baseline (B), $pairs pairs, $ranks rank(s)"
    j7
    launch=()
    [ "$ranks" -eq 1 ] || launch=(mpirun --oversubscribe -n "$ranks")
    # one run: "wall cpu create compute" (cpu: user + system of the whole run)
    one() {
        local bin=$1 tag=$2 t
        rm -f "$work/$tag.h5"
        /usr/bin/time -f '%e %U %S' -o "$work/$tag.time" "${launch[@]}" "$bin" run "$work/j7.ini" \
            --output "$work/$tag.h5" >/dev/null 2>"$work/$tag.err"
        read -r wall user sys <"$work/$tag.time"
        local times
        times=$(sed -n 's/.*times: creating the file \([0-9.]*\) s, computing \([0-9.]*\) s.*/\1 \2/p' "$work/$tag.err")
        echo "$wall $(echo "$user + $sys" | bc) $times"
    }
    for p in $(seq 1 "$pairs"); do
        a=$(one "$test_bin" A)
        b=$(one "$base" B)
        echo "$a $b" >>"$work/pairs"
        echo "  pair $p: A wall cpu create compute: $a; B: $b"
    done
    awk '
        { wr[NR] = $1 / $5; cr[NR] = $2 / $6; cc[NR] = $4 / $8; cw[NR] = $3 - $7; n = NR }
        function median(a, n,    i, j, t) {
            for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
            return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
        }
        END {
            printf "  A/B, median of %d pairs: wall %.4f, cpu %.4f, computing phase %.4f; creating, A - B: %+.3f s\n",
                n, median(wr, n), median(cr, n), median(cc, n), median(cw, n)
        }' "$work/pairs"
fi
