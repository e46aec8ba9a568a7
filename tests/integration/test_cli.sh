# test_cli.sh: the commands other than run, and how eval agrees with run.
#  - `eval chatter rho=0.3 gamma=0.1` prints valid JSON with every output that
#    `models chatter` lists, p_icc + p_cc + p_pcc + p_flat == 1;
#  - eval of each point of a sweep (axis values exactly representable) equals the stored
#    values bit for bit: the random streams are keyed by the point's parameter values;
#  - eval with a bad parameter exits 2 with a message naming it;
#  - `models` lists chatter with its parameters and outputs;
#  - `info` on an HDF5 file that is not an impactsweep result exits 2 with "not an
#    impactsweep result file", on a text file exits 2; on a result file it succeeds;
#  - an unknown command (or none) exits 2 with the usage; help and version exit 0.
# shellcheck source=lib.sh
source "$TESTS/integration/lib.sh"

say "models: lists chatter with its parameters and outputs"
expect_status 0 "models" "$IMPACTSWEEP" models
grep -q "^chatter: " out.txt || die "models does not list chatter"
for p in n rho gamma samples max_impacts perturbation seed; do
    grep -q -E "^    $p +default" out.txt || die "models does not list chatter's parameter $p"
done
expect_status 0 "models chatter" "$IMPACTSWEEP" models chatter
outputs=$(awk '/^  outputs:/ { o = 1; next } o && /^    / { print $1 }' out.txt | tr '\n' ' ')
say "chatter's outputs: $outputs"
[ -n "$outputs" ] || die "models chatter lists no outputs"
expect_status 2 "models of an unknown model" "$IMPACTSWEEP" models nosuchmodel
grep -q "unknown model 'nosuchmodel'" err.txt || die "models nosuchmodel: no 'unknown model' message"

say "eval chatter rho=0.3 gamma=0.1: valid JSON with every output"
expect_status 0 "eval" "$IMPACTSWEEP" eval chatter rho=0.3 gamma=0.1
cp out.txt eval.json
"$PYTHON" - "$outputs" eval.json <<'EOF' || die "eval's JSON is not as expected: $(cat eval.json)"
import json, sys
doc = json.load(open(sys.argv[2]))
want = sys.argv[1].split()
problems = []
if doc.get("model") != "chatter":
    problems.append(f"model {doc.get('model')!r}")
if doc.get("status") != "DONE":
    problems.append(f"status {doc.get('status')!r}")
params = doc.get("parameters", {})
if params.get("rho") != 0.3 or params.get("gamma") != 0.1 or params.get("n") != 4:
    problems.append(f"parameters {params}")
out = doc.get("outputs", {})
if sorted(out) != sorted(want):
    problems.append(f"outputs {sorted(out)}, models lists {sorted(want)}")
total = sum(out.get(k, 0) for k in ("p_icc", "p_cc", "p_pcc", "p_flat"))
if abs(total - 1) > 1e-12:
    problems.append(f"p_icc + p_cc + p_pcc + p_flat = {total!r}")
if out.get("regime") not in ("icc", "cc", "pcc", "flat"):
    problems.append(f"regime {out.get('regime')!r}")
for p in problems:
    print("PROBLEM:", p, file=sys.stderr)
sys.exit(1 if problems else 0)
EOF

say "eval of each point of a sweep equals the sweep's stored values exactly"
job="$INTEGRATION_JOBS/exact.ini"
expect_status 0 "2-rank sweep of exact.ini" mpi2 run "$job" --output exact.h5
for rho in 0.25 0.5; do
    for gamma in 0.125 0.25; do
        expect_status 0 "eval at rho=$rho gamma=$gamma" \
            "$IMPACTSWEEP" eval chatter rho=$rho gamma=$gamma samples=500 seed=11
        cp out.txt "eval_${rho}_${gamma}.json"
    done
done
"$PYTHON" - exact.h5 <<'EOF' || die "eval disagrees with the sweep"
import glob, json, sys
import h5py
import numpy as np

f = h5py.File(sys.argv[1], "r")
rho, gamma = list(f["rho"][...]), list(f["gamma"][...])
problems, compared = [], 0
for path in sorted(glob.glob("eval_*.json")):
    doc = json.load(open(path))
    r, g = doc["parameters"]["rho"], doc["parameters"]["gamma"]
    i, j = rho.index(r), gamma.index(g)
    if f["status"][i, j] != 1:
        problems.append(f"sweep point rho={r} gamma={g} is not done")
    for name, value in doc["outputs"].items():
        stored = f[name][i, j]
        meanings = f[name].attrs.get("flag_meanings")
        if meanings is not None and name != "status":
            meanings = meanings.decode() if isinstance(meanings, bytes) else meanings
            stored = meanings.split()[int(stored)]
            same = stored == value
        elif np.issubdtype(f[name].dtype, np.integer):
            same = int(stored) == value
        else:
            same = float(stored) == value  # bit for bit: JSON carries 17 digits
        compared += 1
        if not same:
            problems.append(f"{name} at rho={r} gamma={g}: eval {value!r}, sweep {stored!r}")
print(f"    compared {compared} values at {len(glob.glob('eval_*.json'))} points")
for p in problems:
    print("PROBLEM:", p, file=sys.stderr)
sys.exit(1 if problems or compared == 0 else 0)
EOF

say "eval with bad parameters exits 2 with a message"
eval_refuse() { # TEXT ARGS...: eval ARGS must exit 2 with TEXT in its message
    local text=$1
    shift
    expect_status 2 "eval $*" "$IMPACTSWEEP" eval "$@"
    grep -q -F -- "$text" err.txt || die "eval $*: the message does not say '$text'"
    echo "    ok: eval $* -> $(head -n1 err.txt)"
}
eval_refuse "gamma" chatter rho=0.3 gamma=1.5
eval_refuse "rho" chatter rho=-1 gamma=0.1
eval_refuse "not a number" chatter rho=abc gamma=0.1
eval_refuse "unknown parameter 'colour'" chatter rho=0.3 gamma=0.1 colour=red
eval_refuse "rho" chatter gamma=0.1
eval_refuse "expected name=value" chatter rho
eval_refuse "unknown model 'nosuchmodel'" nosuchmodel rho=0.3

say "info on a result file, on a foreign HDF5 file, on a text file"
expect_status 0 "info on a result file" "$IMPACTSWEEP" info exact.h5
grep -q "^points:  4 total, 4 done" out.txt || die "info exact.h5 does not report 4 of 4 points done"
"$PYTHON" -c 'import h5py, sys; f = h5py.File(sys.argv[1], "w"); f["x"] = [1, 2, 3]; f.attrs["model"] = "chatter"' \
    foreign.h5 || die "cannot make an HDF5 file with h5py"
expect_status 2 "info on a foreign HDF5 file" "$IMPACTSWEEP" info foreign.h5
grep -q "not an impactsweep result file" err.txt || die "info foreign.h5 does not say 'not an impactsweep result file'"
echo "this is not HDF5" >text.h5
expect_status 2 "info on a text file" "$IMPACTSWEEP" info text.h5
grep -q "not an HDF5 file" err.txt || die "info text.h5 does not say 'not an HDF5 file'"
foreign_sha=$(sha foreign.h5)
expect_status 2 "run --resume onto a foreign HDF5 file" \
    "$IMPACTSWEEP" run "$job" --output foreign.h5 --resume
grep -q "not an impactsweep result file" err.txt || die "resume onto foreign.h5 does not say 'not an impactsweep result file'"
[ "$(sha foreign.h5)" = "$foreign_sha" ] || die "a refused resume changed foreign.h5"

say "unknown command, no command, help, version"
expect_status 2 "unknown command" "$IMPACTSWEEP" frobnicate
grep -q "unknown command 'frobnicate'$" err.txt || die "unknown command: no message naming it"
grep -q -- "--help. lists the commands" err.txt || die "unknown command: not pointed to --help"
# a command line that guides: a near miss named, an option before the command explained,
# a file where the command is expected named as what it is
guide() { # TEXT ARGS...: impactsweep ARGS exits 2 saying TEXT
    local text=$1
    shift
    expect_status 2 "$*" "$IMPACTSWEEP" "$@"
    grep -q -F -- "$text" err.txt || die "impactsweep $*: the message does not say '$text': $(cat err.txt)"
    echo "    ok: impactsweep $* -> $(head -n1 err.txt)"
}
guide "unknown command 'runn' (did you mean 'run'?)" runn job.ini
guide "unknown command 'evl' (did you mean 'eval'?)" evl chatter
guide "'--quiet' is an option of a command: options come after the command (impactsweep run ... --quiet)" --quiet run job.ini
guide "'x.h5' is a result file, not a command: impactsweep info x.h5" x.h5
guide "unknown model 'chater' (did you mean 'chatter'?)" eval chater rho=0.3
guide "unknown parameter 'gama' of model chatter (did you mean 'gamma'?)" eval chatter gama=0.3
printf '%s\n' "[sweep]" "model = chatter" "ouptut = x.h5" "[axis.rho]" "value = 0.3" >typo.ini
guide "[sweep] ouptut: unknown key (did you mean 'output'?)" run typo.ini --dry-run
sed -i 's/^ouptut/output/' typo.ini
guide "[axis.rho] value: unknown key (did you mean 'values'?)" run typo.ini --dry-run
printf '%s\n' "[sweep]" "model = chatter" "[modle]" "[axis.rho]" "values = 0.3" >typo.ini
guide "[modle]: unknown section (did you mean 'model'?)" run typo.ini --dry-run
expect_status 0 "a small result file" "$IMPACTSWEEP" run "$JOBS/example.ini" --output given.h5 \
    --set axis.rho.count=2 --set axis.gamma.count=2 --set model.samples=4 --quiet
guide "given.h5: an HDF5 file (a result file?), not a job file" run given.h5

say "a dry run of a 10^12-point grid is answered from a sample of its points"
printf '%s\n' "[sweep]" "model = chatter" "[model]" "samples = 4" "[axis.rho]" "from = 0.05" \
    "to = 1" "count = 1000000" "[axis.gamma]" "from = 0.01" "to = 0.8" "count = 1000000" >huge.ini
expect_status 0 "dry run of 10^12 points" timeout 300 "$IMPACTSWEEP" run huge.ini --dry-run --output huge.h5
grep -q "checking 10000000 of the 1000000000000 points of the grid, evenly spread" err.txt ||
    die "the dry run of 10^12 points does not say it checks a sample: $(cat err.txt)"
grep -q "^file size: *144 TB$" out.txt || die "the file's size not in TB: $(grep size out.txt)"
[ ! -e huge.h5 ] || die "a dry run wrote a file"
# the sample's first refused point in grid order is named, as a full check names it
printf '%s\n' "[sweep]" "model = synthetic" "[model]" "limit = 0.25" "[axis.x]" "from = 0" \
    "to = 1" "count = 1000000" "[axis.y]" "from = 0" "to = 1" "count = 1000000" >refused.ini
expect_status 2 "a refused point in the sample" timeout 300 "$IMPACTSWEEP_TEST" run refused.ini --dry-run --output refused.h5
grep -q "exceeds limit = 0.25" err.txt || die "the sampled check names no refused point: $(cat err.txt)"
expect_status 2 "no command" "$IMPACTSWEEP"
expect_status 0 "help" "$IMPACTSWEEP" help
grep -q "^usage:" out.txt || die "help prints no usage"
cp out.txt help.txt
expect_status 0 "--help" "$IMPACTSWEEP" --help
cmp -s out.txt help.txt || die "--help and help differ"
# one line per command saying what it does, the same as the title of its own page
for cmd in run eval trace models info merge version help; do
    summary=$("$IMPACTSWEEP" "$cmd" --help | sed -n "s/^impactsweep $cmd: //p")
    [ -n "$summary" ] || die "$cmd --help has no summary in its title line"
    grep -qxF "  $(printf '%-8s' "$cmd") $summary" help.txt ||
        die "--help has no line for $cmd saying '$summary'"
done
expect_status 0 "version" "$IMPACTSWEEP" version
grep -q "^impactsweep " out.txt || die "version prints no version"
cp out.txt version.txt
expect_status 0 "--version" "$IMPACTSWEEP" --version
cmp -s out.txt version.txt || die "--version and version differ"

say "every command's help: CMD --help, CMD -h, help CMD (the same page), the man page"
for cmd in run eval trace models info merge version help; do
    expect_status 0 "$cmd --help" "$IMPACTSWEEP" "$cmd" --help
    grep -q "^impactsweep $cmd: " out.txt || die "$cmd --help: no title line: $(head -2 out.txt)"
    grep -q "^  impactsweep $cmd" out.txt || die "$cmd --help: no usage line"
    [ ! -s err.txt ] || die "$cmd --help wrote to stderr: $(cat err.txt)"
    cp out.txt "help_$cmd.txt"
    expect_status 0 "help $cmd" "$IMPACTSWEEP" help "$cmd"
    cmp -s out.txt "help_$cmd.txt" || die "help $cmd differs from $cmd --help"
done
# --help anywhere among the options, and the options each page documents
expect_status 0 "run JOB --set x=1 -h" "$IMPACTSWEEP" run "$job" --set model.n=4 -h
cmp -s out.txt help_run.txt || die "run JOB ... -h is not run's help"
for option in --set --output --piece --resume --overwrite --progress --quiet --dry-run --pieces --ranks; do
    grep -q -- "$option" help_run.txt || die "run --help does not document $option"
done
expect_status 0 "info --help (no file called --help)" "$IMPACTSWEEP" info --help
grep -q -- "--log" out.txt || die "info --help does not document --log"
expect_status 2 "help of an unknown command" "$IMPACTSWEEP" help frobnicate
grep -q "unknown command 'frobnicate'" err.txt || die "help frobnicate: $(head -1 err.txt)"
expect_status 0 "help --man" "$IMPACTSWEEP" help --man
head -1 out.txt | grep -q '^\.TH IMPACTSWEEP 1 ' || die "help --man is not a man page: $(head -1 out.txt)"
for cmd in run eval trace models info merge; do
    grep -q "^\.SS $cmd\$" out.txt || die "the man page has no section for $cmd"
done
grep -q 'fBimpactsweep-job\\fR(5)' out.txt || die "the man page does not refer to impactsweep-job(5)"
if command -v groff >/dev/null; then
    groff -man -Tutf8 -ww -z out.txt 2>groff.txt || die "groff rejects the man page"
    [ ! -s groff.txt ] || die "groff warns about the man page: $(head -3 groff.txt)"
fi
expect_status 0 "help --man-job" "$IMPACTSWEEP" help --man-job
head -1 out.txt | grep -q '^\.TH IMPACTSWEEP-JOB 5 ' || die "help --man-job is not a man page: $(head -1 out.txt)"
for section in sweep model axis.PARAMETER; do
    grep -qF ".SH \"THE [$section] SECTION\"" out.txt || die "impactsweep-job(5) has no section [$section]"
done
if command -v groff >/dev/null; then
    groff -man -Tutf8 -ww -z out.txt 2>groff.txt || die "groff rejects impactsweep-job(5)"
    [ ! -s groff.txt ] || die "groff warns about impactsweep-job(5): $(head -3 groff.txt)"
fi
expect_status 0 "help --reference" "$IMPACTSWEEP" help --reference
grep -q "^## Job file$" out.txt || die "help --reference has no job-file part"
expect_status 2 "help --reference with more" "$IMPACTSWEEP" help --reference run

say "run --dry-run: the plan and a cost estimate from a timed sample; nothing written"
expect_status 0 "dry run" "$IMPACTSWEEP" run "$job" --output dry.h5 --dry-run
grep -q "^points: " out.txt || die "dry run prints no point count: $(cat out.txt)"
grep -qE "^cost: +about [0-9.e+-]+ (us|ms|s) a point \([0-9]+ sampled" out.txt ||
    die "dry run prints no cost per point: $(cat out.txt)"
grep -qE "^estimate: +about .* of one core; about .* on 1 rank$" out.txt ||
    die "dry run prints no estimate: $(cat out.txt)"
[ ! -e dry.h5 ] || die "a dry run wrote its output"
sampled=$(sed -nE 's/^cost: +about .* a point \(([0-9]+) sampled across the grid.*/\1/p' out.txt)
[ -n "$sampled" ] || die "dry run prints no sample size: $(cat out.txt)"
grep -qE "^range: +[0-9.e+-]+ (us|ms|s|min|h|days) to [0-9.e+-]+ (us|ms|s|min|h|days) of one core \(90 %, a bootstrap of the $sampled sampled points\)$" out.txt ||
    die "dry run prints no range: $(cat out.txt)"
# points of 50 ms each (the test model's busy wait): the 3 s budget sees fewer than 100
# of the 400, and says that a costly region may be missed
printf '%s\n' "[sweep]" "model = disc" "[model]" "cost = 0.05" "[axis.x]" "from = 0" "to = 1" \
    "count = 400" >slow_dry.ini
expect_status 0 "dry run of a small sample" "$IMPACTSWEEP_TEST" run slow_dry.ini --dry-run
grep -qE "^warning: +only [0-9]+ points sampled: a costly region of fewer than about [0-9]+ points" out.txt ||
    die "a small sample gives no warning: $(cat out.txt)"
# one point of 64 carries almost all the cost: the estimate says so
printf '%s\n' "[sweep]" "model = disc" "[axis.cost]" "values = $(LC_ALL=C seq -s ', ' 1e-5 1e-5 6.3e-4), 0.3" \
    >rare_dry.ini
expect_status 0 "dry run of a rare costly point" "$IMPACTSWEEP_TEST" run rare_dry.ini --dry-run
grep -qE "^warning: +the cost is carried by rare points" out.txt ||
    die "a sample carried by one point gives no warning: $(cat out.txt)"
# points of 1e9 impacts per drop: the sample stops at its time budget, and says so
printf '%s\n' "[sweep]" "model = chatter" "[model]" "rho = 0.3" "gamma = 0.1" \
    "max_impacts = 1e9" "samples = 1000" "[axis.n]" "values = 3, 4" >long_dry.ini
t0=$(date +%s)
expect_status 0 "dry run of hour-long points" "$IMPACTSWEEP" run long_dry.ini --dry-run
[ $(($(date +%s) - t0)) -le 15 ] || die "the dry run's sample took $(($(date +%s) - t0)) s"
grep -qE "^cost: +at least .* stopped unfinished after" out.txt ||
    die "a cut sample is not reported as a lower bound: $(cat out.txt)"

say "run --quiet: nothing on stdout or stderr, the same file"
expect_status 0 "run" "$IMPACTSWEEP" run "$job" --output loud.h5
expect_status 0 "run --quiet" "$IMPACTSWEEP" run "$job" --output quiet.h5 --quiet
[ ! -s out.txt ] && [ ! -s err.txt ] || die "run --quiet printed: $(cat out.txt err.txt | head -3)"
same_results loud.h5 quiet.h5 "run and run --quiet"
expect_status 2 "--quiet with --progress" "$IMPACTSWEEP" run "$job" --output q2.h5 --quiet \
    --progress lines
grep -q "exclude each other" err.txt || die "--quiet --progress: $(cat err.txt)"
[ ! -e q2.h5 ] || die "a refused run wrote q2.h5"

say "bash completion: commands, options, models, a model's parameters"
completion=$TESTS/../scripts/completion/impactsweep.bash
# The candidates a line each, in one write (cat of a here-string): printf writes piece by
# piece, and `| grep -q`, leaving at its match, then failed the pipeline (pipefail) when
# more came after the match.
completions() {
    local words
    # shellcheck disable=SC1090
    words=$(bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _impactsweep
             printf "%s\n" "${COMPREPLY[@]}"' _ "$completion" "$IMPACTSWEEP" "$@")
    cat <<<"$words"
}
[ "$(completions "ver")" = "version" ] || die "completion of 'ver': $(completions ver)"
completions run --qu | grep -x >/dev/null -- "--quiet" || die "completion of 'run --qu': $(completions run --qu)"
completions eval coll | grep -x >/dev/null "collision" || die "completion of 'eval coll': $(completions eval coll)"
completions eval chatter rh | grep -x >/dev/null "rho=" || die "completion of 'eval chatter rh': $(completions eval chatter rh)"
completions models "" | grep -x >/dev/null "stop-oscillator" || die "completion of models: $(completions models '')"
completions run "$JOBS/example.ini" --set "" >set-keys.txt
grep -qx "model.samples=" set-keys.txt || die "completion of --set: $(cat set-keys.txt)"
completions run "$JOBS/example.ini" --set axis.rh | grep -x >/dev/null "axis.rho.count=" ||
    die "completion of --set axis.rh: $(completions run "$JOBS/example.ini" --set axis.rh)"
completions run "$JOBS/example.ini" --set sweep.ou | grep -x >/dev/null "sweep.output=" ||
    die "completion of --set sweep.ou: $(completions run "$JOBS/example.ini" --set sweep.ou)"
completions run -n "" | grep -x >/dev/null "2" || die "completion of -n: $(completions run -n '')"
completions trace given.h5 "" | grep -x >/dev/null "gamma=" || die "completion of trace FILE.h5: $(completions trace given.h5 '')"
completions trace stop-oscillator --wi | grep -x >/dev/null -- "--window" ||
    die "completion of trace --wi: $(completions trace stop-oscillator --wi)"

say "a long point stops on a signal within seconds and stays pending (eval and run)"
# stop_within PID SIGNAL WHAT: sends SIGNAL to the running PID; fails unless it exits 75
# within 5 s
stop_within() {
    local pid=$1 signal=$2 what=$3 status=0 t0 t1
    kill -0 "$pid" 2>/dev/null || die "the long $what ended within 1 s: make it longer"
    t0=$(date +%s)
    kill "-$signal" "$pid"
    wait "$pid" || status=$?
    t1=$(date +%s)
    [ "$status" -eq 75 ] || die "$what stopped by SIG$signal exits $status, expected 75"
    [ $((t1 - t0)) -le 5 ] || die "$what took $((t1 - t0)) s to stop after SIG$signal"
}
# rho = 0.3, gamma = 0.1: every drop chatters to the impact cap, here 1e9 impacts a drop
# (early_stop = 0: else each stops at impact 16, proven CC)
"$IMPACTSWEEP" eval chatter rho=0.3 gamma=0.1 max_impacts=1000000000 samples=1000 \
    early_stop=0 >long.out 2>long.err &
sleep 1
stop_within $! INT eval
grep -q '"status": "PENDING"' long.out || die "the interrupted eval's point is not PENDING: $(cat long.out)"
printf '%s\n' "[sweep]" "model = chatter" "output = long.h5" "[model]" "rho = 0.3" \
    "max_impacts = 1000000000" "samples = 1000" "early_stop = 0" "[axis.gamma]" \
    "values = 0.1" >long.ini
"$IMPACTSWEEP" run long.ini >run.out 2>run.err &
long_pid=$!
for _ in $(seq 1 100); do [ -e long.h5 ] && break; sleep 0.1; done
sleep 1
stop_within "$long_pid" TERM run
[ "$(points long.h5 pending)" = 1 ] || die "the interrupted long point is not pending in long.h5"
