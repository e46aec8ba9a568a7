# test_cf.sh: result files follow CF-1.8 where it applies, for every model.
#  - `ncdump -h` (netCDF-C) reads each file; the root attribute Conventions is CF-1.8;
#  - every `units` attribute (coordinates and variables) is a unit UDUNITS-2 knows
#    (`udunits2`), and "1" where the model says the quantity is dimensionless;
#  - `status` has a _FillValue that is none of its flag_values;
#  - a swept parameter is a coordinate, never a `parameter_NAME` attribute (which reads as
#    if it were fixed), while every fixed parameter has one;
#  - `history` is a global text attribute (so that NCO can append to it).
# Skipped (exit 77) where udunits2 or ncdump are missing.
# shellcheck source=lib.sh
source "$TESTS/integration/lib.sh"

for tool in udunits2 ncdump; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "skipped: $tool is not installed (Debian: udunits-bin, netcdf-bin)"
        exit 77
    fi
done

say "one small file per model (and a dimensional collision file, whose outputs have SI units)"
expect_status 0 "chatter" "$IMPACTSWEEP" run "$INTEGRATION_JOBS/sweep.ini" \
    --set axis.rho.count=3 --set axis.gamma.count=2 --set model.samples=10 --output chatter.h5
cat >collision.ini <<'EOF2'
[sweep]
model = collision
output = collision.h5
[axis.pi1]
values = 0.2, 0.5
[axis.pi2]
values = 1, 2
EOF2
expect_status 0 "collision" "$IMPACTSWEEP" run collision.ini
cat >dimensional.ini <<'EOF2'
[sweep]
model = collision
output = dimensional.h5
[model]
form = dimensional
[axis.v0]
values = 0.5, 1, 2
EOF2
expect_status 0 "collision, dimensional form" "$IMPACTSWEEP" run dimensional.ini
cat >stop.ini <<'EOF2'
[sweep]
model = stop-oscillator
output = stop.h5
[model]
t_end = 20
[axis.k12]
values = 1, 2
[axis.epsilon]
values = 0.5, 0.8
EOF2
expect_status 0 "stop oscillator" "$IMPACTSWEEP" run stop.ini

for f in chatter.h5 collision.h5 dimensional.h5 stop.h5; do
    say "$f: ncdump -h, Conventions, history"
    ncdump -h "$f" >header.txt 2>ncdump.err || die "$f: ncdump -h fails: $(cat ncdump.err)"
    # the whole file too, the run group included (netCDF-C 4.9 crashed on its log when that
    # was an array of fixed-length strings)
    ncdump "$f" >dump.txt 2>ncdump.err || die "$f: ncdump (data) fails: $(cat ncdump.err)"
    grep -q "created by impactsweep" dump.txt || die "$f: ncdump does not show the run log"
    grep -q ':Conventions = "CF-1.8"' header.txt || die "$f: no Conventions = \"CF-1.8\""
    grep -q ':history = ' header.txt || die "$f: no global history attribute"
    say "$f: every units attribute is one UDUNITS knows"
    "$PYTHON" - "$f" >units.txt <<'EOF2' || die "$f: cannot list its units"
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    for name, obj in f.items():
        if isinstance(obj, h5py.Dataset) and "units" in obj.attrs:
            u = obj.attrs["units"]
            print(name + "\t" + (u.decode() if isinstance(u, bytes) else str(u)))
EOF2
    [ -s units.txt ] || die "$f: no units attributes at all"
    while IFS=$'\t' read -r name unit; do
        # words UDUNITS reads as something else (force is gravity, 9.80665 m s-2)
        case "$unit" in
        force | energy | length | time | velocity | speed | g | gravity)
            die "$f: $name has units '$unit', which UDUNITS reads as a different quantity" ;;
        esac
        # nondimensional outputs are "1"; only the dimensional form's *_dim outputs and
        # its physical parameters carry SI units
        case "$f:$name:$unit" in
        dimensional.h5:*) ;;
        *:*_dim:*) ;;
        *:*:1) ;;
        *) die "$f: $name has units '$unit' in a nondimensional file (expected 1)" ;;
        esac
        out=$(udunits2 -H "$unit" -W "" 2>&1 || true)
        case "$out" in
        *"recognize"* | *"rror"*) die "$f: $name has units '$unit', which UDUNITS does not know: $out" ;;
        esac
    done <units.txt
    say "$f: status's _FillValue is not a flag value; swept parameters are not parameter_ attributes"
    "$PYTHON" - "$f" <<'EOF2' || die "$f: CF attribute checks failed"
import sys, h5py, numpy as np
problems = []
with h5py.File(sys.argv[1], "r") as f:
    st = f["status"]
    fill = st.attrs.get("_FillValue")
    flags = np.atleast_1d(st.attrs.get("flag_values"))
    if fill is None:
        problems.append("status has no _FillValue")
    elif int(np.atleast_1d(fill)[0]) in [int(v) for v in flags]:
        problems.append(f"status's _FillValue {fill} is a flag value")
    axes = str(f.attrs["axes"]).split() if not isinstance(f.attrs["axes"], bytes) else f.attrs["axes"].decode().split()
    for a in axes:
        if "parameter_" + a in f.attrs:
            problems.append(f"swept parameter {a} is also recorded as parameter_{a}")
    fixed = [k for k in f.attrs if k.startswith("parameter_")]
    if not fixed:
        problems.append("no parameter_NAME attribute for the fixed parameters")
for p in problems:
    print("PROBLEM:", p, file=sys.stderr)
sys.exit(1 if problems else 0)
EOF2
done

say "the dimensional form's outputs are in SI units"
"$PYTHON" - dimensional.h5 <<'EOF2' || die "dimensional.h5: the dimensional outputs are not in SI units"
import sys, h5py
want = {"t_sep_dim": "s", "x_max_dim": "m", "x_sep_dim": "m", "f_max_dim": "N"}
with h5py.File(sys.argv[1], "r") as f:
    for name, unit in want.items():
        got = f[name].attrs["units"]
        got = got.decode() if isinstance(got, bytes) else str(got)
        if got != unit:
            print(f"PROBLEM: {name} has units {got!r}, expected {unit!r}", file=sys.stderr)
            sys.exit(1)
EOF2
