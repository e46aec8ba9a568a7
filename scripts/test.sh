#!/usr/bin/env bash
# test.sh: one command from a fresh Debian machine to a passing test suite: installs what
# is missing, builds, and runs every test (CUnit suites, MPI and command-line integration
# tests) through ctest, as many at once as there are cores (tests that time stops run
# alone: RUN_SERIAL in tests/CMakeLists.txt). .ci/run calls exactly this. The developer's
# loop is the quick tier: ctest --test-dir build -L quick -j2.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
ctest --test-dir "$IMPACTSWEEP_BUILD" --output-on-failure --timeout 900 -j "$(nproc)" "$@"
