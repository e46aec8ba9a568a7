# test_submit.sh: slurm/submit and the batch script without a scheduler (--dry-run writes
# the batch scripts and says what it would submit; stand-ins for sbatch, scontrol and
# sinfo play a Slurm; the Slurm tests under tests/slurm/ run it all for real):
#  1. a job the engine refuses is refused here too: exit 2, nothing written;
#  2. resources, sbatch options passed through (--opt=value, --opt value, a flag,
#     --sbatch-arg), --launcher, --setup; the job file copied beside the script;
#  3. every bad option and value is refused (exit 2) before anything is submitted: an
#     option sbatch does not know, counts, times, memory sizes, array sizes, control
#     characters, quotes, what submit sets itself, run options it cannot apply;
#  4. impactsweep run options before -- are applied and checked in the dry run;
#  5. --array N: pieces of equal estimated cost; the order of --array and --chain; the
#     merge job's resources and options, --kill-on-invalid-dep;
#  6. with a (stand-in) Slurm: sbatch --test-only is asked about every script before
#     anything is submitted, its refusal is submit's (exit 2, nothing submitted), the
#     array size is checked against MaxArraySize;
#  7. the batch script's failure paths: a failed requeue and the restart cap fail the job
#     (75, saying why), a run broken off with a node DOWN is requeued, one on healthy
#     nodes fails with its status.
# shellcheck source=lib.sh
source "$TESTS/integration/lib.sh"
SUBMIT=$TESTS/../slurm/submit
# no Slurm configuration: the real sbatch (if any) is never asked (it would look the
# controller up in DNS)
unset SLURM_CONF
job=$WORK/sweep.ini
printf '%s\n' "[sweep]" "model = chatter" "[model]" "n = 4" "samples = 20" \
    "[axis.rho]" "values = 0.2, 0.4, 0.6" "[axis.gamma]" "values = 0.1, 0.3" >"$job"
submit() { "$SUBMIT" --impactsweep "$IMPACTSWEEP" "$@"; }
# refuse WHAT WANT ARGS...: submit ARGS --dry-run exits 2 saying WANT, and submits nothing
refuse() {
    local what=$1 want=$2
    shift 2
    expect_status 2 "$what" submit --dry-run "$@"
    grep -q -- "$want" err.txt || die "$what: the refusal does not say '$want': $(cat err.txt)"
    ! grep -q "^would submit" out.txt || die "$what: it would still submit"
}

say "1. a refused job: exit 2, nothing written, nothing submitted"
printf '%s\n' "[sweep]" "model = chatter" "[model]" "n = 4" "colour = red" \
    "[axis.rho]" "values = 0.2" "[axis.gamma]" "values = 0.1" >bad.ini
refuse "submit a bad job" "colour" bad.ini
! ls slurm-*.sbatch >/dev/null 2>&1 || die "a refused job left a batch script"

say "2. resources, options passed through, launcher, setup; the job file copied"
echo 'export IMPACTSWEEP_TEST_SETUP=1' >setup.sh
expect_status 0 "submit" submit --dry-run --ntasks 4 \
    --time 01:00:00 --mem 2G --constraint=skylake --mail-type END --exclusive \
    --sbatch-arg "--comment=sweep one" --sbatch-arg "-p big" --launcher srun --setup setup.sh "$job"
script=slurm-sweep.sbatch
for line in "#SBATCH --ntasks=4" "#SBATCH --time=01:00:00" "#SBATCH --mem=2G" \
    "#SBATCH --constraint=skylake" "#SBATCH --mail-type=END" "#SBATCH --exclusive" \
    '#SBATCH --comment="sweep one"' "#SBATCH --partition=big" "export MPIRUN=srun" \
    "export IMPACTSWEEP_MAX_RESTARTS=20"; do
    grep -qxF -- "$line" "$script" || die "the batch script lacks '$line'"
done
grep -q "^source '$WORK/setup.sh' || " "$script" || die "the batch script does not source setup.sh: $(grep -n source "$script")"
# every #SBATCH line comes before the first command (sbatch reads no further)
first_command=$(awk '!/^(#|$)/ { print NR; exit }' "$script") # (no pipe: head's early exit would SIGPIPE grep under pipefail)
last_directive=$(grep -n '^#SBATCH' "$script" | tail -1 | cut -d: -f1)
[ "$last_directive" -lt "$first_command" ] || die "an #SBATCH line follows a command in $script"
grep -q "^submit: cost: about" err.txt || die "submit prints no cost estimate: $(cat err.txt)"
grep -q "^would submit job <job 1>: sbatch --parsable $WORK/$script $WORK/slurm-sweep\.[0-9a-f]*\.ini$" out.txt ||
    die "the dry run does not say what it would submit: $(cat out.txt)"
copy=$(sed -n 's/^would submit job <job 1>: sbatch --parsable [^ ]* \([^ ]*\.ini\)$/\1/p' out.txt)
cmp -s "$copy" "$job" || die "the job file copied beside the script ($copy) is not the job file"
grep -q "^submitted" out.txt && die "a dry run says it submitted"
grep -q "sbatch not asked" err.txt || die "without a Slurm the dry run does not say sbatch was not asked"

say "2. the script runs setup.sh first and stops when it fails"
fake=$WORK/bin
mkdir -p "$fake"
# a stand-in for srun that reports what the run would see, and exits 0
printf '#!/bin/sh\necho "launcher $0 setup=${IMPACTSWEEP_TEST_SETUP:-unset} $*"\n' >"$fake/srun"
chmod +x "$fake/srun"
expect_status 0 "the batch script, outside Slurm" env PATH="$fake:$PATH" bash "$script" "$job"
grep -q "launcher $fake/srun setup=1 $IMPACTSWEEP run $job --resume" out.txt ||
    die "the launcher did not run the job after the setup: $(cat out.txt)"
echo 'false # a module that does not load' >setup.sh
expect_status 1 "a failing setup" env PATH="$fake:$PATH" bash "$script" "$job"
grep -q "sourcing .*setup.sh. failed" err.txt || die "a failing setup is not reported: $(cat err.txt)"
! grep -q "^launcher" out.txt || die "the run started although the setup failed"

say "2. submit's own options as --OPTION=VALUE, --sbatch-arg=ARG among them"
rm -f slurm-sweep.*
expect_status 0 "--OPTION=VALUE" submit --dry-run --ntasks=3 --sbatch-arg=--mem-per-cpu=4G \
    --sbatch-arg=--comment=one "$job"
for line in "#SBATCH --ntasks=3" "#SBATCH --mem-per-cpu=4G" "#SBATCH --comment=one"; do
    grep -qxF -- "$line" "$script" || die "--OPTION=VALUE: the batch script lacks '$line'"
done
refuse "--sbatch-arg= with an unknown option" "unknown sbatch option --tme" --sbatch-arg=--tme=1 "$job"

say "2. what is checked is what is submitted: an edit during the check is not submitted"
# a stand-in impactsweep whose dry run edits the job file once it has read it (as an
# editor saving at that moment would): the copy submitted must be the file as checked
printf '%s\n' "[sweep]" "model = chatter" "[model]" "n = 4" "samples = 20" \
    "[axis.rho]" "values = 0.2, 0.4" "[axis.gamma]" "values = 0.1" >edited.ini
checked=$(cat edited.ini)
cat >editing-impactsweep <<EOF_STANDIN
#!/bin/bash
"$IMPACTSWEEP" "\$@"; status=\$?
echo "colour = red" >>"$WORK/edited.ini"
exit \$status
EOF_STANDIN
chmod +x editing-impactsweep
rm -f slurm-edited.*
expect_status 0 "submit while the job file is edited" \
    "$SUBMIT" --impactsweep "$WORK/editing-impactsweep" --dry-run "$WORK/edited.ini"
copy=$(sed -n 's/^would submit job <job 1>: sbatch --parsable [^ ]* \([^ ]*\.ini\)$/\1/p' out.txt)
[ -n "$copy" ] && [ "$(cat "$copy")" = "$checked" ] ||
    die "the job file submitted ($copy) is not the one checked: $(cat "$copy" 2>&1)"
! ls .edited.submit.* >/dev/null 2>&1 || die "submit left its snapshot of the job file behind"

say "3. bad options and values are refused"
refuse "a typo of an option" "unknown sbatch option --tme" --tme 1:00:00 "$job"
refuse "a short option" "--sbatch-arg" -p big "$job"
refuse "an unknown short option in --sbatch-arg" "unknown sbatch option -Y" --sbatch-arg "-Y 3" "$job"
for bad in -5 0 2x 1.5 ""; do
    refuse "--ntasks '$bad'" "--ntasks takes a whole number" --ntasks "$bad" "$job"
done
refuse "--cpus-per-task abc" "--cpus-per-task takes a whole number" --cpus-per-task abc "$job"
refuse "--ntasks-per-node=0 (passed through)" "--ntasks-per-node takes a whole number" --ntasks-per-node=0 "$job"
refuse "--nodes 4-2" "--nodes takes a number of nodes" --nodes 4-2 "$job"
for bad in bogus 1:2:3:4 -5 1-2-3 "1 h"; do
    refuse "--time '$bad'" "--time takes a time" --time "$bad" "$job"
done
refuse "--time-min (passed through)" "--time-min takes a time" --time-min=soon "$job"
for bad in 2X lots 1.5G -1; do
    refuse "--mem '$bad'" "--mem takes a size" --mem "$bad" "$job"
done
refuse "--mem-per-cpu (passed through)" "--mem-per-cpu takes a size" --mem-per-cpu=3Q "$job"
for bad in 0 1e9 -3 0-15 "4%0"; do
    refuse "--array '$bad'" "--array takes the number of pieces" --array "$bad" "$job"
done
refuse "--array beyond Slurm's default MaxArraySize" "MaxArraySize" --array 5000 "$job"
refuse "--array with more pieces than points" "7 pieces for 6 points" --array 7 "$job"
refuse "--chain -1" "--chain takes a whole number" --chain -1 "$job"
refuse "--max-restarts x" "--max-restarts takes a whole number" --max-restarts x "$job"
refuse "--grace as long as the limit" "leaves no time" --grace 120 --time 2 "$job"
refuse "a newline in --sbatch-arg" "control characters" --sbatch-arg $'--comment=a\n#SBATCH --x' "$job"
refuse "a tab in a value" "control characters" --account $'a\tb' "$job"
refuse "a newline in a run option" "control characters" "$job" -- --set $'model.n=4\nrm -rf /'
refuse "a quote in a value" "quotes cannot be passed" "--comment=it's" "$job"
refuse "--job-name with a blank" "--job-name takes one word" --job-name "a b" "$job"
refuse "a flag given a value" "--contiguous is a flag" --contiguous=yes "$job"
refuse "an option that needs a value, without one" "--constraint needs a value" "$job" --constraint
refuse "sbatch's own --array=RANGE" "--array takes the number of pieces" --array=0-3 "$job"
for managed in --signal=USR1@60 --requeue --no-requeue --wrap=ls --open-mode=truncate \
    --test-only --parsable --wait; do
    refuse "$managed" "is set by submit" "$managed" "$job"
done
refuse "an unknown launcher" "--launcher takes" --launcher aprun "$job"
refuse "a missing setup file" "cannot read" --setup nowhere.sh "$job"
refuse "two job files" "more than one job file" "$job" "$job"

say "4. impactsweep run options before -- are applied and checked, or refused"
refuse "--set with a value out of range" "n = 99" --ntasks 2 --time 1:00:00 "$job" --set model.n=99
expect_status 0 "--set applied" submit --dry-run --ntasks 2 "$job" --set model.n=6
grep -q "sbatch --parsable .*\.ini --set model.n=6$" out.txt || die "--set is not passed to the run: $(cat out.txt)"
for run_option in "--piece 1/2" "--resume" "-n 4" "--ranks 4" "--progress bar" "--quiet" "--pieces 3"; do
    # shellcheck disable=SC2086 # the option and its value are two words
    refuse "run option $run_option" "" "$job" $run_option
done
for run_option in "--overwrite" "--piece 0/2" "--dry-run" "--output x.h5" "--set sweep.output=x.h5" "--unit 3"; do
    # shellcheck disable=SC2086
    refuse "run option -- $run_option" "" "$job" -- $run_option
done
expect_status 0 "--help" "$SUBMIT" --help
grep -q -- "--sbatch-arg" out.txt || die "submit --help does not document --sbatch-arg"

say "5. --array 3 --chain 2: pieces of equal cost, resume arrays after the run, the merge after the last"
expect_status 0 "submit an array with a chain" submit --dry-run --array 3 --chain 2 \
    --partition big --account physics --qos long --constraint=skylake --exclusive \
    --mem 4G --comment=sweep "$job"
grep -q "^submit: pieces: 3 of equal estimated cost" err.txt || die "no pieces of equal cost: $(cat err.txt)"
sed -n 's/^would submit [a-z ]*<job [0-9]>: sbatch --parsable //p' out.txt >commands.txt
[ "$(wc -l <commands.txt)" = 4 ] || die "want 4 submissions, got: $(cat commands.txt)"
sed -n 1p commands.txt | grep -q "^$WORK/slurm-sweep.sbatch $WORK/slurm-sweep\..*\.ini" || die "first: $(sed -n 1p commands.txt)"
sed -n 2p commands.txt | grep -q "^--dependency=afterany:<job 1> $WORK/slurm-sweep.sbatch" ||
    die "the first resume job does not follow the run: $(sed -n 2p commands.txt)"
sed -n 3p commands.txt | grep -q "^--dependency=afterany:<job 2> $WORK/slurm-sweep.sbatch" ||
    die "the second resume job does not follow the first: $(sed -n 3p commands.txt)"
sed -n 4p commands.txt | grep -q "^--dependency=afterok:<job 3> --kill-on-invalid-dep=yes $WORK/slurm-sweep-merge.sbatch" ||
    die "the merge job does not follow the last resume job: $(sed -n 4p commands.txt)"
grep -qx "#SBATCH --array=0-2" slurm-sweep.sbatch || die "the run is not an array of 3"
read -r -a bounds <<<"$(sed -n "s/^export IMPACTSWEEP_PIECE_BOUNDS='\(.*\)'$/\1/p" slurm-sweep.sbatch)"
[ "${#bounds[@]}" = 4 ] && [ "${bounds[0]}" = 0 ] && [ "${bounds[3]}" = 6 ] &&
    [ "${bounds[1]}" -lt "${bounds[2]}" ] || die "the pieces' bounds are not 4 rising numbers from 0 to 6: ${bounds[*]}"
for line in "#SBATCH --ntasks=1" "#SBATCH --mem=1G" "#SBATCH --partition=big" "#SBATCH --account=physics" \
    "#SBATCH --qos=long" "#SBATCH --constraint=skylake" "#SBATCH --comment=sweep" \
    "#SBATCH --kill-on-invalid-dep=yes"; do
    grep -qxF -- "$line" slurm-sweep-merge.sbatch || die "the merge job lacks '$line'"
done
for line in "#SBATCH --exclusive" "#SBATCH --mem=4G"; do
    ! grep -qxF -- "$line" slurm-sweep-merge.sbatch || die "the merge job has the run's sizing '$line'"
done
grep -qE "^#SBATCH --time=[0-9]+$" slurm-sweep-merge.sbatch || die "the merge job has no time limit"
expect_status 0 "--array N%K" submit --dry-run --array 2%1 "$job"
grep -qx "#SBATCH --array=0-1%1" slurm-sweep.sbatch || die "--array 2%1 does not throttle: $(grep array slurm-sweep.sbatch)"

say "5. the batch script runs piece I of N with its points"
printf '#!/bin/sh\necho "launcher $*"\n' >"$fake/mpirun"
chmod +x "$fake/mpirun"
expect_status 0 "array task 1, outside Slurm" env PATH="$fake:$PATH" SLURM_ARRAY_TASK_ID=1 \
    bash slurm-sweep.sbatch "$job"
read -r -a b2 <<<"$(sed -n "s/^export IMPACTSWEEP_PIECE_BOUNDS='\(.*\)'$/\1/p" slurm-sweep.sbatch)"
grep -q -- "--piece 1/2:${b2[1]}-$((b2[2] - 1)) --output $WORK/sweep.piece1.h5" out.txt ||
    die "array task 1 does not run piece 1/2 of its points: $(cat out.txt)"

say "6. a (stand-in) Slurm: sbatch --test-only first, then the submissions"
echo "ClusterName=stand-in" >slurm.conf
cat >"$fake/sbatch" <<'EOF'
#!/bin/sh
# a stand-in for sbatch: --help lists an option of a newer Slurm; --test-only answers
# as SBATCH_ANSWER says; a submission prints the next job id; every call is logged
echo "sbatch $*" >>"$SBATCH_LOG"
case "$1" in
--help) echo "      --future-option=x     an option newer than submit's list" ; exit 0 ;;
--usage) exit 0 ;;
--test-only)
    [ "${SBATCH_ANSWER:-yes}" = yes ] || { echo "sbatch: error: invalid partition specified: big" >&2; exit 1; }
    echo "sbatch: Job 41 to start at 2026-01-01T00:00:00 using 1 processors on nodes n1 in partition debug" >&2 ;;
--parsable) n=$(grep -c -- '^sbatch --parsable' "$SBATCH_LOG"); echo "$((100 + n))" ;;
esac
EOF
printf '#!/bin/sh\necho "MaxArraySize            = 4"\n' >"$fake/scontrol"
chmod +x "$fake/sbatch" "$fake/scontrol"
stand_in=(env PATH="$fake:$PATH" SLURM_CONF="$WORK/slurm.conf" SBATCH_LOG="$WORK/sbatch.log")
expect_status 0 "a dry run asks sbatch --test-only" "${stand_in[@]}" "$SUBMIT" --impactsweep "$IMPACTSWEEP" \
    --dry-run --array 2 --future-option=1 "$job"
grep -q "^submit: sbatch --test-only slurm-sweep.sbatch: Job 41 to start" err.txt || die "the test-only answer is not reported: $(cat err.txt)"
grep -q "^submit: sbatch --test-only slurm-sweep-merge.sbatch: Job 41" err.txt || die "the merge script was not tested"
! grep -q -- "--parsable" sbatch.log || die "a dry run submitted: $(cat sbatch.log)"
grep -qx "#SBATCH --future-option=1" slurm-sweep.sbatch || die "an option of the installed sbatch's list is not passed"
expect_status 2 "an array beyond this Slurm's MaxArraySize" "${stand_in[@]}" "$SUBMIT" --impactsweep "$IMPACTSWEEP" \
    --dry-run --array 5 "$job"
grep -q "at most 4 tasks (MaxArraySize)" err.txt || die "MaxArraySize not checked: $(cat err.txt)"
: >sbatch.log
expect_status 2 "sbatch refuses: nothing submitted" env SBATCH_ANSWER=no "${stand_in[@]}" "$SUBMIT" \
    --impactsweep "$IMPACTSWEEP" --array 2 --partition big "$job"
grep -q "sbatch refuses slurm-sweep.sbatch: .*invalid partition" err.txt || die "the refusal is not sbatch's: $(cat err.txt)"
! grep -q -- "--parsable" sbatch.log || die "submitted although sbatch --test-only refused: $(cat sbatch.log)"
: >sbatch.log
expect_status 0 "a real submission" "${stand_in[@]}" "$SUBMIT" --impactsweep "$IMPACTSWEEP" --array 2 --chain 1 "$job"
grep -c -- "--test-only" sbatch.log | grep -qx 2 || die "not every script was tested first: $(cat sbatch.log)"
[ "$(grep -n -- '--test-only' sbatch.log | tail -1 | cut -d: -f1)" -lt "$(awk '/--parsable/ { print NR; exit }' sbatch.log)" ] ||
    die "a job was submitted before every script was tested: $(cat sbatch.log)"
grep -q "^submitted job 101$" out.txt && grep -q "^submitted resume job 102$" out.txt &&
    grep -q "^submitted merge job 103$" out.txt || die "the job ids: $(cat out.txt)"
grep -q -- "--parsable --dependency=afterok:102 --kill-on-invalid-dep=yes .*merge.sbatch" sbatch.log ||
    die "the merge job's submission: $(grep merge sbatch.log)"

say "7. the batch script's failure paths (stand-ins for the launcher, scontrol, sinfo)"
# fake_slurm STATUS REQUEUE NODESTATE: the launcher exits STATUS, scontrol requeue
# succeeds or not (REQUEUE ok/no), scontrol show node says State=NODESTATE
fake_slurm() {
    printf '#!/bin/sh\nexit %s\n' "$1" >"$fake/mpirun"
    cat >"$fake/scontrol" <<EOF
#!/bin/sh
case "\$1 \$2" in
"requeue "*) [ "$2" = ok ] || { echo "Requested operation is presently disabled for job \$2" >&2; exit 1; } ;;
"show node") echo "NodeName=n2 Arch=x86_64 State=$3 CPUTot=2" ;;
"show config") echo "SlurmdTimeout           = 1 sec" ;;
esac
EOF
    chmod +x "$fake/mpirun" "$fake/scontrol"
}
in_job=(env PATH="$fake:$PATH" SLURM_JOB_ID=7 SLURM_JOB_NODELIST=n[1-2] IMPACTSWEEP_LOST_NODE_WAIT=2)
expect_status 0 "a plain job's script" submit --dry-run "$job"
fake_slurm 75 ok IDLE
expect_status 0 "stopped, requeued" "${in_job[@]}" bash slurm-sweep.sbatch "$job"
grep -q "stopped in time (status 75); requeued job 7 (restart 1 of at most 20)" err.txt || die "no requeue: $(cat err.txt)"
fake_slurm 75 no IDLE
expect_status 75 "stopped, the requeue refused" "${in_job[@]}" bash slurm-sweep.sbatch "$job"
grep -q "the requeue FAILED: scontrol requeue 7: Requested operation is presently disabled" err.txt ||
    die "a failed requeue is not reported: $(cat err.txt)"
fake_slurm 75 ok IDLE
expect_status 75 "stopped at the cap" env SLURM_RESTART_COUNT=20 "${in_job[@]}" bash slurm-sweep.sbatch "$job"
grep -q "NOT requeued: job 7 has been restarted 20 time(s), the cap (--max-restarts 20)" err.txt ||
    die "the cap is not reported: $(cat err.txt)"
fake_slurm 205 ok DOWN+NOT_RESPONDING
expect_status 0 "broken off, a node DOWN: requeued" "${in_job[@]}" bash slurm-sweep.sbatch "$job"
grep -q "node n2 (DOWN+NOT_RESPONDING) lost; requeued job 7" err.txt || die "a lost node is not requeued: $(cat err.txt)"
fake_slurm 205 ok MIXED
expect_status 205 "broken off, every node up: the run's status" "${in_job[@]}" bash slurm-sweep.sbatch "$job"
grep -q "every node of the job responds: the run failed by itself" err.txt || die "$(cat err.txt)"
fake_slurm 2 ok DOWN
expect_status 2 "bad input: no waiting, no requeue" "${in_job[@]}" bash slurm-sweep.sbatch "$job"
! grep -q "requeue\|asking Slurm" err.txt || die "a refused job was requeued: $(cat err.txt)"
echo "PASS"
