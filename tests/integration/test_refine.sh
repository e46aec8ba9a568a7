# shellcheck shell=bash disable=SC2086 # $MPIEXEC_FLAGS is split into words on purpose
# test_refine.sh: refined sweeps ([sweep] refine, src/core/run/refine.h) on the test-only disc
# model (tests/models/synthetic/disc.c), whose classes are known in closed form:
#  1. a disc in a 129 x 97 box, refine = region, 4 levels: the map matches the exact one
#     except within one fine cell (its diagonal) of the circle; every point is computed
#     or inferred; inferred points hold NaN in the real output; far fewer points computed
#     than the grid; the file records the settings; 1, 2 and 3 ranks give the same file;
#  2. a ball in a 3-D box, refine = dist with a threshold: the class (dist >= 0) matches
#     except within a fine cell; dist at inferred points interpolated, on the right side;
#  3. failures (x < fail_below): every failed point is computed (cells with a failed
#     corner are refined), the others are as in 1;
#  4. a 2-D refinement of a 3-axis grid (refine_axes = x, y; z swept in full, each z slice
#     refined on its own): each slice as its own 2-D run;
#  5. kills: a run killed (SIGKILL, crashpoint shim) before a sample of its I/O events,
#     or in the middle of a data write (torn), then --resume: the same file as the
#     uninterrupted run; a 2-rank run stopped by
#     SIGUSR1 in the middle, resumed on 3 ranks, and one killed by SIGKILL, resumed: the
#     same file;
#  6. refusals (exit 2, file:line: [sweep] key): unknown output, categorical output with a
#     threshold, real output without one, a bad threshold, levels too many for an axis,
#     unknown or choice axes, refine keys without refine, pieces, a resume with other
#     refine settings; several outputs: an unknown one, a real one without a threshold,
#     a bad number, an empty item, another operator, a bad refine_margin;
#  7. a thin band (ridge >= 0.5, about one point wide, just outside the circle): the first
#     rule (refine_margin = 0) misses most of it, the threshold rule finds every point of
#     it; `info`'s count of the cells refined, by reason and level, equals a count made
#     here from the file's points by the rule as docs/guide.md (Refinement) states it;
#  8. several outputs (refine = region, ridge >= 0.5): both classes right, the category
#     and the interpolation at inferred points, info's inferred counts; 1 and 3 ranks
#     give the same file. (5a runs this job too, so that its kills cover the threshold
#     rule's reads.)
# shellcheck source=lib.sh
source "$TESTS/integration/lib.sh"
# shellcheck source=crash_lib.sh
source "$TESTS/integration/crash_lib.sh"

[ -n "${IMPACTSWEEP_TEST:-}" ] || die "environment variable IMPACTSWEEP_TEST is not set (run through ctest)"
"$PYTHON" -c "import h5py, numpy" 2>/dev/null || die "$PYTHON cannot import h5py and numpy"
WORK=$(pwd -P) # the shim compares absolute paths
T=$IMPACTSWEEP_TEST
mpin() {
    local n=$1
    shift
    $MPIEXEC $MPIEXEC_FLAGS -n "$n" "$T" "$@"
}

cat >disc.ini <<'EOF'
[sweep]
model = disc
output = disc.h5
refine = region
refine_levels = 4

[model]
cx = 0.1
cy = -0.05
r = 0.6

[axis.x]
from = -1
to = 1
count = 129

[axis.y]
from = -1
to = 1
count = 97
EOF

# check.py FILE KIND ...: the checks of a finished file against the closed form
cat >check.py <<'EOF'
import sys
import h5py
import numpy as np

path, kind = sys.argv[1], sys.argv[2]
f = h5py.File(path, "r")
st = f["status"][...]
problems = []
def check(ok, what):
    if not ok:
        problems.append(what)

meanings = f["status"].attrs["flag_meanings"]
meanings = meanings.decode() if isinstance(meanings, bytes) else meanings
check("inferred" in meanings.split(), "status flag_meanings lacks inferred: %s" % meanings)
check(7 in list(f["status"].attrs["flag_values"]), "status flag_values")
check(not (st == 0).any(), "%d points pending" % (st == 0).sum())
inferred = st == 7
computed = (st != 7).sum()
check(inferred.sum() > 0, "nothing inferred")
axes = [f[a][...] for a in f.attrs["axes"].decode().split()] if isinstance(
    f.attrs["axes"], bytes) else [f[a][...] for a in f.attrs["axes"].split()]
grids = np.meshgrid(*axes, indexing="ij")
def get(name, default):
    key = "parameter_" + name
    return float(f.attrs[key]) if key in f.attrs else default
cx, cy, cz, r = get("cx", 0), get("cy", 0), get("cz", 0), get("r", 0.5)
names = f.attrs["axes"]
names = (names.decode() if isinstance(names, bytes) else names).split()
coords = {n: g for n, g in zip(names, grids)}
X = coords.get("x", get("x", 0)); Y = coords.get("y", get("y", 0)); Z = coords.get("z", get("z", 0))
D = np.sqrt((X - cx) ** 2 + (Y - cy) ** 2 + (Z - cz) ** 2) - r
# one fine cell: its diagonal over the refined axes
refined = f.attrs["refine_axes"]
refined = (refined.decode() if isinstance(refined, bytes) else refined).split()
cell = np.sqrt(sum((coords[n].max() - coords[n].min()) ** 2 /
                   (len(f[n]) - 1) ** 2 for n in refined))
if kind == "region":
    region = f["region"][...]
    ok = st != 3
    wrong = ok & (region != (D < 0))
    check(not (wrong & (np.abs(D) > cell)).any(),
          "%d points wrong beyond one fine cell of the boundary (max |d| %.4g, cell %.4g)"
          % ((wrong & (np.abs(D) > cell)).sum(), np.abs(D[wrong]).max() if wrong.any() else 0, cell))
    check(np.isnan(f["dist"][...][inferred]).all(), "dist is not NaN at inferred points")
    print("    %d of %d points computed (%.1f%%), %d inferred, %d differ from the exact map "
          "(all within one fine cell)" % (computed, st.size, 100.0 * computed / st.size,
                                          inferred.sum(), wrong.sum()))
elif kind == "dist":
    dist = f["dist"][...]
    wrong = (dist >= 0) != (D >= 0)
    check(not (wrong & (np.abs(D) > cell)).any(),
          "%d classes wrong beyond one fine cell" % (wrong & (np.abs(D) > cell)).sum())
    check(np.isfinite(dist[inferred]).all(), "dist not interpolated at inferred points")
    check((f["region"][...][inferred] == -1).all(), "region given at inferred points")
    print("    %d of %d points computed (%.1f%%), %d classes differ (all within one fine cell), "
          "interpolation error at most %.3g"
          % (computed, st.size, 100.0 * computed / st.size, wrong.sum(),
             np.abs(dist[inferred] - D[inferred]).max()))
if len(sys.argv) > 3:  # the most computed, as a fraction of the grid
    check(computed <= float(sys.argv[3]) * st.size,
          "%d points computed, more than %s of %d" % (computed, sys.argv[3], st.size))
if len(sys.argv) > 4:  # points below this x fail
    fail = float(sys.argv[4])
    check(((st == 3) == (X < fail)).all(), "failed points: %d, expected %d"
          % ((st == 3).sum(), (X < fail).sum()))
for p in problems:
    print("PROBLEM:", p)
sys.exit(1 if problems else 0)
EOF

check_file() {
    "$PYTHON" check.py "$@" >check.txt 2>&1 || {
        sed 's/^/    /' check.txt >&2
        die "$1 does not hold the map expected"
    }
    cat check.txt
}

say "1. a disc, refine = region, 4 levels, on 1, 2 and 3 ranks"
expect_status 0 "1 rank" "$T" run disc.ini --output d1.h5
check_file d1.h5 region 0.35
"$T" info d1.h5 | grep -Eq '^points: .* [0-9]+ inferred' || die "info does not count the inferred points"
grep -q "level 4/4: " err.txt || die "the progress lines do not name the level"
h5dump -a /refine -a /refine_levels d1.h5 | grep -q '"region"' || die "no refine attribute"
for n in 2 3; do
    expect_status 0 "$n ranks" mpin "$n" run disc.ini --output "d$n.h5"
    same_results d1.h5 "d$n.h5" "$n ranks against 1"
done

say "2. a ball in 3-D, refine = dist >= 0, 3 levels, on 2 ranks"
cat >ball.ini <<'EOF'
[sweep]
model = disc
refine = dist
refine_threshold = 0
refine_levels = 3

[model]
cx = 0.1
cy = -0.05
cz = 0.2
r = 0.6

[axis.x]
from = -1
to = 1
count = 41

[axis.y]
from = -1
to = 1
count = 33

[axis.z]
from = -1
to = 1
count = 25
EOF
expect_status 0 "the ball" mpin 2 run ball.ini --output ball.h5
check_file ball.h5 dist 0.6

say "3. failures at x < -0.3: computed, every one"
expect_status 0 "failures" mpin 2 run disc.ini --output fail.h5 --set model.fail_below=-0.3
check_file fail.h5 region 0.6 -0.3

say "4. x and y refined, z swept in full: each z slice as its own 2-D run"
sed -e '/refine_threshold/d' -e 's/^refine = dist$/refine = region\nrefine_axes = x y/' \
    ball.ini >slices.ini
expect_status 0 "slices" "$T" run slices.ini --output slices.h5
"$PYTHON" - <<'EOF' || die "a slice of the 3-axis run differs from its own 2-D run"
import subprocess, sys, os
import h5py, numpy as np
t = os.environ["IMPACTSWEEP_TEST"]
f = h5py.File("slices.h5", "r")
z = f["z"][...]
for k in (0, len(z) // 2, len(z) - 1):
    out = "slice%d.h5" % k
    subprocess.run([t, "run", "slices.ini", "--output", out, "--set",
                    "axis.z.from=%r" % float(z[k]), "--set", "axis.z.to=%r" % float(z[k]),
                    "--set", "axis.z.count=1"], check=True, capture_output=True)
    g = h5py.File(out, "r")
    for v in ("status", "region", "dist"):
        a, b = f[v][:, :, k], g[v][:, :, 0]
        if not np.array_equal(a, b, equal_nan=True):
            print("slice z[%d]: %s differs" % (k, v))
            sys.exit(1)
print("    3 slices equal their own runs")
EOF

say "5a. killed before a sample of its I/O events, then --resume"
# disc.ini on a smaller grid, 3 levels, small units (many I/O events to kill at), two
# outputs, one with a threshold
sed -e 's/^refine_levels = 4$/refine_levels = 3\nunit_size = 16/' -e '/^output = /d' \
    -e 's/^refine = region$/refine = region, ridge >= 0.5/' \
    -e '/^\[axis\.x\]/,/^count/ s/^count = 129$/count = 33/' \
    -e '/^\[axis\.y\]/,/^count/ s/^count = 97$/count = 41/' disc.ini >small.ini
expect_status 0 "reference" "$T" run small.ini --output small_ref.h5
# (Under the sanitizers the crash-point shim, preloaded into the run, is left out, as
# sanitize-tests.sh leaves integration.crash out: its interposed calls show as leaks.)
if [ -n "${ASAN_OPTIONS:-}" ]; then
    echo "    skipped under the sanitizers (the crash-point shim is preloaded)"
else
mkdir -p count
st=$(shim "$WORK/count" "$WORK/count/out.h5" 0 before "$T" run "$WORK/small.ini" --output out.h5)
[ "$st" -eq 0 ] || die "the count-only run exited $st"
E=$(event_count "$WORK/count")
[ "$E" -gt 20 ] || die "only $E events counted: is the shim working?"
kills=0
# before the event, and torn (a data write cut in the middle: the blocks a pass writes
# again around its points must come out the same)
for kill in $(seq 1 $((E / 40 + 1)) "$E") $((RANDOM % E + 1)) \
    $(seq 2 $((E / 10 + 1)) "$E" | sed 's/$/:torn/'); do
    n=${kill%:*} mode=before
    [[ $kill != *:torn ]] || mode=torn
    d="$WORK/k$n$mode"
    mkdir -p "$d"
    st=$(shim "$d" "$d/out.h5" "$n" "$mode" "$T" run "$WORK/small.ini" --output out.h5)
    [ "$st" -eq 137 ] || die "the run killed ($mode) at event $n of $E exited $st"
    if [ -e "$d/out.h5" ]; then
        (cd "$d" && "$T" run "$WORK/small.ini" --output out.h5 --resume >resume.out 2>resume.err) ||
            die "the resume after a kill before event $n exited $?: $(tail -n 2 "$d/resume.err")"
    else # killed before the file was published: a fresh run
        (cd "$d" && "$T" run "$WORK/small.ini" --output out.h5 >resume.out 2>resume.err) ||
            die "the rerun after a kill before event $n failed"
    fi
    same_results small_ref.h5 "$d/out.h5" "killed ($mode) at event $n of $E, then resumed"
    kills=$((kills + 1))
    rm -rf "$d"
done
echo "    $kills kills out of $E events: every resumed file equals the uninterrupted one"
fi

say "5b. 2 ranks stopped by SIGUSR1 in the middle, resumed on 3"
expect_status 0 "reference" "$T" run disc.ini --output slow_ref.h5 --set model.cost=0
$MPIEXEC $MPIEXEC_FLAGS -n 2 "$T" run disc.ini --output slow.h5 --set model.cost=0.002 \
    --progress lines >slow.h5.out 2>slow.h5.err &
run_pid=$!
wait_for_done slow.h5 600 "$run_pid"
interrupt "$run_pid" slow.h5
[ "$(points slow.h5 pending)" -gt 0 ] || die "the stopped run left nothing pending"
expect_status 0 "the resume on 3 ranks" mpin 3 run disc.ini --output slow.h5 \
    --set model.cost=0.002 --resume
h5dump -d /status slow.h5 >/dev/null || die "h5dump cannot read the resumed file"
"$PYTHON" - <<'EOF' || die "the stopped and resumed run differs from the uninterrupted one"
import h5py, numpy as np, sys
a, b = h5py.File("slow_ref.h5", "r"), h5py.File("slow.h5", "r")
for v in ("status", "region", "dist"):
    if not np.array_equal(a[v][...], b[v][...], equal_nan=True):
        print(v, "differs"); sys.exit(1)
EOF

say "5c. 2 ranks killed (SIGKILL) in the middle of a pass, resumed on 2"
$MPIEXEC $MPIEXEC_FLAGS -n 2 "$T" run disc.ini --output killed.h5 --set model.cost=0.002 \
    --progress lines >killed.h5.out 2>killed.h5.err &
run_pid=$!
wait_for_done killed.h5 700 "$run_pid"
kill_run "$run_pid"
[ "$(points killed.h5 pending)" -gt 0 ] || die "the killed run left nothing pending"
expect_status 0 "the resume after SIGKILL" mpin 2 run disc.ini --output killed.h5 \
    --set model.cost=0.002 --resume
"$PYTHON" - <<'EOF' || die "the killed and resumed run differs from the uninterrupted one"
import h5py, numpy as np, sys
a, b = h5py.File("slow_ref.h5", "r"), h5py.File("killed.h5", "r")
for v in ("status", "region", "dist"):
    if not np.array_equal(a[v][...], b[v][...], equal_nan=True):
        print(v, "differs"); sys.exit(1)
EOF

say "6. refusals"
# refuse WHAT PATTERN SED [ARGS...]: disc.ini edited by SED is refused (exit 2, no file)
# with a message matching PATTERN
refuse() {
    local what=$1 pattern=$2 edit=$3
    shift 3
    sed -e "$edit" disc.ini >bad.ini
    expect_status 2 "$what" "$T" run bad.ini --output refused.h5 "$@"
    grep -Eq "$pattern" err.txt || die "$what: the message does not match '$pattern': $(cat err.txt)"
    [ ! -e refused.h5 ] || die "$what: a file was written"
}
refuse "an unknown output" \
    "bad.ini:4: \[sweep\] refine = 'nothing': model disc has no such output \(outputs: region, dist, ridge\)" \
    's/^refine = region/refine = nothing/'
refuse "a threshold on a categorical output" \
    "bad.ini:5: \[sweep\] refine_threshold: region is categorical" \
    's/^refine_levels = 4/refine_threshold = 0.5/'
refuse "a real output without a threshold" \
    "bad.ini:4: \[sweep\] refine = 'dist': dist is a real output: give \[sweep\] refine_threshold" \
    's/^refine = region/refine = dist/'
refuse "a bad threshold" "bad.ini:5: \[sweep\] refine_threshold = 'abc': expected a finite number" \
    's/^refine = region/refine = dist/; s/^refine_levels = 4/refine_threshold = abc/'
refuse "levels too many" \
    "bad.ini:5: \[sweep\] refine_levels = 7: .* axis y has 97 values .* at most 6 levels here" \
    's/^refine_levels = 4/refine_levels = 7/'
refuse "levels out of range" "bad.ini:5: \[sweep\] refine_levels = '0': expected an integer from 1 to 30" \
    's/^refine_levels = 4/refine_levels = 0/'
refuse "an unknown axis" "bad.ini:5: \[sweep\] refine_axes: 'w' is not an axis of the sweep \(axes: x, y\)" \
    's/^refine_levels = 4/refine_axes = x, w/'
refuse "keys without refine" "bad.ini:4: \[sweep\] refine_levels: only with \[sweep\] refine" \
    '/^refine = region/d'
refuse "pieces" "bad.ini:4: \[sweep\] refine: a refined sweep cannot be split into job-array pieces" \
    's/^refine_levels = 4/piece = 1\/4/'
refuse "pieces on the command line" "refine: a refined sweep cannot be split" "" --set sweep.piece=0/2
refuse "an unknown output among several" \
    "bad.ini:4: \[sweep\] refine = 'region, nothing >= 1': 'nothing': model disc has no such output" \
    's/^refine = region/refine = region, nothing >= 1/'
refuse "a real output without a threshold among several" \
    "bad.ini:4: \[sweep\] refine = 'region, ridge': ridge is a real output: give its threshold \('ridge >= T'" \
    's/^refine = region/refine = region, ridge/'
refuse "a threshold that is no number" \
    "bad.ini:4: \[sweep\] refine = 'region, ridge >= x': ridge >= 'x': expected a finite number" \
    's/^refine = region/refine = region, ridge >= x/'
refuse "an empty item" "bad.ini:4: \[sweep\] refine = 'region, , ridge >= 1': an empty item" \
    's/^refine = region/refine = region, , ridge >= 1/'
refuse "another operator" \
    "bad.ini:4: \[sweep\] refine = 'ridge > 1': 'ridge > 1': expected OUTPUT or OUTPUT >= NUMBER" \
    's/^refine = region/refine = ridge > 1/'
refuse "a threshold on a category among several" \
    "bad.ini:4: \[sweep\] refine = 'ridge >= 1, region >= 1': region is categorical" \
    's/^refine = region/refine = ridge >= 1, region >= 1/'
refuse "refine_threshold with several outputs" \
    "bad.ini:5: \[sweep\] refine_threshold: refine names 2 outputs" \
    's/^refine = region/refine = region, ridge >= 1/; s/^refine_levels = 4/refine_threshold = 1/'
refuse "a bad refine_margin" "bad.ini:5: \[sweep\] refine_margin = '-1': expected a number from 0" \
    's/^refine_levels = 4/refine_margin = -1/'
refuse "a bad refine_margin on the command line" "sweep.refine_margin=x.*refine_margin = 'x'" "" \
    --set sweep.refine_margin=x
sed '/^refine/d' disc.ini >plain.ini
expect_status 2 "a resume with other levels" "$T" run disc.ini --output d1.h5 --resume \
    --set sweep.refine_levels=3
grep -q "another job" err.txt || grep -qi "job" err.txt || die "the resume with other levels: $(cat err.txt)"
expect_status 2 "a resume of a refined file without refinement" "$T" run plain.ini --output d1.h5 --resume
same_results d1.h5 d2.h5 "the refused resumes left d1.h5"

say "7. a thin band (ridge >= 0.5): the first rule misses it, the threshold rule does not"
sed -e 's/^refine = region$/refine = ridge >= 0.5/' disc.ini >ridge.ini
expect_status 0 "the first rule" "$T" run ridge.ini --output ridge_first.h5 --set sweep.refine_margin=0
expect_status 0 "the threshold rule" "$T" run ridge.ini --output ridge.h5
expect_status 0 "the threshold rule on 2 ranks" mpin 2 run ridge.ini --output ridge2.h5
same_results ridge.h5 ridge2.h5 "the thin band on 2 ranks against 1"
"$T" info ridge.h5 >ridge_info.txt
# band.py FILE: the band's points (the closed form), those whose class the file has
# right, the points computed, and the fraction of the grid whose class is right
cat >band.py <<'EOF'
import sys
import h5py
import numpy as np
f = h5py.File(sys.argv[1], "r")
x, y = f["x"][...], f["y"][...]
X, Y = np.meshgrid(x, y, indexing="ij")
d = np.sqrt((X - 0.1) ** 2 + (Y + 0.05) ** 2) - 0.6
band = (d >= 0) & (1 / (1 + np.maximum(d, 0) / 0.02) >= 0.5)
ridge, st = f["ridge"][...], f["status"][...]
right = (ridge >= 0.5) == band
print("%d %d %d %.4f" % (band.sum(), (right & band).sum(), (st != 7).sum(), right.mean()))
EOF
read -r band first_found first_computed _ <<<"$("$PYTHON" band.py ridge_first.h5)"
read -r _ found computed agree <<<"$("$PYTHON" band.py ridge.h5)"
echo "    the band, $band points: the first rule finds $first_found ($first_computed points computed)," \
    "the threshold rule $found ($computed computed; class right at a fraction $agree of the grid)"
[ "$found" -eq "$band" ] || die "the threshold rule missed $((band - found)) of the band's $band points"
[ "$first_found" -lt $((band / 2)) ] || die "the first rule found $first_found of $band: no thin band to test"
[ "$computed" -lt $((129 * 97 * 2 / 5)) ] || die "the threshold rule computed $computed points, more than 40% of the grid"
# census.py FILE L MARGIN: per level, the cells with every corner stored, and of them
# those refined for a failed corner, classes that differ, a corner near the threshold
# (within MARGIN times the largest second difference at the corners: the rule of docs/guide.md)
cat >census.py <<'EOF'
import sys
import h5py
import numpy as np
f = h5py.File(sys.argv[1], "r")
L, margin, T = int(sys.argv[2]), float(sys.argv[3]), 0.5
st, v = f["status"][...], f["ridge"][...]
nx, ny = st.shape
def lattice(n, s):
    return np.array(sorted(set(list(range(0, n, s)) + [n - 1])))
def corners(a):
    return [a[:-1, :-1], a[1:, :-1], a[:-1, 1:], a[1:, 1:]]
for m in range(L):
    S = 2 ** (L - m)
    ix, iy = lattice(nx, S), lattice(ny, S)
    sub = np.ix_(ix, iy)
    stored = (st[sub] >= 1) & (st[sub] <= 6)
    failed = (st[sub] >= 2) & (st[sub] <= 6)
    val = np.where(st[sub] == 1, v[sub], np.nan)
    key = np.where(failed, -1, np.where(np.isnan(val), 0, np.where(val >= T, 2, 1)))
    bend = np.zeros(val.shape)  # |second difference| along each axis, scaled to S
    for axis, idx in ((0, ix), (1, iy)):
        h = np.diff(idx).astype(float)
        a = np.moveaxis(val, axis, 0)
        sh = (-1,) + (1,) * (a.ndim - 1)
        h0, h1 = h[:-1].reshape(sh), h[1:].reshape(sh)
        d2 = 2 * S * S * ((a[2:] - a[1:-1]) / h1 - (a[1:-1] - a[:-2]) / h0) / (h0 + h1)
        b = np.zeros(a.shape)
        b[1:-1] = np.nan_to_num(np.abs(d2), nan=0.0)
        bend = np.maximum(bend, np.moveaxis(b, 0, axis))
    ok = np.logical_and.reduce(corners(stored))
    anyfail = np.logical_or.reduce(corners(failed))
    k = corners(key)
    differ = ~anyfail & ((k[0] != k[1]) | (k[0] != k[2]) | (k[0] != k[3]))
    near = np.min([np.abs(c - T) for c in corners(val)], axis=0)
    big = np.max(corners(bend), axis=0)
    thr = ~anyfail & ~differ & (k[0] != 0) & (near <= margin * big) & (margin > 0)
    print("level %d: %d %d %d %d" % (m, ok.sum(), (ok & anyfail).sum(), (ok & differ).sum(),
                                     (ok & thr).sum()))
EOF
"$PYTHON" census.py ridge.h5 4 2 >census_expected.txt
near_total=0
while read -r _ level cells failed differ near; do
    level=${level%:}
    line=$(grep "^  level $level cells" ridge_info.txt) || die "info shows no level $level line: $(cat ridge_info.txt)"
    echo "$line" | grep -q ": $cells with every corner computed, $((failed + differ + near)) refined" ||
        die "info's level $level: '$line'; counted here: $cells cells, $failed failed, $differ differ, $near near"
    [ "$differ" -eq 0 ] || echo "$line" | grep -q "$differ where the classes differ" || die "level $level: '$line' (differ $differ)"
    [ "$near" -eq 0 ] || echo "$line" | grep -q "$near near ridge >= 0.5" || die "level $level: '$line' (near $near)"
    near_total=$((near_total + near))
done <census_expected.txt
[ "$near_total" -gt 0 ] || die "no cell refined near the threshold"
grep -q "^refined: ridge >= 0.5; 4 levels over x y; refine_margin 2" ridge_info.txt ||
    die "info's refinement line: $(grep refined ridge_info.txt)"
grep -q "^  ridge >= 0.5: $band computed, 0 inferred; below:" ridge_info.txt ||
    die "info does not count the band's points ($band, all computed): $(grep 'ridge >=' ridge_info.txt)"
echo "    info's cells refined per level and reason equal a count made here from the file's points:"
sed -n '/^refined:/,/^fields/p' ridge_info.txt | sed '$d' | sed 's/^/      /'

say "8. several outputs: refine = region, ridge >= 0.5"
sed -e 's/^refine = region$/refine = region, ridge >= 0.5/' disc.ini >both.ini
expect_status 0 "two outputs" "$T" run both.ini --output both.h5
expect_status 0 "two outputs on 3 ranks" mpin 3 run both.ini --output both3.h5
same_results both.h5 both3.h5 "two outputs on 3 ranks against 1"
check_file both.h5 region 0.6
"$PYTHON" - <<'EOF' || die "the two outputs' inferred values"
import sys
import h5py
import numpy as np
f = h5py.File("both.h5", "r")
st, ridge = f["status"][...], f["ridge"][...]
x, y = f["x"][...], f["y"][...]
X, Y = np.meshgrid(x, y, indexing="ij")
d = np.sqrt((X - 0.1) ** 2 + (Y + 0.05) ** 2) - 0.6
exact = np.where(d < 0, 0.2, 1 / (1 + np.maximum(d, 0) / 0.02))
inferred = st == 7
wrong = (ridge >= 0.5) != (exact >= 0.5)
if wrong.any():
    print("ridge's class wrong at %d points" % wrong.sum())
    sys.exit(1)
if not np.isfinite(ridge[inferred]).all():
    print("ridge not interpolated at inferred points")
    sys.exit(1)
if not np.isnan(f["dist"][...][inferred]).all():
    print("dist given at inferred points")
    sys.exit(1)
print("    both classes right; ridge interpolated at %d inferred points (largest error %.3g)"
      % (inferred.sum(), np.abs(ridge - exact)[inferred].max()))
EOF
"$T" info both.h5 | grep -Eq '^  region +outside: [0-9]+ \(\+[0-9]+ inferred\) inside: [0-9]+ \(\+[0-9]+ inferred\)' ||
    die "info does not count the inferred points of each class: $("$T" info both.h5 | grep region)"
