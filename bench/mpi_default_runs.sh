#!/usr/bin/env bash
# Times each scalewall-mpi mode's default run (no flags) with 4 ranks, oversubscribed, and
# prints the seconds against the 10-second target. Run it on a quiet machine: the time
# includes the launcher's start-up and depends on what else the cores are doing.
#
# Usage: bench/mpi_default_runs.sh [BUILD_DIR]     (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
bin="$build/scalewall-mpi"
if [ ! -x "$bin" ]; then
  echo "error: $bin not found; build it first: cmake --build $build --target scalewall-mpi" >&2
  exit 2
fi
launcher=(mpirun)
if mpirun --version 2>/dev/null | grep -q "Open MPI"; then
  launcher+=(--allow-run-as-root --oversubscribe --mca btl self,vader)
fi
launcher+=(-np 4)
printf '%-12s %10s  %s\n' mode seconds "target 10 s"
for mode in pingpong collective arrival step; do
  start=$(date +%s.%N)
  "${launcher[@]}" "$bin" "$mode" >/dev/null 2>&1
  end=$(date +%s.%N)
  secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
  verdict=$(awk -v s="$secs" 'BEGIN { print (s < 10 ? "within" : "OVER") }')
  printf '%-12s %10s  %s\n' "$mode" "$secs" "$verdict"
done
