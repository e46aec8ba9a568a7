# test_plugin.sh: model plug-ins (shared libraries built against model.h alone; the test
# libraries of tests/models/plugins, in $PLUGIN_DIR):
#  - found through IMPACTSWEEP_MODEL_PATH, listed by `impactsweep models` with where they
#    came from and the contract they were built against, checked by `models --check`;
#  - only the SDK is exported by the engine, and a plug-in built with the documented cc line
#    whose own global function has an engine internal's name (stop_energy) keeps its own;
#  - discovery as HDF5's: a library on the path is opened only for a model that is not
#    built in; an unusable one (another contract, no entry point, a broken table, no
#    contract exports, a built-in model's name, missing, not a regular file, writable by
#    anyone) is skipped with one warning, and refused (exit 2, named, why) only when the
#    model asked for is in it or in two libraries; named by path it is refused at once
#    (/dev/zero, /dev/urandom and a FIFO never block eval, models or trace);
#  - named by path in a job (relative to the job file), swept on 1 and 2 ranks (the same
#    file), equal to the closed form, the library and its SHA-256 recorded in the file;
#  - a resume with a rebuilt library of the same declared version and tables accepted (both
#    checksums in the run log), with another version refused; pieces of a plug-in job
#    merged (and `info` read) with the plug-in gone;
#  - the built-in chatter code as a plug-in gives the built-in model's results bit for bit.
# shellcheck source=lib.sh
source "$TESTS/integration/lib.sh"
[ -n "${PLUGIN_DIR:-}" ] || die "PLUGIN_DIR is not set (run the test through ctest)"
BROKEN=$PLUGIN_DIR/broken
INCLUDE=$PLUGIN_DIR/../plugin-include # model.h and error.h as <impactsweep/...>
abi=$(sed -nE 's/^#define IS_MODEL_ABI_VERSION ([0-9]+).*/\1/p' "$TESTS/../src/core/contract/model.h")
minor=$(sed -nE 's/^#define IS_MODEL_ABI_MINOR ([0-9]+).*/\1/p' "$TESTS/../src/core/contract/model.h")

say "IMPACTSWEEP_MODEL_PATH: models lists the plug-ins with their library and checksum"
export IMPACTSWEEP_MODEL_PATH=$PLUGIN_DIR
expect_status 0 "models" "$IMPACTSWEEP" models
grep -q "^ball: " out.txt || die "models does not list the plug-in ball"
grep -q "^chatter-plugin: " out.txt || die "models does not list chatter-plugin"
grep -q "from: $PLUGIN_DIR/libball.so (plug-in, version 1.0.0, sha256 $(sha "$PLUGIN_DIR/libball.so"), model contract $abi.$minor)" out.txt ||
    die "models does not say where ball came from: $(grep -A1 '^ball:' out.txt)"
grep -q "from: built in" out.txt || die "models does not say that chatter is built in"
grep -A2 '^ball: ' out.txt | grep -q "^  references: the textbook bouncing ball (a test plug-in: no paper)$" ||
    die "models does not show ball's references: $(grep -A2 '^ball:' out.txt)"
grep -A2 '^chatter: ' out.txt | grep -q "^  references: .*arXiv:1704.03044$" ||
    die "models does not show chatter's references: $(grep -A2 '^chatter:' out.txt)"
[ ! -s err.txt ] || die "models warns about a path of good libraries: $(cat err.txt)"
expect_status 0 "models --check ball" "$IMPACTSWEEP" models --check ball
grep -q "keeps the model contract" out.txt || die "models --check ball: no verdict"
expect_status 2 "models --check on a model whose results depend on the batch" \
    "$IMPACTSWEEP" models --check "$BROKEN/libbroken_5.so"
grep -q "depend only on its own point" err.txt || die "models --check: not the batch dependence: $(cat err.txt)"

say "only the SDK is exported: the functions marked IS_SDK_API, nothing else of the engine's"
sdk=$(sed -nE 's/^IS_SDK_API [a-z_ *]*\b(is_[a-z_]+)\(.*/\1/p' "$TESTS/../src/core/contract/model.h" \
    "$TESTS/../src/core/base/error.h" | sort | tr '\n' ' ')
[ "$(echo "$sdk" | wc -w)" -ge 9 ] || die "the SDK's declarations were not found: $sdk"
for binary in "$IMPACTSWEEP" "$IMPACTSWEEP_TEST"; do
    exported=$(nm -D --defined-only "$binary" | awk '$2 == "T" && $3 !~ /^_/ {print $3}' | sort |
        tr '\n' ' ')
    [ "$exported" = "$sdk" ] || die "$binary exports the functions: $exported (want the SDK: $sdk)"
done
! nm -D --defined-only "$IMPACTSWEEP" | grep -w stop_energy >/dev/null || die "the engine exports stop_energy"

say "a plug-in built by the documented cc line whose own global function is called stop_energy (an engine internal)"
cat >namesake.c <<'EOF'
#include <impactsweep/model.h>
/* global, and named like one of the engine's own functions */
double stop_energy(double v) { return 0.5 * v * v; }
static const is_param params[] = {{"v", "a speed", "1", IS_PARAM_REAL, 1, -10, 10, 0, NULL, NULL, NULL}};
static const is_output outputs[] = {{"e", "1", "v^2 / 2", IS_OUTPUT_REAL, NULL, 0, NULL}};
static is_code eval(void *ws, const double *p, size_t n, double *out, uint8_t *status, is_error *err)
{
    (void)ws, (void)err;
    for (size_t i = 0; i < n; i++) {
        out[i] = stop_energy(p[i]);
        status[i] = IS_POINT_DONE;
    }
    return IS_OK;
}
static const is_model namesake = {IS_MODEL_HEADER, .name = "namesake", .description = "v^2 / 2",
    .params = params, .param_count = 1, .outputs = outputs, .output_count = 1,
    .eval_batch = eval, .version = "1.0.0"};
IS_MODEL_PLUGIN(namesake)
EOF
# the documented plain cc line (docs/development.md), and the same without
# -fvisibility=hidden (the engine hides its own)
expect_status 0 "cc (the documented line)" cc -std=c11 -O2 -fPIC -ffp-contract=off -shared \
    -fvisibility=hidden -I"$INCLUDE" namesake.c -o libnamesake.so -lm
expect_status 0 "cc (without hidden visibility)" cc -std=c11 -O2 -fPIC -ffp-contract=off -shared \
    -I"$INCLUDE" namesake.c -o libnamesake_visible.so -lm
for lib in libnamesake.so libnamesake_visible.so; do
    expect_status 0 "eval $lib v=3" "$IMPACTSWEEP" eval "./$lib" v=3
    grep -q '"e": 4.5' out.txt || die "$lib: eval gives $(cat out.txt)"
    expect_status 0 "models --check $lib" "$IMPACTSWEEP" models --check "./$lib"
done

say "a built-in model opens no library on the path; unusable ones are skipped with a warning"
expect_status 0 "eval chatter with the broken libraries on the path" env \
    IMPACTSWEEP_MODEL_PATH="$BROKEN" IMPACTSWEEP_TEST_LOADED="$WORK/loaded.txt" \
    "$IMPACTSWEEP" eval chatter rho=0.3 gamma=0.1 samples=2
[ ! -e loaded.txt ] || die "eval chatter opened libraries on the path: $(cat loaded.txt)"
[ ! -s err.txt ] || die "eval chatter warned about libraries it need not open: $(cat err.txt)"
expect_status 0 "models with the broken libraries on the path" env IMPACTSWEEP_MODEL_PATH="$BROKEN" \
    "$IMPACTSWEEP" models
for kind in 1 2 3 4 6; do
    [ "$(grep -c "libbroken_$kind.so skipped" err.txt)" = 1 ] ||
        die "models: not one warning about libbroken_$kind.so: $(cat err.txt)"
done
grep -q "^broken: " out.txt || die "models does not list the path's usable library (broken_5)"
grep -q "^chatter: " out.txt || die "models does not list chatter"

say "named by path, a broken plug-in is refused with exit 2, naming it and what is wrong"
refused() { # KIND TEXT
    local lib=$BROKEN/libbroken_$1.so
    expect_status 2 "models $lib" "$IMPACTSWEEP" models "$lib"
    grep -q "$lib" err.txt || die "broken_$1: the message does not name the library: $(cat err.txt)"
    grep -q "$2" err.txt || die "broken_$1: the message does not say '$2': $(cat err.txt)"
}
refused 1 "built against model contract version $((abi + 1)), but this impactsweep loads versions 1 to $abi.$minor"
refused 2 "exports no entry point impactsweep_model"
refused 3 "breaks the model contract: model broken: parameter x is listed twice"
refused 4 "not an impactsweep model"
refused 6 "a model called chatter exists already (built in)"

say "on the path, a model is refused only when it is in an unusable library, or in two"
mkdir -p two/a two/b one
cp "$BROKEN/libbroken_3.so" one/libbroken.so # a broken table; its file names the model
expect_status 2 "eval broken, in an unusable library" env IMPACTSWEEP_MODEL_PATH="$WORK/one" \
    "$IMPACTSWEEP" eval broken x=0 y=0
grep -q "parameter x is listed twice" err.txt || die "the unusable library's reason: $(cat err.txt)"
cp "$PLUGIN_DIR/libball.so" two/a/libball.so
cp "$PLUGIN_DIR/libball.so" two/b/ball.so
expect_status 2 "eval ball, in two libraries" env IMPACTSWEEP_MODEL_PATH="$WORK/two/a:$WORK/two/b" \
    "$IMPACTSWEEP" eval ball
grep -q "model ball is in two libraries on IMPACTSWEEP_MODEL_PATH: .*two/a/libball.so and .*two/b/ball.so" err.txt ||
    die "ambiguous model: $(cat err.txt)"
expect_status 0 "a missing entry in IMPACTSWEEP_MODEL_PATH" \
    env IMPACTSWEEP_MODEL_PATH="$PLUGIN_DIR/nothing.so:$PLUGIN_DIR" "$IMPACTSWEEP" eval ball
grep -q "IMPACTSWEEP_MODEL_PATH: $PLUGIN_DIR/nothing.so: No such file" err.txt || die "missing library: $(cat err.txt)"

say "a library or directory anyone may write is refused (unless explicitly allowed)"
mkdir -p open shut
cp "$PLUGIN_DIR/libball.so" shut/libball.so
chmod o+w shut/libball.so
expect_status 2 "a world-writable library" "$IMPACTSWEEP" models shut/libball.so
grep -q "anyone may write it" err.txt || die "world-writable library: $(cat err.txt)"
expect_status 0 "allowed" env IMPACTSWEEP_ALLOW_WRITABLE_MODELS=1 "$IMPACTSWEEP" models shut/libball.so
chmod o-w shut/libball.so
cp "$PLUGIN_DIR/libball.so" open/libball.so
chmod 0777 open
expect_status 2 "a library in a world-writable directory" "$IMPACTSWEEP" models open/libball.so
grep -q "anyone may write its directory" err.txt || die "world-writable directory: $(cat err.txt)"
expect_status 2 "a world-writable directory on the path" env IMPACTSWEEP_MODEL_PATH="$WORK/open" \
    "$IMPACTSWEEP" eval ball
grep -q "anyone may write this directory" err.txt || die "world-writable path directory: $(cat err.txt)"
chmod 0755 open

say "a plug-in path that is no regular file is refused at once (no hang)"
mkfifo fifo.so
for path in /dev/zero /dev/urandom "$WORK/fifo.so"; do
    for cmd in "models $path" "eval $path x=1" "trace $path x=1"; do
        # shellcheck disable=SC2086 # the command's words
        expect_status 2 "$cmd" timeout 10 "$IMPACTSWEEP" $cmd
        grep -q "not a shared library: refused" err.txt || die "$cmd: $(cat err.txt)"
    done
done
expect_status 0 "a FIFO on the path is skipped" env IMPACTSWEEP_MODEL_PATH="$WORK/fifo.so:$PLUGIN_DIR" \
    timeout 10 "$IMPACTSWEEP" eval ball
grep -q "fifo.so skipped: .*a FIFO, not a shared library" err.txt || die "a FIFO on the path: $(cat err.txt)"

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
    assert attr("references") == "the textbook bouncing ball (a test plug-in: no paper)", attr("references")
ds = xr.open_dataset(path, engine="h5netcdf")
h, r = np.meshgrid(ds.h.values, ds.r.values, indexing="ij")
v0 = np.sqrt(2 * 9.81 * h)
want = np.sqrt(2 * h / 9.81) + 2 * v0 / 9.81 * r / (1 - r)
assert np.all(np.abs(ds.t_rest.values - want) <= 1e-15 * want), (ds.t_rest.values, want)
assert (ds.status.values == 1).all()
PY

say "a rebuilt library (same version and tables) continues a file; another version is refused"
expect_status 0 "the first piece" "$IMPACTSWEEP" run jobs/ball.ini --output part.h5 \
    --set sweep.piece=0/2 --set axis.h.count=60
printf 'x' >>jobs/lib/libball.so # other bytes, the same model
expect_status 0 "resume with a rebuilt library" "$IMPACTSWEEP" run jobs/ball.ini --output part.h5 \
    --set sweep.piece=0/2 --set axis.h.count=60 --resume
"$IMPACTSWEEP" info part.h5 --log >out.txt
grep -q "resumed .*; model ball 1.0.0, library sha256 $(sha jobs/lib/libball.so) (rebuilt: the file began with sha256 $(sha "$PLUGIN_DIR/libball.so"); the same declared version and tables)" out.txt ||
    die "the resume's log line: $(grep resumed out.txt)"
sed 's/"1.0.0"/"1.0.1"/' "$TESTS/models/plugins/ball.c" >ball_1.0.1.c
expect_status 0 "ball 1.0.1" cc -std=c11 -O2 -fPIC -shared -fvisibility=hidden -I"$INCLUDE" \
    ball_1.0.1.c -o jobs/lib/libball.so -lm
before=$(sha one.h5)
expect_status 2 "resume with another version" "$IMPACTSWEEP" run jobs/ball.ini --output one.h5 --resume
grep -q "version 1.0.1.*declared version or tables differ: results of two models are never mixed" err.txt ||
    die "another version: $(cat err.txt)"
[ "$(sha one.h5)" = "$before" ] || die "the refused resume changed one.h5"
expect_status 2 "trace of the file's point with another version" "$IMPACTSWEEP" trace one.h5 \
    h=0.5 r=0.1
grep -q "one.h5 was made by model ball version 1.0.0 from $WORK/jobs/lib/libball.so (sha256 $(sha "$PLUGIN_DIR/libball.so")); the model loaded now is ball version 1.0.1" err.txt ||
    die "trace with another version: $(cat err.txt)"
cp "$PLUGIN_DIR/libball.so" jobs/lib/libball.so

say "pieces of a plug-in job merge into the whole run, with the plug-in gone"
expect_status 0 "piece 0/2" "$IMPACTSWEEP" run jobs/ball.ini --piece 0/2 --output p1.h5
expect_status 0 "piece 1/2" "$IMPACTSWEEP" run jobs/ball.ini --piece 1/2 --output p2.h5
mv jobs/lib/libball.so jobs/lib/away.so
expect_status 0 "merge without the plug-in" "$IMPACTSWEEP" merge merged.h5 p1.h5 p2.h5
expect_status 0 "info without the plug-in" "$IMPACTSWEEP" info merged.h5
grep -q "18 done" out.txt || die "info merged.h5: $(grep points out.txt)"
grep -q "^papers:  the textbook bouncing ball (a test plug-in: no paper)$" out.txt ||
    die "info merged.h5 does not show the references the model's stored table carries"
mv jobs/lib/away.so jobs/lib/libball.so
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
