# test_verify.sh: self-verification ([sweep] verify) and the convergence test of
# `models --check`.
#  (a) a collision sweep with verify = 0.05, verify_tolerance = 1e-6: at rtol 1e-10 run
#      --strict exits 0 and info reports the verification (points checked, none beyond);
#      at rtol 1e-3 it exits 3 and info counts points beyond;
#  (b) the records are the same bit for bit on 1 rank, on 3 ranks with tiny units, and
#      from 3 pieces merged: the sample depends on the grid index alone;
#  (c) a run killed mid-way and resumed holds the records of the uninterrupted run;
#  (d) a changed record is damage: info --verify exits 2 naming /verify/records;
#  (e) a model without a tolerance parameter (chatter) says it cannot be verified, no
#      failure;
#  (f) models --check fails the soft-floor plug-in (its error stays near 1e-4 whatever its
#      tolerance) naming the output, and passes collision and the stop oscillator.
# shellcheck source=lib.sh
source "$TESTS/integration/lib.sh"

cat >job.ini <<'INI'
[sweep]
model = collision
verify = 0.05
verify_tolerance = 1e-6

[model]
law = bwshc
rtol = 1e-10

[axis.pi1]
from = 0.05
to = 2.0
count = 20

[axis.pi2]
from = 0.6
to = 3.0
count = 20
INI

records() { # the file's records, one line each, in grid order
    "$PYTHON" - "$1" <<'PY'
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    rows = f["/verify/records"][...]
for row in sorted((r for r in rows if r[0] != 0), key=lambda r: r[0]):
    print(" ".join(x.hex() for x in row))
PY
}

say "(a) rtol 1e-10: run --strict exits 0, info reports the verification"
expect_status 0 "(a) run at rtol 1e-10" "$IMPACTSWEEP" run job.ini --output a.h5 --strict
grep -q "^verification: 0.05 of the points (1 in 20).*: 20 checked, 0 beyond verify_tolerance 1e-06" err.txt ||
    die "(a) the run's summary: $(grep -A3 verification err.txt)"
expect_status 0 "(a) info" "$IMPACTSWEEP" info a.h5
grep -q "20 checked, 0 beyond" out.txt || die "(a) info: $(grep -A3 verification out.txt)"
grep -Eq "^  cor +[0-9.e-]+ +[0-9]+ +0$" out.txt || die "(a) info lists no discrepancy of cor"
[ "$(records a.h5 | wc -l)" -eq 20 ] || die "(a) 20 records expected"

say "(a) rtol 1e-3: run --strict exits 3, info counts the points beyond"
expect_status 3 "(a) run at rtol 1e-3" "$IMPACTSWEEP" run job.ini --output loose.h5 --strict \
    --set model.rtol=1e-3
grep -q "verified points of .*loose.h5 have an output beyond verify_tolerance" err.txt ||
    die "(a) --strict does not say why it exits 3: $(tail -2 err.txt)"
expect_status 0 "(a) info of the loose file" "$IMPACTSWEEP" info loose.h5
grep -Eq "20 checked, [1-9][0-9]* beyond" out.txt || die "(a) info: $(grep verification out.txt)"
expect_status 0 "(a) without --strict" "$IMPACTSWEEP" run job.ini --output loose.h5 --overwrite \
    --set model.rtol=1e-3

say "(b) the same records on 3 ranks with tiny units, and from 3 merged pieces"
expect_status 0 "(b) 3 ranks" $MPIEXEC $MPIEXEC_FLAGS -n 3 "$IMPACTSWEEP" run job.ini \
    --output ranks.h5 --set sweep.unit_size=7 --quiet
for i in 0 1 2; do
    expect_status 0 "(b) piece $i/3" "$IMPACTSWEEP" run job.ini --output "p$i.h5" --piece "$i/3" --quiet
done
expect_status 0 "(b) merge" "$IMPACTSWEEP" merge merged.h5 p0.h5 p1.h5 p2.h5
records a.h5 >a.txt
records ranks.h5 >ranks.txt
records merged.h5 >merged.txt
cmp -s a.txt ranks.txt || die "(b) 3 ranks give other records than 1"
cmp -s a.txt merged.txt || die "(b) merged pieces give other records than one run"
[ "$(records p1.h5 | wc -l)" -lt 20 ] || die "(b) a piece holds every record"

say "(c) a run killed mid-way, then resumed, holds the uninterrupted run's records"
# (Under the sanitizers the crash-point shim, preloaded into the run, is left out, as
# sanitize-tests.sh leaves integration.crash out: ASan must come first among the libraries.)
if [ -n "${ASAN_OPTIONS:-}" ]; then
    echo "    skipped under the sanitizers (the crash-point shim is preloaded)"
else
crashpoint() { # AT ARGS...: the run with its writes to killed.h5 counted (AT 0) or killed
    local at=$1
    shift
    CRASHPOINT_MATCH="$WORK/killed.h5" CRASHPOINT_COUNTER="$WORK/counter" CRASHPOINT_AT="$at" \
        LD_PRELOAD="$CRASHPOINT_LIB" "$@"
}
head -c 8 /dev/zero >counter
crashpoint 0 "$IMPACTSWEEP" run job.ini --output killed.h5 --set sweep.unit_size=40 --quiet ||
    die "(c) the counting run failed"
events=$("$PYTHON" -c "import struct; print(struct.unpack('<Q', open('counter', 'rb').read(8))[0])")
[ "$events" -gt 20 ] || die "(c) only $events writes counted"
rm -f killed.h5 counter && head -c 8 /dev/zero >counter
status=0
crashpoint $((events * 2 / 3)) "$IMPACTSWEEP" run job.ini --output killed.h5 \
    --set sweep.unit_size=40 --quiet 2>/dev/null || status=$?
[ "$status" -eq 137 ] || die "(c) the run was not killed (status $status)"
done_c=$(points killed.h5 "done")
say "(c) killed at write $((events * 2 / 3)) of $events with $done_c points done"
[ "$done_c" -gt 0 ] && [ "$done_c" -lt 400 ] || die "(c) $done_c points done after the kill"
expect_status 0 "(c) resume" "$IMPACTSWEEP" run job.ini --output killed.h5 --resume \
    --set sweep.unit_size=40 --strict
records killed.h5 >killed.txt
cmp -s a.txt killed.txt || die "(c) the resumed file's records differ from the uninterrupted run's"
grep -q "20 checked, 0 beyond" err.txt || die "(c) the resumed run's summary: $(grep verification err.txt)"
fi

say "(d) a changed record is damage"
cp a.h5 damaged.h5
"$PYTHON" - <<'PY'
import h5py, numpy as np
with h5py.File("damaged.h5", "r+") as f:
    d = f["/verify/records"]
    rows = d[...]
    i = np.nonzero(rows[:, 0])[0][5]
    rows[i, 2] = np.nextafter(rows[i, 2], 1.0)
    d[...] = rows
PY
expect_status 2 "(d) info --verify of the damaged file" "$IMPACTSWEEP" info damaged.h5 --verify
grep -q "damaged.h5 is damaged: the verification record in row .* of /verify/records" err.txt ||
    die "(d) the message: $(cat err.txt)"
expect_status 0 "(d) info --verify of the sound file" "$IMPACTSWEEP" info a.h5 --verify

say "(e) chatter has no tolerance parameter: said, not failed"
expect_status 0 "(e) chatter run" "$IMPACTSWEEP" run "$INTEGRATION_JOBS/exact.ini" --output ch.h5 \
    --strict --set sweep.verify=0.5
grep -q "has no tolerance parameter" err.txt || die "(e) the summary: $(grep verification err.txt)"

say "(f) models --check: the soft floor fails, naming its output; the built-in models pass"
expect_status 2 "(f) soft floor" "$IMPACTSWEEP" models --check "$PLUGIN_DIR/libsoft_floor.so"
grep -q "output rebound does not converge as the tolerance tightens" err.txt ||
    die "(f) the message: $(cat err.txt)"
for model in collision stop-oscillator; do
    expect_status 0 "(f) $model" "$IMPACTSWEEP" models --check "$model"
    grep -q "its outputs converge as its tolerance tightens (2 points" out.txt ||
        die "(f) $model: $(cat out.txt)"
done
