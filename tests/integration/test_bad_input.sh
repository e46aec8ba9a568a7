# test_bad_input.sh: bad input exits 2, says where the problem is, and touches nothing.
#  - bad job files (unknown key, unknown section, out-of-range gamma, malformed line,
#    unknown model, non-number, ...), each aimed at an existing result file, under 1 and
#    2 ranks: exit 2, a message naming FILE.ini:LINE, the result file byte-identical and
#    no new file in the directory;
#  - the same mistakes as --set values: exit 2, a message naming the --set, nothing
#    touched;
#  - a good job onto an existing output without --resume/--overwrite: exit 2, untouched;
#    with --overwrite the file is replaced by the new job's results.
# shellcheck source=lib.sh
source "$TESTS/integration/lib.sh"

good_job="$INTEGRATION_JOBS/sweep.ini"
# A rank exiting non-zero makes mpiexec wait 1 s per rank before it kills the others;
# they have all exited already, so skip the wait (2.3 s -> 0.3 s per refused run).
export OMPI_MCA_odls_base_sigkill_timeout=0

say "setup: an existing good result file"
expect_status 0 "good run" "$IMPACTSWEEP" run "$good_job" --output good.h5
good_sha=$(sha good.h5)
listing() { find . -mindepth 1 -maxdepth 1 ! -name out.txt ! -name err.txt ! -name compare.txt | sort; }

# Checks one bad invocation under 1 rank (no mpiexec) and 2 ranks: exit 2, stderr
# contains $1 (fixed string) exactly once, good.h5 unchanged, no new file.
# Usage: refuse WHAT WHERE ARGS... (ARGS after `impactsweep run`).
refuse() {
    local what=$1 where=$2 launcher before after count
    shift 2
    for launcher in serial mpi2; do
        before=$(listing)
        if [ "$launcher" = serial ]; then
            expect_status 2 "$what (1 rank)" "$IMPACTSWEEP" run "$@"
        else
            expect_status 2 "$what (2 ranks)" mpi2 run "$@"
        fi
        count=$(grep -c -F -- "$where" err.txt || true)
        [ "$count" -ge 1 ] || die "$what ($launcher): the message does not name '$where'"
        [ "$count" -eq 1 ] || die "$what ($launcher): the message naming '$where' is printed $count times"
        [ "$(sha good.h5)" = "$good_sha" ] || die "$what ($launcher): good.h5 changed"
        after=$(listing)
        [ "$before" = "$after" ] || die "$what ($launcher): files appeared or vanished: $(diff <(echo "$before") <(echo "$after") | tr '\n' ' ')"
    done
    echo "    ok: $what -> $(grep -m1 -F -- "$where" err.txt)"
}

# Writes a bad copy of the good job as $1.ini: the good job's lines with line $2 replaced
# by $3 (use a line number past the end to append). The job aims at good.h5.
bad_job() {
    local name=$1 line=$2 text=$3
    sed -e 's/^output = .*/output = good.h5/' "$good_job" >base.ini
    awk -v n="$line" -v t="$text" 'NR == n { print t; next } { print } END { if (NR < n) print t }' \
        base.ini >"$name.ini"
    rm base.ini
}

# Line numbers in sweep.ini (the bad copies keep them).
line_of() { grep -n -m1 -E "$1" "$good_job" | cut -d: -f1; }
l_model=$(line_of '^model = ')
l_title=$(line_of '^title = ')
l_samples=$(line_of '^samples = ')
l_gamma_to=$(awk '/^\[axis.gamma\]/ { g = 1 } g && /^to = / { print NR; exit }' "$good_job")
l_rho_count=$(awk '/^\[axis.rho\]/ { g = 1 } g && /^count = / { print NR; exit }' "$good_job")
l_end=$(($(wc -l <"$good_job") + 1))

say "bad job files"
bad_job unknown_key "$l_samples" "colour = red"
refuse "unknown key in [model]" "unknown_key.ini:$l_samples" unknown_key.ini
bad_job unknown_sweep_key "$l_title" "titel = misspelt"
refuse "misspelt [sweep] key" "unknown_sweep_key.ini:$l_title" unknown_sweep_key.ini
bad_job unknown_section "$l_end" "[plot]"
echo "colour = red" >>unknown_section.ini
refuse "unknown section" "unknown_section.ini:$l_end" unknown_section.ini
bad_job gamma_range "$l_gamma_to" "to = 1.5"
refuse "gamma out of range (to = 1.5)" "gamma_range.ini:$l_gamma_to" gamma_range.ini
bad_job malformed "$l_samples" "this line is not ini"
refuse "malformed line" "malformed.ini:$l_samples" malformed.ini
bad_job unknown_model "$l_model" "model = nosuchmodel"
refuse "unknown model" "unknown_model.ini:$l_model" unknown_model.ini
bad_job not_number "$l_samples" "samples = many"
refuse "non-number" "not_number.ini:$l_samples" not_number.ini
bad_job bad_count "$l_rho_count" "count = 2.5"
refuse "non-integer axis count" "bad_count.ini:$l_rho_count" bad_count.ini
bad_job twice "$l_end" "[model]"
echo "samples = 3" >>twice.ini
refuse "section repeated / key given twice" "twice.ini:" twice.ini
refuse "missing job file" "no_such_job.ini" no_such_job.ini

l_rho_from=$(awk '/^\[axis.rho\]/ { g = 1 } g && /^from = / { print NR; exit }' "$good_job")
bad_job empty_item "$l_rho_from" "values = 0.1,, 0.2"
sed -i '/^\[axis.rho\]/,/^\[/{/^to = \|^count = /d}' empty_item.ini
refuse "an empty item of a values list (1,,2)" "empty_item.ini:$l_rho_from: [axis.rho] values: item 2 is empty" empty_item.ini
bad_job too_small "$l_gamma_to" "to = 1e-400"
refuse "a number below the smallest double" "too_small.ini:$l_gamma_to" too_small.ini
grep -q "smallest nonzero double" err.txt || die "1e-400: the message does not say why: $(tail -n 1 err.txt)"

say "eval: a parameter given twice is refused as in a job file; a subnormal number is a number"
expect_status 2 "eval with gamma twice" "$IMPACTSWEEP" eval chatter rho=0.3 gamma=0.1 gamma=0.99
grep -q "gamma is given twice" err.txt || die "eval gamma twice: $(cat err.txt)"
[ ! -s out.txt ] || die "eval with gamma twice printed a result"
expect_status 2 "trace with rho twice" "$IMPACTSWEEP" trace chatter rho=0.3 rho=0.4 gamma=0.1 --output t.h5
grep -q "rho is given twice" err.txt || die "trace rho twice: $(cat err.txt)"
[ ! -e t.h5 ] || die "the refused trace wrote t.h5"
expect_status 0 "eval with a subnormal x" "$IMPACTSWEEP_TEST" eval synthetic x=5e-324 y=1
grep -q '"x": 5e-324' out.txt || die "eval x=5e-324: $(cat out.txt)"
expect_status 2 "eval with x = 1e400" "$IMPACTSWEEP_TEST" eval synthetic x=1e400 y=1
grep -q "not a finite number" err.txt || die "eval x=1e400: $(cat err.txt)"
echo "    ok: eval and trace refuse a parameter given twice; 5e-324 is a number, 1e400 is refused"

say "a plug-in path that is not a regular file is refused at once (no read of a device, no open of a FIFO)"
mkfifo fifo.so
mkdir dir.so
ln -s fifo.so link.so
# `timeout` turns a hang (the read of /dev/zero, the open of a FIFO) into status 124, not 2
for plugin in /dev/zero /dev/urandom ./fifo.so ./dir.so ./link.so; do
    case $plugin in
    /dev/*) kind="a character device" ;;
    ./dir.so) kind="a directory" ;;
    *) kind="a FIFO" ;;
    esac
    expect_status 2 "eval $plugin" timeout 20 "$IMPACTSWEEP" eval "$plugin" x=1
    grep -q "$kind, not a shared library: refused" err.txt || die "eval $plugin: $(cat err.txt)"
    expect_status 2 "models $plugin" timeout 20 "$IMPACTSWEEP" models "$plugin"
    grep -q "$kind, not a shared library" err.txt || die "models $plugin: $(cat err.txt)"
    expect_status 2 "trace $plugin" timeout 20 "$IMPACTSWEEP" trace "$plugin" x=1 --output t.h5
    grep -q "$kind, not a shared library" err.txt || die "trace $plugin: $(cat err.txt)"
    [ ! -e t.h5 ] || die "the refused trace of $plugin wrote t.h5"
    [ "$plugin" != ./dir.so ] || continue # a directory on the search path is searched
    # on the search path, an unusable library is skipped with a warning (as HDF5 skips
    # filter plug-ins it cannot load): the built-in models stay usable, and nothing hangs
    expect_status 0 "IMPACTSWEEP_MODEL_PATH=$plugin models" \
        env IMPACTSWEEP_MODEL_PATH="$plugin" timeout 20 "$IMPACTSWEEP" models
    grep -q "warning: IMPACTSWEEP_MODEL_PATH: $plugin skipped: .*$kind, not a shared library" \
        err.txt || die "IMPACTSWEEP_MODEL_PATH=$plugin: $(cat err.txt)"
done
bad_job plugin_fifo "$l_model" "model = fifo.so"
refuse "a FIFO as the job's plug-in" "plugin_fifo.ini:$l_model: [sweep] model: model plug-in" plugin_fifo.ini
grep -q "a FIFO, not a shared library" err.txt || die "job with a FIFO model: $(cat err.txt)"
bad_job plugin_zero "$l_model" "model = /dev/zero"
refuse "/dev/zero as the job's plug-in" "plugin_zero.ini:$l_model: [sweep] model: model plug-in" plugin_zero.ini
rm -r fifo.so dir.so link.so
echo "    ok: /dev/zero, /dev/urandom, a FIFO, a link to it and a directory refused by eval, models, trace and run, skipped with a warning on IMPACTSWEEP_MODEL_PATH"

say "bad --set values (on the good job, aimed at good.h5)"
set_refuse() { refuse "--set $1" "--set '$1'" "$good_job" --output good.h5 --set "$1"; }
set_refuse model.colour=red
set_refuse plot.colour=red
set_refuse axis.gamma.to=1.5
set_refuse axis.gamma.from=0
set_refuse model.samples=many
set_refuse model.samples=0
set_refuse sweep.model=nosuchmodel
set_refuse sweep.unit_size=-3
set_refuse noequalsign
set_refuse "axis.cone_rounds.values=10,,20"
refuse "unknown option" "--bogus" "$good_job" --output good.h5 --bogus
refuse "--resume with --overwrite" "exclude" "$good_job" --output good.h5 --resume --overwrite

say "checks spread over the ranks: the first failing point in grid order, whatever the ranks"
cat >limit.ini <<'EOF2'
[sweep]
model = synthetic
output = good.h5
[model]
limit = 50
[axis.x]
from = 0
to = 10
count = 50
[axis.y]
from = 0
to = 10
count = 40
EOF2
# the first point in C order with x * y > 50, by brute force (the axes' own formula)
first=$("$PYTHON" -c '
for i in range(50):
    for j in range(40):
        x = (0.0 * (49 - i) + 10.0 * i) / 49; y = (0.0 * (39 - j) + 10.0 * j) / 39
        if x * y > 50:
            print(i * 40 + j); raise SystemExit')
for ranks in 1 2 3; do
    expect_status 2 "limit.ini on $ranks rank(s)" $MPIEXEC $MPIEXEC_FLAGS -n "$ranks" \
        "$IMPACTSWEEP_TEST" run limit.ini
    grep -q "limit.ini: at grid point $first (x = " err.txt ||
        die "$ranks rank(s): the refusal does not name grid point $first: $(cat err.txt)"
    [ "$(grep -c 'exceeds limit' err.txt)" -eq 1 ] || die "$ranks rank(s): not one message"
    [ "$(sha good.h5)" = "$good_sha" ] || die "$ranks rank(s): good.h5 changed"
done
say "a long axis (no table of values) is checked value by value too, by all ranks"
printf '[sweep]\nmodel = chatter\noutput = good.h5\n[model]\nrho = 0.3\ngamma = 0.1\n[axis.n]\nfrom = 2\nto = 3\ncount = 70000\n' >long.ini
refuse "an integer axis with non-integral values" "long.ini:7: [axis.n]: value 2 of the axis" long.ini

say "a good job onto an existing output without --resume or --overwrite"
refuse "existing output" "good.h5 exists" "$good_job" --output good.h5

say "--overwrite replaces the existing output (2 ranks)"
expect_status 0 "reference run with seed 99" "$IMPACTSWEEP" run "$good_job" --set model.seed=99 \
    --output seed99.h5
expect_status 0 "--overwrite" mpi2 run "$good_job" --set model.seed=99 --output good.h5 --overwrite
[ "$(sha good.h5)" != "$good_sha" ] || die "--overwrite left good.h5 as it was"
same_results seed99.h5 good.h5 "--overwrite result vs a fresh run of the new job"
ls good.h5.* >/dev/null 2>&1 && die "--overwrite left temporary files: $(ls good.h5.*)"
true
