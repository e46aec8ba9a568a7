# shellcheck shell=bash
# test_integrity.sh: damage is detected, never resumed or merged (issue 22; results.h,
# verify.h), on the synthetic and disc test models ($IMPACTSWEEP_TEST).
#  1. the checksums mean what results.h says: an independent CRC-32C in Python
#     (checksums.py) agrees with /run/check at every point of a 1-rank run, a 2-rank run,
#     a stopped-then-resumed run, a merge of pieces and a refined sweep (whose passes write
#     scattered points); `info --verify` passes on each and prints what it checked.
#  2. bad files: `info`, `info --verify` and merge exit 2 for a truncated file, a text
#     file, a missing one, a FIFO, a directory and /dev/zero (at once), --resume for a
#     truncated file; a flipped bit in a stored point's value, a status, a checksum, a
#     coordinate and an attribute (units, long_name, the job text) each make `info
#     --verify`, --resume and merge exit 2 naming the dataset (and for a point, its
#     coordinates and block), leaving the file byte-identical and no lock behind; a
#     complete file whose status lost a point (done flipped to pending, which no checksum
#     covers) is refused as damaged.
#  3. a short bit-flip campaign (tests/bench/bitflip.py; the bench runs 100 flips a mode):
#     INTEGRITY_FLIPS random flips (default 8) of a half-done file then --resume, of a
#     complete file then `info --verify`, of a piece then merge, and a flip in each place
#     that must be detected: none silent (a command that succeeds holds exactly the
#     uninterrupted run's results).
# shellcheck source=lib.sh
source "$TESTS/integration/lib.sh"

[ -n "${IMPACTSWEEP_TEST:-}" ] || die "environment variable IMPACTSWEEP_TEST is not set (run through ctest)"
IMPACTSWEEP=$IMPACTSWEEP_TEST
export OMPI_MCA_odls_base_sigkill_timeout=0
FLIPS=${INTEGRITY_FLIPS:-8}
CHECKSUMS="$TESTS/integration/checksums.py"
ok() { echo "    ok: $*"; }

cat >s.ini <<'EOF'
[sweep]
model = synthetic
output = s.h5
[model]
fail_below = -2
[axis.x]
from = -3
to = 3
count = 40
[axis.y]
from = -2
to = 2
count = 30
EOF

# defined FILE WHAT: the Python CRC agrees with every checksum; info --verify passes
defined() {
    "$PYTHON" "$CHECKSUMS" verify "$1" >py.txt 2>&1 || die "(1) $2: the independent CRC disagrees: $(cat py.txt)"
    expect_status 0 "(1) info --verify of $2" "$IMPACTSWEEP" info "$1" --verify
    grep -q "^verified: " out.txt || die "(1) $2: info --verify says nothing verified"
    ok "$2: $(grep '^verified: ' out.txt | sed 's/^verified: //')"
}

say "1. the checksums are CRC-32C of each point's record, however the file was made"
expect_status 0 "1 rank" "$IMPACTSWEEP" run s.ini --output one.h5 --quiet
defined one.h5 "a 1-rank run"
expect_status 0 "2 ranks" mpi2 run s.ini --output two.h5 --quiet --set sweep.unit_size=37
defined two.h5 "a 2-rank run, units of 37"
same_results one.h5 two.h5 "1 rank vs 2 (checksums included)"
sed 's/^fail_below = .*/&\ncost = 0.003/' s.ini >slow.ini
start_mpi2 "$WORK/stopped.h5" slow.ini
wait_for_done "$WORK/stopped.h5" 100 "$run_pid"
interrupt "$run_pid" "$WORK/stopped.h5"
"$PYTHON" "$CHECKSUMS" verify stopped.h5 >py.txt 2>&1 || die "(1) the stopped file: $(cat py.txt)"
expect_status 0 "resume" "$IMPACTSWEEP" run slow.ini --output stopped.h5 --resume --quiet
defined stopped.h5 "a run stopped and resumed"
for i in 0 1 2; do
    expect_status 0 "piece $i" "$IMPACTSWEEP" run s.ini --piece "$i/3" --output "p$i.h5" --quiet
done
expect_status 0 "merge" "$IMPACTSWEEP" merge m.h5 p1.h5 p0.h5 p2.h5
defined m.h5 "a merge of 3 pieces"
same_results one.h5 m.h5 "the merge vs the whole run (checksums included)"
cat >disc.ini <<'EOF'
[sweep]
model = disc
output = disc.h5
refine = region
refine_levels = 3
[model]
cx = 0.1
cy = -0.05
r = 0.6
[axis.x]
from = -1
to = 1
count = 65
[axis.y]
from = -1
to = 1
count = 41
EOF
expect_status 0 "a refined sweep" mpi2 run disc.ini --output disc.h5 --quiet
defined disc.h5 "a refined sweep on 2 ranks"

# ===================================================================================
say "2. bad files are refused with exit status 2"
head -c 20000 one.h5 >truncated.h5
echo "not a result file" >text.h5
mkfifo fifo.h5
mkdir dir.h5
# `timeout`: HDF5's own open blocks on a FIFO and reads /dev/zero without end (status 124)
for f in truncated.h5 text.h5 missing.h5 fifo.h5 dir.h5 /dev/zero; do
    expect_status 2 "info --verify of $f" timeout 20 "$IMPACTSWEEP" info "$f" --verify
    ok "info --verify $f: $(tail -n 1 err.txt | sed 's/^impactsweep: //' | cut -c1-110)"
    expect_status 2 "info of $f" timeout 20 "$IMPACTSWEEP" info "$f"
    expect_status 2 "merge of $f" timeout 20 "$IMPACTSWEEP" merge bad_merge.h5 one.h5 "$f"
    [ ! -e bad_merge.h5 ] || die "(2) the refused merge of $f wrote bad_merge.h5"
done
rm -r fifo.h5 dir.h5
cp truncated.h5 s.h5
expect_status 2 "--resume of a truncated file" "$IMPACTSWEEP" run s.ini --resume
grep -q "is damaged" err.txt || die "(2) --resume of a truncated file: $(tail -n 1 err.txt)"
rm -f s.h5

# flipped FILE WHAT OFFSET BIT: copies FILE to f.h5 with bit BIT of byte OFFSET flipped
flipped() {
    cp "$1" f.h5
    "$PYTHON" - f.h5 "$3" "$4" <<'PYEOF'
import sys
path, offset, bit = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(path, "r+b") as f:
    f.seek(offset)
    b = f.read(1)[0]
    f.seek(offset)
    f.write(bytes([b ^ (1 << bit)]))
PYEOF
}
# offset_of FILE EXPR: a byte offset computed by Python from the open h5py file f
offset_of() {
    "$PYTHON" - "$1" "$2" <<'PYEOF'
import sys
import h5py
import numpy as np
f = h5py.File(sys.argv[1], "r")
data = open(sys.argv[1], "rb").read()
status = f["status"][()].ravel()
done = int(np.argwhere(status == 1)[len(np.argwhere(status == 1)) // 2][0])
print(eval(sys.argv[2]))
PYEOF
}
# refused WHAT WANT: f.h5 is refused by info --verify, --resume and merge (exit 2, saying
# WANT), left byte-identical, and no lock is left
refused() {
    local what=$1 want=$2 before
    before=$(sha f.h5)
    expect_status 2 "(2) info --verify, $what" "$IMPACTSWEEP" info f.h5 --verify
    grep -q -- "$want" err.txt || die "(2) info --verify, $what: the message does not say '$want': $(tail -n 1 err.txt)"
    cp f.h5 s.h5
    expect_status 2 "(2) --resume, $what" "$IMPACTSWEEP" run s.ini --output s.h5 --resume
    grep -q -- "$want" err.txt || die "(2) --resume, $what: the message does not say '$want': $(tail -n 1 err.txt)"
    [ "$(sha s.h5)" = "$before" ] || die "(2) --resume, $what: the refused resume changed the file"
    local message
    message=$(tail -n 1 err.txt | sed 's/^impactsweep: //' | cut -c1-170)
    rm -f s.h5
    expect_status 2 "(2) merge, $what" "$IMPACTSWEEP" merge c.h5 f.h5
    grep -q -- "$want" err.txt || die "(2) merge, $what: the message does not say '$want': $(tail -n 1 err.txt)"
    [ ! -e c.h5 ] || die "(2) merge, $what: the refused merge wrote c.h5"
    [ -z "$(find . -maxdepth 1 \( -name '*.lock*' -o -name '.impactsweep-lock.*' \) -print)" ] ||
        die "(2) $what: lock files left behind"
    ok "$what: $message"
}
flipped one.h5 "a value" "$(offset_of one.h5 'f["sum"].id.get_offset() + 8 * done + 6')" 3
refused "a bit of a stored value (sum)" "its value of sum differs in one bit"
grep -q "point [0-9]* (x = .*, y = .*), in the block of points" err.txt || die "(2) the message does not give the point's coordinates and block"
flipped one.h5 "a status" "$(offset_of one.h5 'f["status"].id.get_offset() + done')" 1
refused "a bit of a stored status" "its value of status differs in one bit"
flipped one.h5 "a checksum" "$(offset_of one.h5 'f["run/check"].id.get_offset() + 4 * done + 1')" 6
refused "a bit of a checksum" "its checksum in /run/check differs in one bit"
flipped one.h5 "a coordinate" "$(offset_of one.h5 'f["y"].id.get_offset() + 8 * 7 + 2')" 0
refused "a bit of a coordinate (y)" "the values of the coordinate y"
flipped one.h5 "units" "$(offset_of one.h5 'data.find(b"second coordinate") + 3')" 1
refused "a bit of an attribute (long_name of y)" "the file's metadata"
flipped one.h5 "the job text" "$(offset_of one.h5 'data.find(b"fail_below = -2") + 5')" 2
refused "a bit of the job text" "the file's metadata"
flipped one.h5 "done to pending" "$(offset_of one.h5 'f["status"].id.get_offset() + done')" 0
refused "a done status flipped to pending in a complete file" "says it is complete, but"

# ===================================================================================
say "3. a short bit-flip campaign: $FLIPS random flips a mode, and the places that must be detected"
"$PYTHON" "$TESTS/bench/bitflip.py" --impactsweep "$IMPACTSWEEP" --h5compare "$H5COMPARE" \
    --crashpoint "$CRASHPOINT_LIB" --job s.ini --work "$WORK/flips" --trials "$FLIPS" \
    --unit-size 50 --targeted >flips.txt 2>&1 || { cat flips.txt >&2; die "(3) the campaign found silent or failed trials"; }
sed 's/^/    /' flips.txt
ok "no flip silent"
