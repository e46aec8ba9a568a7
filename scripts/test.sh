#!/usr/bin/env bash
# test.sh: one command from a fresh Debian machine to a passing test suite: installs what
# is missing, builds, and runs every test (CUnit suites, MPI and command-line integration
# tests) through ctest. .ci/run calls exactly this.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
ctest --test-dir "$IMPACTSWEEP_BUILD" --output-on-failure --timeout 900 "$@"
