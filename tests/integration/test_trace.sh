# shellcheck shell=bash
# test_trace.sh: `impactsweep trace`, the trajectory behind one point, end to end.
#  - for each model (collision, chatter with --drop, stop-oscillator) the trace file opens
#    in xarray (h5netcdf) with the coordinate t over `sample`, the events over `event`
#    (event_kind with flag_values / flag_meanings), units and long_name on every variable,
#    the root attributes (impactsweep_trace, Conventions CF-1.8, model, parameter_NAME,
#    engine_version, history); its last state is what `eval` prints for the point (cor
#    and t_sep, the drop's class and impacts, the final energy), and every output_NAME
#    attribute is eval's value, exactly;
#  - the trace of a result file's point, named by its coordinates, equals the trace from
#    the parameters (every variable bit for bit), and says the file stores the same
#    result; a coordinate not on its axis is refused (exit 2, naming the axis and the
#    nearest value), as are a missing axis and a fixed parameter given as a coordinate;
#  - a model without a trace (the test-only synthetic model) is refused with exit 2; so
#    are an unknown model, an unknown parameter, one that does not apply, an existing
#    output without --overwrite (which then replaces it) and a drop beyond the samples;
#  - --window T0,T1 keeps exactly the samples and events of the whole trace with
#    T0 <= t <= T1 (bit for bit, the outputs the whole run's), from the parameters and
#    from a result file's point, and records the window; a malformed window exits 2
#    naming --window;
#  - a request that the model sizes beyond --max-samples is refused before it runs (exit
#    2 within seconds, its size in MB or GB named, nothing written); the model's estimate
#    is at most the samples the run gives and short of them by the event samples only;
#  - a plug-in (the test build's chatter-plugin) traces through the same contract;
#  - analysis/impactplot.py draws every trace file (PNG written, exit 0).
# shellcheck source=lib.sh
source "$TESTS/integration/lib.sh"
: "${IMPACTSWEEP_TEST:?}"
ROOT=$(cd "$TESTS/.." && pwd)
TOOL="$ROOT/analysis/impactplot.py"

# check_trace FILE EVAL_JSON KIND: the trace file's layout, and its last state against
# eval's JSON (KIND: collision, chatter or stop).
check_trace() {
    "$PYTHON" - "$@" <<'EOF' || die "trace file $1 is not as expected"
import json, sys
import numpy as np
import xarray as xr

path, eval_path, kind = sys.argv[1:4]
doc = json.load(open(eval_path))
out = doc["outputs"]
problems = []
ds = xr.open_dataset(path, engine="h5netcdf")
if "t" not in ds.coords or ds["t"].dims != ("sample",):
    problems.append(f"t is no coordinate over sample: coords {list(ds.coords)}")
if "event_t" not in ds.coords or "event_kind" not in ds.variables:
    problems.append("no event_t / event_kind")
kinds = str(ds["event_kind"].attrs.get("flag_meanings", "")).split()
if not kinds or len(ds["event_kind"].attrs.get("flag_values", [])) != len(kinds):
    problems.append("event_kind without flag_values / flag_meanings")
for name, var in ds.variables.items():
    if "units" not in var.attrs or "long_name" not in var.attrs:
        problems.append(f"{name} lacks units or long_name")
a = ds.attrs
for key in ("engine_version", "history", "model", "git_commit"):
    if not a.get(key):
        problems.append(f"no root attribute {key}")
if int(a.get("impactsweep_trace", 0)) != 1 or a.get("Conventions") != "CF-1.8":
    problems.append("impactsweep_trace / Conventions")
if a.get("model") != doc["model"]:
    problems.append(f"model {a.get('model')} != {doc['model']}")
for name, value in doc["parameters"].items():
    stored = a.get(f"parameter_{name}")
    if isinstance(value, str) and stored != value:
        problems.append(f"parameter_{name} = {stored!r}, eval {value!r}")
    elif not isinstance(value, str) and value is not None and float(stored) != value:
        problems.append(f"parameter_{name} = {stored!r}, eval {value!r}")
# every output as eval gives it
for name, value in out.items():
    stored = a.get(f"output_{name}")
    if isinstance(stored, (np.floating, float, np.integer, int)):
        stored = None if not np.isfinite(stored) else float(stored)
    if stored != value:
        problems.append(f"output_{name} = {stored!r}, eval {value!r}")
if a.get("status") != doc["status"].lower():
    problems.append(f"status {a.get('status')!r}, eval {doc['status']!r}")
# the last state is where eval's outputs come from
names = [kinds[k] for k in ds["event_kind"].values]
t = ds["t"].values
if kind == "collision":
    if out["outcome"] != "separated" or names[-1] != "separation":
        problems.append(f"outcome {out['outcome']}, last event {names[-1]}")
    if ds["v"].values[-1] != out["cor"] or t[-1] != out["t_sep"] \
            or ds["indentation"].values[-1] != out["x_sep"]:
        problems.append(f"last v {ds['v'].values[-1]!r} t {t[-1]!r}: eval cor {out['cor']!r} "
                        f"t_sep {out['t_sep']!r}")
    if np.nanmax(ds["force"].values) != out["f_max"]:
        problems.append(f"max force {np.nanmax(ds['force'].values)!r}, f_max {out['f_max']!r}")
elif kind == "chatter":  # one drop a point: its class and impacts are the point's
    decided = "cc" if names[-1] == "certified" else names[-1]  # CC, proven on the way
    if decided != out["regime"] or ds["impacts"].values[-1] != out["impacts_mean"] \
            or t[-1] != out["time_mean"]:
        problems.append(f"drop: {names[-1]} after {ds['impacts'].values[-1]} impacts at "
                        f"{t[-1]!r}; eval {out['regime']} {out['impacts_mean']} "
                        f"{out['time_mean']!r}")
elif kind == "stop":
    if ds["energy"].values[-1] != out["energy"] or names[-1] != "end":
        problems.append(f"last energy {ds['energy'].values[-1]!r}, eval {out['energy']!r}")
    if names.count("rebound") != out["rebounds"]:
        problems.append(f"{names.count('rebound')} rebounds traced, eval {out['rebounds']}")
    if np.max(np.diff(ds["energy"].values)) > 1e-12 * ds["energy"].values[0]:
        problems.append("the energy rises")
if np.any(np.diff(t) < 0):
    problems.append("samples out of time order")
for p in problems:
    print("PROBLEM:", p, file=sys.stderr)
sys.exit(1 if problems else 0)
EOF
}

# same_trace A B: every variable of two trace files bit for bit, and the same attributes
# but history and source.
same_trace() {
    "$PYTHON" - "$1" "$2" <<'EOF' || die "traces $1 and $2 differ"
import sys
import h5py
import numpy as np

with h5py.File(sys.argv[1], "r") as a, h5py.File(sys.argv[2], "r") as b:
    problems = []
    if sorted(a) != sorted(b):
        problems.append(f"variables {sorted(a)} against {sorted(b)}")
    for name in a:
        if name in ("sample", "event"):
            continue
        x, y = a[name][()], b[name][()]
        if x.shape != y.shape or x.tobytes() != y.tobytes():
            problems.append(f"{name} differs")
    for key in set(a.attrs) | set(b.attrs):
        if key in ("history", "source"):
            continue
        if key not in a.attrs or key not in b.attrs or \
                np.asarray(a.attrs[key]).tobytes() != np.asarray(b.attrs[key]).tobytes():
            problems.append(f"attribute {key}: {a.attrs.get(key)!r} / {b.attrs.get(key)!r}")
for p in problems:
    print("PROBLEM:", p, file=sys.stderr)
sys.exit(1 if problems else 0)
EOF
}

# windowed WHOLE PART T0 T1: PART holds exactly WHOLE's samples and events with
# T0 <= t <= T1 (every variable bit for bit), the same attributes but history and source,
# and time_window = [T0, T1].
windowed() {
    "$PYTHON" - "$@" <<'EOF' || die "the windowed trace $2 is not $1 within [$3, $4]"
import sys
import h5py
import numpy as np

whole, part, t0, t1 = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
with h5py.File(whole, "r") as a, h5py.File(part, "r") as b:
    problems = []
    keep = {"sample": (a["t"][()] >= t0) & (a["t"][()] <= t1),
            "event": (a["event_t"][()] >= t0) & (a["event_t"][()] <= t1)}
    if not keep["sample"].any() or keep["sample"].all():
        problems.append("the window keeps none or all of the samples: a useless test")
    if sorted(a) != sorted(b):
        problems.append(f"variables {sorted(a)} against {sorted(b)}")
    for name in a:
        if name in ("sample", "event") or name not in b:
            continue
        x, y = a[name][()], b[name][()]
        x = x[keep["event" if name.startswith("event") else "sample"]]
        if x.shape != y.shape or x.tobytes() != y.tobytes():
            problems.append(f"{name}: {y.shape} values, {x.shape} of the whole in the window")
    for key in set(a.attrs) | set(b.attrs):
        if key in ("history", "source", "time_window"):
            continue
        if key not in a.attrs or key not in b.attrs or \
                np.asarray(a.attrs[key]).tobytes() != np.asarray(b.attrs[key]).tobytes():
            problems.append(f"attribute {key}: {a.attrs.get(key)!r} / {b.attrs.get(key)!r}")
    if "time_window" in a.attrs or list(b.attrs.get("time_window", [])) != [t0, t1]:
        problems.append(f"time_window {b.attrs.get('time_window')!r}, not [{t0}, {t1}]")
for p in problems:
    print("PROBLEM:", p, file=sys.stderr)
sys.exit(1 if problems else 0)
EOF
}

# plot FILE KIND...: impactplot draws FILE's figures (PREFIX_KIND.png for each KIND).
plot() {
    local file=$1 prefix=${1%.h5} kind
    shift
    expect_status 0 "impactplot.py $file" "$PYTHON" "$TOOL" "$file" --format png
    for kind in "$@"; do
        [ -s "${prefix}_$kind.png" ] || die "impactplot.py $file wrote no ${prefix}_$kind.png"
        grep -qx "${prefix}_$kind.png" out.txt || die "impactplot.py did not print ${prefix}_$kind.png"
    done
}

say "collision: the contact's trajectory, its last state is eval's e and t_sep"
point=(collision law=bwshc pi1=0.5 pi2=1 pi3=0.5 p=1.5 alpha=0.5)
expect_status 0 "eval collision" "$IMPACTSWEEP" eval "${point[@]}"
cp out.txt collision.json
expect_status 0 "trace collision" "$IMPACTSWEEP" trace "${point[@]}" --output collision.h5
grep -q "wrote collision.h5" err.txt || die "trace does not say what it wrote"
check_trace collision.h5 collision.json collision

say "chatter: drop 3 of a point, its class and impacts are the point's (samples = 1)"
expect_status 0 "trace chatter" "$IMPACTSWEEP" trace chatter rho=0.3 gamma=0.5 samples=8 \
    --drop 3 --output drop3.h5
"$PYTHON" -c "
import xarray as xr
ds = xr.open_dataset('drop3.h5', engine='h5netcdf')
assert int(ds.attrs['trace_option_drop']) == 3, ds.attrs['trace_option_drop']
" || die "the trace of drop 3 does not say so"
expect_status 0 "trace chatter drop=0" "$IMPACTSWEEP" trace chatter rho=0.3 gamma=0.1 \
    samples=1 drop=0 --output chatter.h5
expect_status 0 "eval chatter" "$IMPACTSWEEP" eval chatter rho=0.3 gamma=0.1 samples=1
cp out.txt chatter.json
check_trace chatter.h5 chatter.json chatter
expect_status 0 "trace chatter, an ICC drop" "$IMPACTSWEEP" trace chatter rho=0.3 gamma=0.5 \
    samples=1 --output icc.h5
expect_status 0 "eval chatter, an ICC drop" "$IMPACTSWEEP" eval chatter rho=0.3 gamma=0.5 samples=1
cp out.txt icc.json
check_trace icc.h5 icc.json chatter
expect_status 2 "a drop beyond the samples" "$IMPACTSWEEP" trace chatter rho=0.3 gamma=0.1 \
    samples=4 --drop 4 --output beyond.h5
grep -q "drop" err.txt || die "a drop beyond the samples: the message does not name drop"
[ ! -e beyond.h5 ] || die "a refused trace wrote its file"

say "stop oscillator: the orbit, its final energy is eval's"
point=(stop-oscillator x1_0=1 v1_0=-0.01 x2_0=2.5 v2_0=-0.1 t_end=60)
expect_status 0 "eval stop-oscillator" "$IMPACTSWEEP" eval "${point[@]}"
cp out.txt stop.json
expect_status 0 "trace stop-oscillator" "$IMPACTSWEEP" trace "${point[@]}" resolution=64 \
    --output stop.h5
check_trace stop.h5 stop.json stop

say "a result file's point, by its coordinates, is the point of its parameters"
cat >grid.ini <<'INI'
[sweep]
model = collision
[model]
law = bwshc
p = 1.5
alpha = 0.5
[axis.pi1]
values = 0.25, 0.5, 1
[axis.pi2]
values = 1, 2
INI
expect_status 0 "a collision sweep" "$IMPACTSWEEP" run grid.ini --output grid.h5
expect_status 0 "trace of grid.h5 at pi1=0.5 pi2=2" \
    "$IMPACTSWEEP" trace grid.h5 pi1=0.5 pi2=2 --output from_file.h5
grep -q "stores the same result" err.txt || die "trace of a file's point: no comparison"
expect_status 0 "trace from the parameters" "$IMPACTSWEEP" trace collision law=bwshc p=1.5 \
    alpha=0.5 pi1=0.5 pi2=2 --output from_params.h5
same_trace from_file.h5 from_params.h5
cat >laws.ini <<'INI'
[sweep]
model = collision
[axis.law]
values = bwshc, hunt-crossley
[axis.pi1]
values = 0.5, 1
INI
expect_status 0 "a sweep over laws" "$IMPACTSWEEP" run laws.ini --output laws.h5
expect_status 0 "trace of laws.h5 at law=hunt-crossley pi1=1" "$IMPACTSWEEP" trace laws.h5 \
    law=hunt-crossley pi1=1 --output law_file.h5
expect_status 0 "the same from the parameters" "$IMPACTSWEEP" trace collision \
    law=hunt-crossley pi1=1 --output law_params.h5
same_trace law_file.h5 law_params.h5
expect_status 2 "law=hooke (not on the axis)" "$IMPACTSWEEP" trace laws.h5 law=hooke pi1=1 \
    --output off.h5
grep -q "law = hooke is not on the axis law" err.txt || die "choice axis: message $(cat err.txt)"
cat >chatter_grid.ini <<'INI'
[sweep]
model = chatter
[model]
samples = 6
n = 3
[axis.rho]
values = 0.1, 0.2
[axis.gamma]
values = 0.05, 0.06
INI
expect_status 0 "a chatter sweep" "$IMPACTSWEEP" run chatter_grid.ini --output chatter_grid.h5
expect_status 0 "trace of chatter_grid.h5, drop 5" "$IMPACTSWEEP" trace chatter_grid.h5 \
    gamma=0.06 rho=0.2 --drop 5 --output chatter_file.h5
expect_status 0 "the same from the parameters" "$IMPACTSWEEP" trace chatter n=3 samples=6 \
    rho=0.2 gamma=0.06 --drop 5 --output chatter_params.h5
same_trace chatter_file.h5 chatter_params.h5

say "--window: the samples and events of the whole trace within it, bit for bit"
point=(stop-oscillator x1_0=1 v1_0=-0.01 x2_0=2.5 v2_0=-0.1 t_end=60 resolution=64)
expect_status 0 "trace stop-oscillator --window 20,40" "$IMPACTSWEEP" trace "${point[@]}" \
    --window 20,40 --output stop_window.h5
windowed stop.h5 stop_window.h5 20 40
# a result file's point, the window's ends at sample times of the whole (kept: t <= T1)
read -r t0 t1 < <("$PYTHON" -c "
import h5py
t = h5py.File('from_params.h5', 'r')['t'][()]
print(repr(float(t[len(t) // 4])), repr(float(t[len(t) // 2])))")
expect_status 0 "trace grid.h5 --window $t0,$t1" "$IMPACTSWEEP" trace grid.h5 pi1=0.5 pi2=2 \
    --window "$t0,$t1" --output from_file_window.h5
windowed from_params.h5 from_file_window.h5 "$t0" "$t1"
for bad in 5 a,b 1,nan 1,inf -inf,1 40,20 3,3 1,2,3 ,2 1, 1e999,2; do
    expect_status 2 "--window $bad" "$IMPACTSWEEP" trace "${point[@]}" --window "$bad" \
        --output bad_window.h5
    grep -q -- "--window" err.txt || die "--window $bad: the message does not name it: $(cat err.txt)"
done
expect_status 2 "--window without a value" "$IMPACTSWEEP" trace "${point[@]}" --output \
    bad_window.h5 --window
[ ! -e bad_window.h5 ] || die "a refused window wrote its file"
expect_status 0 "a window after the run's end" "$IMPACTSWEEP" trace "${point[@]}" \
    --window 100,200 --output after_end.h5
grep -q "0 samples, 0 events" err.txt && grep -q "no sample of the run lies in --window" err.txt ||
    die "a window after the run's end: $(cat err.txt)"

say "an oversize request is refused before it runs, naming its size"
big=(stop-oscillator t_end=1e9 resolution=1e4)
start=$(date +%s%N)
expect_status 2 "trace of 2.8e12 samples" "$IMPACTSWEEP" trace "${big[@]}" --output big.h5
elapsed=$((($(date +%s%N) - start) / 1000000))
[ "$elapsed" -lt 10000 ] || die "an oversize trace took $elapsed ms to be refused"
grep -q "would hold [0-9]* samples of 6 channels ([0-9.]* [TP]B)" err.txt ||
    die "oversize: the message does not give the size: $(cat err.txt)"
grep -q -- "--window" err.txt || die "oversize: the message does not suggest --window"
[ ! -e big.h5 ] && [ ! -e big.h5.partial ] || die "a refused trace wrote its file"
cat >stop_grid.ini <<'INI'
[sweep]
model = stop-oscillator
[model]
t_end = 100000
[axis.epsilon]
values = 0.5, 0.8
INI
expect_status 0 "a stop-oscillator sweep" "$IMPACTSWEEP" run stop_grid.ini --output stop_grid.h5
expect_status 2 "trace stop_grid.h5 at resolution 1e4" "$IMPACTSWEEP" trace stop_grid.h5 \
    epsilon=0.8 resolution=1e4 --output big.h5
grep -q "would hold [0-9]* samples of 6 channels ([0-9.]* [MG]B)" err.txt ||
    die "oversize (a result file's point): $(cat err.txt)"
[ ! -e big.h5 ] || die "a refused trace wrote its file"
expect_status 0 "the same point, its last 100 T" "$IMPACTSWEEP" trace stop_grid.h5 \
    epsilon=0.8 resolution=1e4 --window 99900,100000 --output big.h5
# the estimate: at most the samples of a whole run, short of them by the event samples only
for p in "x1_0=1 v1_0=-0.01 x2_0=2.5 v2_0=-0.1 t_end=60 resolution=64" "t_end=300 k=2 k12=0.5"; do
    read -ra args <<<"$p"
    expect_status 0 "trace stop-oscillator $p" "$IMPACTSWEEP" trace stop-oscillator \
        "${args[@]}" --output estimate.h5 --overwrite
    read -r samples events < <(sed -n 's/.* \([0-9]*\) samples, \([0-9]*\) events.*/\1 \2/p' err.txt)
    expect_status 2 "the same with --max-samples 10" "$IMPACTSWEEP" trace stop-oscillator \
        "${args[@]}" --output estimate2.h5 --max-samples 10
    estimate=$(sed -n 's/.*would hold \([0-9]*\) samples.*/\1/p' err.txt)
    [ -n "$estimate" ] && [ "$estimate" -le "$samples" ] &&
        [ "$estimate" -ge $((samples - 2 * events - 2)) ] ||
        die "$p: estimated '$estimate' samples; the run gave $samples with $events events"
done

say "a coordinate not on its axis, a missing axis, a fixed parameter: exit 2"
expect_status 2 "pi1=0.4 (not on the axis)" "$IMPACTSWEEP" trace grid.h5 pi1=0.4 pi2=2 \
    --output off.h5
grep -q "pi1 = 0.4.* is not on the axis pi1" err.txt || die "off the axis: message $(cat err.txt)"
grep -q "nearest is 0.5" err.txt || die "off the axis: the nearest value is not named"
[ ! -e off.h5 ] || die "a refused trace wrote its file"
say "--nearest takes the nearest grid point, says which, and traces it as if given exactly"
expect_status 0 "pi1=0.4 --nearest" "$IMPACTSWEEP" trace grid.h5 pi1=0.4 pi2=2 --nearest \
    --output near.h5
grep -q "taking the nearest grid point, pi1 = 0.5 (index" err.txt ||
    die "--nearest does not say which point it took: $(cat err.txt)"
expect_status 0 "pi1=0.5 (on the axis)" "$IMPACTSWEEP" trace grid.h5 pi1=0.5 pi2=2 --output exact.h5
same_trace near.h5 exact.h5
expect_status 2 "pi2 missing" "$IMPACTSWEEP" trace grid.h5 pi1=0.5 --output off.h5
grep -q "pi2=VALUE is missing" err.txt || die "missing axis: message $(cat err.txt)"
expect_status 2 "alpha given (fixed)" "$IMPACTSWEEP" trace grid.h5 pi1=0.5 pi2=2 alpha=0.6 \
    --output off.h5
grep -q "alpha is fixed in grid.h5" err.txt || die "fixed parameter: message $(cat err.txt)"

say "refused: a model without a trace, bad input, an existing output"
expect_status 2 "synthetic (no trace)" "$IMPACTSWEEP_TEST" trace synthetic x=1 y=2 \
    --output synthetic.h5
grep -q "model synthetic has no trajectory" err.txt || die "synthetic: message $(cat err.txt)"
[ ! -e synthetic.h5 ] || die "synthetic: a file was written"
expect_status 2 "an unknown model" "$IMPACTSWEEP" trace nosuchmodel --output x.h5
grep -q "unknown model 'nosuchmodel'" err.txt || die "unknown model: message $(cat err.txt)"
expect_status 2 "an unknown parameter" "$IMPACTSWEEP" trace collision nosuch=1 --output x.h5
expect_status 2 "a parameter that does not apply" "$IMPACTSWEEP" trace collision law=hooke \
    pi1=0.3 --output x.h5
grep -q "pi1 does not apply" err.txt || die "not applying: message $(cat err.txt)"
expect_status 2 "a value out of range" "$IMPACTSWEEP" trace chatter rho=0.3 gamma=1.5 --output x.h5
[ ! -e x.h5 ] || die "refused traces wrote a file"
sum=$(sha collision.h5)
expect_status 2 "an existing output" "$IMPACTSWEEP" trace collision --output collision.h5
grep -q "collision.h5 exists" err.txt || die "existing output: message $(cat err.txt)"
[ "$(sha collision.h5)" = "$sum" ] || die "the existing output was touched"
expect_status 0 "--overwrite" "$IMPACTSWEEP" trace collision --output collision.h5 --overwrite
[ "$(sha collision.h5)" != "$sum" ] || die "--overwrite did not replace the file"
expect_status 0 "the default output name" "$IMPACTSWEEP" trace collision law=hooke
[ -s trace.h5 ] || die "no trace.h5 by default"

plugin_dir=$(dirname "$IMPACTSWEEP_TEST")/plugins
if [ -e "$plugin_dir/libchatter_plugin.so" ]; then
    say "a plug-in traces through the same contract"
    expect_status 0 "trace chatter-plugin" env IMPACTSWEEP_MODEL_PATH="$plugin_dir/libchatter_plugin.so" \
        "$IMPACTSWEEP" trace chatter-plugin rho=0.3 gamma=0.1 samples=1 --output plugin.h5
    "$PYTHON" - <<'EOF' || die "the plug-in's trace differs from the built-in chatter's"
import h5py
with h5py.File("plugin.h5", "r") as a, h5py.File("chatter.h5", "r") as b:
    for name in ("t", "impacts", "q1", "p3", "event_kind"):
        assert a[name][()].tobytes() == b[name][()].tobytes(), name
EOF
fi

say "impactplot draws every trace file"
plot collision.h5 loop history
plot chatter.h5 impacts
plot drop3.h5 impacts
plot stop.h5 phase energy
plot stop_window.h5 phase energy
expect_status 0 "impactplot.py stop_window.h5 --layout" "$PYTHON" "$TOOL" stop_window.h5 \
    --format png --layout --output window
"$PYTHON" - <<'EOF' || die "the figures of a windowed trace do not say the window"
import json
from PIL import Image
for kind in ("phase", "energy"):
    text = Image.open(f"window_{kind}.png").text  # the provenance: its summary and points
    assert "t = 20 to 40" in text["summary"] and "t = 20 to 40" in text["points"], (kind, text)
    title = json.load(open(f"window_{kind}.json"))["suptitle"]  # what the figure shows
    assert "only t = 20 to 40 of the run" in title, (kind, title)
EOF
plot from_file.h5 loop history
