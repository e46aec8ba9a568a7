# test_arrays.sh: array outputs (model contract 3.4) through the core, on the arrays test
# plug-in (tests/models/plugins/arrays.c), whose every value is an exact function of its
# point (check_arrays.py reads the files with h5py, xarray and impactsweep.open_dataset):
#  - a 2-rank run stores ramp and counts with one more dimension, named and with its
#    coordinate; info shows it; info --verify passes; the checksums are those checksums.py
#    computes independently over every value;
#  - kill -9 mid-run, then --resume: the file equals the uninterrupted run's;
#  - two pieces merged equal the whole run;
#  - a flipped bit in an array's value is found by info --verify, naming the value;
#  - eval prints an array as a JSON list of the same values; trace gives the file's values;
#  - self-verification ([sweep] verify) compares every value;
#  - refine = an array output is refused (exit 2, file, line and key).
# shellcheck source=lib.sh
source "$TESTS/integration/lib.sh"
[ -n "${PLUGIN_DIR:-}" ] || die "PLUGIN_DIR is not set (run the test through ctest)"
export IMPACTSWEEP_MODEL_PATH=$PLUGIN_DIR
CHECK="$PYTHON $TESTS/integration/check_arrays.py" # (impactsweep.eval runs $IMPACTSWEEP)

cat >a.ini <<'INI'
[sweep]
model = arrays
output = a.h5
; every 4th point recomputed with rtol / 100: every value compared
verify = 0.25
[model]
; 10 ms a point: about 2 s on 2 ranks, long enough to kill
delay = 0.01
[axis.rho]
from = 0
to = 1.9
count = 20
[axis.gamma]
from = 0
to = 0.95
count = 20
INI

say "a 2-rank run: the arrays with their dimension, equal to the exact functions"
expect_status 0 "2-rank run" mpi2 run a.ini --output full.h5
$CHECK full.h5 || die "the 2-rank run's values"
expect_status 0 "info --verify" "$IMPACTSWEEP" info full.h5 --verify
grep -Eq "^  ramp .*\[k: 5\]$" out.txt || die "info does not show ramp's dimension: $(grep ramp out.txt)"
grep -Eq "^  counts .*\[counts_index: 3\]$" out.txt || die "info does not show counts' dimension"
grep -q "the 400 stored points of 400, match their checksums" out.txt || die "info --verify: $(tail -n 1 out.txt)"
grep -Eq "^verification: .*: [0-9]+ checked, 0 beyond" out.txt || die "self-verification: $(grep verification out.txt)"
"$PYTHON" "$TESTS/integration/checksums.py" verify full.h5 >/dev/null ||
    die "the checksums differ from their definition, computed independently (checksums.py)"

say "kill -9 mid-run, --resume: the same file as the uninterrupted run"
start_mpi2 killed.h5 a.ini
wait_for_done killed.h5 60 "$run_pid"
kill_run "$run_pid"
pending=$(points killed.h5 pending)
[ "$pending" -gt 0 ] || die "nothing pending after the kill: the run was too short"
expect_status 0 "info --verify of the killed file" "$IMPACTSWEEP" info killed.h5 --verify
$CHECK killed.h5 || die "the killed file's stored values"
expect_status 0 "--resume" mpi2 run a.ini --output killed.h5 --resume
same_results full.h5 killed.h5 "killed and resumed vs uninterrupted"

say "two pieces merged: the whole run"
for i in 0 1; do
    expect_status 0 "piece $i/2" mpi1 run a.ini --piece "$i/2" --output "p$i.h5"
done
expect_status 0 "merge" "$IMPACTSWEEP" merge merged.h5 p0.h5 p1.h5
same_results full.h5 merged.h5 "the merged pieces"
$CHECK p1.h5 || die "a piece's values"

say "a flipped bit in an array's value is found"
cp full.h5 f.h5
"$PYTHON" - f.h5 <<'PYEOF'
import sys
import h5py
with h5py.File(sys.argv[1], "r") as f:
    at = f["ramp"].id.get_offset() + 8 * (37 * 5 + 0) + 2  # point 37, value 0 (never NaN)
with open(sys.argv[1], "r+b") as f:
    f.seek(at)
    b = f.read(1)[0]
    f.seek(at)
    f.write(bytes([b ^ 0x10]))
PYEOF
expect_status 2 "info --verify of the flipped file" "$IMPACTSWEEP" info f.h5 --verify
grep -q "point 37 .*its value 0 of ramp (along k) differs in one bit" err.txt ||
    die "the flipped bit is not located: $(tail -n 1 err.txt)"
expect_status 2 "merge of the flipped file" "$IMPACTSWEEP" merge m.h5 f.h5
[ ! -e m.h5 ] || die "the refused merge wrote m.h5"

say "eval: an array output as a JSON list"
printf 'rho=0.5 gamma=0.5\nrho=1.7 gamma=0.05\n' >points.txt
expect_status 0 "eval -" "$IMPACTSWEEP" eval arrays - <points.txt
cp out.txt eval.json
grep -q '"ramp": \[0.5, 1.0, 1.5, null, null\]' eval.json || die "eval's list: $(head -n 1 eval.json)"
$CHECK full.h5 eval.json || die "eval's values"

say "trace: a point of the file, its array outputs as the file's"
expect_status 0 "trace" "$IMPACTSWEEP" trace full.h5 rho=1.5 gamma=0.6 --output t.h5
grep -q "full.h5 stores the same result for this point" err.txt || die "trace: $(cat err.txt)"
"$PYTHON" -c 'import h5py, sys, numpy as np; a = h5py.File(sys.argv[1], "r").attrs
assert np.array_equal(a["output_ramp"], [0.6, 2.1, 3.6, 5.1, np.nan], equal_nan=True), a["output_ramp"]
assert list(a["output_counts"]) == [15, 16, 17], a["output_counts"]' t.h5 || die "the trace file's outputs"

say "refine = an array output is refused"
printf '[sweep]\nmodel = arrays\nrefine = ramp\noutput = r.h5\n[axis.rho]\nfrom = 0\nto = 1\ncount = 5\n' >r.ini
expect_status 2 "refine = ramp" "$IMPACTSWEEP" run r.ini
grep -q "r.ini:3: \[sweep\] refine = 'ramp': ramp is an array output" err.txt ||
    die "the refusal: $(cat err.txt)"
