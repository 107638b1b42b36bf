#!/usr/bin/env bash
# Installs what is needed, builds, and runs every test: the unit and end-to-end tests in a
# release build, then the same tests again under AddressSanitizer and UBSan, then the fuzz
# targets over their saved inputs and a fixed number of seeded executions each (scripts/fuzz.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)

bash scripts/setup.sh

# The release build is the one a user makes (Release, -O3), with warnings as errors; its tests
# include install_package: install, then build tests/consumer against the installed package.
echo "== release build and tests" >&2
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSCALEWALL_WERROR=ON >/dev/null
cmake --build build -j "$jobs"
ctest --test-dir build --output-on-failure -j "$jobs"

echo "== sanitizer build (ASan + UBSan) and tests" >&2
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DSCALEWALL_SANITIZE=ON -DSCALEWALL_WERROR=ON \
  -DSCALEWALL_BUILD_BENCH=OFF >/dev/null
cmake --build build-asan -j "$jobs"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j "$jobs"

echo "== fuzz targets (clang, libFuzzer): saved inputs, then 20000 seeded executions each" >&2
bash scripts/fuzz.sh regress 20000
