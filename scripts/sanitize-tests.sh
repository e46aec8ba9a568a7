#!/usr/bin/env bash
# sanitize-tests.sh: builds impactsweep with AddressSanitizer + UndefinedBehaviorSanitizer
# (IMPACTSWEEP_SANITIZE=ON) in build-sanitize/ and runs the CUnit suites and the
# integration tests under them; leaks are reported by LeakSanitizer, less the Open MPI /
# PMIx / hwloc / libevent internals listed in tests/sanitize/lsan.supp.
#
#   scripts/sanitize-tests.sh [CTEST_ARGS...]     e.g. -R unit  or  -R integration.cli
#
# Left out: integration.crash (its LD_PRELOAD shim and the sanitizers' runtime do not
# mix) and the Slurm tests (label slurm). Every sanitizer report also goes to a file in
# build-sanitize/sanitizer-reports/ (ASAN_OPTIONS log_path), listed at the end; the
# script fails when a test fails or any report was written. Exit statuses of a sanitized
# process: 86 a memory error (ASan), 87 a leak (LSan), 88 undefined behaviour (UBSan).
# Installs and builds the normal tree first through setup.sh (a no-op when up to date).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# setup.sh: the Debian packages (when missing), build/, and Open MPI's run-as-root consent
source "$ROOT/scripts/setup.sh"
BUILD=${IMPACTSWEEP_SANITIZE_BUILD:-$ROOT/build-sanitize}
REPORTS=$BUILD/sanitizer-reports
SUPP=$ROOT/tests/sanitize/lsan.supp

t0=$(date +%s)
cmake -S "$ROOT" -B "$BUILD" -DIMPACTSWEEP_SANITIZE=ON -DIMPACTSWEEP_NATIVE=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
# only what the tests run (not the benchmarks)
cmake --build "$BUILD" -j "$(nproc)" --target impactsweep impactsweep-test unit_tests \
    h5compare crashpoint
t1=$(date +%s)

rm -rf "$REPORTS"
mkdir -p "$REPORTS"
# fast_unwind_on_malloc=0: Open MPI's libraries and plugins are built without frame
# pointers, so only the slow unwinder reaches the library frames that lsan.supp names
# (with the fast one their leaks show as "<unknown module>" and cannot be suppressed).
export ASAN_OPTIONS="detect_leaks=1:fast_unwind_on_malloc=0:malloc_context_size=30:exitcode=86:log_path=$REPORTS/asan:log_exe_name=1:strict_string_checks=1:detect_invalid_pointer_pairs=0:check_initialization_order=1"
export LSAN_OPTIONS="suppressions=$SUPP:print_suppressions=0:exitcode=87"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=88:log_path=$REPORTS/ubsan:log_exe_name=1"
# mpiexec starts the local ranks with its own environment; -x also hands these to ranks
# on other nodes (ctest passes MPIEXEC_FLAGS to the tests where tests/CMakeLists.txt
# takes it from the environment)
export MPIEXEC_FLAGS="--oversubscribe -x ASAN_OPTIONS -x LSAN_OPTIONS -x UBSAN_OPTIONS"

status=0
ctest --test-dir "$BUILD" --output-on-failure --timeout 900 -LE slurm \
    -E '^integration\.crash$' "$@" || status=$?
t2=$(date +%s)

reports=$(find "$REPORTS" -type f | sort)
if [ -n "$reports" ]; then
    echo "sanitize-tests: sanitizer reports:" >&2
    for f in $reports; do
        echo "=== $f" >&2
        cat "$f" >&2
    done
    status=1
fi
echo "sanitize-tests: build $((t1 - t0)) s, tests $((t2 - t1)) s"
if [ "$status" -eq 0 ]; then
    echo "sanitize-tests: PASS (no test failed, no sanitizer report)"
else
    echo "sanitize-tests: FAIL" >&2
fi
exit "$status"
