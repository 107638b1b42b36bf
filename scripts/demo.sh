#!/usr/bin/env bash
# Installs what is needed, builds scalewall, and runs its main job on the built-in examples:
# a tour of the four labs of the scaling-limits module (Amdahl and Gustafson, the message-size
# crossover, collective algorithm selection, and straggler amplification).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)

bash scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$jobs" --target scalewall_cli >/dev/null

sw=./build/scalewall
run() {
  echo
  echo "\$ scalewall $*"
  "$sw" "$@"
}

echo "== Lab 1: efficiency, not speedup (serial fraction 2%, up to 1024 ranks)"
run scaling --serial-fraction 0.02 --ranks 1024
echo
echo "== Lab 2: where the message-size crossover sits (an RDMA-class link, then 1 GbE-class)"
run message --alpha 2.5us --bandwidth 25GB/s
run message --alpha 30us --bandwidth 0.125GB/s
echo
echo "== Lab 3: collective algorithm selection at 64 ranks (4 KB, then 1 GiB)"
run collective --ranks 64 --bytes 4096
run collective --ranks 64 --bytes 1GiB
echo
echo "== Straggler drill: the slowest of N ranks at 2% jitter"
run straggler --ranks 8,64,1024,16384 --sigma 0.02 --method both --seed 42
