#!/usr/bin/env bash
# bench_scale.sh: how the result-file layer and the scheduler scale with the grid size.
# A cheap synthetic sweep (model `synthetic` of impactsweep-test: x count = N/1000,
# y count = 1000, 22 bytes per point in the file) of N = 10^E points for each exponent E
# given, measuring:
#   a. peak RSS of rank 0 and of a worker in a 2-rank run, and of a 1-rank run
#      (each rank under its own /usr/bin/time -v);
#   b. the run's own times ("times: creating the file X s, computing Y s; rank 0 answered
#      R requests in S s (P% of the run)"), its units, and the wall time of the whole run;
#   c. resume: `run --resume` of a copy of the complete file whose second half was set
#      back to pending (status 0, in slices): "times: resume scan X s", peak RSS, and that
#      the resumed file equals the uninterrupted one (h5compare);
#   d. `info FILE` serial and on 2 ranks: wall time and peak RSS;
#   e. the grid as 4 pieces (--piece I/4): each piece's file size against the whole file's,
#      then `merge` of the 4 (serial, as the Slurm merge job runs it, and on 2 ranks):
#      wall time, peak RSS, and that the merged file equals the whole run (h5compare);
#   f. writes to the result file, from libcrashpoint.so in count-only mode: creation
#      (writes to OUTPUT.partial) against the computing phase (writes to OUTPUT after the
#      rename), the data writes' mean and median size, how many start on a 4096-byte
#      boundary; 1 and 2 ranks; also the shipped chatter model (1 sample, 1 impact, no
#      cone) at 10^6 and, when 10^7 is selected and the estimate is under 2 minutes, 10^7;
#   g. rank 0's busy fraction with 64 oversubscribed ranks (10^6 points, model.cost=1e-5,
#      sweep.unit_seconds=1): the "rank 0 answered" line and the wall time.
# and prints a table per part (medians of BENCH_REPEATS runs up to 10^6 points, one run
# above), then the targets with "met" / "missed":
#   rank-0 RSS at the largest N within 100 MiB of that at the smallest (10^8 vs 10^4);
#   a 10^7-point cheap sweep in under 5,000 writes to the file while computing;
#   a quarter piece at most half the size of the whole file;
#   merging 4 pieces of 2.5e6 points (N = 10^7) in under 64 MiB.
#
# Usage: bench_scale.sh [options] [EXPONENT ...]       (default: 4 6 7 8)
#   bench_scale.sh 4 6        a quick run, about a minute
# Options (or the environment variable in brackets):
#   --build DIR          build directory [BUILD_DIR, default: build/ beside tests/]
#   --test-binary PATH   the CLI with the synthetic model [IMPACTSWEEP_TEST,
#                        default BUILD/tests/impactsweep-test]
#   --binary PATH        the shipped CLI, for chatter [IMPACTSWEEP, default BUILD/impactsweep]
#   --crashpoint PATH    the LD_PRELOAD shim [CRASHPOINT_LIB, BUILD/tests/libcrashpoint.so]
#   --h5compare PATH     [H5COMPARE, default BUILD/tests/h5compare]
#   --parts LETTERS      parts to run, e.g. "abf" [BENCH_PARTS, default abcdefg]
#   --repeats N          runs per median up to 10^6 points [BENCH_REPEATS, default 3]
#   --scratch DIR        where the scratch directory goes [BENCH_SCRATCH, default /tmp]
#   --keep               keep the scratch directory (logs, files) [BENCH_KEEP=1]
#   MPIEXEC (mpirun), PYTHON (a python3 with h5py if there is one; else the status reset
#   uses h5dump + dd), BENCH_CHATTER (auto | 0 | 1), BENCH_G_RANKS (64).
# Runs as root (sets OMPI_ALLOW_RUN_AS_ROOT). A benchmark, not a test: not in ctest.
set -uo pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export HDF5_USE_FILE_LOCKING=FALSE
export LC_ALL=C

build=${BUILD_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build}
test_bin=${IMPACTSWEEP_TEST:-}
ship_bin=${IMPACTSWEEP:-}
shim=${CRASHPOINT_LIB:-}
h5compare=${H5COMPARE:-}
parts=${BENCH_PARTS:-abcdefg}
repeats=${BENCH_REPEATS:-3}
scratch_parent=${BENCH_SCRATCH:-/tmp}
keep=${BENCH_KEEP:-0}
chatter=${BENCH_CHATTER:-auto}
g_ranks=${BENCH_G_RANKS:-64}
mpiexec=${MPIEXEC:-mpirun}
exps=()
usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-2}"; }
while [ $# -gt 0 ]; do
    case $1 in
    --build) build=$2; shift ;;
    --test-binary) test_bin=$2; shift ;;
    --binary) ship_bin=$2; shift ;;
    --crashpoint) shim=$2; shift ;;
    --h5compare) h5compare=$2; shift ;;
    --parts) parts=$2; shift ;;
    --repeats) repeats=$2; shift ;;
    --scratch) scratch_parent=$2; shift ;;
    --keep) keep=1 ;;
    -h | --help) usage 0 ;;
    [0-9]*) exps+=("$1") ;;
    *) echo "bench_scale.sh: unknown argument '$1'" >&2; usage 2 ;;
    esac
    shift
done
[ ${#exps[@]} -gt 0 ] || exps=(4 6 7 8)
for e in "${exps[@]}"; do
    case $e in 4 | 5 | 6 | 7 | 8 | 9) ;; *) echo "bench_scale.sh: exponent $e: expected 4..9" >&2; exit 2 ;; esac
done
mapfile -t exps < <(printf '%s\n' "${exps[@]}" | sort -n -u)
test_bin=${test_bin:-$build/tests/impactsweep-test}
ship_bin=${ship_bin:-$build/impactsweep}
shim=${shim:-$build/tests/libcrashpoint.so}
h5compare=${h5compare:-$build/tests/h5compare}
here=$(cd "$(dirname "$0")" && pwd)
writes_py=$here/bench_scale_writes.py
if [ -z "${PYTHON:-}" ]; then
    PYTHON=python3
    for p in /usr/bin/python3 python3; do
        if "$p" -c 'import h5py, numpy' 2>/dev/null; then PYTHON=$p; break; fi
    done
fi
want() { [[ $parts == *$1* ]]; }
say() { echo "[bench_scale $(date +%T)] $*" >&2; }
die() { echo "bench_scale.sh: $*" >&2; exit 2; }

for f in "$test_bin" "$h5compare"; do [ -x "$f" ] || die "$f: not found or not executable (build first)"; done
want f && { [ -f "$shim" ] || die "$shim: not found (the crashpoint target)"; }
want f && { [ -f "$writes_py" ] || die "$writes_py: not found"; }
command -v "$mpiexec" >/dev/null || die "$mpiexec: not found"
[ -x /usr/bin/time ] || die "/usr/bin/time not found (Debian package time)"
[[ $repeats =~ ^[1-9][0-9]*$ ]] || die "--repeats: expected a positive integer"

# --- scratch space -------------------------------------------------------------------
max_e=${exps[-1]}
max_n=$((10 ** max_e))
# the largest size's whole file, its 4 pieces and the merged file at once (part e), or
# the whole file and its resumable copy (c), with room for HDF5's metadata and the logs
need_mb=$((max_n * 22 * 33 / 10 / 1000000 + 500))
mkdir -p "$scratch_parent" || die "cannot create $scratch_parent"
avail_mb=$(df -P -m "$scratch_parent" | awk 'NR == 2 { print $4 }')
say "scratch under $scratch_parent: ${avail_mb} MB free, about ${need_mb} MB needed for 10^$max_e"
[ "$avail_mb" -ge "$need_mb" ] || die "not enough free space in $scratch_parent (${avail_mb} MB; need ${need_mb} MB): choose smaller exponents or --scratch"
work=$(mktemp -d "$scratch_parent/bench_scale.XXXXXX") || die "cannot make a scratch directory"
cleanup() {
    if [ "$keep" = 1 ]; then say "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
logs=$work/logs
mkdir -p "$logs"
wrapper=$work/timed-rank.sh
cat >"$wrapper" <<'EOF'
#!/bin/sh
# timed-rank.sh PREFIX COMMAND...: COMMAND under /usr/bin/time -v, whose report goes to
# PREFIX.rankN (N: this process's MPI rank)
prefix=$1
shift
exec /usr/bin/time -v -o "$prefix.rank${OMPI_COMM_WORLD_RANK:-0}" "$@"
EOF
chmod +x "$wrapper"
started_all=$(date +%s.%N)

# --- helpers -------------------------------------------------------------------------
declare -A R    # results: key -> space-separated values (one per repeat)
add() { R[$1]="${R[$1]:-}${R[$1]:+ }$2"; }
median() { # the median of the numeric words of $1, or "" if none
    printf '%s\n' $1 | grep -E '^-?[0-9.]+(e[-+]?[0-9]+)?$' | sort -g |
        awk '{ v[++n] = $1 } END { if (n) print (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }'
}
get() { median "${R[$1]:-}"; }
fmt() { # fmt VALUE PRINTF-FORMAT: "-" where VALUE is empty
    if [ -z "$1" ]; then printf -- '-'; else awk -v v="$1" -v f="$2" 'BEGIN { printf f, v }'; fi
}
mib() { [ -z "$1" ] && { printf -- '-'; return; }; awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
rss_of() { [ -f "$1" ] && awk '/Maximum resident set size/ { print $NF }' "$1"; }
human_n() { awk -v n="$1" 'BEGIN { e = int(log(n) / log(10) + 0.5); if (10 ^ e == n) printf "10^%d", e; else printf "%g", n }'; }

# launch NP TAG COMMAND...: runs COMMAND on NP ranks through mpirun (NP = 0: the process
# alone), every rank under /usr/bin/time -v; EXTRA_MPI holds more mpirun options. Leaves
# $logs/TAG.out, .err, .rank0, .rank1, ...; sets WALL (s) and RC.
EXTRA_MPI=()
launch() {
    local np=$1 tag=$2 t0 t1
    shift 2
    local p=$logs/$tag
    rm -f "$p".*
    t0=$(date +%s.%N)
    if [ "$np" -eq 0 ]; then
        /usr/bin/time -v -o "$p.rank0" "$@" >"$p.out" 2>"$p.err" </dev/null
    else
        "$mpiexec" "${EXTRA_MPI[@]}" -n "$np" "$wrapper" "$p" "$@" >"$p.out" 2>"$p.err" </dev/null
    fi
    RC=$?
    t1=$(date +%s.%N)
    WALL=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
    if [ "$RC" -ne 0 ]; then
        say "$tag: exit status $RC; the end of its stderr:"
        tail -n 5 "$p.err" | sed 's/^/    /' >&2
    fi
    return 0
}
# times_of TAG: "PHASE_SECONDS COMPUTING R SERVE PERCENT" from the run's "times:" line
times_of() {
    sed -n 's/.*times: \(creating the file\|resume scan\) \([0-9.]*\) s, computing \([0-9.]*\) s; rank 0 answered \([0-9]*\) requests in \([0-9.]*\) s (\([0-9.]*\)% of the run).*/\2 \3 \4 \5 \6/p' \
        "$logs/$1.err" | tail -n 1
}
# units_of TAG: "COMPUTED UNITS TARGET" from the "wrote ..." line
units_of() {
    sed -n 's/.*this run computed \([0-9]*\) in [0-9.]* s on [0-9]* ranks\{0,1\} (\([0-9]*\) units, target \([0-9.e+-]*\) s each).*/\1 \2 \3/p' \
        "$logs/$1.err" | tail -n 1
}
# record KEY TAG NP: wall, RSS per rank, times and units of a run into R[KEY|...]
record() {
    local key=$1 tag=$2 np=$3 r
    if [ "$RC" -ne 0 ]; then add "$key|fail" "$RC"; return; fi
    add "$key|wall" "$WALL"
    add "$key|rss0" "$(rss_of "$logs/$tag.rank0")"
    [ "$np" -lt 2 ] || add "$key|rss1" "$(rss_of "$logs/$tag.rank1")"
    read -r ph co rq sv pc <<<"$(times_of "$tag")"
    add "$key|phase" "${ph:-}"; add "$key|compute" "${co:-}"; add "$key|req" "${rq:-}"
    add "$key|serve" "${sv:-}"; add "$key|pct" "${pc:-}"
    read -r cp un tg <<<"$(units_of "$tag")"
    add "$key|computed" "${cp:-}"; add "$key|units" "${un:-}"; add "$key|target" "${tg:-}"
    [ -n "${ph:-}" ] && [ -n "${co:-}" ] &&
        add "$key|other" "$(awk -v w="$WALL" -v a="$ph" -v b="$co" 'BEGIN { printf "%.3f", w - a - b }')"
    R[$key|lines]=$(grep -E 'impactsweep: (wrote|stopped|times:)' "$logs/$tag.err" | sed 's/^impactsweep: //')
}
failed() { [ -n "${R[$1|fail]:-}" ] && printf 'FAILED(exit %s)' "${R[$1|fail]}"; }

write_job() { # write_job FILE NX: the synthetic grid, x count NX, y count 1000
    cat >"$1" <<EOF
; bench_scale.sh: a cheap synthetic sweep of $2 x 1000 points
[sweep]
model = synthetic
output = bench_scale.h5
title = bench_scale

[axis.x]
from = 0
to = 1
count = $2

[axis.y]
from = 0
to = 1
count = 1000
EOF
}
write_chatter_job() { # write_chatter_job FILE RHO_COUNT
    cat >"$1" <<EOF
; bench_scale.sh: a cheap chatter sweep of $2 x 1000 points
[sweep]
model = chatter
output = bench_scale_chatter.h5
title = bench_scale chatter

[model]
samples = 1
max_impacts = 1
cone_rounds = 0

[axis.rho]
from = 0.05
to = 1.0
count = $2

[axis.gamma]
from = 0.02
to = 0.9
count = 1000
EOF
}

# reset_second_half FILE: status of the second half of the grid (rows nx/2 .. nx - 1)
# back to 0 (pending), in slices of 16 MiB, and the run state to "interrupted" (a file
# that says it is complete with points pending is damaged); h5py where there is one, else
# h5dump + dd on the contiguous datasets
reset_second_half() {
    if "$PYTHON" -c 'import h5py, numpy' 2>/dev/null; then
        "$PYTHON" - "$1" <<'EOF'
import sys
import h5py
import numpy as np
with h5py.File(sys.argv[1], "r+") as f:
    status = f["status"]
    rows, row = status.shape[0], int(np.prod(status.shape[1:], dtype=np.int64))
    step = max(1, (16 << 20) // max(row, 1))
    zeros = np.zeros((step,) + status.shape[1:], dtype=status.dtype)
    for a in range(rows // 2, rows, step):
        b = min(rows, a + step)
        status[a:b] = zeros[: b - a]
    f["run/state"][()] = np.array(b"interrupted", dtype=f["run/state"].dtype)
EOF
    else
        local off size half
        read -r off size <<<"$(h5dump -p -H -d status "$1" |
            awk '/^ *SIZE [0-9]+$/ { s = $2 } /^ *OFFSET [0-9]+$/ { o = $2 } END { print o, s }')"
        [ -n "$off" ] && [ -n "$size" ] || return 1
        half=$((size / 2)) # rows are whole (C order): half the bytes = half the rows, nx even
        dd if=/dev/zero of="$1" bs=1M iflag=count_bytes oflag=seek_bytes conv=notrunc \
            seek=$((off + half)) count=$((size - half)) status=none
        read -r off size <<<"$(h5dump -p -H -d /run/state "$1" |
            awk '/^ *SIZE [0-9]+$/ { s = $2 } /^ *OFFSET [0-9]+$/ { o = $2 } END { print o, s }')"
        [ -n "$off" ] && [ -n "$size" ] || return 1
        { printf 'interrupted'; head -c $((size - 11)) /dev/zero; } |
            dd of="$1" bs="$size" oflag=seek_bytes conv=notrunc seek="$off" status=none
    fi
}

# writes_run KEY NP BINARY JOB [ARGS...]: a run with the shim in count mode; its log's
# analysis into R[KEY|w_*]
writes_run() {
    local key=$1 np=$2 bin=$3 job=$4
    shift 4
    local tag=${key//|/_}
    local out=$work/$tag.h5 ctr=$work/$tag.ctr flog=$work/$tag.events
    rm -f "$out" "$ctr" "$flog"
    EXTRA_MPI=(-x "LD_PRELOAD=$shim" -x "CRASHPOINT_MATCH=$out" -x "CRASHPOINT_COUNTER=$ctr"
        -x "CRASHPOINT_LOG=$flog")
    launch "$np" "$tag" "$bin" run "$job" --output "$out" --progress lines "$@"
    EXTRA_MPI=()
    record "$key" "$tag" "$np"
    if [ "$RC" -eq 0 ] && [ -f "$flog" ]; then
        local kv
        kv=$("$PYTHON" "$writes_py" "$flog" "$out" --h5 "$out" --histogram)
        for pair in $(head -n 1 <<<"$kv"); do R[$key|w_${pair%%=*}]=${pair#*=}; done
        R[$key|w_hist]=$(sed -n 's/^histogram=//p' <<<"$kv")
    fi
    rm -f "$out" "$ctr" "$flog" "$out.partial"
}

# --- the measurements, one size at a time ----------------------------------------------
say "binaries: $test_bin, $ship_bin; shim $shim; python $PYTHON; parts $parts; sizes ${exps[*]/#/10^}"
for e in "${exps[@]}"; do
    n=$((10 ** e))
    nx=$((n / 1000))
    job=$work/job_$e.ini
    write_job "$job" "$nx"
    whole=$work/whole_$e.h5
    reps=$((e <= 6 ? repeats : 1))
    run=(run "$job" --progress lines)

    # a, b: 1 and 2 ranks, alternating
    if want a || want b; then
        for ((r = 1; r <= reps; r++)); do
            for np in 1 2; do
                rm -f "$whole"
                launch "$np" "ab_${e}_${np}_$r" "$test_bin" "${run[@]}" --output "$whole"
                record "ab|$e|$np" "ab_${e}_${np}_$r" "$np"
                say "10^$e: run $r/$reps on $np rank(s): ${WALL} s (exit $RC)"
            done
        done
    fi
    if { want c || want d || want e; } && [ ! -f "$whole" ]; then
        launch 2 "ref_$e" "$test_bin" "${run[@]}" --output "$whole"
        say "10^$e: reference run: ${WALL} s (exit $RC)"
    fi
    [ -f "$whole" ] && R[size|$e]=$(stat -c %s "$whole")

    # c: resume of a file whose second half is pending
    if want c && [ -f "$whole" ]; then
        for ((r = 1; r <= reps; r++)); do
            for np in 1 2; do
                copy=$work/resume_$e.h5
                rm -f "$copy"
                if ! cp --sparse=never "$whole" "$copy" || ! reset_second_half "$copy"; then
                    say "10^$e: cannot prepare the resume copy"
                    add "c|$e|$np|fail" prep
                    continue
                fi
                launch "$np" "c_${e}_${np}_$r" "$test_bin" "${run[@]}" --output "$copy" --resume
                record "c|$e|$np" "c_${e}_${np}_$r" "$np"
                if [ "$RC" -eq 0 ]; then
                    "$h5compare" "$copy" "$whole" >/dev/null 2>"$logs/c_cmp_${e}_${np}_$r.err"
                    add "c|$e|$np|same" $?
                fi
                say "10^$e: resume $r/$reps on $np rank(s): ${WALL} s (exit $RC)"
                rm -f "$copy"
            done
        done
    fi

    # d: info, serial and on 2 ranks
    if want d && [ -f "$whole" ]; then
        for ((r = 1; r <= reps; r++)); do
            launch 0 "d_${e}_0_$r" "$test_bin" info "$whole"
            record "d|$e|0" "d_${e}_0_$r" 0
            launch 2 "d_${e}_2_$r" "$test_bin" info "$whole"
            record "d|$e|2" "d_${e}_2_$r" 2
        done
        say "10^$e: info: serial $(get "d|$e|0|wall") s, 2 ranks $(get "d|$e|2|wall") s (medians)"
    fi

    # e: 4 pieces and their merge
    if want e && [ -f "$whole" ]; then
        pieces=()
        for i in 0 1 2 3; do
            pf=$work/piece_${e}_$i.h5
            rm -f "$pf"
            launch 2 "e_piece_${e}_$i" "$test_bin" "${run[@]}" --piece "$i/4" --output "$pf"
            record "e|$e|piece$i" "e_piece_${e}_$i" 2
            [ "$RC" -eq 0 ] && R[e|$e|psize$i]=$(stat -c %s "$pf")
            pieces+=("$pf")
        done
        for np in 0 2; do
            merged=$work/merged_$e.h5
            rm -f "$merged"
            launch "$np" "e_merge_${e}_$np" "$test_bin" merge "$merged" "${pieces[@]}"
            record "e|$e|merge$np" "e_merge_${e}_$np" "$np"
            if [ "$RC" -eq 0 ]; then
                "$h5compare" "$merged" "$whole" >/dev/null 2>"$logs/e_cmp_${e}_$np.err"
                R[e|$e|merge$np|same]=$?
            fi
            say "10^$e: merge on $([ "$np" = 0 ] && echo 1 process || echo "$np ranks"): ${WALL} s (exit $RC)"
            rm -f "$merged"
        done
        rm -f "${pieces[@]}"
    fi
    rm -f "$whole"

    # f: writes, 1 and 2 ranks
    if want f; then
        for np in 1 2; do
            writes_run "f|$e|$np" "$np" "$test_bin" "$job"
            say "10^$e: writes on $np rank(s): ${R[f|$e|$np|w_compute_writes]:-?} while computing (${WALL} s)"
        done
    fi
done

# f, continued: the shipped chatter model
if want f && [ "$chatter" != 0 ] && [ -x "$ship_bin" ] && { [ "$chatter" = 1 ] || [ "$max_e" -ge 6 ]; }; then
    cjob6=$work/chatter_6.ini
    write_chatter_job "$cjob6" 1000
    for np in 2 1; do
        writes_run "f|chatter6|$np" "$np" "$ship_bin" "$cjob6"
        R[chatter6|$np|wall]=$WALL
        say "chatter 10^6 on $np rank(s): ${WALL} s, ${R[f|chatter6|$np|w_compute_writes]:-?} writes while computing"
    done
    if [ "$max_e" -ge 7 ] || [ "$chatter" = 1 ]; then
        cjob7=$work/chatter_7.ini
        write_chatter_job "$cjob7" 10000
        for np in 2 1; do
            # the estimate: ten times the whole 10^6 run (start-up included: an upper bound)
            est=$(awk -v w="${R[chatter6|$np|wall]:-1e9}" 'BEGIN { printf "%.1f", 10 * w }')
            R[chatter7|$np|estimate]=$est
            if awk -v e="$est" 'BEGIN { exit !(e <= 120) }'; then
                writes_run "f|chatter7|$np" "$np" "$ship_bin" "$cjob7"
                say "chatter 10^7 on $np rank(s): ${WALL} s (estimated $est s)"
            else
                say "chatter 10^7 on $np rank(s) skipped: estimated $est s > 120 s"
            fi
        done
    fi
fi

# g: rank 0 at 64 oversubscribed ranks
if want g; then
    gjob=$work/job_g.ini
    write_job "$gjob" 1000
    EXTRA_MPI=(--oversubscribe --mca mpi_yield_when_idle 1)
    launch "$g_ranks" g "$test_bin" run "$gjob" --output "$work/g.h5" --progress lines \
        --set model.cost=1e-5 --set sweep.unit_seconds=1
    EXTRA_MPI=()
    record "g" g 1
    say "$g_ranks ranks: ${WALL} s (exit $RC)"
    rm -f "$work/g.h5"
fi
total=$(awk -v a="$started_all" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')

# --- the tables ------------------------------------------------------------------------
echo
echo "bench_scale.sh: synthetic grid x: N/1000 values, y: 1000 values; $(nproc) cores; $(date -u +%FT%TZ)"
echo "binary $test_bin; medians of $repeats runs up to 10^6 points, one run above; sizes in MiB (RSS: peak resident set, /usr/bin/time -v)"
row() { printf '%-8s' "$1"; shift; printf ' %14s' "$@"; echo; }

if want a; then
    echo
    echo "== a. peak RSS (MiB)"
    row N "1 rank" "2r: rank 0" "2r: worker" "file MiB"
    for e in "${exps[@]}"; do
        row "10^$e" "$(failed "ab|$e|1" || mib "$(get "ab|$e|1|rss0")")" \
            "$(failed "ab|$e|2" || mib "$(get "ab|$e|2|rss0")")" "$(mib "$(get "ab|$e|2|rss1")")" \
            "$(fmt "$(awk -v s="${R[size|$e]:-}" 'BEGIN { if (s != "") print s / 1048576 }')" %.1f)"
    done
fi

if want b; then
    echo
    echo "== b. run times (s): wall of the whole mpirun; create/compute/serve as the run prints them; other = wall - create - compute"
    row "N" "ranks" "wall" "create" "compute" "other" "units" "requests" "serve" "serve %" "points/s"
    for e in "${exps[@]}"; do
        for np in 1 2; do
            k="ab|$e|$np"
            if failed "$k" >/dev/null; then row "10^$e" "$np" "$(failed "$k")"; continue; fi
            row "10^$e" "$np" "$(fmt "$(get "$k|wall")" %.3f)" "$(fmt "$(get "$k|phase")" %.3f)" \
                "$(fmt "$(get "$k|compute")" %.3f)" "$(fmt "$(get "$k|other")" %.3f)" \
                "$(get "$k|units")" "$(get "$k|req")" "$(fmt "$(get "$k|serve")" %.4f)" \
                "$(fmt "$(get "$k|pct")" %.2f)" \
                "$(awk -v n=$((10 ** e)) -v c="$(get "$k|compute")" 'BEGIN { if (c > 0) printf "%.3g", n / c; else print "-" }')"
        done
    done
    echo "   the last run's lines on 2 ranks:"
    for e in "${exps[@]}"; do
        [ -n "${R[ab|$e|2|lines]:-}" ] && sed "s/^/   10^$e: /" <<<"${R[ab|$e|2|lines]}"
    done
fi

if want c; then
    echo
    echo "== c. resume of a copy of the complete file with its second half set back to pending"
    row "N" "ranks" "wall s" "resume scan s" "computing s" "computed" "rank 0 MiB" "worker MiB" "same as whole"
    for e in "${exps[@]}"; do
        for np in 1 2; do
            k="c|$e|$np"
            if failed "$k" >/dev/null; then row "10^$e" "$np" "$(failed "$k")"; continue; fi
            same=$(printf '%s\n' ${R[$k|same]:-} | sort -u | tr '\n' ' ')
            row "10^$e" "$np" "$(fmt "$(get "$k|wall")" %.3f)" "$(fmt "$(get "$k|phase")" %.3f)" \
                "$(fmt "$(get "$k|compute")" %.3f)" "$(get "$k|computed")" \
                "$(mib "$(get "$k|rss0")")" "$(mib "$(get "$k|rss1")")" \
                "$(case $same in "0 ") echo yes ;; "") echo - ;; *) echo "NO (h5compare $same)" ;; esac)"
        done
    done
fi

if want d; then
    echo
    echo "== d. info FILE"
    row "N" "serial s" "serial MiB" "2r wall s" "2r rank 0 MiB" "2r worker MiB"
    for e in "${exps[@]}"; do
        row "10^$e" "$(failed "d|$e|0" || fmt "$(get "d|$e|0|wall")" %.3f)" "$(mib "$(get "d|$e|0|rss0")")" \
            "$(failed "d|$e|2" || fmt "$(get "d|$e|2|wall")" %.3f)" "$(mib "$(get "d|$e|2|rss0")")" \
            "$(mib "$(get "d|$e|2|rss1")")"
    done
fi

if want e; then
    echo
    echo "== e. 4 pieces (--piece I/4, 2 ranks each) and their merge"
    echo "   overhead: the whole file's size less 22 bytes per point (metadata, the run log, alignment)"
    row "N" "whole MiB" "overhead MiB" "piece/whole 0" "1" "2" "3" "sum/whole"
    for e in "${exps[@]}"; do
        w=${R[size|$e]:-}
        cols=()
        for i in 0 1 2 3; do cols+=("$(awk -v p="${R[e|$e|psize$i]:-}" -v w="$w" 'BEGIN { if (p != "" && w > 0) printf "%.3f", p / w; else print "-" }')"); done
        row "10^$e" "$(mib "$(awk -v s="$w" 'BEGIN { if (s != "") print s / 1024 }')")" \
            "$(mib "$(awk -v s="$w" -v n=$((10 ** e)) 'BEGIN { if (s != "") print (s - 22 * n) / 1024 }')")" "${cols[@]}" \
            "$(awk -v w="$w" -v a="${R[e|$e|psize0]:-0}" -v b="${R[e|$e|psize1]:-0}" -v c="${R[e|$e|psize2]:-0}" -v d="${R[e|$e|psize3]:-0}" 'BEGIN { if (w > 0) printf "%.3f", (a + b + c + d) / w; else print "-" }')"
    done
    echo
    row "N" "merge on" "wall s" "rank 0 MiB" "rank 1 MiB" "same as whole"
    for e in "${exps[@]}"; do
        for np in 0 2; do
            k="e|$e|merge$np"
            s=${R[$k|same]:-}
            row "10^$e" "$([ $np = 0 ] && echo 1 process || echo "2 ranks")" \
                "$(failed "$k" || fmt "$(get "$k|wall")" %.3f)" "$(mib "$(get "$k|rss0")")" \
                "$(mib "$(get "$k|rss1")")" "$(case $s in 0) echo yes ;; "") echo - ;; *) echo "NO (h5compare $s)" ;; esac)"
        done
    done
fi

if want f; then
    echo
    echo "== f. writes to the result file (libcrashpoint.so, count-only): creation (to .partial) against the computing phase (to the file, after the rename)"
    echo "   compute: every write while computing; data: those inside an output's or status's storage (the rest: state = /run, meta = outside every dataset);"
    echo "   sizes in bytes; aligned = offset % 4096 == 0; small = under 4096 bytes; r0 = written by rank 0"
    row "N" "ranks" "create writes" "compute" "data" "state+meta" "data mean" "data median" "aligned" "small" "r0" "compute MiB" "wall s"
    fkeys=()
    for e in "${exps[@]}"; do fkeys+=("$e"); done
    for c in chatter6 chatter7; do [ -n "${R[f|$c|2|w_compute_writes]:-}${R[f|$c|1|w_compute_writes]:-}" ] && fkeys+=("$c"); done
    for e in "${fkeys[@]}"; do
        for np in 1 2; do
            k="f|$e|$np"
            label=$([[ $e == chatter* ]] && echo "chat10^${e#chatter}" || echo "10^$e")
            if failed "$k" >/dev/null; then row "$label" "$np" "$(failed "$k")"; continue; fi
            [ -n "${R[$k|w_compute_writes]:-}" ] || continue
            row "$label" "$np" "${R[$k|w_creation_writes]}" "${R[$k|w_compute_writes]}" "${R[$k|w_data_writes]}" \
                "$((${R[$k|w_state_writes]:-0} + ${R[$k|w_meta_writes]:-0} + ${R[$k|w_coord_writes]:-0}))" \
                "$(fmt "${R[$k|w_data_mean]/-/}" %.0f)" "$(fmt "${R[$k|w_data_median]/-/}" %.0f)" \
                "${R[$k|w_data_aligned]}/${R[$k|w_data_writes]}" "${R[$k|w_data_small]}" "${R[$k|w_data_rank0]}" \
                "$(mib "$(awk -v b="${R[$k|w_compute_bytes]}" 'BEGIN { print b / 1024 }')")" "$(fmt "$(get "$k|wall")" %.2f)"
        done
    done
    echo "   data write sizes (count per power-of-two class) on 2 ranks:"
    for e in "${fkeys[@]}"; do
        [ -n "${R[f|$e|2|w_hist]:-}" ] && echo "   $e: ${R[f|$e|2|w_hist]}"
    done
    for np in 2 1; do
        [ -n "${R[chatter7|$np|estimate]:-}" ] && [ -z "${R[f|chatter7|$np|w_compute_writes]:-}" ] &&
            echo "   chatter 10^7 on $np rank(s) skipped: estimated ${R[chatter7|$np|estimate]} s (> 120 s)"
    done
fi

if want g; then
    echo
    echo "== g. $g_ranks oversubscribed ranks (mpirun --oversubscribe --mca mpi_yield_when_idle 1), 10^6 points, model.cost=1e-5, sweep.unit_seconds=1"
    if failed g >/dev/null; then echo "   $(failed g)"; else
        row "" "wall s" "create s" "compute s" "units" "requests" "serve s" "serve %" "rank 0 MiB"
        row "" "$(fmt "$(get "g|wall")" %.2f)" "$(fmt "$(get "g|phase")" %.3f)" "$(fmt "$(get "g|compute")" %.3f)" \
            "$(get "g|units")" "$(get "g|req")" "$(fmt "$(get "g|serve")" %.4f)" "$(fmt "$(get "g|pct")" %.2f)" \
            "$(mib "$(get "g|rss0")")"
        sed 's/^/   /' <<<"${R[g|lines]:-}"
    fi
fi

# --- the targets -------------------------------------------------------------------------
echo
echo "== targets"
verdict() { if [ -z "$1" ]; then echo "n/a"; elif [ "$1" = 1 ]; then echo "met"; else echo "missed"; fi; }
lo=${exps[0]}
hi=${exps[-1]}
if want a && [ "$lo" != "$hi" ]; then
    a0=$(get "ab|$lo|2|rss0"); a1=$(get "ab|$hi|2|rss0")
    ok=$([ -n "$a0" ] && [ -n "$a1" ] && awk -v a="$a0" -v b="$a1" 'BEGIN { print (b - a <= 100 * 1024) ? 1 : 0 }')
    printf '%-7s rank-0 RSS (2 ranks) at 10^%s within 100 MiB of 10^%s: %s -> %s MiB (+%s)%s\n' \
        "$(verdict "$ok")" "$hi" "$lo" "$(mib "$a0")" "$(mib "$a1")" \
        "$(mib "$(awk -v a="${a0:-0}" -v b="${a1:-0}" 'BEGIN { print b - a }')")" \
        "$([ "$lo$hi" = 48 ] || echo " (the target is 10^8 against 10^4)")"
    for k in "ab|%s|1|rss0:1-rank run" "c|%s|2|rss0:resume, rank 0" "d|%s|0|rss0:info, serial" "d|%s|2|rss0:info, 2 ranks, rank 0"; do
        fmtk=${k%%:*}; what=${k#*:}
        # shellcheck disable=SC2059
        b0=$(get "$(printf "$fmtk" "$lo")"); b1=$(get "$(printf "$fmtk" "$hi")")
        [ -n "$b0" ] && [ -n "$b1" ] && printf '%-7s %s: %s -> %s MiB from 10^%s to 10^%s\n' "(info)" "$what" "$(mib "$b0")" "$(mib "$b1")" "$lo" "$hi"
    done
else
    echo "n/a     rank-0 RSS growth: needs part a and two sizes"
fi
if want f && [ -n "${R[f|7|1|w_compute_writes]:-}${R[f|7|2|w_compute_writes]:-}" ]; then
    for np in 1 2; do
        w=${R[f|7|$np|w_compute_writes]:-}
        ok=$([ -n "$w" ] && { [ "$w" -lt 5000 ] && echo 1 || echo 0; })
        printf '%-7s a 10^7-point cheap sweep on %s rank(s) in under 5,000 writes while computing: %s (data %s)\n' \
            "$(verdict "$ok")" "$np" "${w:--}" "${R[f|7|$np|w_data_writes]:--}"
    done
else
    echo "n/a     writes of a 10^7-point sweep: needs part f and size 7"
fi
if want e; then
    for e in "${exps[@]}"; do
        w=${R[size|$e]:-}
        mx=$(for i in 0 1 2 3; do echo "${R[e|$e|psize$i]:-}"; done | sort -g | tail -n 1)
        ok=$([ -n "$w" ] && [ -n "$mx" ] && awk -v p="$mx" -v w="$w" 'BEGIN { print (p <= w / 2) ? 1 : 0 }')
        printf '%-7s a quarter piece at most half the whole file at 10^%s: largest piece %s of %s MiB (%s; %s MiB of it beyond 22 bytes per point)\n' \
            "$(verdict "$ok")" "$e" "$(mib "$(awk -v s="${mx:-0}" 'BEGIN { print s / 1024 }')")" \
            "$(mib "$(awk -v s="${w:-0}" 'BEGIN { print s / 1024 }')")" \
            "$(awk -v p="${mx:-0}" -v w="${w:-0}" 'BEGIN { if (w > 0) printf "%.3f", p / w; else print "-" }')" \
            "$(mib "$(awk -v s="${mx:-0}" -v n=$((10 ** e)) 'BEGIN { print (s - 22 * n / 4) / 1024 }')")"
    done
    m=$(get "e|7|merge0|rss0")
    if [ -n "$m" ]; then
        ok=$(awk -v m="$m" 'BEGIN { print (m < 64 * 1024) ? 1 : 0 }')
        printf '%-7s merging 4 pieces of 2.5e6 points in under 64 MiB: %s MiB (1 process), %s s\n' \
            "$(verdict "$ok")" "$(mib "$m")" "$(fmt "$(get "e|7|merge0|wall")" %.2f)"
    else
        echo "n/a     merging 4 pieces of 2.5e6 points: needs size 7"
    fi
fi
echo
echo "bench_scale.sh: done in ${total} s"
