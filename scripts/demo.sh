#!/usr/bin/env bash
# Installs what is needed, builds scalewall, and runs its main job on the built-in examples:
# the scaling curve and capacity plan of the seed's worked example (7B parameters, bf16
# gradients, 50 GB/s), what each remedy buys, then a tour of the four labs of the
# scaling-limits module (Amdahl and Gustafson, the message-size crossover, collective
# algorithm selection, straggler amplification).
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

echo "== The main job: where the seed's worked example stops scaling, and why"
run predict examples/seed-7b-bf16.toml --ranks 8,64,512
run plan examples/seed-7b-bf16.toml --ranks 512
echo
echo "== What each remedy buys for a bandwidth-bound job at 64 ranks"
run predict examples/bandwidth-bound-1.3b-100gbe.toml --what-if --at 64
echo
echo "== The interview question: 94% at 128 ranks, 61% at 1024. What could explain it?"
run plan --observed 128:94%,1024:61%
echo
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
