#!/usr/bin/env bash
# Times each scalewall-mpi mode's default run (no flags) with 4 ranks, oversubscribed, and
# prints the seconds against the 10-second target. Run it on a quiet machine: the time
# includes the launcher's start-up and depends on what else the cores are doing.
#
# Usage: bench/mpi_default_runs.sh [BUILD_DIR]     (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/mpi_common.sh
mpi_bin "${1:-build}"
mpi_launcher 4
printf '%-12s %10s  %s\n' mode seconds "target 10 s"
for mode in pingpong collective arrival step; do
  start=$(date +%s.%N)
  "${launcher[@]}" "$bin" "$mode" >/dev/null 2>&1
  end=$(date +%s.%N)
  secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
  verdict=$(awk -v s="$secs" 'BEGIN { print (s < 10 ? "within" : "OVER") }')
  printf '%-12s %10s  %s\n' "$mode" "$secs" "$verdict"
done
