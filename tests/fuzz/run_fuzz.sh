#!/usr/bin/env bash
# run_fuzz.sh: builds the job parser's libFuzzer target (tests/fuzz/fuzz_job.c) with clang
# (ASan + UBSan + libFuzzer) and runs it for a bounded time on a copy of the checked-in
# corpus. Independent of the CMake build: it compiles the parser, the model tables and
# their code directly (no MPI, no HDF5).
#
#   tests/fuzz/run_fuzz.sh [-t SECONDS] [BUILD_DIR] [-- LIBFUZZER_ARGS...]
#       build in BUILD_DIR (default build-fuzz/ at the top of the tree), then fuzz for
#       SECONDS (default 60, or $FUZZ_SECONDS); exits 0 when nothing was found, 1 with
#       the crashing input's path (and its bytes) otherwise
#   tests/fuzz/run_fuzz.sh --build-only [BUILD_DIR]
#   tests/fuzz/run_fuzz.sh --run-inputs FILE... (re-runs inputs, e.g. a crash file or the
#                                                whole corpus, without fuzzing)
#   tests/fuzz/run_fuzz.sh --minimize CRASH_FILE   (smallest input with the same crash)
#   tests/fuzz/run_fuzz.sh --merge DIR...   (minimizes tests/fuzz/corpus plus the inputs in
#                                            DIR... into BUILD_DIR/corpus-merged)
#
# Exit status 77 (ctest's "skipped") when clang cannot build a libFuzzer program
# (Debian: apt-get install clang libclang-rt-14-dev).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
FUZZ_DIR=$ROOT/tests/fuzz
CORPUS=$FUZZ_DIR/corpus
SECONDS_TO_RUN=${FUZZ_SECONDS:-60}
MODE=fuzz
BUILD=""
EXTRA=()
INPUTS=()

while [ $# -gt 0 ]; do
    case $1 in
    -t) SECONDS_TO_RUN=$2; shift 2 ;;
    --build-only) MODE=build; shift ;;
    --run-inputs) MODE=inputs; shift; INPUTS=("$@"); set --; ;;
    --minimize) MODE=minimize; INPUTS=("$2"); shift 2 ;;
    --merge) MODE=merge; shift; INPUTS=("$@"); set --; ;;
    --) shift; EXTRA=("$@"); set --; ;;
    -h | --help) sed -n '2,19p' "$0"; exit 0 ;;
    -*) echo "run_fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) BUILD=$1; shift ;;
    esac
done
BUILD=${BUILD:-$ROOT/build-fuzz}
mkdir -p "$BUILD"
BUILD=$(cd "$BUILD" && pwd)

CC=${FUZZ_CC:-clang}
if ! command -v "$CC" >/dev/null 2>&1; then
    echo "run_fuzz.sh: SKIPPED: $CC not found (Debian: apt-get install clang libclang-rt-14-dev)" >&2
    exit 77
fi
probe=$BUILD/probe
printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' >"$probe.c"
if ! "$CC" -fsanitize=fuzzer,address,undefined "$probe.c" -o "$probe" >"$probe.log" 2>&1; then
    sed 's/^/    /' "$probe.log" >&2
    echo "run_fuzz.sh: SKIPPED: $CC cannot build a libFuzzer program (Debian: apt-get install clang libclang-rt-14-dev)" >&2
    exit 77
fi

# --- build -------------------------------------------------------------------------
SOURCES=("$FUZZ_DIR/fuzz_job.c" "$ROOT"/src/core/job/job*.c "$ROOT/src/core/job/grid.c"
         "$ROOT/src/core/contract/model.c" "$ROOT/src/core/contract/error.c" "$ROOT/src/core/base/rng.c"
         "$ROOT/src/core/base/numtext.c" "$ROOT/src/core/base/suggest.c" "$ROOT/src/core/contract/model_text.c"
         "$ROOT/src/core/contract/model_abi.c"
         "$ROOT/src/core/contract/evaluator.c" "$ROOT/src/core/contract/evaluator_process.c"
         "$ROOT/src/core/contract/plugin.c" "$ROOT/src/core/base/sha256.c" "$ROOT/src/core/contract/conformance.c"
         "$ROOT/src/models/registry.c")
# The models' own code: linked for their tables (the parser checks values against their
# parameter tables, and calls none of their code), built without the sanitizers (clang with
# ASan takes minutes over the lane kernels, where it takes seconds without).
MODEL_SOURCES=("$ROOT"/src/models/*/*.c)
INIH_CFLAGS=$(pkg-config --cflags inih)
INIH_LIBS=$(pkg-config --libs inih)
# the project's flags (C11, no FP contraction) plus the sanitizers; UB is fatal so that
# libFuzzer reports it as a crash
# shellcheck disable=SC2054,SC2206 # commas inside -fsanitize=; pkg-config's flags split
CFLAGS=(-std=c11 -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -Wall -Wextra
        -Wno-missing-field-initializers -ffp-contract=off -g -O1 -fno-omit-frame-pointer
        -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I"$ROOT/src"
        $INIH_CFLAGS)
# src/core's layers: a core file includes another by its name (as CMakeLists.txt's -iquote)
MODEL_CFLAGS=(-std=c11 -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -w -ffp-contract=off -g -O1
              -I"$ROOT/src")
for layer in base contract job store run; do
    CFLAGS+=(-iquote "$ROOT/src/core/$layer")
    MODEL_CFLAGS+=(-iquote "$ROOT/src/core/$layer")
done
FUZZER=$BUILD/fuzz_job
stamp_new=$(printf '%s\n' "${CFLAGS[*]}" "${MODEL_CFLAGS[*]}" "$CC" | cksum | cut -d' ' -f1)
stamp_old=$(cat "$BUILD/flags.stamp" 2>/dev/null || true)
need_build=0
if [ ! -x "$FUZZER" ] || [ "$stamp_new" != "$stamp_old" ] ||
    [ -n "$(find "$ROOT/src" "$FUZZ_DIR/fuzz_job.c" -newer "$FUZZER" \( -name '*.c' -o -name '*.h' \) -print -quit)" ]; then
    need_build=1
fi
if [ "$need_build" = 1 ]; then
    echo "run_fuzz.sh: building $FUZZER"
    mkdir -p "$BUILD/obj"
    rm -f "$BUILD"/obj/*.o
    # shellcheck disable=SC2016 # expanded by the inner sh
    compile() { # SOURCE... | compile CFLAGS...: one object per source, in parallel
        xargs -P "$(nproc)" -I{} sh -c '
            src=$1; shift; root=$1; shift; obj=$1; shift
            name=$(echo "${src#"$root"/}" | tr "/" "_"); exec "$@" -c "$src" -o "$obj/${name%.c}.o"
        ' _ {} "$ROOT" "$BUILD/obj" "$CC" "$@"
    }
    printf '%s\n' "${SOURCES[@]}" | compile "${CFLAGS[@]}"
    printf '%s\n' "${MODEL_SOURCES[@]}" | compile "${MODEL_CFLAGS[@]}"
    # shellcheck disable=SC2086 # pkg-config output is split on purpose
    "$CC" "${CFLAGS[@]}" "$BUILD"/obj/*.o -o "$FUZZER.new" $INIH_LIBS \
        -lsundials_cvode -lsundials_nvecserial -ldl -lm
    mv "$FUZZER.new" "$FUZZER"
    echo "$stamp_new" >"$BUILD/flags.stamp"
fi
[ "$MODE" = build ] && exit 0

# A dictionary of the job language: keys, sections, models, parameter names, values.
DICT=$BUILD/job.dict
{
    for w in '[' ']' '=' ':' ';' '#' '.' ',' '/' ' ' '\x09' '\x0a' '\x0d' '\x00' '\xef\xbb\xbf' \
        '[sweep]' '[model]' '[axis.' 'sweep.' 'model.' 'axis.' \
        model output title unit_size unit_seconds piece progress_interval master_computes \
        from to count scale values linear log auto true false yes off \
        chatter collision stop-oscillator \
        nan inf -inf 1e308 1e-308 0x1p3 1e9 1e12 4294967296 18446744073709551616 \
        rho gamma n samples max_impacts perturbation seed A alpha atol beta c cvode_method \
        epsilon form integrator k k12 law m max_rebounds max_steps p pi1 pi1b pi2 pi2b pi3 \
        pi3b rtol s t_end t_max v0 v1_0 v2_0 x1_0 x2_0 bwshc bwm hooke hertz kelvin-voigt \
        hunt-crossley maxwell nondimensional velocity dimensional cvode dopri5 adams bdf \
        exact; do
        printf '"%s"\n' "$w"
    done
} >"$DICT"

# our own settings, not the caller's (scripts/sanitize-tests.sh sends reports to files)
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
unset LSAN_OPTIONS
ARTIFACTS=$BUILD/artifacts
mkdir -p "$ARTIFACTS"

show_input() {
    local f=$1
    echo "  $f ($(wc -c <"$f") bytes; NUL separates the job text and each --set override):"
    od -c -A d "$f" | head -n 40 | sed 's/^/    /'
}

case $MODE in
inputs)
    status=0
    "$FUZZER" -timeout=5 -rss_limit_mb=2048 "${EXTRA[@]}" "${INPUTS[@]}" || status=$?
    [ "$status" -eq 0 ] || exit 1 # libFuzzer's own status is 77 for a crash: not "skipped"
    exit 0
    ;;
minimize)
    out=$BUILD/minimized-$(basename "${INPUTS[0]}")
    "$FUZZER" -minimize_crash=1 -runs=20000 -timeout=5 -exact_artifact_path="$out" \
        "${INPUTS[0]}" >"$BUILD/minimize.log" 2>&1 || true
    [ -f "$out" ] || { tail -n 20 "$BUILD/minimize.log" >&2; exit 1; }
    echo "run_fuzz.sh: minimized input:"
    show_input "$out"
    exit 0
    ;;
merge)
    rm -rf "$BUILD/corpus-merged"
    mkdir -p "$BUILD/corpus-merged"
    "$FUZZER" -merge=1 -use_counters=0 -timeout=5 -rss_limit_mb=2048 "$BUILD/corpus-merged" "$CORPUS" \
        "${INPUTS[@]}"
    echo "run_fuzz.sh: merged corpus in $BUILD/corpus-merged ($(find "$BUILD/corpus-merged" -type f | wc -l) files, $(du -sh "$BUILD/corpus-merged" | cut -f1)); replace tests/fuzz/corpus with it"
    exit 0
    ;;
esac

# --- fuzz, on a copy of the corpus (new inputs stay in the build directory) -------------
WORK_CORPUS=$BUILD/corpus
rm -rf "$WORK_CORPUS"
mkdir -p "$WORK_CORPUS"
cp "$CORPUS"/* "$WORK_CORPUS"/
rm -f "$ARTIFACTS"/crash-* "$ARTIFACTS"/leak-* "$ARTIFACTS"/timeout-* "$ARTIFACTS"/oom-* \
    "$ARTIFACTS"/slow-unit-*
echo "run_fuzz.sh: fuzzing for ${SECONDS_TO_RUN} s ($(find "$CORPUS" -type f | wc -l) seed inputs; log $BUILD/fuzz.log)"
status=0
"$FUZZER" -max_total_time="$SECONDS_TO_RUN" -timeout=5 -rss_limit_mb=2048 -max_len=65536 \
    -dict="$DICT" -artifact_prefix="$ARTIFACTS/" -print_final_stats=1 "${EXTRA[@]}" \
    "$WORK_CORPUS" >"$BUILD/fuzz.log" 2>&1 || status=$?
grep -E '^#[0-9]+.*(DONE|pulse)|^stat::(number_of_executed_units|peak_rss_mb)' "$BUILD/fuzz.log" |
    tail -n 4 | sed 's/^/  /'
found=$(find "$ARTIFACTS" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o \
    -name 'timeout-*' -o -name 'oom-*' \) | sort)
if [ "$status" -ne 0 ] || [ -n "$found" ]; then
    echo "run_fuzz.sh: FAIL: the fuzzer stopped with exit status $status" >&2
    grep -E -A3 'fuzz_job: property violated|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:' \
        "$BUILD/fuzz.log" | head -n 30 | sed 's/^/  /' >&2
    for f in $found; do
        echo "run_fuzz.sh: crashing input: $f" >&2
        show_input "$f" >&2
    done
    echo "run_fuzz.sh: full log: $BUILD/fuzz.log; reproduce: $FUZZER FILE; minimize: $0 --minimize FILE" >&2
    exit 1
fi
echo "run_fuzz.sh: PASS: no crash in ${SECONDS_TO_RUN} s"
