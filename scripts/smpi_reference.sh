#!/usr/bin/env bash
# Regenerates the SimGrid SMPI reference in tests/data/smpi/: builds scripts/smpi/probe.cc with
# smpicxx, writes four flat platforms (every host its own full-duplex link to one crossbar), and
# runs under smpirun, on each platform and under two network models (SMPI's default and an
# ideal alpha-beta network):
#   a ping-pong, 2 ranks, every power of two 1 B - 64 MiB (osu_latency's layout);
#   MPI_Allreduce with SMPI's lr (ring), rdb (recursive doubling) and rab1 (Rabenseifner,
#   powers of two only) on several rank counts, every power of two 4 B - 64 MiB.
# Computation is not simulated (--cfg=smpi/simulate-computation:no): only the network model
# sets the times, none of this machine's CPU time or noise enters them. tests/data/smpi/README.md
# gives the platforms, the command lines and what SimGrid computes.
#
# Usage: scripts/smpi_reference.sh [OUT_DIR] (default tests/data/smpi); JOBS=N runs N
# simulations at once (default 2). Needs smpicxx and smpirun (Debian: simgrid, libsimgrid-dev).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/tests/data/smpi}
jobs=${JOBS:-2}
for tool in smpicxx smpirun; do
  command -v "$tool" >/dev/null || { echo "error: $tool not found (install simgrid and libsimgrid-dev)" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"

smpicxx -std=c++17 -O2 -o "$work/probe" "$root/scripts/smpi/probe.cc"
for i in $(seq 0 63); do echo "node-$i"; done > "$work/hosts.txt"

# platform NAME BANDWIDTH LATENCY: 64 hosts node-0 .. node-63, each with its own link (split
# duplex: up and down are separate links of the bandwidth given), no backbone (a crossbar: a
# route is the source's up link and the destination's down link, so its latency is twice the
# link's). A rank's message to itself goes over a 100 TB/s, zero-latency loopback.
platform() {
  cat > "$out/$1.xml" <<EOF
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="$1" prefix="node-" suffix="" radical="0-63" speed="1Gf" bw="$2" lat="$3"
           sharing_policy="SPLITDUPLEX" loopback_bw="100TBps" loopback_lat="0us"/>
</platform>
EOF
}
platform flat-10g 1.25GBps 10us
platform flat-100g 12.5GBps 1us
platform flat-25g 3.125GBps 2.5us
platform flat-1g 125MBps 50us

common=(--cfg=smpi/simulate-computation:no --cfg=smpi/display-timing:no)
ideal=(--cfg=smpi/lat-factor:0:1 --cfg=smpi/bw-factor:0:1 --cfg=network/crosstraffic:0)

# One simulation: PLATFORM MODEL RANKS ALGORITHM NAME (ALGORITHM "pingpong" for the ping-pong).
simulate() {
  local platform=$1 model=$2 ranks=$3 algorithm=$4 name=$5
  local flags=("${common[@]}" --log=root.thresh:warning)
  [ "$model" = ideal ] && flags+=("${ideal[@]}")
  local file="$work/$platform.$model.$algorithm.$ranks.jsonl"
  local status=0
  if [ "$algorithm" = pingpong ]; then
    smpirun -platform "$out/$platform.xml" -hostfile "$work/hosts.txt" -np 2 "${flags[@]}" \
      "$work/probe" pingpong 1 67108864 > "$file" 2> "$file.log" || status=$?
  else
    smpirun -platform "$out/$platform.xml" -hostfile "$work/hosts.txt" -np "$ranks" "${flags[@]}" \
      "--cfg=smpi/allreduce:$algorithm" "$work/probe" allreduce 4 67108864 "$name" \
      > "$file" 2> "$file.log" || status=$?
  fi
  if [ "$status" -ne 0 ] || ! grep -q '"record":"end","status":"complete"' "$file"; then
    echo "error: smpirun failed ($platform $model $algorithm N=$ranks, status $status):" >&2
    tail -n 20 "$file.log" >&2
    exit 255  # makes xargs stop at once
  fi
  echo "smpi_reference: $platform $model $algorithm N=$ranks: $(grep -c '"record":"[pc]' "$file") records" >&2
}
export -f simulate
export out work
export common_text="${common[*]}" ideal_text="${ideal[*]}"

# The runs, one per line: PLATFORM MODEL RANKS ALGORITHM NAME.
runs() {
  local model platform n
  for platform in flat-10g flat-100g flat-25g flat-1g; do
    for model in default ideal; do
      echo "$platform $model 2 pingpong pingpong"
    done
  done
  for model in default ideal; do
    for n in 2 4 6 8 12 16 32 48 64; do
      echo "flat-10g $model $n lr ring"
      echo "flat-10g $model $n rdb recursive-doubling"
    done
    for n in 2 4 8 16 32 64; do echo "flat-10g $model $n rab1 rabenseifner"; done
    for n in 2 4 8 12 16 32 64; do
      echo "flat-100g $model $n lr ring"
      echo "flat-100g $model $n rdb recursive-doubling"
    done
    for platform in flat-25g flat-1g; do
      for n in 2 4 8 12 16 32; do
        echo "$platform $model $n lr ring"
        echo "$platform $model $n rdb recursive-doubling"
      done
    done
  done
}
# Largest rank counts first, so that the long runs overlap.
runs | sort -k3,3nr | xargs -P "$jobs" -L 1 bash -c 'common=($common_text); ideal=($ideal_text); simulate "$@"' _

# One file per platform, model and algorithm: the first run's envelope, every run's records
# (ascending rank count), one end record.
for f in "$work"/*.jsonl; do
  base=$(basename "$f" .jsonl)
  echo "${base%.*}"
done | sort -u | while read -r group; do
  target="$out/$group.jsonl"
  mapfile -t parts < <(for f in "$work/$group".*.jsonl; do
    n=${f%.jsonl}; echo "${n##*.} $f"; done | sort -n | cut -d' ' -f2-)
  head -n 1 "${parts[0]}" > "$target"
  for p in "${parts[@]}"; do grep '"record":"\(pingpong\|collective\)"' "$p" >> "$target"; done
  records=$(($(wc -l < "$target") - 1))
  echo "{\"record\":\"end\",\"status\":\"complete\",\"records\":$records}" >> "$target"
done
smpirun --version 2>/dev/null | head -n 1 > "$out/simgrid-version.txt"
echo "smpi_reference: wrote $(ls "$out"/*.jsonl | wc -l) files to $out" >&2
