# test_submit.sh: slurm/submit without a scheduler (--dry-run writes the batch scripts
# and prints the sbatch commands; the Slurm tests under tests/slurm/ run them for real):
#  - a job the engine refuses is refused here too: exit 2, nothing written;
#  - resources: --mem, sbatch options passed through (--opt=value, --opt value, a flag,
#    --sbatch-arg), --launcher, --setup (sourced before the run, a failure stops the job);
#  - the order of --array and --chain: the resume jobs are arrays after the run, the
#    merge job after the last of them; the merge job's time and memory;
#  - unknown short options and bad values are refused (exit 2).
# shellcheck source=lib.sh
source "$TESTS/integration/lib.sh"
SUBMIT=$TESTS/../slurm/submit
job=$WORK/sweep.ini
printf '%s\n' "[sweep]" "model = chatter" "[model]" "n = 4" "samples = 20" \
    "[axis.rho]" "values = 0.2, 0.4" "[axis.gamma]" "values = 0.1, 0.3" >"$job"

say "a refused job: exit 2, nothing written, nothing submitted"
printf '%s\n' "[sweep]" "model = chatter" "[model]" "n = 4" "colour = red" \
    "[axis.rho]" "values = 0.2" "[axis.gamma]" "values = 0.1" >bad.ini
expect_status 2 "submit a bad job" "$SUBMIT" --impactsweep "$IMPACTSWEEP" --dry-run bad.ini
grep -q "colour" err.txt || die "the refusal does not name the key: $(cat err.txt)"
! ls slurm-*.sbatch >/dev/null 2>&1 || die "a refused job left a batch script"
! grep -q "^sbatch" err.txt || die "a refused job was submitted: $(cat err.txt)"

say "resources, options passed through, launcher, setup"
echo 'export IMPACTSWEEP_TEST_SETUP=1' >setup.sh
expect_status 0 "submit" "$SUBMIT" --impactsweep "$IMPACTSWEEP" --dry-run --ntasks 4 \
    --time 01:00:00 --mem 2G --constraint=skylake --mail-type END --exclusive \
    --sbatch-arg "--comment=sweep one" --launcher srun --setup setup.sh "$job"
script=slurm-sweep.sbatch
for line in "#SBATCH --ntasks=4" "#SBATCH --time=01:00:00" "#SBATCH --mem=2G" \
    "#SBATCH --constraint=skylake" "#SBATCH --mail-type=END" "#SBATCH --exclusive" \
    "#SBATCH --comment=sweep one" "export MPIRUN=srun"; do
    grep -qxF -- "$line" "$script" || die "the batch script lacks '$line'"
done
grep -q "^source '$WORK/setup.sh' || " "$script" || die "the batch script does not source setup.sh: $(grep -n source "$script")"
# every #SBATCH line comes before the first command (sbatch reads no further)
first_command=$(grep -n -v -E '^(#|$)' "$script" | head -1 | cut -d: -f1)
last_directive=$(grep -n '^#SBATCH' "$script" | tail -1 | cut -d: -f1)
[ "$last_directive" -lt "$first_command" ] || die "an #SBATCH line follows a command in $script"
grep -q "^submit: cost: about" err.txt || die "submit prints no cost estimate: $(cat err.txt)"

say "the script runs setup.sh first and stops when it fails"
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

say "--array 3 --chain 2: resume arrays after the run, the merge after the last"
expect_status 0 "submit an array with a chain" "$SUBMIT" --impactsweep "$IMPACTSWEEP" \
    --dry-run --array 3 --chain 2 --partition big "$job"
sed -n 's/^sbatch --parsable //p' err.txt >commands.txt
[ "$(wc -l <commands.txt)" = 4 ] || die "want 4 submissions, got: $(cat commands.txt)"
sed -n 1p commands.txt | grep -q "^$WORK/slurm-sweep.sbatch $job" || die "first: $(sed -n 1p commands.txt)"
sed -n 2p commands.txt | grep -q "^--dependency=afterany:DRYRUN1 $WORK/slurm-sweep.sbatch" ||
    die "the first resume job does not follow the run: $(sed -n 2p commands.txt)"
sed -n 3p commands.txt | grep -q "^--dependency=afterany:DRYRUN2 $WORK/slurm-sweep.sbatch" ||
    die "the second resume job does not follow the first: $(sed -n 3p commands.txt)"
sed -n 4p commands.txt | grep -q "^--dependency=afterok:DRYRUN3 $WORK/slurm-sweep-merge.sbatch" ||
    die "the merge job does not follow the last resume job: $(sed -n 4p commands.txt)"
grep -qx "#SBATCH --array=0-2" slurm-sweep.sbatch || die "the run is not an array of 3"
for line in "#SBATCH --ntasks=1" "#SBATCH --mem=1G" "#SBATCH --partition=big"; do
    grep -qxF -- "$line" slurm-sweep-merge.sbatch || die "the merge job lacks '$line'"
done
grep -qE "^#SBATCH --time=[0-9]+$" slurm-sweep-merge.sbatch || die "the merge job has no time limit"

say "bad options and values are refused"
expect_status 2 "a short option" "$SUBMIT" --impactsweep "$IMPACTSWEEP" --dry-run -p big "$job"
grep -q -- "--sbatch-arg" err.txt || die "a refused short option does not point to --sbatch-arg: $(cat err.txt)"
expect_status 2 "an unknown launcher" "$SUBMIT" --impactsweep "$IMPACTSWEEP" --dry-run \
    --launcher aprun "$job"
expect_status 2 "a missing setup file" "$SUBMIT" --impactsweep "$IMPACTSWEEP" --dry-run \
    --setup nowhere.sh "$job"
expect_status 0 "--help" "$SUBMIT" --help
grep -q -- "--sbatch-arg" out.txt || die "submit --help does not document --sbatch-arg"
echo "PASS"
