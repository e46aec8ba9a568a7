# test_plugin.sh: model plug-ins (shared libraries built against model.h alone; the test
# libraries of tests/models/plugins, in $PLUGIN_DIR):
#  - found through IMPACTSWEEP_MODEL_PATH, listed by `impactsweep models` with where they
#    came from, checked by `models --check`;
#  - refused with exit 2 and a message naming the library when built against another
#    contract version, without an entry point, with a table that breaks the contract,
#    without the contract's exports, under a built-in model's name, or missing;
#  - named by path in a job (relative to the job file), swept on 1 and 2 ranks (the same
#    file), equal to the closed form, the library and its SHA-256 recorded in the file;
#  - a resume with a changed library refused; pieces of a plug-in job merged;
#  - the built-in chatter code as a plug-in gives the built-in model's results bit for bit.
# shellcheck source=lib.sh
source "$TESTS/integration/lib.sh"
[ -n "${PLUGIN_DIR:-}" ] || die "PLUGIN_DIR is not set (run the test through ctest)"
BROKEN=$PLUGIN_DIR/broken

say "IMPACTSWEEP_MODEL_PATH: models lists the plug-ins with their library and checksum"
export IMPACTSWEEP_MODEL_PATH=$PLUGIN_DIR
expect_status 0 "models" "$IMPACTSWEEP" models
grep -q "^ball: " out.txt || die "models does not list the plug-in ball"
grep -q "^chatter-plugin: " out.txt || die "models does not list chatter-plugin"
grep -q "from: $PLUGIN_DIR/libball.so (plug-in, version 1.0.0, sha256 $(sha "$PLUGIN_DIR/libball.so"))" out.txt ||
    die "models does not say where ball came from: $(grep -A1 '^ball:' out.txt)"
grep -q "from: built in" out.txt || die "models does not say that chatter is built in"
expect_status 0 "models --check ball" "$IMPACTSWEEP" models --check ball
grep -q "keeps the model contract" out.txt || die "models --check ball: no verdict"
expect_status 2 "models --check on a model whose results depend on the batch" \
    "$IMPACTSWEEP" models --check "$BROKEN/libbroken_5.so"
grep -q "depend only on its own point" err.txt || die "models --check: not the batch dependence: $(cat err.txt)"

say "broken plug-ins are refused with exit 2, naming the library and what is wrong"
refused() { # KIND TEXT: `models PATH` and IMPACTSWEEP_MODEL_PATH=PATH both refuse it
    local lib=$BROKEN/libbroken_$1.so
    expect_status 2 "models $lib" "$IMPACTSWEEP" models "$lib"
    grep -q "$lib" err.txt || die "broken_$1: the message does not name the library: $(cat err.txt)"
    grep -q "$2" err.txt || die "broken_$1: the message does not say '$2': $(cat err.txt)"
    expect_status 2 "IMPACTSWEEP_MODEL_PATH=$lib eval chatter" \
        env IMPACTSWEEP_MODEL_PATH="$lib" "$IMPACTSWEEP" eval chatter rho=0.3 gamma=0.1
    grep -q "$2" err.txt || die "broken_$1 through IMPACTSWEEP_MODEL_PATH: $(cat err.txt)"
}
abi=$(sed -nE 's/^#define IS_MODEL_ABI_VERSION ([0-9]+).*/\1/p' "$TESTS/../src/core/model.h")
refused 1 "built against model contract version $((abi + 1)), but this impactsweep loads version $abi"
refused 2 "exports no entry point impactsweep_model"
refused 3 "breaks the model contract: model broken: parameter x is listed twice"
refused 4 "not an impactsweep model"
refused 6 "a model called chatter exists already (built in)"
expect_status 2 "a missing library in IMPACTSWEEP_MODEL_PATH" \
    env IMPACTSWEEP_MODEL_PATH="$PLUGIN_DIR/nothing.so" "$IMPACTSWEEP" models
grep -q "IMPACTSWEEP_MODEL_PATH: $PLUGIN_DIR/nothing.so: No such file" err.txt || die "missing library: $(cat err.txt)"

say "eval of the plug-in: the closed form, and the flights summed one by one agree with it"
expect_status 0 "eval ball" "$IMPACTSWEEP" eval ball h=2 r=0.5
"$PYTHON" - out.txt <<'PY' || die "eval ball is not the closed form"
import json, math, sys
d = json.load(open(sys.argv[1]))
h, r, g = 2.0, 0.5, 9.81
v0 = math.sqrt(2 * g * h)
want = math.sqrt(2 * h / g) + 2 * v0 / g * r / (1 - r)
got = d["outputs"]["t_rest"]
assert abs(got - want) <= 1e-15 * want, (got, want)
assert d["outputs"]["rebounds"] == math.ceil(math.log(1e-3 / v0) / math.log(r)) - 1
PY
closed=$(cat out.txt)
expect_status 0 "eval ball method=series" "$IMPACTSWEEP" eval ball h=2 r=0.5 method=series
"$PYTHON" - "$closed" out.txt <<'PY' || die "the series and the closed form disagree"
import json, sys
a = json.loads(sys.argv[1])["outputs"]
b = json.load(open(sys.argv[2]))["outputs"]
assert abs(a["t_rest"] - b["t_rest"]) <= 1e-13 * a["t_rest"], (a, b)
assert a["rebounds"] == b["rebounds"], (a, b)
PY
expect_status 2 "eval ball max_rebounds without method series" "$IMPACTSWEEP" eval ball max_rebounds=5
grep -q "max_rebounds does not apply" err.txt || die "a parameter that does not apply: $(cat err.txt)"

say "a job names the plug-in by its path (relative to the job file): 1 and 2 ranks agree"
unset IMPACTSWEEP_MODEL_PATH
mkdir -p jobs/lib
cp "$PLUGIN_DIR/libball.so" jobs/lib/libball.so
printf '%s\n' "[sweep]" "model = lib/libball.so" "[axis.h]" "from = 0.5" "to = 3" "count = 6" \
    "[axis.r]" "values = 0.1, 0.5, 0.9" >jobs/ball.ini
expect_status 0 "ball on 1 rank" mpi1 run jobs/ball.ini --output one.h5
expect_status 0 "ball on 2 ranks" mpi2 run jobs/ball.ini --output two.h5
same_results one.h5 two.h5 "the plug-in on 1 and 2 ranks"
"$PYTHON" - two.h5 "$WORK/jobs/lib/libball.so" "$(sha jobs/lib/libball.so)" <<'PY' || die "the plug-in's file"
import math, sys, h5py, numpy as np, xarray as xr
path, library, sha = sys.argv[1:4]
with h5py.File(path, "r") as f:
    attr = lambda k: f.attrs[k].decode() if isinstance(f.attrs[k], bytes) else str(f.attrs[k])
    assert attr("model") == "ball", attr("model")
    assert attr("model_version") == "1.0.0", attr("model_version")
    assert attr("model_library") == library, (attr("model_library"), library)
    assert attr("model_library_sha256") == sha, attr("model_library_sha256")
    assert "model = " + library in attr("job"), "the stored job does not name the library's absolute path"
ds = xr.open_dataset(path, engine="h5netcdf")
h, r = np.meshgrid(ds.h.values, ds.r.values, indexing="ij")
v0 = np.sqrt(2 * 9.81 * h)
want = np.sqrt(2 * h / 9.81) + 2 * v0 / 9.81 * r / (1 - r)
assert np.all(np.abs(ds.t_rest.values - want) <= 1e-15 * want), (ds.t_rest.values, want)
assert (ds.status.values == 1).all()
PY

say "a resume with a changed library is refused; the stored file is untouched"
before=$(sha one.h5)
printf 'x' >>jobs/lib/libball.so
expect_status 2 "resume with a changed library" "$IMPACTSWEEP" run jobs/ball.ini --output one.h5 --resume
grep -q "results of two libraries are never mixed" err.txt || die "changed library: $(cat err.txt)"
[ "$(sha one.h5)" = "$before" ] || die "the refused resume changed one.h5"
cp "$PLUGIN_DIR/libball.so" jobs/lib/libball.so

say "pieces of a plug-in job merge into the whole run"
expect_status 0 "piece 0/2" "$IMPACTSWEEP" run jobs/ball.ini --piece 0/2 --output p1.h5
expect_status 0 "piece 1/2" "$IMPACTSWEEP" run jobs/ball.ini --piece 1/2 --output p2.h5
expect_status 0 "merge" "$IMPACTSWEEP" merge merged.h5 p1.h5 p2.h5
same_results one.h5 merged.h5 "the merged pieces of the plug-in job"

say "the chatter code as a plug-in gives the built-in model's results bit for bit"
export IMPACTSWEEP_MODEL_PATH=$PLUGIN_DIR
expect_status 0 "built-in chatter" "$IMPACTSWEEP" run "$JOBS/example.ini" \
    --set axis.rho.count=4 --set axis.gamma.count=3 --set model.samples=20 --output builtin.h5
expect_status 0 "chatter-plugin" "$IMPACTSWEEP" run "$JOBS/example.ini" \
    --set sweep.model=chatter-plugin --set axis.rho.count=4 --set axis.gamma.count=3 \
    --set model.samples=20 --output plugin.h5
"$PYTHON" - builtin.h5 plugin.h5 <<'PY' || die "chatter-plugin differs from chatter"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as a, h5py.File(sys.argv[2], "r") as b:
    names = [k for k in a if isinstance(a[k], h5py.Dataset)]
    assert names and set(names) == set(k for k in b if isinstance(b[k], h5py.Dataset))
    for k in names:
        x, y = a[k][...], b[k][...]
        assert x.dtype == y.dtype and x.tobytes() == y.tobytes(), k
PY
