# test_readme.sh: every command the documentation shows (README.md and every docs/*.md) is
# run here, as the page writes it with its placeholders filled in (JOB.ini, FILE, OUT,
# PIECE.h5: a small job and its files; 64 ranks: 3), and the guide's job-file example is
# run as a job. The list of commands is read from the pages themselves (indented lines
# that start with impactsweep, mpirun, slurm/submit, scripts/, cmake, cc,
# /usr/bin/python3 or a variable): one the test does not mirror fails it, so that a
# command added to any page gets a test, and a mirror whose command left the pages fails
# it too.
# shellcheck source=lib.sh disable=SC2086 # $MPIEXEC_FLAGS: words on purpose
source "$TESTS/integration/lib.sh"
ROOT=$(cd "$TESTS/.." && pwd)
# the pages, as one text: README.md, then docs/*.md in name order (a page another change
# adds is read too)
README=$WORK/all_pages.md
cat "$ROOT/README.md" "$ROOT"/docs/*.md >"$README"
BIN=$(dirname "$IMPACTSWEEP")
export PATH=$BIN:$PATH # the pages call it `impactsweep`
covered=()
# mirror TEXT: records that the pages' command TEXT (without its comment) is run next
mirror() { covered+=("$1"); say "docs: $1"; }

say "the guide's job-file example, run as a job"
awk '/^INI files \(parsed with libinih\)/ { on = 1; next } on && /^- `\[sweep\]`/ { exit }
     on && /^    / { sub(/^    /, ""); print } on && /^$/ { print }' "$README" >readme.ini
grep -q "^\[sweep\]" readme.ini || die "no job-file example found in the pages"
expect_status 0 "the example job" impactsweep run readme.ini --output readme.h5 \
    --set axis.rho.count=6 --set model.samples=20
impactsweep info readme.h5 >info.txt
grep -q "points:.* 24 total, 24 done" info.txt || die "the guide's job: $(grep points: info.txt)"
job=readme.ini
small=(--set axis.rho.count=6 --set model.samples=20)

mirror "scripts/example.sh"
mirror "scripts/example.sh && scripts/figure.sh"
expect_status 0 "scripts/example.sh" env IMPACTSWEEP_BUILD="$BIN" "$ROOT/scripts/example.sh"
[ -f example.h5 ] || die "scripts/example.sh left no example.h5"
mirror "scripts/test.sh" # (CI runs it: this test is one of its tests)

mirror "mpirun -n 64 impactsweep run JOB.ini"
expect_status 0 "mpirun" $MPIEXEC $MPIEXEC_FLAGS -n 3 "$IMPACTSWEEP" run "$job" "${small[@]}" \
    --output run3.h5
mirror "impactsweep run -n 64 JOB.ini"
expect_status 0 "run -n" env IMPACTSWEEP_MPIEXEC="$MPIEXEC $MPIEXEC_FLAGS" impactsweep run -n 3 \
    "$job" "${small[@]}" --output runn.h5
same_results run3.h5 runn.h5 "mpirun -n 3 and run -n 3"
mirror "impactsweep run JOB.ini [--set section.key=value ...] [--output FILE] [--piece I/N[:FIRST-LAST]] [--resume | --overwrite] [--progress bar|lines] [--quiet] [--dry-run [--pieces N]] [--strict]"
expect_status 0 "run with options" impactsweep run "$job" --set model.samples=20 \
    --set axis.rho.count=6 --output FILE.h5 --piece 1/2 --overwrite --quiet --strict
expect_status 0 "run --resume" impactsweep run "$job" --set model.samples=20 \
    --set axis.rho.count=6 --output FILE.h5 --piece 1/2 --resume --progress lines
expect_status 0 "run --dry-run --pieces" impactsweep run "$job" --set axis.rho.count=6 --dry-run --pieces 2
read -r -a cut <<<"$(sed -n 's/^piece bounds: *//p' out.txt)"
expect_status 0 "run --piece I/N:FIRST-LAST" impactsweep run "$job" --set model.samples=20 \
    --set axis.rho.count=6 --output FILE2.h5 --piece "1/2:${cut[1]}-$((cut[2] - 1))" --quiet
mirror "impactsweep run -n 4 JOB.ini"
expect_status 0 "run -n (the front page's)" env IMPACTSWEEP_MPIEXEC="$MPIEXEC $MPIEXEC_FLAGS" \
    impactsweep run -n 2 "$job" "${small[@]}" --output front.h5
mirror "impactsweep info FILE.h5"
expect_status 0 "info FILE.h5" impactsweep info front.h5
grep -q "points:.* 24 total, 24 done" out.txt || die "info FILE.h5: $(grep points: out.txt)"
mirror "/usr/bin/python3 analysis/impactplot.py FILE.h5"
expect_status 0 "impactplot FILE.h5" /usr/bin/python3 "$ROOT/analysis/impactplot.py" front.h5 \
    --format png --dpi 60
ls front_*.png >/dev/null 2>&1 || die "impactplot FILE.h5 drew nothing"
mirror "impactsweep run JOB.ini --dry-run"
expect_status 0 "dry run" impactsweep run "$job" --dry-run
grep -q "^estimate:" out.txt || die "the dry run gives no estimate"
mirror "impactsweep eval chatter rho=0.3 gamma=0.1"
expect_status 0 "eval" impactsweep eval chatter rho=0.3 gamma=0.1
mirror "impactsweep eval chatter - < points.txt"
printf '%s\n' "rho=0.3 gamma=0.1" "# a comment" "rho=0.4 gamma=0.2 samples=8" >points.txt
expect_status 0 "eval from standard input" impactsweep eval chatter - < points.txt
[ "$(grep -c '"status": "DONE"' out.txt)" -eq 2 ] || die "eval - gave $(cat out.txt)"
cp out.txt one-process.txt
mirror "impactsweep eval chatter - -n 2 < points.txt"
expect_status 0 "eval from standard input on 2 processes" impactsweep eval chatter - -n 2 < points.txt
cmp -s out.txt one-process.txt || die "eval - -n 2 answered otherwise than one process"
mirror "impactsweep models chatter --json"
expect_status 0 "models --json" impactsweep models chatter --json
"$PYTHON" -c 'import json, sys; m = json.load(open(sys.argv[1])); assert m["model"] == "chatter" and m["outputs"]' out.txt ||
    die "models chatter --json is not the model's table: $(head -c 300 out.txt)"
mirror "impactsweep trace chatter rho=0.3 gamma=0.1 --drop 5"
expect_status 0 "trace" impactsweep trace chatter rho=0.3 gamma=0.1 --drop 5
[ -f trace.h5 ] || die "trace wrote no trace.h5"
mirror "impactsweep trace FILE.h5 rho=0.3 gamma=0.1 --nearest"
printf '%s\n' "[sweep]" "model = chatter" "[model]" "samples = 20" "[axis.rho]" \
    "values = 0.29, 0.32" "[axis.gamma]" "values = 0.1, 0.2" >point.ini
expect_status 0 "a point's file" impactsweep run point.ini --output FILE.h5 --overwrite
expect_status 0 "trace of a file's point" impactsweep trace FILE.h5 rho=0.3 gamma=0.1 \
    --nearest --output trace_file.h5
grep -q "taking the nearest grid point, rho = 0.29" err.txt || die "--nearest: $(cat err.txt)"
mirror "impactsweep models [MODEL]"
expect_status 0 "models" impactsweep models
expect_status 0 "models chatter" impactsweep models chatter
mirror "impactsweep info FILE [--log] [--verify]"
expect_status 0 "info" impactsweep info FILE.h5
expect_status 0 "info --log" impactsweep info FILE.h5 --log
expect_status 0 "info --verify" impactsweep info FILE.h5 --verify
grep -q "^verified: " out.txt || die "info --verify says nothing verified"
mirror "impactsweep merge OUT PIECE.h5 ..."
for i in 0 1; do
    expect_status 0 "piece $i" impactsweep run "$job" "${small[@]}" --piece "$i/2" \
        --output "PIECE$i.h5"
done
expect_status 0 "merge" impactsweep merge OUT.h5 PIECE0.h5 PIECE1.h5
same_results OUT.h5 run3.h5 "the merged pieces and one run"
mirror "impactsweep run --help"
expect_status 0 "run --help" impactsweep run --help
mirror "impactsweep --version"
expect_status 0 "--version" impactsweep --version

mirror "/usr/bin/python3 analysis/impactplot.py FILE [FILE ...] [--output PREFIX] [--format png,pdf,svg,eps] [--size single|double|auto|WxH[in|cm|mm]] [--dpi N] [--field NAME[,NAME]] [--sel AXIS=VALUE ...] [--facet AXIS ...] [--axes X[,Y]] [--title [TEXT]] [--footer] [--layout] [--source-path]"
expect_status 0 "impactplot" /usr/bin/python3 "$ROOT/analysis/impactplot.py" readme.h5 \
    --output fig/readme --format png,svg --size single --dpi 100 --field regime --title --footer
ls fig/readme_*.png fig/readme_*.svg >/dev/null 2>&1 || die "impactplot drew nothing"
expect_status 0 "impactplot, two files" /usr/bin/python3 "$ROOT/analysis/impactplot.py" \
    readme.h5 run3.h5 --output fig/two --format png --size 7x5 --field regime
ls fig/two_*.png >/dev/null 2>&1 || die "impactplot drew nothing of two files"
mirror "scripts/figure.sh"
expect_status 0 "scripts/figure.sh" "$ROOT/scripts/figure.sh"
ls example_*.png >/dev/null 2>&1 || die "scripts/figure.sh drew nothing"

say "the guide's Python example"
awk '/^    import xarray as xr/ { on = 1 } on && !/^    / { exit } on { sub(/^    /, ""); print }' \
    "$README" >readme.py
grep -q open_dataset readme.py || die "no Python example found in the pages"
printf '%s\n' "import matplotlib" "matplotlib.use('Agg')" | cat - readme.py >run_readme.py
echo 'import matplotlib.pyplot as plt; plt.savefig("readme_python.png")' >>run_readme.py
expect_status 0 "the guide's Python" "$PYTHON" run_readme.py
"$PYTHON" - <<'EOF' || die "the guide's plot does not put rho on the x axis"
import xarray as xr, matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
ns = {}
exec(open("readme.py").read(), ns)
xlabel = " ".join(plt.gca().get_xlabel().split())
rho = ns["ds"].rho.attrs.get("long_name", "rho")
assert xlabel.startswith(rho) or "rho" in xlabel, (xlabel, rho)
EOF

mirror "slurm/submit --nodes 4 --ntasks 256 --time 12:00:00 jobs/chatter_fig67_n4.ini"
mirror "slurm/submit --ntasks 32 --time 02:00:00 --array 16 big.ini"
mirror "slurm/submit --ntasks 64 --time 24:00:00 --chain 3 huge.ini"
mirror "slurm/submit --ntasks 128 --mem 4G --constraint=skylake --launcher srun --setup modules.sh jobs/collision_bwm_surface.ini"
mirror "slurm/submit --help"
cp "$job" big.ini
cp "$job" huge.ini
: >modules.sh
submit=$ROOT/slurm/submit
for args in "--nodes 4 --ntasks 256 --time 12:00:00 $JOBS/chatter_fig67_n4.ini" \
    "--ntasks 32 --time 02:00:00 --array 16 big.ini" "--ntasks 64 --time 24:00:00 --chain 3 huge.ini" \
    "--ntasks 128 --mem 4G --constraint=skylake --launcher srun --setup modules.sh $JOBS/collision_bwm_surface.ini"; do
    # shellcheck disable=SC2086 # the arguments are words
    expect_status 0 "submit $args" "$submit" --impactsweep "$IMPACTSWEEP" --dry-run $args
done
expect_status 0 "submit --help" "$submit" --help

mirror "cc -std=c11 -O2 -fPIC -ffp-contract=off -shared -fvisibility=hidden -I\$PREFIX/include mymodel.c -o libmymodel.so -lm"
mirror "IMPACTSWEEP_MODEL_PATH=\$PWD impactsweep models mymodel"
mirror "IMPACTSWEEP_MODEL_PATH=\$PWD impactsweep models --check mymodel"
cat >mymodel.c <<'EOF'
#include <impactsweep/model.h>
static const is_param params[] = {{"a", "a number", "1", IS_PARAM_REAL, 1.0, 0.0, 10.0, 0, NULL, NULL, "$a$"}};
static const is_output outputs[] = {{"twice", "1", "twice a", IS_OUTPUT_REAL, NULL, 0, "2a"}};
static is_code eval(void *ws, const double *p, size_t n, double *out, uint8_t *status, is_error *err)
{
    (void)ws, (void)err;
    for (size_t i = 0; i < n; i++) {
        out[i] = 2.0 * p[i];
        status[i] = IS_POINT_DONE;
    }
    return IS_OK;
}
static const is_model mymodel = {IS_MODEL_HEADER, .name = "mymodel", .description = "twice its parameter",
    .params = params, .param_count = 1, .outputs = outputs, .output_count = 1,
    .eval_batch = eval, .version = "1.0.0"};
IS_MODEL_PLUGIN(mymodel)
EOF
# $PREFIX/include: the installed headers; the source tree's core/ holds the same two
mkdir -p prefix/include/impactsweep
cp "$ROOT/src/core/contract/model.h" "$ROOT/src/core/base/error.h" prefix/include/impactsweep/
PREFIX=$WORK/prefix
expect_status 0 "cc" cc -std=c11 -O2 -fPIC -ffp-contract=off -shared -fvisibility=hidden \
    -I$PREFIX/include mymodel.c -o libmymodel.so -lm
mirror "cc -std=c11 -O2 \$(pkg-config --cflags impactsweep-model) -shared -fvisibility=hidden -o mymodel.so mymodel.c -lm"
mkdir -p prefix/lib/pkgconfig
cp "$BIN/install/impactsweep-model.pc" prefix/lib/pkgconfig/ ||
    die "the build has no install/impactsweep-model.pc"
export PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig
# shellcheck disable=SC2046 # the flags are words
expect_status 0 "cc with pkg-config" cc -std=c11 -O2 $(pkg-config --cflags impactsweep-model) \
    -shared -fvisibility=hidden -o mymodel.so mymodel.c -lm
rm mymodel.so # (the libmymodel.so above is the one loaded below)
expect_status 0 "models mymodel" env IMPACTSWEEP_MODEL_PATH=$PWD impactsweep models mymodel
grep -q "^mymodel: " out.txt || die "models mymodel: $(head -2 out.txt)"
expect_status 0 "models --check mymodel" env IMPACTSWEEP_MODEL_PATH=$PWD impactsweep models --check mymodel

mirror "cmake -S . -B build -DIMPACTSWEEP_NATIVE=OFF && cmake --build build -j"
mirror "cmake --install build --prefix \$HOME/opt/impactsweep"
# (run by integration.install, into a temporary prefix: configure with
# IMPACTSWEEP_NATIVE=OFF, build, install, and everything installed checked)

# docs/writing-a-model.md's minimal model: built with the page's own compile line, and
# its commands run, by integration.hybrid_trace (tests/integration/test_hybrid_trace.sh)
mirror "cc -std=c11 -O2 -ffp-contract=off -fPIC -shared -fvisibility=hidden -Wl,-z,defs -I\$PREFIX/include examples/minimal/minimal.c -o minimal.so -lm"
mirror "impactsweep models --check minimal-ball"
mirror "impactsweep eval minimal-ball h=2 e=0.6"
mirror "impactsweep trace minimal-ball h=2 e=0.6 --output minimal.h5"

say "every command of the pages is mirrored here"
# the pages' commands: indented lines of its code blocks, with their continuations
# (a trailing backslash, or a synopsis's next line of [options]), comments cut, blanks
# made one
"$PYTHON" - "$README" >readme_commands.txt <<'EOF'
import re, sys
lines = open(sys.argv[1]).read().split("\n")
command = re.compile(r"^    (impactsweep |mpirun |slurm/submit|scripts/[a-z-]+\.sh|cmake |cc |"
                     r"/usr/bin/python3 |[A-Z_]+=)")
found = set()
i = 0
while i < len(lines):
    if command.match(lines[i]):
        text = lines[i]
        while text.rstrip().endswith("\\") and i + 1 < len(lines):
            i += 1
            text = text.rstrip()[:-1] + " " + lines[i]
        while i + 1 < len(lines) and re.match(r"^ {8,}\[", lines[i + 1]):
            i += 1
            text += " " + lines[i]
        text = re.sub(r"\s+#.*$", "", text)
        found.add(" ".join(text.split()))
    i += 1
print("\n".join(sorted(found)))
EOF
printf '%s\n' "${covered[@]}" | LC_ALL=C sort -u >mirrored.txt
LC_ALL=C sort -u -o readme_commands.txt readme_commands.txt
missing=$(LC_ALL=C comm -23 readme_commands.txt mirrored.txt || true)
[ -z "$missing" ] || die "commands of the pages with no mirror in tests/integration/test_readme.sh:
$missing"
stale=$(LC_ALL=C comm -13 readme_commands.txt mirrored.txt || true)
[ -z "$stale" ] || die "mirrored commands no longer in README.md or docs/*.md:
$stale"
echo "PASS: $(wc -l <readme_commands.txt) commands of the pages run"
