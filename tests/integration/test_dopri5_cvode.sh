#!/bin/bash
# test_dopri5_cvode.sh: collision's integrators agree on random general-exponent points
# (issue 30): 40 seeded points of bwshc and bwm (n, p in [1, 4]) at rtol 1e-10, each pair
# of the lanes (dopri5, dop853) against cvode; fails when any point both finish differs
# beyond 1e-6 relative in e, t_sep, x_max, x_sep or f_max, or in its outcome, or when fewer
# than 25 finish under both. The full campaign (301 points) is
# tests/bench/bench_dopri5_cvode.py.
set -euo pipefail
: "${IMPACTSWEEP:?}" "${TESTS:?}" "${PYTHON:?}"
for pair in dopri5 dop853; do
    "$PYTHON" "$TESTS/bench/bench_dopri5_cvode.py" "$IMPACTSWEEP" --points 40 --seed 30 \
        --rtol 1e-10 --tol 1e-6 --min-finished 25 --integrator-a "$pair"
done
