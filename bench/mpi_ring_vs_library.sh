#!/usr/bin/env bash
# Prints, from one scalewall-mpi run, the hand-written ring all-reduce's bus bandwidth over
# the MPI library's own MPI_Allreduce at 4 MiB and 64 MiB with 2 ranks (busbw from the median
# time over both ranks and every timed call, nccl-tests' convention).
#
# Usage: bench/mpi_ring_vs_library.sh [BUILD_DIR]     (default: build)
# Environment: ITERATIONS (timed calls per size, default 20), WARMUP (default 3),
#              MPIRUN_FLAGS (extra launcher flags; Open MPI gets the ones of DESIGN.md).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/mpi_common.sh
mpi_bin "${1:-build}"
# shellcheck disable=SC2086  # MPIRUN_FLAGS is a list of words on purpose
mpi_launcher 2 ${MPIRUN_FLAGS:-}

out=$(mktemp)
trap 'rm -f "$out"' EXIT
"${launcher[@]}" "$bin" collective --op allreduce --algorithm library,ring \
  --sizes 4MiB,64MiB --iterations "${ITERATIONS:-20}" --warmup "${WARMUP:-3}" \
  --out "$out" 2>/dev/null

awk '
  # The value of "key" in a flat JSON object on one line.
  function field(line, key,    rest) {
    rest = line
    if (!sub(".*\"" key "\":", "", rest)) return ""
    if (sub("^\"", "", rest)) sub("\".*", "", rest)
    else sub("[,}].*", "", rest)
    return rest
  }
  NR == 1 { library = field($0, "mpi_library"); next }
  field($0, "record") == "collective" {
    size = field($0, "bytes") + 0
    busbw[field($0, "algorithm"), size] = field($0, "busbw_Bps") + 0
    median[field($0, "algorithm"), size] = field($0, "time_median_s") + 0
    if (!(size in seen)) { seen[size] = 1; sizes[++n] = size }
  }
  field($0, "record") == "end" && field($0, "status") != "complete" {
    print "error: the run failed: " $0 > "/dev/stderr"; failed = 1
  }
  END {
    if (failed || n == 0) exit 1
    printf "MEASUREMENT: hand-written ring all-reduce vs MPI_Allreduce, 2 ranks\n"
    printf "MPI library: %s\n", library
    printf "%10s  %14s  %14s  %14s  %14s  %12s\n", "size", "library time", "ring time",
           "library busbw", "ring busbw", "ring/library"
    for (i = 1; i <= n; ++i) {
      s = sizes[i]
      ratio = busbw["library", s] > 0 ? busbw["ring", s] / busbw["library", s] : 0
      printf "%6.0f MiB  %11.3f ms  %11.3f ms  %9.2f GB/s  %9.2f GB/s  %12.2f\n",
             s / 1048576, median["library", s] * 1e3, median["ring", s] * 1e3,
             busbw["library", s] / 1e9, busbw["ring", s] / 1e9, ratio
    }
  }
' "$out"
