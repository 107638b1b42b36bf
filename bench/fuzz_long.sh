#!/usr/bin/env bash
# The long fuzzing run: every fuzz target (tests/fuzz) for SECONDS each (default 600), one
# after the other, then the executions per target. New corpus inputs stay in
# build-fuzz/fuzz-work/TARGET, findings in build-fuzz/fuzz-artifacts/TARGET.
#
#   bench/fuzz_long.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-600}"
[ $# -gt 0 ] && shift
exec bash scripts/fuzz.sh long "$seconds" "$@"
